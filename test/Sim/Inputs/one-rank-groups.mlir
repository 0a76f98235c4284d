// An all_reduce over groups of one rank: each rank copies 4 MiB in its
// HBM, launched as a copy (it was charged an algorithm's base latency).
module attributes {comm.world_size = 8 : i64} {
  func.func @f(%x: tensor<1048576xf32>) -> tensor<1048576xf32> {
    %0 = comm.all_reduce sum %x over [[0], [1], [2], [3], [4], [5], [6], [7]] : tensor<1048576xf32>
    return %0 : tensor<1048576xf32>
  }
}
