module {
  func.func @f(%x: tensor<1024xf32>) -> tensor<1024xf32> {
    %0 = comm.all_reduce sum %x over [[0, 1]] : tensor<1024xf32>
    return %0 : tensor<1024xf32>
  }
}
