// A one-rank program for the GPU integration test: a one-rank NCCL
// communicator, the generated pack/unpack kernels with f32 -> bf16
// conversion, the combine kernel, and copies between HBM and host.
func.func @kernels(%a: tensor<1000xf32>, %b: tensor<24x8xf32>, %c: tensor<4096xbf16>)
    -> (tensor<1000xf32>, tensor<24x8xf32>, tensor<4096xbf16>, tensor<1000xf32>, tensor<4096xbf16>) {
  %p = comm.pack %a, %b offsets [0, 1000] : tensor<1000xf32>, tensor<24x8xf32> -> tensor<1192xbf16>
  %r = comm.all_reduce sum %p over [[0]] : tensor<1192xbf16>
  %x, %y = comm.unpack %r offsets [0, 1000] : tensor<1192xbf16> -> tensor<1000xf32>, tensor<24x8xf32>
  %g = comm.all_gather %c over [[0]] dim 0 : tensor<4096xbf16> -> tensor<4096xbf16>
  %h = comm.copy %a hbm to pinned_host : tensor<1000xf32>
  %d = comm.copy %h pinned_host to hbm : tensor<1000xf32>
  %s = arith.addf %d, %x : tensor<1000xf32>
  %m = arith.maximumf %c, %g : tensor<4096xbf16>
  return %x, %y, %g, %s, %m : tensor<1000xf32>, tensor<24x8xf32>, tensor<4096xbf16>, tensor<1000xf32>, tensor<4096xbf16>
}
