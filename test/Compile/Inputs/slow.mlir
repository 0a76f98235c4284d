// A step whose compute takes 20 ms: the harness's default timing is cut to
// fit its --time-budget (test/Compile/harness.test).
module attributes {comm.world_size = 4 : i64} {
  func.func @slow(%x: tensor<256xf32>) -> tensor<256xf32> {
    %y = comm.compute "layer"(%x) time_us 20000.0 : (tensor<256xf32>) -> tensor<256xf32>
    %s = comm.all_reduce sum %y over [[0, 1, 2, 3]] : tensor<256xf32>
    return %s : tensor<256xf32>
  }
}
