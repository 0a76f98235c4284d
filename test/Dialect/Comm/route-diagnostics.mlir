// RUN: comm-opt %s --split-input-file --comm-route="topology=dgx-h100x2" -verify-diagnostics -o /dev/null

// A route written by hand that NCCL would not take: NCCL chooses its
// transport itself, NVLink between GPUs of one DGX.
module attributes {comm.world_size = 16 : i64} {
  func.func @nccl_wrong_route(%x: tensor<64xf32>) {
    // expected-error @+1 {{comm-route: plan route 'pcie' of comm.send is not the one NCCL takes: rank 0 -> rank 1 goes by 'nvlink' (the path is NVS (NVLink through an NVSwitch)), and NCCL chooses its transport itself; remove the route or use the verbs backend}}
    comm.send %x to [[0, 1]] tag 1 plan <route = pcie> : tensor<64xf32>
    return
  }
}

// -----

// The farthest pair sets the route: across the network with GPUDirect RDMA.
module attributes {comm.world_size = 16 : i64} {
  func.func @nccl_farthest(%x: tensor<64xf32>) -> tensor<64xf32> {
    // expected-error @+1 {{comm-route: plan route 'nvlink' of comm.permute is not the one NCCL takes: rank 1 -> rank 9 goes by 'gdr' (the path is NET (across the network), with GPUDirect RDMA at both ends)}}
    %0 = comm.permute %x pairs [[0, 1], [1, 9], [9, 0]] plan <route = nvlink> : tensor<64xf32>
    return %0 : tensor<64xf32>
  }
}

// -----

// A rank the topology has no GPU for, in a program that declares no world.
module {
  func.func @rank_outside(%x: tensor<64xf32>) {
    // expected-error @+1 {{comm-route: rank 20 is not a GPU of the 16-GPU topology}}
    comm.send %x to [[0, 20]] tag 1 : tensor<64xf32>
    return
  }
}

// -----

// A world larger than the topology is refused before any rank is routed.
// expected-error @+1 {{comm.world_size is 32 but topology 'dgx-h100x2' has 16 GPUs; for 32 ranks use 'dgx-h100x4'}}
module attributes {comm.world_size = 32 : i64} {
  func.func @world_outside(%x: tensor<64xf32>) {
    comm.send %x to [[0, 20]] tag 1 : tensor<64xf32>
    return
  }
}
