// Programs partitioned by upstream's own passes from sharding annotations on
// matmuls flow through the import, the planner and the simulator.
//
// RUN: comm-opt %s --sharding-propagation --shard-partition --convert-shard-to-comm | FileCheck %s
// RUN: comm-opt %s --pass-pipeline='builtin.module(func.func(sharding-propagation,shard-partition),convert-shard-to-comm)' | FileCheck %s
// RUN: comm-opt %s --sharding-propagation --shard-partition --convert-shard-to-comm --comm-plan=topology=dgx-h100 | FileCheck %s --check-prefix=PLAN
// RUN: comm-opt %s --sharding-propagation --shard-partition --convert-shard-to-comm --comm-plan=topology=dgx-h100 \
// RUN:   | comm-sim run - --topology dgx-h100 --entry tp_mlp | FileCheck %s --check-prefix=SIM

// CHECK: module attributes {comm.world_size = 8 : i64}
// CHECK-NOT: shard.

shard.grid @mesh(shape = 2x4)
shard.grid @dp(shape = 8)
shard.grid @cube(shape = 2x2x2)

/// Megatron MLP: column-parallel then row-parallel over axis 1 of 2x4; the
/// partial sums are reduced among the 4 processes of each row.
// CHECK-LABEL: func.func @tp_mlp
// CHECK-SAME: (%{{.*}}: tensor<4x64xf32>, %{{.*}}: tensor<64x64xf32>, %{{.*}}: tensor<64x64xf32>)
// CHECK: comm.compute "linalg.matmul"{{.*}} flops 3.276800e+04
// CHECK: comm.compute "scf.if"
// CHECK: %[[Y:.*]] = comm.compute "linalg.matmul"
// CHECK: comm.all_reduce sum %[[Y]] over {{\[}}[0, 1, 2, 3], [4, 5, 6, 7]] : tensor<4x64xf32>
// PLAN-LABEL: func.func @tp_mlp
// PLAN: comm.all_reduce sum {{.*}} plan <algorithm =
// SIM: comm-sim run: @tp_mlp on dgx-h100, 8 ranks
// SIM: step time
func.func @tp_mlp(%x: tensor<8x64xf32>, %w1: tensor<64x256xf32>, %w2: tensor<256x64xf32>) -> tensor<8x64xf32> {
  %sx = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
  %x0 = shard.shard %x to %sx : tensor<8x64xf32>
  %sw1 = shard.sharding @mesh split_axes = [[], [1]] : !shard.sharding
  %w10 = shard.shard %w1 to %sw1 : tensor<64x256xf32>
  %sw2 = shard.sharding @mesh split_axes = [[1]] : !shard.sharding
  %w20 = shard.shard %w2 to %sw2 : tensor<256x64xf32>
  %e = tensor.empty() : tensor<8x256xf32>
  %c0 = arith.constant 0.0 : f32
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<8x256xf32>) -> tensor<8x256xf32>
  %h = linalg.matmul ins(%x0, %w10 : tensor<8x64xf32>, tensor<64x256xf32>) outs(%z : tensor<8x256xf32>) -> tensor<8x256xf32>
  %e2 = tensor.empty() : tensor<8x64xf32>
  %z2 = linalg.fill ins(%c0 : f32) outs(%e2 : tensor<8x64xf32>) -> tensor<8x64xf32>
  %y = linalg.matmul ins(%h, %w20 : tensor<8x256xf32>, tensor<256x64xf32>) outs(%z2 : tensor<8x64xf32>) -> tensor<8x64xf32>
  %sy = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
  %y0 = shard.shard %y to %sy : tensor<8x64xf32>
  return %y0 : tensor<8x64xf32>
}
/// Data parallel: the batch (the contracted dimension) is split 8 ways, so the
/// weight gradient is a partial sum reduced over all 8.
// CHECK-LABEL: func.func @dp_grad
// CHECK: comm.compute "linalg.matmul"{{.*}} flops 1.310720e+05
// CHECK: comm.all_reduce sum %{{.*}} over {{\[}}[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<64x32xf32>
func.func @dp_grad(%xt: tensor<64x256xf32>, %dy: tensor<256x32xf32>) -> tensor<64x32xf32> {
  %s0 = shard.sharding @dp split_axes = [[], [0]] : !shard.sharding
  %a = shard.shard %xt to %s0 : tensor<64x256xf32>
  %s1 = shard.sharding @dp split_axes = [[0]] : !shard.sharding
  %b = shard.shard %dy to %s1 : tensor<256x32xf32>
  %e = tensor.empty() : tensor<64x32xf32>
  %c0 = arith.constant 0.0 : f32
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
  %g = linalg.matmul ins(%a, %b : tensor<64x256xf32>, tensor<256x32xf32>) outs(%z : tensor<64x32xf32>) -> tensor<64x32xf32>
  %s2 = shard.sharding @dp split_axes = [[]] : !shard.sharding
  %r = shard.shard %g to %s2 : tensor<64x32xf32>
  return %r : tensor<64x32xf32>
}
/// 3-D: rows split on axis 0, the contraction on axis 2: the partial sums are
/// reduced among processes that differ in axis 2 only (strides 4, 2, 1).
// CHECK-LABEL: func.func @cube_mm
// CHECK-SAME: (%{{.*}}: tensor<8x32xf32>, %{{.*}}: tensor<32x16xf32>)
// CHECK: comm.all_reduce sum %{{.*}} over {{\[}}[0, 1], [2, 3], [4, 5], [6, 7]] : tensor<8x16xf32>
func.func @cube_mm(%a: tensor<16x64xf32>, %b: tensor<64x16xf32>) -> tensor<16x16xf32> {
  %s0 = shard.sharding @cube split_axes = [[0], [2]] : !shard.sharding
  %a0 = shard.shard %a to %s0 : tensor<16x64xf32>
  %s1 = shard.sharding @cube split_axes = [[2]] : !shard.sharding
  %b0 = shard.shard %b to %s1 : tensor<64x16xf32>
  %e = tensor.empty() : tensor<16x16xf32>
  %c0 = arith.constant 0.0 : f32
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %g = linalg.matmul ins(%a0, %b0 : tensor<16x64xf32>, tensor<64x16xf32>) outs(%z : tensor<16x16xf32>) -> tensor<16x16xf32>
  %s2 = shard.sharding @cube split_axes = [[0]] : !shard.sharding
  %r = shard.shard %g to %s2 : tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}
