// A reduce_scatter over pairs of a world of 4 that leaves ranks 2 and 3
// out: comm-decompose has no point-to-point schedule for it (a rank outside
// every group would combine zeros), so it cannot be compiled for cuda-verbs
// (test/Compile/errors.test).
module attributes {comm.world_size = 4 : i64} {
  func.func @scatter_pair(%x: tensor<4x64xf32>) -> tensor<2x64xf32> {
    %0 = comm.reduce_scatter sum %x over [[0, 1]] dim 0 : tensor<4x64xf32> -> tensor<2x64xf32>
    return %0 : tensor<2x64xf32>
  }
}
