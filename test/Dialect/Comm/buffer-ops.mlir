// RUN: comm-opt %s | comm-opt | FileCheck %s
// RUN: comm-opt %s --mlir-print-op-generic | comm-opt | FileCheck %s

// Every comm.buffer op (the bufferized form) round-trips.

// CHECK-LABEL: func.func @buffers
func.func @buffers(%a: memref<1024xf32>, %b: memref<1024xf32>, %s: memref<256xf32>,
                   %y: memref<8x2xi32>, %z: memref<2x8xi32>, %h: memref<136xbf16>,
                   %m: memref<64xf32>, %n: memref<8x8xf32>) {
  // CHECK: comm.buffer.all_reduce %{{.*}}, %{{.*}} {groups = #comm.groups<{{\[}}[0, 1, 2, 3]]>, kind = #comm<reduction sum>, plan = #comm.plan<precision = bf16>} : memref<1024xf32>, memref<1024xf32>
  comm.buffer.all_reduce %a, %b {groups = #comm.groups<[[0, 1, 2, 3]]>, kind = #comm<reduction sum>, plan = #comm.plan<precision = bf16>} : memref<1024xf32>, memref<1024xf32>
  // CHECK: comm.buffer.reduce_scatter
  comm.buffer.reduce_scatter %a, %s {dim = 0 : i64, groups = #comm.groups<[[0, 1, 2, 3]]>, kind = #comm<reduction max>} : memref<1024xf32>, memref<256xf32>
  // CHECK: comm.buffer.all_gather
  comm.buffer.all_gather %s, %a {dim = 0 : i64, groups = #comm.groups<[[0, 1, 2, 3]]>} : memref<256xf32>, memref<1024xf32>
  // CHECK: comm.buffer.all_to_all
  comm.buffer.all_to_all %y, %z {concat_dim = 1 : i64, groups = #comm.groups<[[0, 1, 2, 3]]>, split_dim = 0 : i64} : memref<8x2xi32>, memref<2x8xi32>
  // CHECK: comm.buffer.broadcast
  comm.buffer.broadcast %a, %b {groups = #comm.groups<[[0, 1], [2, 3]]>, root = 1 : i64} : memref<1024xf32>, memref<1024xf32>
  // CHECK: comm.buffer.reduce
  comm.buffer.reduce %a, %b {groups = #comm.groups<[[0, 1, 2, 3]]>, kind = #comm<reduction min>, root = 0 : i64, plan = #comm.plan<algorithm = tree>} : memref<1024xf32>, memref<1024xf32>
  // CHECK: comm.buffer.permute
  comm.buffer.permute %a, %b {pairs = array<i64: 0, 1, 1, 0>} : memref<1024xf32>, memref<1024xf32>
  // CHECK: comm.buffer.copy
  comm.buffer.copy %a, %b {dst = #comm<memory_space host>, src = #comm<memory_space hbm>} : memref<1024xf32>, memref<1024xf32>
  // CHECK: comm.buffer.send %{{.*}} {pairs = array<i64: 0, 1>, tag = 3 : i64}
  comm.buffer.send %a {pairs = array<i64: 0, 1>, tag = 3 : i64} : memref<1024xf32>
  // CHECK: comm.buffer.recv
  comm.buffer.recv %b {pairs = array<i64: 0, 1>, tag = 3 : i64} : memref<1024xf32>
  // CHECK: comm.buffer.pack %{{.*}}, %{{.*}} into %{{.*}} {offsets = array<i64: 72, 0>} : memref<64xf32>, memref<8x8xf32> into memref<136xbf16>
  comm.buffer.pack %m, %n into %h {offsets = array<i64: 72, 0>} : memref<64xf32>, memref<8x8xf32> into memref<136xbf16>
  // CHECK: comm.buffer.unpack
  comm.buffer.unpack %h into %m, %n {offsets = array<i64: 72, 0>} : memref<136xbf16> into memref<64xf32>, memref<8x8xf32>
  // CHECK: comm.buffer.compute "gemm"(%{{.*}}) outs(%{{.*}}) {time_us = 1.250000e+01 : f64} : (memref<64xf32>) outs(memref<8x8xf32>)
  comm.buffer.compute "gemm"(%m) outs(%n) {time_us = 12.5 : f64} : (memref<64xf32>) outs(memref<8x8xf32>)
  // A compute with no outputs (a comm.compute of no results) or no inputs
  // round-trips too (its empty type lists once failed to parse).
  // CHECK: comm.buffer.compute "sink"(%{{.*}}) outs() : (memref<64xf32>) outs()
  comm.buffer.compute "sink"(%m) outs() : (memref<64xf32>) outs()
  // CHECK: comm.buffer.compute "source"() outs(%{{.*}}) : () outs(memref<64xf32>)
  comm.buffer.compute "source"() outs(%m) : () outs(memref<64xf32>)
  // CHECK: comm.buffer.combine sum %{{.*}}, %{{.*}} into %{{.*}} : memref<1024xf32>
  comm.buffer.combine sum %a, %b into %b : memref<1024xf32>
  // CHECK: comm.buffer.rotate %{{.*}}, %{{.*}} over {{\[\[}}0, 1, 2, 3]] shift 2 inverse : memref<1024xf32>
  comm.buffer.rotate %a, %b over [[0, 1, 2, 3]] shift 2 inverse : memref<1024xf32>
  // CHECK: comm.buffer.scale %{{.*}} by 1.250000e-01 into %{{.*}} : memref<1024xf32>
  comm.buffer.scale %a by 1.250000e-01 into %b : memref<1024xf32>
  return
}
