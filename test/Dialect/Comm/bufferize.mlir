// RUN: comm-opt %s -comm-bufferize -split-input-file | FileCheck %s

// Every tensor a comm op produces gets a fresh buffer; buffers that do not
// leave the function are freed before it returns.

// CHECK-LABEL: func.func @fused(
// CHECK-SAME: %[[A:.*]]: memref<64xf32>, %[[B:.*]]: memref<8x8xf32>) -> (memref<64xf32>, memref<8x8xf32>)
// CHECK: %[[P:.*]] = memref.alloc() : memref<128xf32>
// CHECK: comm.buffer.pack %[[A]], %[[B]] into %[[P]] {offsets = array<i64: 0, 64>}
// CHECK: %[[R:.*]] = memref.alloc() : memref<128xf32>
// CHECK: comm.buffer.all_reduce %[[P]], %[[R]] {groups = #comm.groups<{{\[}}[0, 1]]>, kind = #comm<reduction sum>, plan = #comm.plan<precision = bf16>}
// CHECK: %[[X:.*]] = memref.alloc() : memref<64xf32>
// CHECK: %[[Y:.*]] = memref.alloc() : memref<8x8xf32>
// CHECK: comm.buffer.unpack %[[R]] into %[[X]], %[[Y]]
// CHECK-DAG: memref.dealloc %[[P]]
// CHECK-DAG: memref.dealloc %[[R]]
// CHECK-NOT: memref.dealloc %[[X]]
// CHECK: return %[[X]], %[[Y]]
func.func @fused(%a: tensor<64xf32>, %b: tensor<8x8xf32>) -> (tensor<64xf32>, tensor<8x8xf32>) {
  %p = comm.pack %a, %b offsets [0, 64] : tensor<64xf32>, tensor<8x8xf32> -> tensor<128xf32>
  %r = comm.all_reduce sum %p over [[0, 1]] plan <precision = bf16> : tensor<128xf32>
  %x, %y = comm.unpack %r offsets [0, 64] : tensor<128xf32> -> tensor<64xf32>, tensor<8x8xf32>
  return %x, %y : tensor<64xf32>, tensor<8x8xf32>
}

// -----

// The buffers an async region writes are allocated before the start; the
// wait returns nothing and its results are those buffers.
// CHECK-LABEL: func.func @async(
// CHECK: %[[R:.*]] = memref.alloc() : memref<16xf32>
// CHECK-NEXT: %[[T:.*]] = comm.start {
// CHECK-NEXT: comm.buffer.all_reduce %{{.*}}, %[[R]]
// CHECK-NEXT: comm.yield
// CHECK-NEXT: }
// CHECK: comm.buffer.compute "layer"
// CHECK: comm.wait %[[T]]{{$}}
// CHECK: comm.buffer.combine sum %[[R]], %{{.*}} into %{{.*}} : memref<16xf32>
func.func @async(%x: tensor<16xf32>) -> tensor<16xf32> {
  %t = comm.start {
    %0 = comm.all_reduce sum %x over [[0, 1]] : tensor<16xf32>
    comm.yield %0 : tensor<16xf32>
  }
  %c = comm.compute "layer"(%x) time_us 5.0 : (tensor<16xf32>) -> tensor<16xf32>
  %r = comm.wait %t : tensor<16xf32>
  %s = arith.addf %r, %c : tensor<16xf32>
  return %s : tensor<16xf32>
}

// -----

// Copies allocate their target in the destination memory space; loops are
// bufferized body by body, their buffers freed at the end of each
// iteration.
// CHECK-LABEL: func.func @copy_loop(
// CHECK: %[[H:.*]] = memref.alloc() {comm.space = #comm<memory_space pinned_host>} : memref<8xi32>
// CHECK: comm.buffer.copy %{{.*}}, %[[H]] {dst = #comm<memory_space pinned_host>, src = #comm<memory_space hbm>}
// CHECK: scf.for
// CHECK: %[[S:.*]] = memref.alloc() : memref<8xi32>
// CHECK: comm.buffer.recv %[[S]]
// CHECK: memref.dealloc %[[S]]
// CHECK: }
func.func @copy_loop(%x: tensor<8xi32>) -> tensor<8xi32> {
  %h = comm.copy %x hbm to pinned_host : tensor<8xi32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    comm.send %x to [[0, 1]] tag 0 : tensor<8xi32>
    %r = comm.recv from [[0, 1]] tag 0 : tensor<8xi32>
  }
  return %h : tensor<8xi32>
}

// -----

// A value returned twice: the second result is a copy in its own buffer,
// so that every result becomes its own out-parameter.
// CHECK-LABEL: func.func @returned_twice
// CHECK: %[[R:.*]] = memref.alloc() : memref<8xi32>
// CHECK: comm.buffer.all_reduce
// CHECK: %[[C:.*]] = memref.alloc() : memref<8xi32>
// CHECK: memref.copy %[[R]], %[[C]]
// CHECK: return %[[R]], %[[C]]
func.func @returned_twice(%x: tensor<8xi32>) -> (tensor<8xi32>, tensor<8xi32>) {
  %0 = comm.all_reduce sum %x over [[0, 1]] : tensor<8xi32>
  return %0, %0 : tensor<8xi32>, tensor<8xi32>
}

// -----

// A module without a comm op bufferizes (the pass loads the comm dialect
// itself).
// CHECK-LABEL: func.func @no_comm
// CHECK: comm.buffer.combine sum %arg0, %arg0 into %{{.*}} : memref<4xf32>
func.func @no_comm(%a: tensor<4xf32>) -> tensor<4xf32> {
  %s = arith.addf %a, %a : tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

/// A loop-carried tensor lives in one buffer: the initial value is copied
/// in, the trip's yield copied back, and the loop's result is the buffer.
// CHECK-LABEL: func.func @carried
// CHECK-SAME: (%[[X:.*]]: memref<8xf32>)
// CHECK: %[[ACC:.*]] = memref.alloc() : memref<8xf32>
// CHECK: memref.copy %[[X]], %[[ACC]]
// CHECK: scf.for
// CHECK: %[[P:.*]] = memref.alloc() : memref<8xf32>
// CHECK: comm.buffer.permute %[[ACC]], %[[P]]
// CHECK: memref.copy %[[P]], %[[ACC]]
// CHECK: memref.dealloc %[[P]]
// CHECK: }
// CHECK: return %[[ACC]]
func.func @carried(%x: tensor<8xf32>) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %x) -> tensor<8xf32> {
    %p = comm.permute %a pairs [[0, 1], [1, 0]] : tensor<8xf32>
    scf.yield %p : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// -----

// The pieces of a point-to-point schedule: a rotation, a combine, and a
// scaling by a splat constant (which needs no buffer of its own).
// CHECK-LABEL: func.func @schedule_pieces
// CHECK: %[[ROT:.*]] = memref.alloc() : memref<8xf32>
// CHECK: comm.buffer.rotate %{{.*}}, %[[ROT]] over {{\[\[}}0, 1, 2, 3]] shift 0 : memref<8xf32>
// CHECK: comm.buffer.combine sum
// CHECK-NOT: arith.constant
// CHECK: comm.buffer.scale %{{.*}} by 2.500000e-01 into %{{.*}} : memref<8xf32>
func.func @schedule_pieces(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = comm.rotate %x over [[0, 1, 2, 3]] shift 0 : tensor<8xf32>
  %s = arith.addf %r, %x : tensor<8xf32>
  %f = arith.constant dense<2.500000e-01> : tensor<8xf32>
  %a = arith.mulf %f, %s : tensor<8xf32>
  return %a : tensor<8xf32>
}
