// An all_reduce for a C program of the user's (library-user.c) to call.
module attributes {comm.world_size = 4 : i64} {
  func.func @sum4(%x: tensor<8xf32>) -> tensor<8xf32> {
    %0 = comm.all_reduce sum %x over [[0, 1, 2, 3]] : tensor<8xf32>
    return %0 : tensor<8xf32>
  }
}
