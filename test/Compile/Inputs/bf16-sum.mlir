// A bf16 sum over 4 ranks: harness.test checks its decomposition into
// sends and local sums against it.
module attributes {comm.world_size = 4 : i64} {
  func.func @f(%d: tensor<64xbf16>) -> tensor<64xbf16> {
    %0 = comm.all_reduce sum %d over [[0, 1, 2, 3]] : tensor<64xbf16>
    return %0 : tensor<64xbf16>
  }
}
