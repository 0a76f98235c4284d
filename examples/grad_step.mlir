// One data-parallel training step on 4 ranks, as a framework hands it
// over: every gradient all-reduced on its own, in f32, after the whole
// backward pass. utils/demo.sh plans it with comm-plan, simulates the plan
// against this program, compiles the plan and checks it against this
// program on 4 local ranks. grad_step.by-hand.mlir is a plan written by
// hand, for comparison.
module attributes {comm.topology = "dgx-h100", comm.world_size = 4 : i64} {
  func.func @train_step(%x: tensor<256x256xf32>, %w1: tensor<256x256xf32>, %w2: tensor<256x256xf32>)
      -> (tensor<256x256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<64xf32>, tensor<64xf32>) {
    %g2, %b2, %c2 = comm.compute "backward_layer2"(%x, %w2) flops 3.4e+07 time_us 300.0
        : (tensor<256x256xf32>, tensor<256x256xf32>) -> (tensor<256x256xf32>, tensor<256xf32>, tensor<64xf32>)
    %g1, %b1, %c1 = comm.compute "backward_layer1"(%x, %w1) flops 3.4e+07 time_us 300.0
        : (tensor<256x256xf32>, tensor<256x256xf32>) -> (tensor<256x256xf32>, tensor<256xf32>, tensor<64xf32>)
    %r2 = comm.all_reduce avg %g2 over [[0, 1, 2, 3]] : tensor<256x256xf32>
    %r1 = comm.all_reduce avg %g1 over [[0, 1, 2, 3]] : tensor<256x256xf32>
    %rb1 = comm.all_reduce avg %b1 over [[0, 1, 2, 3]] : tensor<256xf32>
    %rb2 = comm.all_reduce avg %b2 over [[0, 1, 2, 3]] : tensor<256xf32>
    %rc1 = comm.all_reduce avg %c1 over [[0, 1, 2, 3]] : tensor<64xf32>
    %rc2 = comm.all_reduce avg %c2 over [[0, 1, 2, 3]] : tensor<64xf32>
    return %r1, %r2, %rb1, %rb2, %rc1, %rc2
        : tensor<256x256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<64xf32>, tensor<64xf32>
  }
}
