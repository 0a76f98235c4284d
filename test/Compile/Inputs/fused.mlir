// Three gradients fused into one buffer: one all_reduce instead of three
// (what comm-fuse produces). Checked against fused.ref.mlir.
func.func @grads(%a: tensor<64xf32>, %b: tensor<8x16xf32>, %c: tensor<3xf32>)
    -> (tensor<64xf32>, tensor<8x16xf32>, tensor<3xf32>) {
  %p = comm.pack %a, %b, %c offsets [0, 64, 192] : tensor<64xf32>, tensor<8x16xf32>, tensor<3xf32> -> tensor<195xf32>
  %r = comm.all_reduce sum %p over [[0, 1, 2, 3]] : tensor<195xf32>
  %x, %y, %z = comm.unpack %r offsets [0, 64, 192] : tensor<195xf32> -> tensor<64xf32>, tensor<8x16xf32>, tensor<3xf32>
  return %x, %y, %z : tensor<64xf32>, tensor<8x16xf32>, tensor<3xf32>
}
