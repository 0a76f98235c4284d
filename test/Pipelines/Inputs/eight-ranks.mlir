module attributes {comm.world_size = 8 : i64} {
  func.func @step(%x: tensor<1024xf32>) -> tensor<1024xf32> {
    %0 = comm.all_reduce sum %x over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<1024xf32>
    return %0 : tensor<1024xf32>
  }
}
