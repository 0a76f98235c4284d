func.func @f(%t: !comm.token) -> tensor<4xf32> {
  %0 = comm.all_reduce sum %t over [[0, 1]] : tensor<4xf32>
  return %0 : tensor<4xf32>
}
