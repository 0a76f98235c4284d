// One data-parallel training step of two transformer layers on 4 ranks, as
// a framework hands it over: every gradient (two weight matrices and ten
// layer-norm and bias vectors per layer, most of them small, as in real
// models) all-reduced on its own, in f32, after the whole backward pass.
// utils/demo.sh plans it with comm-plan for a DGX H100 and for this machine
// (the host preset), simulates the plans against this program, compiles
// the host plan and checks it against this program on 4 local ranks.
// grad_step.by-hand.mlir is a plan written by hand, for comparison.
module attributes {comm.topology = "dgx-h100", comm.world_size = 4 : i64} {
  func.func @train_step(%x: tensor<256x256xf32>, %w1: tensor<256x256xf32>, %w2: tensor<256x256xf32>)
      -> (tensor<256x256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<1024xf32>, tensor<256xf32>, tensor<256x256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<1024xf32>, tensor<256xf32>) {
    %attn_w2, %mlp_w2, %ln1_g2, %ln1_b2, %q_b2, %k_b2, %v_b2, %o_b2, %ln2_g2, %ln2_b2, %mlp_b12, %mlp_b22 = comm.compute "backward_layer2"(%x, %w2) flops 3.4e+07 time_us 300.0
        : (tensor<256x256xf32>, tensor<256x256xf32>) -> (tensor<256x256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<1024xf32>, tensor<256xf32>)
    %r_attn_w2 = comm.all_reduce avg %attn_w2 over [[0, 1, 2, 3]] : tensor<256x256xf32>
    %r_mlp_w2 = comm.all_reduce avg %mlp_w2 over [[0, 1, 2, 3]] : tensor<256x256xf32>
    %r_ln1_g2 = comm.all_reduce avg %ln1_g2 over [[0, 1, 2, 3]] : tensor<256xf32>
    %r_ln1_b2 = comm.all_reduce avg %ln1_b2 over [[0, 1, 2, 3]] : tensor<256xf32>
    %r_q_b2 = comm.all_reduce avg %q_b2 over [[0, 1, 2, 3]] : tensor<256xf32>
    %r_k_b2 = comm.all_reduce avg %k_b2 over [[0, 1, 2, 3]] : tensor<256xf32>
    %r_v_b2 = comm.all_reduce avg %v_b2 over [[0, 1, 2, 3]] : tensor<256xf32>
    %r_o_b2 = comm.all_reduce avg %o_b2 over [[0, 1, 2, 3]] : tensor<256xf32>
    %r_ln2_g2 = comm.all_reduce avg %ln2_g2 over [[0, 1, 2, 3]] : tensor<256xf32>
    %r_ln2_b2 = comm.all_reduce avg %ln2_b2 over [[0, 1, 2, 3]] : tensor<256xf32>
    %r_mlp_b12 = comm.all_reduce avg %mlp_b12 over [[0, 1, 2, 3]] : tensor<1024xf32>
    %r_mlp_b22 = comm.all_reduce avg %mlp_b22 over [[0, 1, 2, 3]] : tensor<256xf32>
    %attn_w1, %mlp_w1, %ln1_g1, %ln1_b1, %q_b1, %k_b1, %v_b1, %o_b1, %ln2_g1, %ln2_b1, %mlp_b11, %mlp_b21 = comm.compute "backward_layer1"(%x, %w1) flops 3.4e+07 time_us 300.0
        : (tensor<256x256xf32>, tensor<256x256xf32>) -> (tensor<256x256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<1024xf32>, tensor<256xf32>)
    %r_attn_w1 = comm.all_reduce avg %attn_w1 over [[0, 1, 2, 3]] : tensor<256x256xf32>
    %r_mlp_w1 = comm.all_reduce avg %mlp_w1 over [[0, 1, 2, 3]] : tensor<256x256xf32>
    %r_ln1_g1 = comm.all_reduce avg %ln1_g1 over [[0, 1, 2, 3]] : tensor<256xf32>
    %r_ln1_b1 = comm.all_reduce avg %ln1_b1 over [[0, 1, 2, 3]] : tensor<256xf32>
    %r_q_b1 = comm.all_reduce avg %q_b1 over [[0, 1, 2, 3]] : tensor<256xf32>
    %r_k_b1 = comm.all_reduce avg %k_b1 over [[0, 1, 2, 3]] : tensor<256xf32>
    %r_v_b1 = comm.all_reduce avg %v_b1 over [[0, 1, 2, 3]] : tensor<256xf32>
    %r_o_b1 = comm.all_reduce avg %o_b1 over [[0, 1, 2, 3]] : tensor<256xf32>
    %r_ln2_g1 = comm.all_reduce avg %ln2_g1 over [[0, 1, 2, 3]] : tensor<256xf32>
    %r_ln2_b1 = comm.all_reduce avg %ln2_b1 over [[0, 1, 2, 3]] : tensor<256xf32>
    %r_mlp_b11 = comm.all_reduce avg %mlp_b11 over [[0, 1, 2, 3]] : tensor<1024xf32>
    %r_mlp_b21 = comm.all_reduce avg %mlp_b21 over [[0, 1, 2, 3]] : tensor<256xf32>
    return %r_attn_w1, %r_mlp_w1, %r_ln1_g1, %r_ln1_b1, %r_q_b1, %r_k_b1, %r_v_b1, %r_o_b1, %r_ln2_g1, %r_ln2_b1, %r_mlp_b11, %r_mlp_b21, %r_attn_w2, %r_mlp_w2, %r_ln1_g2, %r_ln1_b2, %r_q_b2, %r_k_b2, %r_v_b2, %r_o_b2, %r_ln2_g2, %r_ln2_b2, %r_mlp_b12, %r_mlp_b22
        : tensor<256x256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<1024xf32>, tensor<256xf32>, tensor<256x256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<1024xf32>, tensor<256xf32>
  }
}
