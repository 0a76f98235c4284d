func.func @f(%b: tensor<8xf32>) {
  %0 = "comm.unpack"(%b) <{offsets = array<i64: 0, 4>}> : (tensor<8xf32>) -> tensor<4xf32>
  return
}
