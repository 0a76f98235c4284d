// RUN: comm-opt %s --comm-pipeline="topology=dgx-h100 explain" --comm-verify-schedule -split-input-file -verify-diagnostics | FileCheck %s

// Sequence parallelism on one DGX H100: with 3 ms of compute per layer the
// model cuts the gather and the scatter into their ring steps, one compute
// part per step (XLA's windowed einsum): each step's receive is started
// before the part computes and waited for after it.
module attributes {comm.world_size = 8 : i64} {
  func.func @long(%x: tensor<1024x4096xbf16>, %w1: tensor<4096x2048xbf16>, %w2: tensor<2048x4096xbf16>) -> tensor<1024x4096xbf16> {
    // expected-remark @+1 {{comm-pipeline: 8 parts: 3046.06 us instead of 3205.18 us}}
    %g = comm.all_gather %x over [[0, 1, 2, 3, 4, 5, 6, 7]] dim 0 : tensor<1024x4096xbf16> -> tensor<8192x4096xbf16>
    %h = comm.compute "up"(%g, %w1) time_us 3000.0 rowwise : (tensor<8192x4096xbf16>, tensor<4096x2048xbf16>) -> tensor<8192x2048xbf16>
    %y = comm.compute "down"(%h, %w2) time_us 3000.0 rowwise : (tensor<8192x2048xbf16>, tensor<2048x4096xbf16>) -> tensor<8192x4096xbf16>
    // expected-remark @+1 {{comm-pipeline: 8 parts: 3010.51 us instead of 3205.18 us}}
    %s = comm.reduce_scatter sum %y over [[0, 1, 2, 3, 4, 5, 6, 7]] dim 0 : tensor<8192x4096xbf16> -> tensor<1024x4096xbf16>
    return %s : tensor<1024x4096xbf16>
  }
}
// CHECK-LABEL: func.func @long
// CHECK: comm.send %arg0 to {{\[\[}}0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 7], [7, 0]] tag 0
// CHECK-NEXT: %[[T0:.*]] = comm.start {
// CHECK-NEXT: comm.recv from {{\[\[}}0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 7], [7, 0]] tag 0
// CHECK: %[[U0:.*]] = comm.compute "up"(%arg0, %arg1) time_us 3.750000e+02 part [0, 8] rotated over {{\[\[}}0, 1, 2, 3, 4, 5, 6, 7]] rowwise
// CHECK-NEXT: %[[R1:.*]] = comm.wait %[[T0]]
// CHECK-NEXT: comm.send %[[R1]]
// CHECK: comm.compute "up"(%[[R1]], %arg1) time_us 3.750000e+02 part [7, 8] rotated over
// CHECK: %[[J:.*]] = comm.pack %[[U0]], {{.*}} -> tensor<8192x2048xbf16>
// CHECK-NEXT: %[[H:.*]] = comm.rotate %[[J]] over {{\[\[}}0, 1, 2, 3, 4, 5, 6, 7]] shift 0 inverse : tensor<8192x2048xbf16>
// CHECK-NEXT: %[[D7:.*]] = comm.compute "down"(%[[H]], %arg2) time_us 3.750000e+02 part [7, 8] rotated over
// CHECK-NEXT: comm.send %[[D7]] to {{.*}} tag 1
// CHECK: comm.compute "down"(%[[H]], %arg2) time_us 3.750000e+02 part [6, 8] rotated over
// CHECK-COUNT-7: arith.addf
// CHECK-NEXT: return

// -----

// With a tenth of the compute the eight broadcasts (the runtime's
// schedules, whose sends NCCL runs in Simple) cannot hide behind parts of
// 37.5 us: kept whole.
module attributes {comm.world_size = 8 : i64} {
  func.func @short(%x: tensor<1024x4096xbf16>, %w1: tensor<4096x2048xbf16>) -> tensor<8192x2048xbf16> {
    // expected-remark @+1 {{comm-pipeline: kept whole: 505.18 us as written, 8 parts 604.49 us}}
    %g = comm.all_gather %x over [[0, 1, 2, 3, 4, 5, 6, 7]] dim 0 : tensor<1024x4096xbf16> -> tensor<8192x4096xbf16>
    %h = comm.compute "up"(%g, %w1) time_us 300.0 rowwise : (tensor<8192x4096xbf16>, tensor<4096x2048xbf16>) -> tensor<8192x2048xbf16>
    return %h : tensor<8192x2048xbf16>
  }
}
// CHECK-LABEL: func.func @short
// CHECK: comm.all_gather

// -----

// What cannot be cut one part per rank says why.
module attributes {comm.world_size = 8 : i64} {
  func.func @kept(%x: tensor<6x8xf32>, %w: tensor<8x8xf32>) -> (tensor<24x8xf32>, tensor<6x8xf32>) {
    // expected-remark @+1 {{comm-pipeline: kept whole: its groups leave ranks of comm.world_size out}}
    %g = comm.all_gather %x over [[0, 1, 2, 3]] dim 0 : tensor<6x8xf32> -> tensor<24x8xf32>
    %h = comm.compute "up"(%g, %w) time_us 3000.0 rowwise : (tensor<24x8xf32>, tensor<8x8xf32>) -> tensor<24x8xf32>
    %y = comm.compute "down"(%w) time_us 3000.0 : (tensor<8x8xf32>) -> tensor<8x48xf32>
    // expected-remark @+1 {{comm-pipeline: kept whole: it does not cut dimension 0}}
    %s = comm.reduce_scatter sum %y over [[0, 1, 2, 3, 4, 5, 6, 7]] dim 1 : tensor<8x48xf32> -> tensor<8x6xf32>
    %t = comm.compute "back"(%s) time_us 1.0 : (tensor<8x6xf32>) -> tensor<6x8xf32>
    return %h, %t : tensor<24x8xf32>, tensor<6x8xf32>
  }
}

// -----

// A weight with as many rows as one rank's part: the parts would read it
// row by row (the results changed); kept whole, though the model would cut.
module attributes {comm.world_size = 4 : i64} {
  func.func @weight(%x: tensor<1024x4096xbf16>, %w: tensor<1024x4096xbf16>) -> tensor<4096x2048xbf16> {
    // expected-remark @+1 {{comm-pipeline: kept whole: 'up' reads an input whole that has as many rows as one of 4 parts (1024), which a part would read row by row}}
    %g = comm.all_gather %x over [[0, 1, 2, 3]] dim 0 : tensor<1024x4096xbf16> -> tensor<4096x4096xbf16>
    %h = comm.compute "up"(%g, %w) time_us 3000.0 rowwise : (tensor<4096x4096xbf16>, tensor<1024x4096xbf16>) -> tensor<4096x2048xbf16>
    return %h : tensor<4096x2048xbf16>
  }
}
// CHECK-LABEL: func.func @weight
// CHECK: comm.all_gather
// CHECK-NOT: part
