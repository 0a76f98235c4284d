// Transfers overlapped with compute (what comm-schedule produces): the
// start issues a fused all_reduce and an all_gather; inside the body the
// unpack waits for the all_reduce it reads; the compute runs meanwhile.
// Checked against the same program run in order.
func.func @step(%g1: tensor<256xf32>, %g2: tensor<64xf32>, %w: tensor<32xi32>, %act: tensor<128xf32>)
    -> (tensor<256xf32>, tensor<64xf32>, tensor<128xi32>, tensor<128xf32>) {
  %t = comm.start {
    %p = comm.pack %g1, %g2 offsets [0, 256] : tensor<256xf32>, tensor<64xf32> -> tensor<320xf32>
    %r = comm.all_reduce sum %p over [[0, 1, 2, 3]] plan <stream = 1> : tensor<320xf32>
    %a, %b = comm.unpack %r offsets [0, 256] : tensor<320xf32> -> tensor<256xf32>, tensor<64xf32>
    %gw = comm.all_gather %w over [[0, 1, 2, 3]] dim 0 : tensor<32xi32> -> tensor<128xi32>
    comm.yield %a, %b, %gw : tensor<256xf32>, tensor<64xf32>, tensor<128xi32>
  }
  %y = comm.compute "layer"(%act) time_us 200.0 : (tensor<128xf32>) -> tensor<128xf32>
  %a, %b, %gw = comm.wait %t : tensor<256xf32>, tensor<64xf32>, tensor<128xi32>
  return %a, %b, %gw, %y : tensor<256xf32>, tensor<64xf32>, tensor<128xi32>, tensor<128xf32>
}
