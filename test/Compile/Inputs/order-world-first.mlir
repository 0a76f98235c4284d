// Ranks 0-2 of test/Compile/group-order.test: the second world all_reduce
// before the pair one (order-pair-first.mlir has the other order).
module attributes {comm.world_size = 4 : i64} {
  func.func @step(%x: tensor<1024xf32>) -> (tensor<1024xf32>, tensor<1024xf32>) {
    %w = comm.all_reduce sum %x over [[0, 1, 2, 3]] : tensor<1024xf32>
    %0 = comm.all_reduce sum %w over [[0, 1, 2, 3]] : tensor<1024xf32>
    %1 = comm.all_reduce sum %w over [[0, 1], [2, 3]] : tensor<1024xf32>
    return %0, %1 : tensor<1024xf32>, tensor<1024xf32>
  }
}
