// RUN: comm-opt %s --sharding-propagation --shard-partition --convert-shard-to-comm | FileCheck %s

// A pure reshard moves data and computes nothing: upstream's partitioning
// leaves a tensor.cast to the same type around each collective, which the
// import made a comm.compute stand-in, so a program that only moves data
// came back changed (+1 per cast under the harness's stand-ins). An op whose
// folder gives an operand is now that operand.

// CHECK-LABEL: func.func @reshard
// CHECK-NOT: comm.compute
// CHECK: comm.all_gather %{{.*}} over {{\[}}[0, 1, 2, 3], [4, 5, 6, 7]] dim 0
// CHECK: comm.all_gather %{{.*}} over {{\[}}[0, 4], [1, 5], [2, 6], [3, 7]] dim 0
// CHECK-NOT: comm.compute
// CHECK: return
shard.grid @g(shape = 2x4)
func.func @reshard(%x: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %s = shard.sharding @g split_axes = [[0, 1]] : !shard.sharding
  %0 = shard.shard %x to %s : tensor<16x16xf32>
  %t = shard.sharding @g split_axes = [[1, 0]] : !shard.sharding
  %1 = shard.shard %0 to %t annotate_for_users : tensor<16x16xf32>
  return %1 : tensor<16x16xf32>
}
