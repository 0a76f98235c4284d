// One 64 MiB f32 all_reduce over 4 ranks, as the data is, and sent as bf16
// (what comm-reduce-precision produces).
func.func @allreduce_f32(%x: tensor<16777216xf32>) -> tensor<16777216xf32> {
  %0 = comm.all_reduce sum %x over [[0, 1, 2, 3]] : tensor<16777216xf32>
  return %0 : tensor<16777216xf32>
}
func.func @allreduce_bf16(%x: tensor<16777216xf32>) -> tensor<16777216xf32> {
  %0 = comm.all_reduce sum %x over [[0, 1, 2, 3]] plan <precision = bf16> : tensor<16777216xf32>
  return %0 : tensor<16777216xf32>
}
