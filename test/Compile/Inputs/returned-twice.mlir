// A collective result returned twice (crashed the lowering in
// buffer-results-to-out-params before comm-bufferize copied it).
func.func @f(%x: tensor<8xi32>) -> (tensor<8xi32>, tensor<8xi32>) {
  %0 = comm.all_reduce sum %x over [[0, 1]] : tensor<8xi32>
  return %0, %0 : tensor<8xi32>, tensor<8xi32>
}
