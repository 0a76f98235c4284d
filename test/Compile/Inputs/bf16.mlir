// Reduced precision (what comm-reduce-precision produces): the data
// travels and is reduced as bf16 or f16, then converted back. Checked
// against the same program in f32 within the bf16 tolerance.
func.func @halves(%x: tensor<4096xf32>, %a: tensor<100xf32>, %b: tensor<28xf32>)
    -> (tensor<4096xf32>, tensor<100xf32>, tensor<28xf32>, tensor<4096xf32>) {
  %0 = comm.all_reduce sum %x over [[0, 1, 2, 3]] plan <precision = bf16> : tensor<4096xf32>
  %p = comm.pack %a, %b offsets [0, 100] : tensor<100xf32>, tensor<28xf32> -> tensor<128xf32>
  %r = comm.all_reduce sum %p over [[0, 1, 2, 3]] plan <precision = bf16> : tensor<128xf32>
  %u, %v = comm.unpack %r offsets [0, 100] : tensor<128xf32> -> tensor<100xf32>, tensor<28xf32>
  %1 = comm.all_reduce sum %x over [[0, 1], [2, 3]] plan <precision = f16> : tensor<4096xf32>
  return %0, %u, %v, %1 : tensor<4096xf32>, tensor<100xf32>, tensor<28xf32>, tensor<4096xf32>
}
