// The reference of one-rank-schedule.mlir: the same values without
// rotation, scaling or parts.
func.func @pieces(%x: tensor<64x8xf32>, %w: tensor<8x8xf32>) -> tensor<64x8xf32> {
  %h = arith.addf %x, %x : tensor<64x8xf32>
  %p = comm.compute "mlp"(%h, %w) time_us 10.0 rowwise : (tensor<64x8xf32>, tensor<8x8xf32>) -> tensor<64x8xf32>
  %a = comm.all_reduce sum %p over [[0]] : tensor<64x8xf32>
  return %a : tensor<64x8xf32>
}
