// grad_step.mlir planned by hand: the gradients of layer 2 are averaged
// asynchronously while layer 1's backward pass runs; the four small bias
// gradients travel fused in one buffer; the large weight gradients travel
// as bf16. Every decision is an attribute a person can write; utils/demo.sh
// compares this plan with the one comm-plan makes.
module attributes {comm.topology = "dgx-h100", comm.world_size = 4 : i64} {
  func.func @train_step(%x: tensor<256x256xf32>, %w1: tensor<256x256xf32>, %w2: tensor<256x256xf32>)
      -> (tensor<256x256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<64xf32>, tensor<64xf32>) {
    %g2, %b2, %c2 = comm.compute "backward_layer2"(%x, %w2) flops 3.4e+07 time_us 300.0
        : (tensor<256x256xf32>, tensor<256x256xf32>) -> (tensor<256x256xf32>, tensor<256xf32>, tensor<64xf32>)
    %t = comm.start {
      %r = comm.all_reduce avg %g2 over [[0, 1, 2, 3]] plan <algorithm = ring, precision = bf16> : tensor<256x256xf32>
      comm.yield %r : tensor<256x256xf32>
    }
    %g1, %b1, %c1 = comm.compute "backward_layer1"(%x, %w1) flops 3.4e+07 time_us 300.0
        : (tensor<256x256xf32>, tensor<256x256xf32>) -> (tensor<256x256xf32>, tensor<256xf32>, tensor<64xf32>)
    %r1 = comm.all_reduce avg %g1 over [[0, 1, 2, 3]] plan <algorithm = ring, precision = bf16> : tensor<256x256xf32>
    %p = comm.pack %b1, %b2, %c1, %c2 offsets [0, 256, 512, 576]
        : tensor<256xf32>, tensor<256xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<640xf32>
    %s = comm.all_reduce avg %p over [[0, 1, 2, 3]] : tensor<640xf32>
    %rb1, %rb2, %rc1, %rc2 = comm.unpack %s offsets [0, 256, 512, 576]
        : tensor<640xf32> -> tensor<256xf32>, tensor<256xf32>, tensor<64xf32>, tensor<64xf32>
    %r2 = comm.wait %t : tensor<256x256xf32>
    return %r1, %r2, %rb1, %rb2, %rc1, %rc2
        : tensor<256x256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<64xf32>, tensor<64xf32>
  }
}
