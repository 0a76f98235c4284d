// RUN: comm-opt %s --allow-unregistered-dialect --convert-stablehlo-to-comm | FileCheck %s
// RUN: comm-opt %s --allow-unregistered-dialect --convert-stablehlo-to-comm --convert-stablehlo-to-comm | FileCheck %s

// A module imported before (or written by hand) declares its world with
// comm.world_size and no mhlo.num_partitions: importing it again keeps that
// world. It became 1, and the collective's rank 7 was then refused ("the
// world has only 1 ranks").

// CHECK: module attributes {comm.world_size = 8 : i64}
// CHECK: comm.all_reduce sum %{{.*}} over {{\[}}[0, 1, 2, 3, 4, 5, 6, 7]]
module attributes {comm.world_size = 8 : i64} {
  func.func @step(%x: tensor<16xf32>) -> tensor<16xf32> {
    %0 = comm.all_reduce sum %x over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<16xf32>
    return %0 : tensor<16xf32>
  }
}
