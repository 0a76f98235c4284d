func.func @shift(%x: tensor<16x4xi64>, %y: tensor<7xf64>) -> (tensor<16x4xi64>, tensor<7xf64>) {
  %a = comm.permute %x pairs [[0, 1], [1, 2], [2, 3], [3, 0]] : tensor<16x4xi64>
  %b = comm.permute %y pairs [[0, 3], [3, 2], [2, 1], [1, 0]] : tensor<7xf64>
  return %a, %b : tensor<16x4xi64>, tensor<7xf64>
}

func.func @relay(%x: tensor<5x3xi32>) -> tensor<5x3xi32> {
  %c = comm.permute %x pairs [[0, 3]] : tensor<5x3xi32>
  return %c : tensor<5x3xi32>
}
