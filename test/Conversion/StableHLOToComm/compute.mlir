// RUN: comm-opt %s --allow-unregistered-dialect --convert-stablehlo-to-comm -verify-diagnostics | FileCheck %s

// The compute around collectives becomes comm.compute with estimates from
// its shapes: each figure below is worked out by hand in its comment.

// CHECK-LABEL: func.func public @compute
"builtin.module"() <{sym_name = "jit_compute"}> ({
  "func.func"() <{function_type = (tensor<4x8x16xf32>, tensor<4x16x32xf32>, tensor<2x10x10x3xf32>, tensor<3x3x3x8xf32>) -> (tensor<4x8xf32>, tensor<2x8x8x8xf32>, tensor<4x4x32xf32>), sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%a: tensor<4x8x16xf32>, %b: tensor<4x16x32xf32>, %img: tensor<2x10x10x3xf32>, %k: tensor<3x3x3x8xf32>):
    // Batched matmul: 2 * (4*8*32 results) * 16 contracted = 32768 FLOPs;
    // bytes 2048 + 8192 + 4096.
    // CHECK: %[[D:.*]] = comm.compute "stablehlo.dot_general"(%arg0, %arg1) flops 3.276800e+04 bytes 14336
    %d = "stablehlo.dot_general"(%a, %b) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>}> : (tensor<4x8x16xf32>, tensor<4x16x32xf32>) -> tensor<4x8x32xf32>
    // Elementwise: one FLOP per element (1024), bytes 4096 per operand and
    // result (the comm.compute lists an input read twice once).
    // CHECK: %[[T:.*]] = comm.compute "stablehlo.tanh"(%[[D]]) flops 1.024000e+03 bytes 8192
    %t = "stablehlo.tanh"(%d) : (tensor<4x8x32xf32>) -> tensor<4x8x32xf32>
    // CHECK: comm.compute "stablehlo.multiply"(%[[T]]) flops 1.024000e+03 bytes 12288
    %m = "stablehlo.multiply"(%t, %t) : (tensor<4x8x32xf32>, tensor<4x8x32xf32>) -> tensor<4x8x32xf32>
    // Reduce over 1024 inputs; the init scalar and the result add bytes.
    // CHECK: comm.compute "stablehlo.reduce"({{.*}}) flops 1.024000e+03 bytes 4228
    %zero = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
    %r = "stablehlo.reduce"(%m, %zero) <{dimensions = array<i64: 2>}> ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %s = "stablehlo.add"(%x, %y) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ()
    }) : (tensor<4x8x32xf32>, tensor<f32>) -> tensor<4x8xf32>
    // Convolution NHWC x HWIO: 2 * (2*8*8*8 outputs) * (3*3*3 per output
    // feature) = 55296 FLOPs; bytes 2400 + 864 + 4096.
    // CHECK: comm.compute "stablehlo.convolution"(%arg2, %arg3) flops 5.529600e+04 bytes 7360
    %c = "stablehlo.convolution"(%img, %k) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64}> : (tensor<2x10x10x3xf32>, tensor<3x3x3x8xf32>) -> tensor<2x8x8x8xf32>
    // A reduce_window of 2 along dim 1: 512 outputs * 2.
    // CHECK: comm.compute "stablehlo.reduce_window"({{.*}}) flops 1.024000e+03
    %w = "stablehlo.reduce_window"(%m, %zero) <{window_dimensions = array<i64: 1, 2, 1>, window_strides = array<i64: 1, 2, 1>}> ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %s = "stablehlo.add"(%x, %y) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ()
    }) : (tensor<4x8x32xf32>, tensor<f32>) -> tensor<4x4x32xf32>
    // Data movement: bytes only. Reshapes are views: nothing.
    // CHECK: comm.compute "stablehlo.transpose"({{.*}}) bytes 4096 :
    %tr = "stablehlo.transpose"(%w) <{permutation = array<i64: 0, 2, 1>}> : (tensor<4x4x32xf32>) -> tensor<4x32x4xf32>
    // CHECK: comm.compute "stablehlo.reshape"({{.*}}) : (tensor<4x32x4xf32>) -> tensor<4x4x32xf32>
    %rs = "stablehlo.reshape"(%tr) : (tensor<4x32x4xf32>) -> tensor<4x4x32xf32>
    // An op with no rule: its traffic only, and a warning.
    // expected-warning @+1 {{'stablehlo.custom_call' @my_kernel has no cost rule; imported as opaque compute that counts only its memory traffic (4096 bytes)}}
    %cc = "stablehlo.custom_call"(%rs) <{call_target_name = "my_kernel"}> : (tensor<4x4x32xf32>) -> tensor<4x4x32xf32>
    "func.return"(%r, %c, %cc) : (tensor<4x8xf32>, tensor<2x8x8x8xf32>, tensor<4x4x32xf32>) -> ()
  }) : () -> ()
}) : () -> ()
