module attributes {comm.world_size = 2 : i64} {
  func.func @f(%x: tensor<64xf32>) -> tensor<64xf32> {
    %a = comm.all_reduce sum %x over [[0, 1]] : tensor<64xf32>
    return %a : tensor<64xf32>
  }
}
