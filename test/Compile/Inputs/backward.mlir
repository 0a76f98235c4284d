// A three-layer data-parallel backward as a framework hands it over: each
// layer's compute produces its gradients, every gradient is all-reduced on
// its own after the whole backward, the optimizer reads the results.
// harness.test plans it with comm-plan (buckets, algorithms, async starts
// and waits) and checks the plan against this program on 4 ranks.
module attributes {comm.topology = "dgx-h100", comm.world_size = 4 : i64} {
  func.func @backward(%x: tensor<1024xf32>, %w: tensor<64xf32>)
      -> (tensor<1024xf32>, tensor<256xf32>, tensor<1024xf32>, tensor<256xf32>, tensor<1024xf32>, tensor<256xf32>, tensor<64xf32>) {
    %g3, %b3 = comm.compute "layer3.backward"(%x, %w) time_us 200.0 : (tensor<1024xf32>, tensor<64xf32>) -> (tensor<1024xf32>, tensor<256xf32>)
    %g2, %b2 = comm.compute "layer2.backward"(%g3, %w) time_us 200.0 : (tensor<1024xf32>, tensor<64xf32>) -> (tensor<1024xf32>, tensor<256xf32>)
    %g1, %b1 = comm.compute "layer1.backward"(%g2, %w) time_us 200.0 : (tensor<1024xf32>, tensor<64xf32>) -> (tensor<1024xf32>, tensor<256xf32>)
    %r3 = comm.all_reduce avg %g3 over [[0, 1, 2, 3]] : tensor<1024xf32>
    %s3 = comm.all_reduce avg %b3 over [[0, 1, 2, 3]] : tensor<256xf32>
    %r2 = comm.all_reduce avg %g2 over [[0, 1, 2, 3]] : tensor<1024xf32>
    %s2 = comm.all_reduce avg %b2 over [[0, 1, 2, 3]] : tensor<256xf32>
    %r1 = comm.all_reduce avg %g1 over [[0, 1, 2, 3]] : tensor<1024xf32>
    %s1 = comm.all_reduce avg %b1 over [[0, 1, 2, 3]] : tensor<256xf32>
    %u = comm.compute "optimizer"(%r3, %s3, %r2, %s2, %r1, %s1) time_us 50.0 : (tensor<1024xf32>, tensor<256xf32>, tensor<1024xf32>, tensor<256xf32>, tensor<1024xf32>, tensor<256xf32>) -> tensor<64xf32>
    return %r3, %s3, %r2, %s2, %r1, %s1, %u : tensor<1024xf32>, tensor<256xf32>, tensor<1024xf32>, tensor<256xf32>, tensor<1024xf32>, tensor<256xf32>, tensor<64xf32>
  }
}
