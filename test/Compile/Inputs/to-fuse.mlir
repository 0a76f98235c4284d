// An unfused step for comm-fuse: gradients of two groups, broadcasts from
// one root, a permute pair, a collective that depends on another, an
// async region, and all-gathers and reduce-scatters along dimension 0
// (packed in blocks, one per rank). harness.test fuses it and checks the fused
// program against this one on 4 ranks.
func.func @step(%a: tensor<64xf32>, %b: tensor<8x16xf32>, %c: tensor<3xf32>, %i: tensor<40xi32>)
    -> (tensor<64xf32>, tensor<8x16xf32>, tensor<3xf32>, tensor<64xf32>, tensor<3xf32>,
        tensor<40xi32>, tensor<40xi32>, tensor<64xf32>, tensor<3xf32>, tensor<64xf32>, tensor<3xf32>,
        tensor<256xf32>, tensor<32x16xf32>, tensor<16xf32>, tensor<2x16xf32>) {
  %g0 = comm.all_gather %a over [[0, 1, 2, 3]] dim 0 : tensor<64xf32> -> tensor<256xf32>
  %g1 = comm.all_gather %b over [[0, 1, 2, 3]] dim 0 : tensor<8x16xf32> -> tensor<32x16xf32>
  %s0 = comm.reduce_scatter sum %a over [[0, 1, 2, 3]] dim 0 : tensor<64xf32> -> tensor<16xf32>
  %s1 = comm.reduce_scatter sum %b over [[0, 1, 2, 3]] dim 0 : tensor<8x16xf32> -> tensor<2x16xf32>
  %0 = comm.all_reduce sum %a over [[0, 1, 2, 3]] : tensor<64xf32>
  %1 = comm.all_reduce sum %b over [[0, 1, 2, 3]] : tensor<8x16xf32>
  %2 = comm.all_reduce sum %a over [[0, 1], [2, 3]] : tensor<64xf32>
  %3 = comm.all_reduce sum %c over [[0, 1, 2, 3]] : tensor<3xf32>
  %4 = comm.all_reduce sum %c over [[0, 1], [2, 3]] : tensor<3xf32>
  %5 = comm.all_reduce max %i over [[0, 1, 2, 3]] : tensor<40xi32>
  %6 = comm.all_reduce sum %5 over [[0, 1, 2, 3]] : tensor<40xi32>
  %7 = comm.broadcast %a over [[0, 1, 2, 3]] root 2 : tensor<64xf32>
  %8 = comm.broadcast %c over [[0, 1, 2, 3]] root 2 : tensor<3xf32>
  %t = comm.start {
    %9 = comm.permute %a pairs [[0, 1], [1, 2], [2, 3], [3, 0]] : tensor<64xf32>
    %10 = comm.permute %c pairs [[0, 1], [1, 2], [2, 3], [3, 0]] : tensor<3xf32>
    comm.yield %9, %10 : tensor<64xf32>, tensor<3xf32>
  }
  %11:2 = comm.wait %t : tensor<64xf32>, tensor<3xf32>
  return %0, %1, %3, %2, %4, %5, %6, %7, %8, %11#0, %11#1, %g0, %g1, %s0, %s1
      : tensor<64xf32>, tensor<8x16xf32>, tensor<3xf32>, tensor<64xf32>, tensor<3xf32>,
        tensor<40xi32>, tensor<40xi32>, tensor<64xf32>, tensor<3xf32>, tensor<64xf32>, tensor<3xf32>,
        tensor<256xf32>, tensor<32x16xf32>, tensor<16xf32>, tensor<2x16xf32>
}
