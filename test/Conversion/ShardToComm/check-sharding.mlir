// RUN: comm-opt %s -split-input-file --sharding-propagation --shard-partition -verify-diagnostics
// RUN: comm-opt %s -split-input-file --comm-check-sharding -verify-diagnostics

// Upstream's partitioning trusts that annotations name axes their grid has
// (given [[2]] on a 2-D grid it crashes or makes empty tensors): comm checks
// them first. Found by the fuzzer.

shard.grid @mesh(shape = 2x4)
func.func @axis_out_of_range(%w: tensor<256x64xf32>) -> tensor<256x64xf32> {
  // expected-error @+1 {{split_axes names grid axis 2, but grid @mesh has 2 axes (0-1)}}
  %s = shard.sharding @mesh split_axes = [[2]] : !shard.sharding
  %0 = shard.shard %w to %s : tensor<256x64xf32>
  return %0 : tensor<256x64xf32>
}

// -----

/// negative_valid: a correct annotation passes.
shard.grid @mesh(shape = 2x4)
func.func @negative_valid(%w: tensor<256x64xf32>) -> tensor<256x64xf32> {
  %s = shard.sharding @mesh split_axes = [[0, 1]] : !shard.sharding
  %0 = shard.shard %w to %s : tensor<256x64xf32>
  return %0 : tensor<256x64xf32>
}
