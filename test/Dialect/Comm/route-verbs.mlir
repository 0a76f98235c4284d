// RUN: comm-opt %s --comm-route="topology=dgx-h100 backend=verbs explain" 2>&1 | FileCheck %s

// On verbs a route written by hand that the hardware offers is kept: here
// host staging although the GPUs could use GPUDirect RDMA. It is staged.
module attributes {comm.world_size = 8 : i64} {
  func.func @written(%x: tensor<64xf32>) {
    comm.send %x to [[0, 1]] tag 3 plan <route = host_staged> : tensor<64xf32>
    return
  }
}

// CHECK: remark: comm-route: kept route host_staged (farthest pair rank 0 -> rank 1: the verbs backend moves data through the NIC, and both GPUs' NICs can reach their memory (GPUDirect RDMA))
// CHECK: %[[W:.*]] = comm.copy %arg0 hbm to pinned_host
// CHECK: comm.send %[[W]] to {{\[\[}}0, 1]] tag 3 plan <route = host_staged>
