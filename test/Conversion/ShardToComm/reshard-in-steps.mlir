// RUN: comm-opt %s -split-input-file --comm-reshard-in-steps -verify-diagnostics | FileCheck %s

// Upstream's shard-partition (MLIR 22) reshards in one step on the last grid
// axis of a dimension (move, append, remove) and crashes on any other
// reshard; comm-reshard-in-steps splits those into such steps. Found by
// trying the shard frontend as a new user: [[0, 1]] to replicated crashed
// `comm-opt --sharding-propagation --shard-partition`.

// Two axes removed from one dimension: one step per axis, last first.
// CHECK-LABEL: func.func @unsplit_two_axes
// CHECK: %[[A:.*]] = shard.shard %{{.*}} to %{{.*}} : tensor<8x16xf32>
// CHECK: %[[S:.*]] = shard.sharding @mesh split_axes = {{\[\[}}0]]
// CHECK: %[[I:.*]] = shard.shard %[[A]] to %[[S]] annotate_for_users
// CHECK: shard.shard %[[I]] to %{{.*}} annotate_for_users
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
// CHECK-LABEL: func.func @other_axis
// CHECK: shard.sharding @mesh split_axes = []
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
// CHECK-LABEL: func.func @swap_dimensions
// CHECK: shard.sharding @mesh split_axes = {{\[\[}}], [1]]
// CHECK: shard.sharding @mesh split_axes = []
// CHECK: shard.sharding @mesh split_axes = {{\[\[}}1]]
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
// CHECK-LABEL: func.func @three_d
// CHECK: shard.sharding @mesh3 split_axes = {{\[\[}}2]]
// CHECK: shard.sharding @mesh3 split_axes = []
// CHECK-NOT: = shard.sharding
// CHECK: return
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
// CHECK-LABEL: func.func @negative_one_step
// CHECK-COUNT-2: = shard.sharding @mesh
// CHECK-NOT: = shard.sharding
shard.grid @mesh(shape = 2x4)
func.func @negative_one_step(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s0 = shard.sharding @mesh split_axes = [[1]] : !shard.sharding
  %a = shard.shard %x to %s0 : tensor<8x16xf32>
  %s1 = shard.sharding @mesh split_axes = [[], [1]] : !shard.sharding
  %b = shard.shard %a to %s1 annotate_for_users : tensor<8x16xf32>
  return %b : tensor<8x16xf32>
}

// -----

shard.grid @mesh(shape = 4)
func.func @negative_halo_and_split(%x: tensor<16xf32>) -> tensor<16xf32> {
  %s0 = shard.sharding @mesh split_axes = [[0]] halo_sizes = [1, 1] : !shard.sharding
  %a = shard.shard %x to %s0 : tensor<16xf32>
  %s1 = shard.sharding @mesh split_axes = [[]] : !shard.sharding
  // expected-error @+1 {{reshards from split_axes [[0]] to [] with halo sizes or sharded_dims_offsets, which upstream's shard-partition cannot do (it changes halo sizes only where the split axes stay the same)}}
  %b = shard.shard %a to %s1 annotate_for_users : tensor<16xf32>
  return %b : tensor<16xf32>
}
