module attributes {comm.world_size = 2 : i64} {
  func.func @step(%x: tensor<1048576xf32>) -> tensor<1048576xf32> {
    %p = comm.copy %x hbm to pinned_host : tensor<1048576xf32>
    %b = comm.copy %p pinned_host to hbm : tensor<1048576xf32>
    return %b : tensor<1048576xf32>
  }
}
