// A planned tree all_reduce and broadcast (root at position 3): the
// runtime's binomial trees, one phase per level in the simulator.
module attributes {comm.topology = "dgx-h100", comm.world_size = 8 : i64} {
  func.func @f(%x: tensor<16777216xf32>, %y: tensor<16384xf32>) -> (tensor<16777216xf32>, tensor<16384xf32>) {
    %0 = comm.all_reduce sum %x over [[0, 1, 2, 3, 4, 5, 6, 7]] plan <algorithm = tree> : tensor<16777216xf32>
    %1 = comm.broadcast %y over [[0, 1, 2, 3, 4, 5, 6, 7]] root 3 plan <algorithm = tree> : tensor<16384xf32>
    return %0, %1 : tensor<16777216xf32>, tensor<16384xf32>
  }
}
