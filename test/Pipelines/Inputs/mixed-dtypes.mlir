// A data-parallel backward of 10 layers whose gradients mix f32, bf16, f16
// and i32 (after a review's generator), and an evaluation loop whose trip
// count only the run knows: comm-plan-compare.test.
module attributes {comm.world_size = 4 : i64} {
  func.func @step(%x: tensor<16xf32>) -> (tensor<7xbf16>, tensor<4096x2048xf16>, tensor<64x257xbf16>, tensor<512x257xi32>, tensor<64x5xf16>, tensor<512x64xi32>, tensor<4096x1024xbf16>, tensor<1xbf16>, tensor<129x257xf16>, tensor<129x64xi32>, tensor<2048x2048xf16>, tensor<2048x1024xi32>, tensor<2048x1024xi32>, tensor<17xf16>, tensor<1024x64xf16>, tensor<1024x64xbf16>, tensor<1024x2048xi32>, tensor<1024x64xbf16>, tensor<512x257xf32>, tensor<2048x1024xbf16>, tensor<1024x1024xf32>, tensor<64x257xbf16>, tensor<1024x1024xf32>, tensor<64x5xf16>, tensor<129x257xf32>, tensor<1xf32>, tensor<1024x2048xf16>, tensor<3xbf16>, tensor<64x64xf32>, tensor<1xf32>, tensor<64x64xf16>, tensor<512x64xf32>, tensor<2048x1024xi32>, tensor<1000xf16>, tensor<1024x2048xbf16>, tensor<1024x64xf16>, tensor<7xf16>, tensor<1024x257xf32>, tensor<129x257xf32>, tensor<3xbf16>, tensor<17xbf16>, tensor<64x5xbf16>, tensor<512x5xbf16>, tensor<512x64xi32>, tensor<1xbf16>, tensor<17xbf16>, tensor<1000xf32>, tensor<1xf32>, tensor<3xf32>, tensor<255xi32>) {
    %g10_0, %g10_1, %g10_2 = comm.compute "bwd10"(%x) flops 1.0e+09 time_us 50.0 : (tensor<16xf32>) -> (tensor<7xbf16>, tensor<4096x2048xf16>, tensor<64x257xbf16>)
    %rg10_0 = comm.all_reduce avg %g10_0 over [[0, 1, 2, 3]] : tensor<7xbf16>
    %rg10_1 = comm.all_reduce avg %g10_1 over [[0, 1, 2, 3]] : tensor<4096x2048xf16>
    %rg10_2 = comm.all_reduce avg %g10_2 over [[0, 1, 2, 3]] : tensor<64x257xbf16>
    %g9_0, %g9_1, %g9_2, %g9_3, %g9_4, %g9_5 = comm.compute "bwd9"(%x) flops 1.0e+09 time_us 50.0 : (tensor<16xf32>) -> (tensor<512x257xi32>, tensor<64x5xf16>, tensor<512x64xi32>, tensor<4096x1024xbf16>, tensor<1xbf16>, tensor<129x257xf16>)
    %rg9_0 = comm.all_reduce sum %g9_0 over [[0, 1, 2, 3]] : tensor<512x257xi32>
    %rg9_1 = comm.all_reduce avg %g9_1 over [[0, 1, 2, 3]] : tensor<64x5xf16>
    %rg9_2 = comm.all_reduce sum %g9_2 over [[0, 1, 2, 3]] : tensor<512x64xi32>
    %rg9_3 = comm.all_reduce avg %g9_3 over [[0, 1, 2, 3]] : tensor<4096x1024xbf16>
    %rg9_4 = comm.all_reduce avg %g9_4 over [[0, 1, 2, 3]] : tensor<1xbf16>
    %rg9_5 = comm.all_reduce avg %g9_5 over [[0, 1, 2, 3]] : tensor<129x257xf16>
    %g8_0, %g8_1, %g8_2, %g8_3, %g8_4, %g8_5, %g8_6 = comm.compute "bwd8"(%x) flops 1.0e+09 time_us 50.0 : (tensor<16xf32>) -> (tensor<129x64xi32>, tensor<2048x2048xf16>, tensor<2048x1024xi32>, tensor<2048x1024xi32>, tensor<17xf16>, tensor<1024x64xf16>, tensor<1024x64xbf16>)
    %rg8_0 = comm.all_reduce sum %g8_0 over [[0, 1, 2, 3]] : tensor<129x64xi32>
    %rg8_1 = comm.all_reduce avg %g8_1 over [[0, 1, 2, 3]] : tensor<2048x2048xf16>
    %rg8_2 = comm.all_reduce sum %g8_2 over [[0, 1, 2, 3]] : tensor<2048x1024xi32>
    %rg8_3 = comm.all_reduce sum %g8_3 over [[0, 1, 2, 3]] : tensor<2048x1024xi32>
    %rg8_4 = comm.all_reduce avg %g8_4 over [[0, 1, 2, 3]] : tensor<17xf16>
    %rg8_5 = comm.all_reduce avg %g8_5 over [[0, 1, 2, 3]] : tensor<1024x64xf16>
    %rg8_6 = comm.all_reduce avg %g8_6 over [[0, 1, 2, 3]] : tensor<1024x64xbf16>
    %g7_0, %g7_1, %g7_2, %g7_3, %g7_4 = comm.compute "bwd7"(%x) flops 1.0e+09 time_us 50.0 : (tensor<16xf32>) -> (tensor<1024x2048xi32>, tensor<1024x64xbf16>, tensor<512x257xf32>, tensor<2048x1024xbf16>, tensor<1024x1024xf32>)
    %rg7_0 = comm.all_reduce sum %g7_0 over [[0, 1, 2, 3]] : tensor<1024x2048xi32>
    %rg7_1 = comm.all_reduce avg %g7_1 over [[0, 1, 2, 3]] : tensor<1024x64xbf16>
    %rg7_2 = comm.all_reduce avg %g7_2 over [[0, 1, 2, 3]] : tensor<512x257xf32>
    %rg7_3 = comm.all_reduce avg %g7_3 over [[0, 1, 2, 3]] : tensor<2048x1024xbf16>
    %rg7_4 = comm.all_reduce avg %g7_4 over [[0, 1, 2, 3]] : tensor<1024x1024xf32>
    %g6_0, %g6_1, %g6_2, %g6_3, %g6_4 = comm.compute "bwd6"(%x) flops 1.0e+09 time_us 50.0 : (tensor<16xf32>) -> (tensor<64x257xbf16>, tensor<1024x1024xf32>, tensor<64x5xf16>, tensor<129x257xf32>, tensor<1xf32>)
    %rg6_0 = comm.all_reduce avg %g6_0 over [[0, 1, 2, 3]] : tensor<64x257xbf16>
    %rg6_1 = comm.all_reduce avg %g6_1 over [[0, 1, 2, 3]] : tensor<1024x1024xf32>
    %rg6_2 = comm.all_reduce avg %g6_2 over [[0, 1, 2, 3]] : tensor<64x5xf16>
    %rg6_3 = comm.all_reduce avg %g6_3 over [[0, 1, 2, 3]] : tensor<129x257xf32>
    %rg6_4 = comm.all_reduce avg %g6_4 over [[0, 1, 2, 3]] : tensor<1xf32>
    %g5_0, %g5_1, %g5_2 = comm.compute "bwd5"(%x) flops 1.0e+09 time_us 50.0 : (tensor<16xf32>) -> (tensor<1024x2048xf16>, tensor<3xbf16>, tensor<64x64xf32>)
    %rg5_0 = comm.all_reduce avg %g5_0 over [[0, 1, 2, 3]] : tensor<1024x2048xf16>
    %rg5_1 = comm.all_reduce avg %g5_1 over [[0, 1, 2, 3]] : tensor<3xbf16>
    %rg5_2 = comm.all_reduce avg %g5_2 over [[0, 1, 2, 3]] : tensor<64x64xf32>
    %g4_0, %g4_1, %g4_2, %g4_3 = comm.compute "bwd4"(%x) flops 1.0e+09 time_us 50.0 : (tensor<16xf32>) -> (tensor<1xf32>, tensor<64x64xf16>, tensor<512x64xf32>, tensor<2048x1024xi32>)
    %rg4_0 = comm.all_reduce avg %g4_0 over [[0, 1, 2, 3]] : tensor<1xf32>
    %rg4_1 = comm.all_reduce avg %g4_1 over [[0, 1, 2, 3]] : tensor<64x64xf16>
    %rg4_2 = comm.all_reduce avg %g4_2 over [[0, 1, 2, 3]] : tensor<512x64xf32>
    %rg4_3 = comm.all_reduce sum %g4_3 over [[0, 1, 2, 3]] : tensor<2048x1024xi32>
    %g3_0, %g3_1, %g3_2, %g3_3 = comm.compute "bwd3"(%x) flops 1.0e+09 time_us 50.0 : (tensor<16xf32>) -> (tensor<1000xf16>, tensor<1024x2048xbf16>, tensor<1024x64xf16>, tensor<7xf16>)
    %rg3_0 = comm.all_reduce avg %g3_0 over [[0, 1, 2, 3]] : tensor<1000xf16>
    %rg3_1 = comm.all_reduce avg %g3_1 over [[0, 1, 2, 3]] : tensor<1024x2048xbf16>
    %rg3_2 = comm.all_reduce avg %g3_2 over [[0, 1, 2, 3]] : tensor<1024x64xf16>
    %rg3_3 = comm.all_reduce avg %g3_3 over [[0, 1, 2, 3]] : tensor<7xf16>
    %g2_0, %g2_1, %g2_2, %g2_3, %g2_4 = comm.compute "bwd2"(%x) flops 1.0e+09 time_us 50.0 : (tensor<16xf32>) -> (tensor<1024x257xf32>, tensor<129x257xf32>, tensor<3xbf16>, tensor<17xbf16>, tensor<64x5xbf16>)
    %rg2_0 = comm.all_reduce avg %g2_0 over [[0, 1, 2, 3]] : tensor<1024x257xf32>
    %rg2_1 = comm.all_reduce avg %g2_1 over [[0, 1, 2, 3]] : tensor<129x257xf32>
    %rg2_2 = comm.all_reduce avg %g2_2 over [[0, 1, 2, 3]] : tensor<3xbf16>
    %rg2_3 = comm.all_reduce avg %g2_3 over [[0, 1, 2, 3]] : tensor<17xbf16>
    %rg2_4 = comm.all_reduce avg %g2_4 over [[0, 1, 2, 3]] : tensor<64x5xbf16>
    %g1_0, %g1_1, %g1_2, %g1_3, %g1_4, %g1_5, %g1_6, %g1_7 = comm.compute "bwd1"(%x) flops 1.0e+09 time_us 50.0 : (tensor<16xf32>) -> (tensor<512x5xbf16>, tensor<512x64xi32>, tensor<1xbf16>, tensor<17xbf16>, tensor<1000xf32>, tensor<1xf32>, tensor<3xf32>, tensor<255xi32>)
    %rg1_0 = comm.all_reduce avg %g1_0 over [[0, 1, 2, 3]] : tensor<512x5xbf16>
    %rg1_1 = comm.all_reduce sum %g1_1 over [[0, 1, 2, 3]] : tensor<512x64xi32>
    %rg1_2 = comm.all_reduce avg %g1_2 over [[0, 1, 2, 3]] : tensor<1xbf16>
    %rg1_3 = comm.all_reduce avg %g1_3 over [[0, 1, 2, 3]] : tensor<17xbf16>
    %rg1_4 = comm.all_reduce avg %g1_4 over [[0, 1, 2, 3]] : tensor<1000xf32>
    %rg1_5 = comm.all_reduce avg %g1_5 over [[0, 1, 2, 3]] : tensor<1xf32>
    %rg1_6 = comm.all_reduce avg %g1_6 over [[0, 1, 2, 3]] : tensor<3xf32>
    %rg1_7 = comm.all_reduce sum %g1_7 over [[0, 1, 2, 3]] : tensor<255xi32>
    return %rg10_0, %rg10_1, %rg10_2, %rg9_0, %rg9_1, %rg9_2, %rg9_3, %rg9_4, %rg9_5, %rg8_0, %rg8_1, %rg8_2, %rg8_3, %rg8_4, %rg8_5, %rg8_6, %rg7_0, %rg7_1, %rg7_2, %rg7_3, %rg7_4, %rg6_0, %rg6_1, %rg6_2, %rg6_3, %rg6_4, %rg5_0, %rg5_1, %rg5_2, %rg4_0, %rg4_1, %rg4_2, %rg4_3, %rg3_0, %rg3_1, %rg3_2, %rg3_3, %rg2_0, %rg2_1, %rg2_2, %rg2_3, %rg2_4, %rg1_0, %rg1_1, %rg1_2, %rg1_3, %rg1_4, %rg1_5, %rg1_6, %rg1_7 : tensor<7xbf16>, tensor<4096x2048xf16>, tensor<64x257xbf16>, tensor<512x257xi32>, tensor<64x5xf16>, tensor<512x64xi32>, tensor<4096x1024xbf16>, tensor<1xbf16>, tensor<129x257xf16>, tensor<129x64xi32>, tensor<2048x2048xf16>, tensor<2048x1024xi32>, tensor<2048x1024xi32>, tensor<17xf16>, tensor<1024x64xf16>, tensor<1024x64xbf16>, tensor<1024x2048xi32>, tensor<1024x64xbf16>, tensor<512x257xf32>, tensor<2048x1024xbf16>, tensor<1024x1024xf32>, tensor<64x257xbf16>, tensor<1024x1024xf32>, tensor<64x5xf16>, tensor<129x257xf32>, tensor<1xf32>, tensor<1024x2048xf16>, tensor<3xbf16>, tensor<64x64xf32>, tensor<1xf32>, tensor<64x64xf16>, tensor<512x64xf32>, tensor<2048x1024xi32>, tensor<1000xf16>, tensor<1024x2048xbf16>, tensor<1024x64xf16>, tensor<7xf16>, tensor<1024x257xf32>, tensor<129x257xf32>, tensor<3xbf16>, tensor<17xbf16>, tensor<64x5xbf16>, tensor<512x5xbf16>, tensor<512x64xi32>, tensor<1xbf16>, tensor<17xbf16>, tensor<1000xf32>, tensor<1xf32>, tensor<3xf32>, tensor<255xi32>
  }
  func.func @eval(%v: tensor<9xf32>, %n: index) -> tensor<9xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %v) -> (tensor<9xf32>) {
      %w = comm.compute "eval_batch"(%acc) time_us 20.0 : (tensor<9xf32>) -> tensor<9xf32>
      %q = comm.all_reduce sum %w over [[0, 1, 2, 3]] : tensor<9xf32>
      scf.yield %q : tensor<9xf32>
    }
    return %r : tensor<9xf32>
  }
}
