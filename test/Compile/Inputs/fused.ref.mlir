// The unfused program of fused.mlir: one all_reduce per gradient.
func.func @grads(%a: tensor<64xf32>, %b: tensor<8x16xf32>, %c: tensor<3xf32>)
    -> (tensor<64xf32>, tensor<8x16xf32>, tensor<3xf32>) {
  %x = comm.all_reduce sum %a over [[0, 1, 2, 3]] : tensor<64xf32>
  %y = comm.all_reduce sum %b over [[0, 1, 2, 3]] : tensor<8x16xf32>
  %z = comm.all_reduce sum %c over [[0, 1, 2, 3]] : tensor<3xf32>
  return %x, %y, %z : tensor<64xf32>, tensor<8x16xf32>, tensor<3xf32>
}
