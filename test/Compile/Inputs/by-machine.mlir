// All-reduces over ranks on two machines of two GPUs
// (test/Compile/decompose.test): comm-decompose=hierarchical writes each as
// a reduce_scatter inside the machines, an all_reduce across them and an
// all_gather inside; the results must not change.
module attributes {comm.world_size = 4 : i64} {
  func.func @sum(%x: tensor<50x3xf32>) -> tensor<50x3xf32> {
    %0 = comm.all_reduce sum %x over [[0, 1, 2, 3]] : tensor<50x3xf32>
    return %0 : tensor<50x3xf32>
  }
  func.func @avg(%x: tensor<33xf32>) -> tensor<33xf32> {
    %0 = comm.all_reduce avg %x over [[2, 3, 1, 0]] : tensor<33xf32>
    return %0 : tensor<33xf32>
  }
  func.func @max_i32(%x: tensor<16xi32>) -> tensor<16xi32> {
    %0 = comm.all_reduce max %x over [[0, 1, 2, 3]] : tensor<16xi32>
    return %0 : tensor<16xi32>
  }
}
