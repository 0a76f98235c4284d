// RUN: comm-opt %s --split-input-file --comm-route="topology=pcie-4gpu backend=verbs" -verify-diagnostics -o /dev/null

// The verbs backend moves every byte through the NIC: it cannot take an
// NVLink or PCIe peer-to-peer route, with or without a topology (the
// lowering pipeline's comm-route checks it too).
module attributes {comm.world_size = 4 : i64} {
  func.func @verbs_nvlink(%x: tensor<64xf32>) {
    // expected-error @+1 {{plan route 'nvlink' of comm.send is not realized on the verbs backend, which moves data through the NIC (expected gdr or host_staged)}}
    comm.send %x to [[0, 1]] tag 1 plan <route = nvlink> : tensor<64xf32>
    return
  }
}

// -----

// GPUDirect RDMA written for a GPU whose NIC cannot reach its memory
// (gpu2 of pcie-4gpu sits under the other socket's PCIe switch).
module attributes {comm.world_size = 4 : i64} {
  func.func @verbs_no_gdr(%x: tensor<64xf32>) -> tensor<64xf32> {
    // expected-error @+1 {{comm-route: plan route 'gdr' of comm.recv cannot carry rank 1 -> rank 2: the verbs backend moves data through the NIC, and gpu2's cannot reach its memory (no GPUDirect RDMA) (expected 'host_staged')}}
    %0 = comm.recv from [[0, 1], [1, 2]] tag 1 plan <route = gdr> : tensor<64xf32>
    return %0 : tensor<64xf32>
  }
}
