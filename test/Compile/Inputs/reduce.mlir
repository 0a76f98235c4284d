// A reduce: comm-decompose has no point-to-point schedule for it, so it
// cannot be compiled for cuda-verbs (test/Compile/errors.test).
module attributes {comm.world_size = 4 : i64} {
  func.func @reduce(%x: tensor<64xf32>) -> tensor<64xf32> {
    %0 = comm.reduce sum %x over [[0, 1, 2, 3]] root 1 : tensor<64xf32>
    return %0 : tensor<64xf32>
  }
}
