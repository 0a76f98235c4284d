// RUN: comm-opt %s -split-input-file --sharding-propagation --shard-partition --convert-shard-to-comm | FileCheck %s

// The reshards of reshard-in-steps.mlir through comm-opt's shard-partition
// (which runs comm-reshard-in-steps before upstream's pass) and the import:
// the collectives each takes, with their groups. Slices along a dimension
// other than the first are imported as opaque copies, with a warning.

// Two axes removed from one dimension: one step per axis, last first.
// CHECK-LABEL: func.func @unsplit_two_axes(%arg0: tensor<1x16xf32>) -> tensor<8x16xf32>
// CHECK: comm.all_gather %arg0 over {{\[\[}}0, 1, 2, 3], [4, 5, 6, 7]] dim 0 : tensor<1x16xf32> -> tensor<4x16xf32>
// CHECK: comm.all_gather %{{.*}} over {{\[\[}}0, 4], [1, 5], [2, 6], [3, 7]] dim 0 : tensor<4x16xf32> -> tensor<8x16xf32>
shard.grid @mesh(shape = 2x4)
func.func @unsplit_two_axes(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s0 = shard.sharding @mesh split_axes = [[0, 1]] : !shard.sharding
  %a = shard.shard %x to %s0 : tensor<8x16xf32>
  %s1 = shard.sharding @mesh split_axes = [[]] : !shard.sharding
  %b = shard.shard %a to %s1 annotate_for_users : tensor<8x16xf32>
  return %b : tensor<8x16xf32>
}

// -----

// Another axis for the same dimension: remove the old, append the new (an
// all_gather, then each process's slice, no transfer).
// CHECK-LABEL: func.func @other_axis(%arg0: tensor<4x16xf32>) -> tensor<2x16xf32>
// CHECK: comm.all_gather %arg0 over {{\[\[}}0, 4], [1, 5], [2, 6], [3, 7]] dim 0 : tensor<4x16xf32> -> tensor<8x16xf32>
// CHECK-NOT: comm.all_gather
// CHECK: return
shard.grid @mesh(shape = 2x4)
func.func @other_axis(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s0 = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
  %a = shard.shard %x to %s0 : tensor<8x16xf32>
  %s1 = shard.sharding @mesh split_axes = [[1]] : !shard.sharding
  %b = shard.shard %a to %s1 annotate_for_users : tensor<8x16xf32>
  return %b : tensor<8x16xf32>
}

// -----

// The axes of two dimensions swapped: both removed, then both appended.
// CHECK-LABEL: func.func @swap_dimensions(%arg0: tensor<4x4xf32>) -> tensor<2x8xf32>
// CHECK: comm.all_gather %arg0 over {{\[\[}}0, 4], [1, 5], [2, 6], [3, 7]] dim 0 : tensor<4x4xf32> -> tensor<8x4xf32>
// CHECK: comm.all_gather %{{.*}} over {{\[\[}}0, 1, 2, 3], [4, 5, 6, 7]] dim 1 : tensor<8x4xf32> -> tensor<8x16xf32>
shard.grid @mesh(shape = 2x4)
func.func @swap_dimensions(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s0 = shard.sharding @mesh split_axes = [[0], [1]] : !shard.sharding
  %a = shard.shard %x to %s0 : tensor<8x16xf32>
  %s1 = shard.sharding @mesh split_axes = [[1], [0]] : !shard.sharding
  %b = shard.shard %a to %s1 annotate_for_users : tensor<8x16xf32>
  return %b : tensor<8x16xf32>
}

// -----

// On a 2x2x2 grid, axes 2 and 0 of dimension 0 to axis 1 of dimension 1:
// three steps removing and appending, one reshard op each.
// CHECK-LABEL: func.func @three_d(%arg0: tensor<2x8xf32>) -> tensor<8x4xf32>
// CHECK: comm.all_gather %arg0 over {{\[\[}}0, 4], [1, 5], [2, 6], [3, 7]] dim 0 : tensor<2x8xf32> -> tensor<4x8xf32>
// CHECK: comm.all_gather %{{.*}} over {{\[\[}}0, 1], [2, 3], [4, 5], [6, 7]] dim 0 : tensor<4x8xf32> -> tensor<8x8xf32>
shard.grid @mesh3(shape = 2x2x2)
func.func @three_d(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %s0 = shard.sharding @mesh3 split_axes = [[2, 0]] : !shard.sharding
  %a = shard.shard %x to %s0 : tensor<8x8xf32>
  %s1 = shard.sharding @mesh3 split_axes = [[], [1]] : !shard.sharding
  %b = shard.shard %a to %s1 annotate_for_users : tensor<8x8xf32>
  return %b : tensor<8x8xf32>
}

// -----

/// negative_one_step: reshards upstream takes as they are stay one step (a
/// move of the last axis is one all_to_all).
// CHECK-LABEL: func.func @negative_one_step(%arg0: tensor<2x16xf32>) -> tensor<8x4xf32>
// CHECK: comm.all_to_all %arg0 over {{\[\[}}0, 1, 2, 3], [4, 5, 6, 7]] split 1 concat 0
// CHECK-NOT: comm.all_gather
shard.grid @mesh(shape = 2x4)
func.func @negative_one_step(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s0 = shard.sharding @mesh split_axes = [[1]] : !shard.sharding
  %a = shard.shard %x to %s0 : tensor<8x16xf32>
  %s1 = shard.sharding @mesh split_axes = [[], [1]] : !shard.sharding
  %b = shard.shard %a to %s1 annotate_for_users : tensor<8x16xf32>
  return %b : tensor<8x16xf32>
}
