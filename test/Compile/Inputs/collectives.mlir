// Collectives that comm-decompose writes as point-to-point schedules
// (test/Compile/decompose.test): each is compiled decomposed and checked
// against itself as a collective on 4 ranks.
module attributes {comm.world_size = 4 : i64} {
  // 1000 elements: padded to 1000 / 4 chunks of 250.
  func.func @all_reduce_sum(%x: tensor<1000xf32>) -> tensor<1000xf32> {
    %0 = comm.all_reduce sum %x over [[0, 1, 2, 3]] : tensor<1000xf32>
    return %0 : tensor<1000xf32>
  }
  // 7x3 = 21 elements over groups of two: padded to 22.
  func.func @all_reduce_max_pairs(%x: tensor<7x3xf32>) -> tensor<7x3xf32> {
    %0 = comm.all_reduce max %x over [[0, 2], [1, 3]] : tensor<7x3xf32>
    return %0 : tensor<7x3xf32>
  }
  // An average: summed around the ring, scaled by 1/4 before the gather.
  func.func @all_reduce_avg(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
    %0 = comm.all_reduce avg %x over [[0, 1, 2, 3]] : tensor<4x16xf32>
    return %0 : tensor<4x16xf32>
  }
  func.func @reduce_scatter_avg(%x: tensor<12xf32>) -> tensor<6xf32> {
    %0 = comm.reduce_scatter avg %x over [[0, 1], [2, 3]] dim 0 : tensor<12xf32> -> tensor<6xf32>
    return %0 : tensor<6xf32>
  }
  func.func @all_reduce_xor(%x: tensor<64xi32>) -> tensor<64xi32> {
    %0 = comm.all_reduce xor %x over [[3, 1, 0, 2]] : tensor<64xi32>
    return %0 : tensor<64xi32>
  }
  func.func @reduce_scatter(%x: tensor<8x5xf32>) -> tensor<2x5xf32> {
    %0 = comm.reduce_scatter sum %x over [[0, 1, 2, 3]] dim 0 : tensor<8x5xf32> -> tensor<2x5xf32>
    return %0 : tensor<2x5xf32>
  }
  func.func @all_gather(%x: tensor<1x6xf32>) -> tensor<1x24xf32> {
    %0 = comm.all_gather %x over [[1, 0, 3, 2]] dim 1 : tensor<1x6xf32> -> tensor<1x24xf32>
    return %0 : tensor<1x24xf32>
  }
  func.func @all_to_all(%x: tensor<8x3xi64>) -> tensor<8x3xi64> {
    %0 = comm.all_to_all %x over [[0, 1, 2, 3]] split 0 concat 0 : tensor<8x3xi64> -> tensor<8x3xi64>
    return %0 : tensor<8x3xi64>
  }
  // Along a dimension with larger ones before it, each rank's part is in
  // pieces, one per row: the schedules put them together before sending
  // and lay them out in rows after.
  func.func @reduce_scatter_columns(%x: tensor<3x20xf32>) -> tensor<3x5xf32> {
    %0 = comm.reduce_scatter sum %x over [[2, 0, 3, 1]] dim 1 : tensor<3x20xf32> -> tensor<3x5xf32>
    return %0 : tensor<3x5xf32>
  }
  func.func @all_gather_middle(%x: tensor<2x3x2xf64>) -> tensor<2x6x2xf64> {
    %0 = comm.all_gather %x over [[0, 1], [2, 3]] dim 1 : tensor<2x3x2xf64> -> tensor<2x6x2xf64>
    return %0 : tensor<2x6x2xf64>
  }
  func.func @all_to_all_columns(%x: tensor<6x8xf32>) -> tensor<24x2xf32> {
    %0 = comm.all_to_all %x over [[0, 1, 2, 3]] split 1 concat 0 : tensor<6x8xf32> -> tensor<24x2xf32>
    return %0 : tensor<24x2xf32>
  }
  func.func @all_to_all_to_columns(%x: tensor<2x8x3xi32>) -> tensor<2x4x6xi32> {
    %0 = comm.all_to_all %x over [[0, 1], [2, 3]] split 1 concat 2 : tensor<2x8x3xi32> -> tensor<2x4x6xi32>
    return %0 : tensor<2x4x6xi32>
  }
  // A broadcast from position 2 of each group: the root sends to itself, then
  // a binomial tree.
  func.func @broadcast(%x: tensor<5x7xf32>) -> tensor<5x7xf32> {
    %0 = comm.broadcast %x over [[3, 1, 0, 2]] root 2 : tensor<5x7xf32>
    return %0 : tensor<5x7xf32>
  }
  func.func @broadcast_pairs(%x: tensor<9xi64>) -> tensor<9xi64> {
    %0 = comm.broadcast %x over [[0, 1], [2, 3]] root 1 : tensor<9xi64>
    return %0 : tensor<9xi64>
  }
  func.func @permute(%x: tensor<33xf32>) -> tensor<33xf32> {
    %0 = comm.permute %x pairs [[0, 2], [2, 1], [1, 0]] : tensor<33xf32>
    return %0 : tensor<33xf32>
  }
  // Reduce: ring reduce-scatter, the chunks sent to the root, and every
  // other rank's input kept (21 elements: padded to 24 for the ring).
  func.func @reduce_max(%x: tensor<7x3xf32>) -> tensor<7x3xf32> {
    %0 = comm.reduce max %x over [[3, 1, 0, 2]] root 1 : tensor<7x3xf32>
    return %0 : tensor<7x3xf32>
  }
  func.func @reduce_sum_pairs(%x: tensor<10xi64>) -> tensor<10xi64> {
    %0 = comm.reduce sum %x over [[0, 1], [2, 3]] root 0 : tensor<10xi64>
    return %0 : tensor<10xi64>
  }
  // A dissemination barrier among three of the four ranks, then one among
  // all four.
  func.func @barriers(%x: tensor<4xf32>) -> tensor<4xf32> {
    comm.barrier over [[0, 2, 3]]
    comm.barrier over [[0, 1, 2, 3]]
    return %x : tensor<4xf32>
  }
}
