// Every collective on 4 ranks, including the layouts that need a transpose
// around the contiguous runtime call; checked in closed form by
// ops-check.cpp.
module attributes {comm.world_size = 4 : i64} {
func.func @gather_dim1(%x: tensor<2x3xi32>) -> tensor<2x12xi32> {
  %0 = comm.all_gather %x over [[0, 1, 2, 3]] dim 1 : tensor<2x3xi32> -> tensor<2x12xi32>
  return %0 : tensor<2x12xi32>
}
func.func @scatter_dim1(%x: tensor<2x8xi32>) -> tensor<2x2xi32> {
  %0 = comm.reduce_scatter sum %x over [[0, 1, 2, 3]] dim 1 : tensor<2x8xi32> -> tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}
func.func @a2a_0_1(%x: tensor<4x2xi32>) -> tensor<1x8xi32> {
  %0 = comm.all_to_all %x over [[0, 1, 2, 3]] split 0 concat 1 : tensor<4x2xi32> -> tensor<1x8xi32>
  return %0 : tensor<1x8xi32>
}
func.func @a2a_1_0(%x: tensor<2x8xi32>) -> tensor<8x2xi32> {
  %0 = comm.all_to_all %x over [[0, 1, 2, 3]] split 1 concat 0 : tensor<2x8xi32> -> tensor<8x2xi32>
  return %0 : tensor<8x2xi32>
}
func.func @bcast_pairs(%x: tensor<5xf32>) -> tensor<5xf32> {
  %0 = comm.broadcast %x over [[0, 1], [2, 3]] root 1 : tensor<5xf32>
  return %0 : tensor<5xf32>
}
func.func @reduce_max(%x: tensor<6xi64>) -> tensor<6xi64> {
  %0 = comm.reduce max %x over [[0, 1, 2, 3]] root 2 : tensor<6xi64>
  return %0 : tensor<6xi64>
}
func.func @bits(%x: tensor<8xi32>) -> (tensor<8xi32>, tensor<8xi32>, tensor<8xi32>) {
  %0 = comm.all_reduce and %x over [[0, 1, 2, 3]] : tensor<8xi32>
  %1 = comm.all_reduce or %x over [[0, 1, 2, 3]] : tensor<8xi32>
  %2 = comm.all_reduce xor %x over [[0, 1, 2, 3]] : tensor<8xi32>
  return %0, %1, %2 : tensor<8xi32>, tensor<8xi32>, tensor<8xi32>
}
func.func @permute(%x: tensor<4xf64>) -> tensor<4xf64> {
  %0 = comm.permute %x pairs [[0, 3], [3, 0], [1, 2]] : tensor<4xf64>
  return %0 : tensor<4xf64>
}
func.func @avg_bf16(%x: tensor<16xbf16>) -> tensor<16xbf16> {
  %0 = comm.all_reduce avg %x over [[0, 1, 2, 3]] : tensor<16xbf16>
  return %0 : tensor<16xbf16>
}
func.func @copies(%x: tensor<8xi8>) -> tensor<8xi8> {
  %0 = comm.copy %x hbm to pinned_host : tensor<8xi8>
  %1 = comm.copy %0 pinned_host to host : tensor<8xi8>
  return %1 : tensor<8xi8>
}
func.func @sendrecv_loop(%x: tensor<3xi32>) -> tensor<3xi32> {
  // Three times around the ring; the value that comes back is the sum of
  // everyone's, computed with explicit transfers and local additions.
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  scf.for %i = %c0 to %c3 step %c1 {
    comm.barrier over [[0, 1, 2, 3]]
  }
  comm.send %x to [[0, 1], [1, 2], [2, 3], [3, 0]] tag 1 : tensor<3xi32>
  %r1 = comm.recv from [[0, 1], [1, 2], [2, 3], [3, 0]] tag 1 : tensor<3xi32>
  %s1 = arith.addi %x, %r1 : tensor<3xi32>
  comm.send %r1 to [[0, 1], [1, 2], [2, 3], [3, 0]] tag 2 : tensor<3xi32>
  %r2 = comm.recv from [[0, 1], [1, 2], [2, 3], [3, 0]] tag 2 : tensor<3xi32>
  %s2 = arith.addi %s1, %r2 : tensor<3xi32>
  comm.send %r2 to [[0, 1], [1, 2], [2, 3], [3, 0]] tag 3 : tensor<3xi32>
  %r3 = comm.recv from [[0, 1], [1, 2], [2, 3], [3, 0]] tag 3 : tensor<3xi32>
  %s3 = arith.addi %s2, %r3 : tensor<3xi32>
  return %s3 : tensor<3xi32>
}
}
