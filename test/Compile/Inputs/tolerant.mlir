// A program that states the error its results may take (on the function):
// comm-compile --topology plans it: comm-reduce-precision sends the large
// sum as bf16 (the bound fits and it pays), and the max stays f32 (a
// narrower type would change which value wins).
module attributes {comm.topology = "dgx-h100", comm.world_size = 4 : i64} {
  func.func @grads(%g: tensor<4194304xf32>, %s: tensor<64xf32>, %m: tensor<4096xf32>)
      -> (tensor<4194304xf32>, tensor<64xf32>, tensor<4096xf32>)
      attributes {comm.max_rel_error = 5.0e-02 : f64} {
    %0 = comm.all_reduce sum %g over [[0, 1, 2, 3]] : tensor<4194304xf32>
    %1 = comm.all_reduce sum %s over [[0, 1, 2, 3]] : tensor<64xf32>
    %2 = comm.all_reduce max %m over [[0, 1, 2, 3]] : tensor<4096xf32>
    return %0, %1, %2 : tensor<4194304xf32>, tensor<64xf32>, tensor<4096xf32>
  }
}
