func.func @g(%x: tensor<64xf32>) -> tensor<64xf32> {
  return %x : tensor<64xf32>
}
