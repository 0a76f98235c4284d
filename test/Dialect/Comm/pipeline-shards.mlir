// RUN: comm-opt %s --comm-pipeline="topology=dgx-h100 explain" --comm-verify-schedule -split-input-file -verify-diagnostics | FileCheck %s

// Sequence parallelism on one DGX H100: with 3 ms of compute per layer the
// model cuts the gather into one broadcast per rank and the scatter into
// one reduce per part; the parts of the two computes chain without a join.
module attributes {comm.world_size = 8 : i64} {
  func.func @long(%x: tensor<1024x4096xbf16>, %w1: tensor<4096x2048xbf16>, %w2: tensor<2048x4096xbf16>) -> tensor<1024x4096xbf16> {
    // expected-remark @+1 {{comm-pipeline: 8 parts: 3103.63 us instead of 3273.27 us}}
    %g = comm.all_gather %x over [[0, 1, 2, 3, 4, 5, 6, 7]] dim 0 : tensor<1024x4096xbf16> -> tensor<8192x4096xbf16>
    %h = comm.compute "up"(%g, %w1) time_us 3000.0 rowwise : (tensor<8192x4096xbf16>, tensor<4096x2048xbf16>) -> tensor<8192x2048xbf16>
    %y = comm.compute "down"(%h, %w2) time_us 3000.0 rowwise : (tensor<8192x2048xbf16>, tensor<2048x4096xbf16>) -> tensor<8192x4096xbf16>
    // expected-remark @+1 {{comm-pipeline: 8 parts: 3166.73 us instead of 3273.27 us}}
    %s = comm.reduce_scatter sum %y over [[0, 1, 2, 3, 4, 5, 6, 7]] dim 0 : tensor<8192x4096xbf16> -> tensor<1024x4096xbf16>
    return %s : tensor<1024x4096xbf16>
  }
}
// CHECK-LABEL: func.func @long
// CHECK: %[[B0:.*]] = comm.broadcast %arg0 over {{\[\[}}0, 1, 2, 3, 4, 5, 6, 7]] root 0 : tensor<1024x4096xbf16>
// CHECK-COUNT-7: comm.broadcast %arg0
// CHECK: %[[U0:.*]] = comm.compute "up"(%[[B0]], %arg1) time_us 3.750000e+02 part [0, 8] rowwise
// CHECK-COUNT-7: comm.compute "up"
// CHECK: %[[D0:.*]] = comm.compute "down"(%[[U0]], %arg2) time_us 3.750000e+02 part [0, 8] rowwise
// CHECK-NEXT: %[[R0:.*]] = comm.reduce sum %[[D0]] over {{\[\[}}0, 1, 2, 3, 4, 5, 6, 7]] root 0
// CHECK: %[[J:.*]] = comm.pack %[[R0]], {{.*}} -> tensor<33554432xbf16>
// CHECK-NEXT: %[[ROT:.*]] = comm.rotate %[[J]] over {{\[\[}}0, 1, 2, 3, 4, 5, 6, 7]] shift 0 : tensor<33554432xbf16>
// CHECK-NEXT: %[[MINE:.*]] = comm.unpack %[[ROT]] offsets [0] : tensor<33554432xbf16> -> tensor<1024x4096xbf16>
// CHECK-NEXT: return %[[MINE]]

// -----

// With a tenth of the compute the eight broadcasts (80 us each by the
// model) cannot hide behind parts of 37.5 us: kept whole.
module attributes {comm.world_size = 8 : i64} {
  func.func @short(%x: tensor<1024x4096xbf16>, %w1: tensor<4096x2048xbf16>) -> tensor<8192x2048xbf16> {
    // expected-remark @+1 {{comm-pipeline: kept whole: 573.27 us as written, 8 parts 705.34 us}}
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
