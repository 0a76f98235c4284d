func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = comm.all_reduce sum %x over [[0, 99999999999999999999999999]] : tensor<4xf32>
  return %0 : tensor<4xf32>
}
