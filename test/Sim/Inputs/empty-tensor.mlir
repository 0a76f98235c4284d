// An empty shard moves nothing; the step is the compute and the 4 MiB sum.
module attributes {comm.topology = "dgx-h100", comm.world_size = 8 : i64} {
  func.func @step(%x: tensor<1048576xf32>, %e: tensor<0xf32>) -> (tensor<1048576xf32>, tensor<0xf32>, tensor<0xf32>) {
    %g = comm.compute "grad"(%x) time_us 100.0 : (tensor<1048576xf32>) -> tensor<1048576xf32>
    %0 = comm.all_reduce sum %g over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<1048576xf32>
    %1 = comm.all_reduce sum %e over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<0xf32>
    %2 = comm.all_gather %e over [[0, 1, 2, 3, 4, 5, 6, 7]] dim 0 : tensor<0xf32> -> tensor<0xf32>
    return %0, %1, %2 : tensor<1048576xf32>, tensor<0xf32>, tensor<0xf32>
  }
}
