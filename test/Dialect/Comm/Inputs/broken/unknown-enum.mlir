func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = comm.all_reduce mean %x over [[0, 1]] : tensor<4xf32>
  return %0 : tensor<4xf32>
}
