// Tensors past what the cost model predicts (test/Sim/errors.test).
func.func @f(%x: tensor<4611686018427387904xi8>) -> tensor<4611686018427387904xi8> {
  // 2^62 bytes.
  %0 = comm.all_reduce sum %x over [[0, 1]] : tensor<4611686018427387904xi8>
  return %0 : tensor<4611686018427387904xi8>
}
