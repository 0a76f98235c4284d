// What the generated CUDA kernels carry: packs that convert f32 into bf16
// and f16 buffers and unpacks that convert back, a same-type pack, and a
// local reduction in bf16 (accumulated in f32) of a point-to-point step.
// test/Compile/cuda.test checks that exactly these kernels are compiled.
func.func @kernels(%a: tensor<100xf32>, %b: tensor<28xf32>, %c: tensor<64xbf16>, %d: tensor<16xi32>)
    -> (tensor<100xf32>, tensor<28xf32>, tensor<100xf32>, tensor<64xbf16>, tensor<32xi32>) {
  %p = comm.pack %a, %b offsets [0, 100] : tensor<100xf32>, tensor<28xf32> -> tensor<128xbf16>
  %r = comm.all_reduce sum %p over [[0, 1, 2, 3]] : tensor<128xbf16>
  %u, %v = comm.unpack %r offsets [0, 100] : tensor<128xbf16> -> tensor<100xf32>, tensor<28xf32>
  %h = comm.pack %a offsets [0] : tensor<100xf32> -> tensor<100xf16>
  %hr = comm.all_reduce max %h over [[0, 1, 2, 3]] : tensor<100xf16>
  %hu = comm.unpack %hr offsets [0] : tensor<100xf16> -> tensor<100xf32>
  comm.send %c to [[0, 1], [1, 2], [2, 3], [3, 0]] tag 0 : tensor<64xbf16>
  %rc = comm.recv from [[0, 1], [1, 2], [2, 3], [3, 0]] tag 0 : tensor<64xbf16>
  %s = arith.addf %c, %rc : tensor<64xbf16>
  %i = comm.pack %d, %d offsets [0, 16] : tensor<16xi32>, tensor<16xi32> -> tensor<32xi32>
  return %u, %v, %hu, %s, %i : tensor<100xf32>, tensor<28xf32>, tensor<100xf32>, tensor<64xbf16>, tensor<32xi32>
}
