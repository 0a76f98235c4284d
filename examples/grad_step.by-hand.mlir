// grad_step.mlir planned by hand: layer 2's gradients travel while layer
// 1's backward pass runs (its two weights as bf16 in one async ring, its
// small vectors fused into one buffer); layer 1's weights go as bf16 and
// its small vectors fused. Every decision is an attribute a person can
// write; utils/demo.sh compares this plan with the ones comm-plan makes.
module attributes {comm.topology = "dgx-h100", comm.world_size = 4 : i64} {
  func.func @train_step(%x: tensor<256x256xf32>, %w1: tensor<256x256xf32>, %w2: tensor<256x256xf32>)
      -> (tensor<256x256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<1024xf32>, tensor<256xf32>, tensor<256x256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<1024xf32>, tensor<256xf32>) {
    %attn_w2, %mlp_w2, %ln1_g2, %ln1_b2, %q_b2, %k_b2, %v_b2, %o_b2, %ln2_g2, %ln2_b2, %mlp_b12, %mlp_b22 = comm.compute "backward_layer2"(%x, %w2) flops 3.4e+07 time_us 300.0
        : (tensor<256x256xf32>, tensor<256x256xf32>) -> (tensor<256x256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<1024xf32>, tensor<256xf32>)
    %t = comm.start {
      %a_attn_w2 = comm.all_reduce avg %attn_w2 over [[0, 1, 2, 3]] plan <algorithm = ring, precision = bf16> : tensor<256x256xf32>
      %a_mlp_w2 = comm.all_reduce avg %mlp_w2 over [[0, 1, 2, 3]] plan <algorithm = ring, precision = bf16> : tensor<256x256xf32>
      comm.yield %a_attn_w2, %a_mlp_w2 : tensor<256x256xf32>, tensor<256x256xf32>
    }
    %p2 = comm.pack %ln1_g2, %ln1_b2, %q_b2, %k_b2, %v_b2, %o_b2, %ln2_g2, %ln2_b2, %mlp_b12, %mlp_b22 offsets [0, 256, 512, 768, 1024, 1280, 1536, 1792, 2048, 3072]
        : tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<1024xf32>, tensor<256xf32> -> tensor<3328xf32>
    %s2 = comm.all_reduce avg %p2 over [[0, 1, 2, 3]] : tensor<3328xf32>
    %u_ln1_g2, %u_ln1_b2, %u_q_b2, %u_k_b2, %u_v_b2, %u_o_b2, %u_ln2_g2, %u_ln2_b2, %u_mlp_b12, %u_mlp_b22 = comm.unpack %s2 offsets [0, 256, 512, 768, 1024, 1280, 1536, 1792, 2048, 3072]
        : tensor<3328xf32> -> tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<1024xf32>, tensor<256xf32>
    %attn_w1, %mlp_w1, %ln1_g1, %ln1_b1, %q_b1, %k_b1, %v_b1, %o_b1, %ln2_g1, %ln2_b1, %mlp_b11, %mlp_b21 = comm.compute "backward_layer1"(%x, %w1) flops 3.4e+07 time_us 300.0
        : (tensor<256x256xf32>, tensor<256x256xf32>) -> (tensor<256x256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<1024xf32>, tensor<256xf32>)
    %u_attn_w1 = comm.all_reduce avg %attn_w1 over [[0, 1, 2, 3]] plan <algorithm = ring, precision = bf16> : tensor<256x256xf32>
    %u_mlp_w1 = comm.all_reduce avg %mlp_w1 over [[0, 1, 2, 3]] plan <algorithm = ring, precision = bf16> : tensor<256x256xf32>
    %p1 = comm.pack %ln1_g1, %ln1_b1, %q_b1, %k_b1, %v_b1, %o_b1, %ln2_g1, %ln2_b1, %mlp_b11, %mlp_b21 offsets [0, 256, 512, 768, 1024, 1280, 1536, 1792, 2048, 3072]
        : tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<1024xf32>, tensor<256xf32> -> tensor<3328xf32>
    %s1 = comm.all_reduce avg %p1 over [[0, 1, 2, 3]] : tensor<3328xf32>
    %u_ln1_g1, %u_ln1_b1, %u_q_b1, %u_k_b1, %u_v_b1, %u_o_b1, %u_ln2_g1, %u_ln2_b1, %u_mlp_b11, %u_mlp_b21 = comm.unpack %s1 offsets [0, 256, 512, 768, 1024, 1280, 1536, 1792, 2048, 3072]
        : tensor<3328xf32> -> tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<1024xf32>, tensor<256xf32>
    %u_attn_w2, %u_mlp_w2 = comm.wait %t : tensor<256x256xf32>, tensor<256x256xf32>
    return %u_attn_w1, %u_mlp_w1, %u_ln1_g1, %u_ln1_b1, %u_q_b1, %u_k_b1, %u_v_b1, %u_o_b1, %u_ln2_g1, %u_ln2_b1, %u_mlp_b11, %u_mlp_b21, %u_attn_w2, %u_mlp_w2, %u_ln1_g2, %u_ln1_b2, %u_q_b2, %u_k_b2, %u_v_b2, %u_o_b2, %u_ln2_g2, %u_ln2_b2, %u_mlp_b12, %u_mlp_b22
        : tensor<256x256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<1024xf32>, tensor<256xf32>, tensor<256x256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<1024xf32>, tensor<256xf32>
  }
}
