func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = comm.all_reduce sum %x over [[0, 1]] : tensor<8xf32>
  return %0 : tensor<8xf32>
}
