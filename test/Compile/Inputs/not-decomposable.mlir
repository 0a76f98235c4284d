// A reduce_scatter of dimension 1 of a 4x64 tensor: its chunks are not
// contiguous, comm-decompose has no point-to-point schedule for it, so it
// cannot be compiled for cuda-verbs (test/Compile/errors.test).
module attributes {comm.world_size = 4 : i64} {
  func.func @scatter_columns(%x: tensor<4x64xf32>) -> tensor<4x16xf32> {
    %0 = comm.reduce_scatter sum %x over [[0, 1, 2, 3]] dim 1 : tensor<4x64xf32> -> tensor<4x16xf32>
    return %0 : tensor<4x16xf32>
  }
}
