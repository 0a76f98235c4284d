// Collectives whose plans name a chunk size: written as point-to-point
// rings by comm-decompose, every chunk travels in pieces of about that many
// bytes, each piece passed on as soon as it has arrived.
module attributes {comm.world_size = 4 : i64} {
  // 250 floats per rank's chunk, pieces of 256 bytes: 4 pieces (padded).
  func.func @all_reduce_sum(%x: tensor<1000xf32>) -> tensor<1000xf32> {
    %0 = comm.all_reduce sum %x over [[0, 1, 2, 3]] plan <chunk_bytes = 256> : tensor<1000xf32>
    return %0 : tensor<1000xf32>
  }
  func.func @all_reduce_avg_pairs(%x: tensor<6x7xf32>) -> tensor<6x7xf32> {
    %0 = comm.all_reduce avg %x over [[0, 2], [1, 3]] plan <chunk_bytes = 40> : tensor<6x7xf32>
    return %0 : tensor<6x7xf32>
  }
  func.func @reduce_scatter_max(%x: tensor<24x2xi32>) -> tensor<6x2xi32> {
    %0 = comm.reduce_scatter max %x over [[3, 1, 0, 2]] dim 0 plan <chunk_bytes = 16> : tensor<24x2xi32> -> tensor<6x2xi32>
    return %0 : tensor<6x2xi32>
  }
  func.func @all_gather(%x: tensor<10xf64>) -> tensor<40xf64> {
    %0 = comm.all_gather %x over [[0, 1, 2, 3]] dim 0 plan <chunk_bytes = 16> : tensor<10xf64> -> tensor<40xf64>
    return %0 : tensor<40xf64>
  }
}
