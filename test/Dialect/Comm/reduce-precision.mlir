// RUN: comm-opt %s --comm-reduce-precision --comm-verify-schedule -split-input-file | FileCheck %s
// RUN: comm-opt %s --comm-reduce-precision="allow-f16" --comm-verify-schedule -split-input-file | FileCheck %s --check-prefix=F16
// RUN: comm-opt %s --comm-reduce-precision="max-rel-error=0.05" --comm-verify-schedule -split-input-file | FileCheck %s --check-prefix=OPTION
// RUN: comm-opt %s --comm-reduce-precision="explain allow-f16" -split-input-file -verify-diagnostics -o /dev/null
// RUN: not comm-opt %s --comm-reduce-precision="max-rel-error=1.5" -split-input-file 2>&1 | FileCheck %s --check-prefix=RANGE
// RANGE: error: comm-reduce-precision: max-rel-error must be in [0, 1), got 1.5
// RUN: not comm-opt %s --comm-reduce-precision="topology=dgx-h100 max-rel-error=nan" -split-input-file 2>&1 | FileCheck %s --check-prefix=NAN
// NAN: error: comm-reduce-precision: max-rel-error must be in [0, 1), got nan

module attributes {comm.topology = "dgx-h100"} {
/// A large sum with a 5% tolerance: bf16 bounds the error of 8 roundings at
/// γ(8) = 8·2^-8 / (1 - 8·2^-8) = 3.2% and halves the bytes; the bound is
/// recorded.
// CHECK-LABEL: func.func @large_sum
// CHECK: plan <precision = bf16> {comm.error_bound = 0.032258064516129031 : f64, comm.max_rel_error = 5.000000e-02 : f64}
func.func @large_sum(%g: tensor<16777216xf32>) -> tensor<16777216xf32> {
  // expected-remark @+1 {{comm-reduce-precision: bf16 on the wire, error bound 3.225806e-02 <= 5.000000e-02 allowed; 244.00 us (177.91 us on the wire + 66.10 us converting) instead of 305.45 us}}
  %0 = comm.all_reduce sum %g over [[0, 1, 2, 3, 4, 5, 6, 7]] {comm.max_rel_error = 5.0e-02 : f64} : tensor<16777216xf32>
  return %0 : tensor<16777216xf32>
}

/// 1% is too tight for bf16 on a sum of 8; f16 (γ(8) at 2^-11, 0.39%) fits,
/// but only when its range is allowed.
// CHECK-LABEL: func.func @tight_sum
// CHECK: comm.all_reduce sum %{{.*}} {comm.error_bound = 0.000000e+00 : f64, comm.max_rel_error = 1.000000e-02 : f64}
// F16-LABEL: func.func @tight_sum
// F16: plan <precision = f16> {comm.error_bound = 0.0039215686274509803 : f64
func.func @tight_sum(%g: tensor<16777216xf32>) -> tensor<16777216xf32> {
  // expected-remark @+1 {{comm-reduce-precision: f16 on the wire, error bound 3.921569e-03 <= 1.000000e-02 allowed}}
  %0 = comm.all_reduce sum %g over [[0, 1, 2, 3, 4, 5, 6, 7]] {comm.max_rel_error = 1.0e-02 : f64} : tensor<16777216xf32>
  return %0 : tensor<16777216xf32>
}

/// Moving data rounds once (2^-8 for bf16); the tolerance on the function
/// covers its ops; a plan's other fields stay.
// CHECK-LABEL: func.func @moves
// CHECK: comm.all_gather %{{.*}} plan <algorithm = ring, precision = bf16> {comm.error_bound = 3.906250e-03 : f64}
// CHECK: comm.broadcast %{{.*}} plan <precision = bf16> {comm.error_bound = 3.906250e-03 : f64}
func.func @moves(%g: tensor<16777216xf32>) -> (tensor<134217728xf32>, tensor<16777216xf32>) attributes {comm.max_rel_error = 1.0e-02 : f64} {
  // expected-remark @+1 {{comm-reduce-precision: bf16 on the wire, error bound 3.906250e-03}}
  %0 = comm.all_gather %g over [[0, 1, 2, 3, 4, 5, 6, 7]] dim 0 plan <algorithm = ring> : tensor<16777216xf32> -> tensor<134217728xf32>
  // expected-remark @+1 {{comm-reduce-precision: bf16 on the wire, error bound 3.906250e-03}}
  %1 = comm.broadcast %g over [[0, 1, 2, 3, 4, 5, 6, 7]] root 0 : tensor<16777216xf32>
  return %0, %1 : tensor<134217728xf32>, tensor<16777216xf32>
}

/// Small messages are latency-bound: converting costs more than the halved
/// bytes save.
// CHECK-LABEL: func.func @negative_small
// CHECK-NOT: precision
func.func @negative_small(%s: tensor<256xf32>) -> tensor<256xf32> {
  // expected-remark @+1 {{comm-reduce-precision: kept f32: bf16 would take 42.06 us (36.06 us on the wire + 6.00 us converting) against 36.08 us}}
  %0 = comm.all_reduce sum %s over [[0, 1, 2, 3, 4, 5, 6, 7]] {comm.max_rel_error = 5.0e-02 : f64} : tensor<256xf32>
  return %0 : tensor<256xf32>
}

/// Never for max: the result would no longer be one of the contributions.
// CHECK-LABEL: func.func @negative_max
// CHECK-NOT: precision
func.func @negative_max(%g: tensor<16777216xf32>) -> tensor<16777216xf32> {
  // expected-remark @+1 {{comm-reduce-precision: kept f32: max in a narrower type would not return one of the contributions}}
  %0 = comm.all_reduce max %g over [[0, 1, 2, 3, 4, 5, 6, 7]] {comm.max_rel_error = 5.0e-02 : f64} : tensor<16777216xf32>
  return %0 : tensor<16777216xf32>
}

/// Never for integers, never without a tolerance (unless the option gives
/// one), and never over a precision a person wrote.
// CHECK-LABEL: func.func @negative_others
// CHECK: comm.all_reduce sum %{{.*}} {comm.max_rel_error = 5.000000e-02 : f64} : tensor<16777216xi32>
// CHECK: comm.all_reduce sum %{{.*}} over {{\[\[}}0, 1, 2, 3, 4, 5, 6, 7]] : tensor<16777216xf32>
// CHECK: comm.all_reduce sum %{{.*}} plan <precision = f16> {comm.max_rel_error = 5.000000e-02 : f64}
// OPTION-LABEL: func.func @negative_others
// OPTION: comm.all_reduce sum %{{.*}} {comm.max_rel_error = 5.000000e-02 : f64} : tensor<16777216xi32>
// OPTION: comm.all_reduce sum %{{.*}} plan <precision = bf16> {comm.error_bound = 0.032258064516129031 : f64} : tensor<16777216xf32>
func.func @negative_others(%i: tensor<16777216xi32>, %g: tensor<16777216xf32>) -> (tensor<16777216xi32>, tensor<16777216xf32>, tensor<16777216xf32>) {
  %0 = comm.all_reduce sum %i over [[0, 1, 2, 3, 4, 5, 6, 7]] {comm.max_rel_error = 5.0e-02 : f64} : tensor<16777216xi32>
  %1 = comm.all_reduce sum %g over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<16777216xf32>
  %2 = comm.all_reduce sum %g over [[0, 1, 2, 3, 4, 5, 6, 7]] plan <precision = f16> {comm.max_rel_error = 5.0e-02 : f64} : tensor<16777216xf32>
  return %0, %1, %2 : tensor<16777216xi32>, tensor<16777216xf32>, tensor<16777216xf32>
}

/// A send and its receive are one transfer: a tolerance at either end
/// narrows both (the receiver reads what the sender wrote); another pair's
/// receive without a tolerance anywhere stays f32 with its send.
// CHECK-LABEL: func.func @transfer
// CHECK: comm.send %{{.*}} tag 1 plan <precision = bf16> {comm.error_bound = 3.906250e-03 : f64, comm.max_rel_error = 5.000000e-02 : f64}
// CHECK: comm.recv from {{\[\[}}0, 1]] tag 1 plan <precision = bf16> {comm.error_bound = 3.906250e-03 : f64}
// CHECK: comm.send %{{.*}} tag 2 : tensor<16777216xf32>
// CHECK: comm.recv from {{\[\[}}1, 0]] tag 2 : tensor<16777216xf32>
func.func @transfer(%x: tensor<16777216xf32>) -> tensor<16777216xf32> {
  // expected-remark @+1 {{comm-reduce-precision: bf16 on the wire, error bound 3.906250e-03}}
  comm.send %x to [[0, 1]] tag 1 {comm.max_rel_error = 5.0e-02 : f64} : tensor<16777216xf32>
  %v = comm.recv from [[0, 1]] tag 1 : tensor<16777216xf32>
  comm.send %v to [[1, 0]] tag 2 : tensor<16777216xf32>
  %w = comm.recv from [[1, 0]] tag 2 : tensor<16777216xf32>
  return %w : tensor<16777216xf32>
}

/// Every message must be offered a tolerance: here one receive of the send
/// states one and the other, fed by the same untolerant send, does not, so
/// the transfer stays f32 (it went bf16, receives and all).
// CHECK-LABEL: func.func @negative_transfer_partly_offered
// CHECK: comm.send %{{.*}} tag 5 : tensor<16777216xf32>
// CHECK: comm.recv from {{\[\[}}0, 1]] tag 5 {comm.max_rel_error = 5.000000e-02 : f64} : tensor<16777216xf32>
// CHECK: comm.recv from {{\[\[}}2, 3]] tag 5 : tensor<16777216xf32>
func.func @negative_transfer_partly_offered(%x: tensor<16777216xf32>) -> tensor<16777216xf32> {
  comm.send %x to [[0, 1], [2, 3]] tag 5 : tensor<16777216xf32>
  %r = comm.recv from [[0, 1]] tag 5 {comm.max_rel_error = 0.05 : f64} : tensor<16777216xf32>
  %r2 = comm.recv from [[2, 3]] tag 5 : tensor<16777216xf32>
  return %r2 : tensor<16777216xf32>
}

/// A precision a person wrote is kept, with a warning where its bound is
/// above the tolerance in force: bf16 on a sum of 8 (3.2%) under the
/// function's 0.01%, f32 on f64 data (γ(8) at 2^-24) under 1e-9, and bf16
/// on a max (one rounding, 2^-8) under 0.1%. f16 under 5% is within it.
// CHECK-LABEL: func.func @negative_written_too_loose
// CHECK: comm.all_reduce sum %{{.*}} plan <precision = bf16> :
// CHECK: comm.all_reduce sum %{{.*}} plan <precision = f32> {comm.max_rel_error = 1.000000e-09 : f64}
// CHECK: comm.all_reduce max %{{.*}} plan <precision = bf16> {comm.max_rel_error = 1.000000e-03 : f64}
func.func @negative_written_too_loose(%g: tensor<16777216xf32>, %d: tensor<4096xf64>) -> (tensor<16777216xf32>, tensor<4096xf64>, tensor<16777216xf32>, tensor<16777216xf32>) attributes {comm.max_rel_error = 1.0e-04 : f64} {
  // expected-warning @+1 {{comm-reduce-precision: the plan's precision 'bf16', written by hand, bounds the error at 0.032, above the tolerance 0.0001 in force here; kept as written}}
  %0 = comm.all_reduce sum %g over [[0, 1, 2, 3, 4, 5, 6, 7]] plan <precision = bf16> : tensor<16777216xf32>
  // expected-warning @+1 {{precision 'f32', written by hand, bounds the error at 4.8e-07, above the tolerance 1e-09}}
  %1 = comm.all_reduce sum %d over [[0, 1, 2, 3, 4, 5, 6, 7]] plan <precision = f32> {comm.max_rel_error = 1.0e-09 : f64} : tensor<4096xf64>
  // expected-warning @+1 {{precision 'bf16', written by hand, bounds the error at 0.0039, above the tolerance 0.001}}
  %2 = comm.all_reduce max %g over [[0, 1, 2, 3, 4, 5, 6, 7]] plan <precision = bf16> {comm.max_rel_error = 1.0e-03 : f64} : tensor<16777216xf32>
  %3 = comm.all_reduce sum %g over [[0, 1, 2, 3, 4, 5, 6, 7]] plan <precision = f16> {comm.max_rel_error = 5.0e-02 : f64} : tensor<16777216xf32>
  return %0, %1, %2, %3 : tensor<16777216xf32>, tensor<4096xf64>, tensor<16777216xf32>, tensor<16777216xf32>
}
}
