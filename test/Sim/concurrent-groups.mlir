// The replica groups of one op run at once and share the links their
// transfers cross. On pcie-4gpu the pairs [0, 2] and [1, 3] both cross the
// one 10 GB/s link between the two CPUs: the cost model predicts the op at
// the rate the two pairs leave each other (26.9 ms for 128 MiB), as the
// simulator's flow network plays it, and not at one pair's rate alone
// (15.8 ms, what it predicted before). A single pair keeps its rate, and
// pairs that share no link (one inside each socket) do too.

// RUN: comm-opt %s --comm-select-algorithm=explain -verify-diagnostics -o /dev/null
// RUN: comm-sim run %s --topology pcie-4gpu | FileCheck %s --check-prefix=SIM
// SIM: step time 26886.15 us

module attributes {comm.world_size = 4 : i64, comm.topology = "pcie-4gpu"} {
  func.func @across_sockets(%a: tensor<33554432xf32>) -> tensor<33554432xf32> {
    // expected-remark @+1 {{comm-select-algorithm: direct/simple 26880.75 us on the nccl backend}}
    %b = comm.all_reduce sum %a over [[0, 2], [1, 3]] : tensor<33554432xf32>
    return %b : tensor<33554432xf32>
  }
  func.func private @one_pair(%a: tensor<33554432xf32>) -> tensor<33554432xf32> {
    // expected-remark @+1 {{comm-select-algorithm: direct/simple 15827.53 us on the nccl backend}}
    %b = comm.all_reduce sum %a over [[0, 2]] : tensor<33554432xf32>
    return %b : tensor<33554432xf32>
  }
  func.func private @inside_sockets(%a: tensor<33554432xf32>) -> tensor<33554432xf32> {
    // expected-remark @+1 {{comm-select-algorithm: direct/simple 6616.51 us on the nccl backend (bound 5592.91 us, 85% of it); limited by each GPU's own link}}
    %b = comm.all_reduce sum %a over [[0, 1], [2, 3]] : tensor<33554432xf32>
    return %b : tensor<33554432xf32>
  }
}
