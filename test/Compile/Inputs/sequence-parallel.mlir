// A sequence-parallel MLP block (Megatron-LM's sequence parallelism): the
// rows (tokens) of each rank are gathered, two rowwise computes run on all
// rows, and the result is reduce-scattered back by rows. Checked after
// comm-pipeline (one part per rank) against the program as written.
module attributes {comm.world_size = 4 : i64} {
  func.func @block(%x: tensor<4x6xf32>, %w1: tensor<6x5xf32>, %w2: tensor<5x6xf32>) -> tensor<4x6xf32> {
    %g = comm.all_gather %x over [[0, 1, 2, 3]] dim 0 : tensor<4x6xf32> -> tensor<16x6xf32>
    %h = comm.compute "up"(%g, %w1) time_us 40.0 rowwise : (tensor<16x6xf32>, tensor<6x5xf32>) -> tensor<16x5xf32>
    %y = comm.compute "down"(%h, %w2) time_us 40.0 rowwise : (tensor<16x5xf32>, tensor<5x6xf32>) -> tensor<16x6xf32>
    %s = comm.reduce_scatter sum %y over [[0, 1, 2, 3]] dim 0 : tensor<16x6xf32> -> tensor<4x6xf32>
    return %s : tensor<4x6xf32>
  }
  // Two groups of two (ranks 1 and 2 lead their groups): a gather read by
  // a rowwise compute, and an average scattered from a compute.
  func.func @pairs_gather(%x: tensor<3x2xf32>, %w: tensor<2x2xf32>) -> tensor<6x2xf32> {
    %g = comm.all_gather %x over [[1, 0], [2, 3]] dim 0 : tensor<3x2xf32> -> tensor<6x2xf32>
    %y = comm.compute "mix"(%g, %w) time_us 10.0 rowwise : (tensor<6x2xf32>, tensor<2x2xf32>) -> tensor<6x2xf32>
    return %y : tensor<6x2xf32>
  }
  func.func @pairs_scatter_avg(%w: tensor<2x2xf32>) -> tensor<5x3xf32> {
    %y = comm.compute "grad"(%w) time_us 10.0 : (tensor<2x2xf32>) -> tensor<10x3xf32>
    %s = comm.reduce_scatter avg %y over [[1, 0], [2, 3]] dim 0 : tensor<10x3xf32> -> tensor<5x3xf32>
    return %s : tensor<5x3xf32>
  }
}
