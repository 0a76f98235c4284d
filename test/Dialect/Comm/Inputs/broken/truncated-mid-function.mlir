// RUN: comm-opt %s | comm-opt | FileCheck %s
// RUN: comm-opt %s --mlir-print-op-generic | comm-opt | FileCheck %s

// Every op of the dialect, printed, parsed again and printed again. The
// second RUN line goes through the generic form, which checks that the
// attributes themselves (#comm.groups, #comm.plan, enums) round-trip.

module attributes {comm.world_size = 8 : i64} {

// CHECK-LABEL: func.func @collectives
func.func @collectives(%x: tensor<1024xf32>, %y: tensor<8x2xi32>,
                       %z: tensor<16x16xbf16>) {
  // CHECK: comm.all_reduce sum %{{.*}} over {{\[}}[0, 1, 2, 3], [4, 5, 6, 7]] : tensor<1024xf32>
  %0 = comm.all_reduce sum %x over [[0, 1, 2, 3], [4, 5, 6, 7]] : tensor<1024xf32>
  // CHECK: comm.all_reduce max %{{.*}} over {{\[}}[0, 1], [2, 3]] plan <algorithm = ring, channels = 4> : tensor<16x16xbf16>
  %1 = comm.all_reduce max %z over [[0, 1], [2, 3]] plan <algorithm = ring, channels = 4> : tensor<16x16xbf16>
  // CHECK: comm.all_reduce avg
  %2 = comm.all_reduce avg %x over [[0, 1]] : tensor<1024xf32>
  // CHECK: comm.all_reduce and {{.*}} : tensor<8x2xi32>
  %3 = comm.all_reduce and %y over [[0, 1]] : tensor<8x2xi32>
  // CHECK: comm.all_reduce or
  %4 = comm.all_reduce or %y over [[0, 1]] : tensor<8x2xi32>
  // CHECK: comm.all_reduce xor
  %5 = comm.all_reduce xor %y over [[0, 1]] : tensor<8x2xi32>
  // CHECK: comm.all_reduce prod
  %6 = comm.all_reduce prod %y over [[0, 1]] : tensor<8x2xi32>
  // CHECK: comm.all_reduce min
  %7 = comm.all_r