module attributes {comm.world_size = 4 : i64} {
  func.func @f(%x: tensor<1048576xf32>) -> tensor<1048576xf32> {
    %a = comm.all_reduce sum %x over [[0, 1, 2, 3]] : tensor<1048576xf32>
    return %a : tensor<1048576xf32>
  }
}
