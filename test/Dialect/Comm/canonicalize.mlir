// RUN: comm-opt %s -canonicalize -split-input-file | FileCheck %s
// RUN: comm-opt %s -canonicalize -cse -split-input-file | FileCheck %s --check-prefix=CSE

/// A collective over groups of one rank that hold every rank of the world
/// moves nothing.
module attributes {comm.world_size = 2 : i64} {
// CHECK-LABEL: func.func @singleton_collectives
// CHECK-SAME: (%[[X:.*]]: tensor<8xf32>, %[[Y:.*]]: tensor<4x2xi32>)
// CHECK-NOT: comm.
// CHECK: return %[[X]], %[[X]], %[[X]], %[[Y]], %[[X]], %[[Y]]
func.func @singleton_collectives(%x: tensor<8xf32>, %y: tensor<4x2xi32>)
    -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<4x2xi32>,
        tensor<8xf32>, tensor<4x2xi32>) {
  %0 = comm.all_reduce sum %x over [[0], [1]] : tensor<8xf32>
  %1 = comm.reduce_scatter sum %x over [[1], [0]] dim 0 : tensor<8xf32> -> tensor<8xf32>
  %2 = comm.all_gather %x over [[0], [1]] dim 0 : tensor<8xf32> -> tensor<8xf32>
  %3 = comm.all_to_all %y over [[0], [1]] split 0 concat 1 : tensor<4x2xi32> -> tensor<4x2xi32>
  %4 = comm.broadcast %x over [[0], [1]] root 0 : tensor<8xf32>
  %5 = comm.reduce max %y over [[0], [1]] root 0 : tensor<4x2xi32>
  comm.barrier over [[0], [1]]
  return %0, %1, %2, %3, %4, %5 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>,
      tensor<4x2xi32>, tensor<8xf32>, tensor<4x2xi32>
}
}

// -----

/// Groups of one rank that leave ranks out: those get zeros, so nothing
/// folds; without comm.world_size every rank of the run may be outside.
/// A barrier waits for nobody either way.
// CHECK-LABEL: func.func @negative_singletons_leaving_ranks_out
// CHECK: comm.all_reduce sum %{{.*}} over {{\[\[}}1]]
// CHECK: comm.broadcast %{{.*}} over {{\[\[}}0], [1]]
// CHECK-NOT: comm.barrier
module attributes {comm.world_size = 4 : i64} {
func.func @negative_singletons_leaving_ranks_out(%x: tensor<8xf32>)
    -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = comm.all_reduce sum %x over [[1]] : tensor<8xf32>
  %1 = comm.broadcast %x over [[0], [1]] root 0 : tensor<8xf32>
  comm.barrier over [[0], [1], [2]]
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
}
}

// -----

// CHECK-LABEL: func.func @negative_singletons_without_world
// CHECK: comm.all_gather %{{.*}} over {{\[\[}}0]]
func.func @negative_singletons_without_world(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = comm.all_gather %x over [[0]] dim 0 : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

/// Groups of two ranks communicate: nothing folds.
// CHECK-LABEL: func.func @negative_real_groups
// CHECK: comm.all_reduce
// CHECK: comm.all_gather
// CHECK: comm.barrier
func.func @negative_real_groups(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<16xf32>) {
  %0 = comm.all_reduce sum %x over [[0, 1]] : tensor<8xf32>
  %1 = comm.all_gather %x over [[0, 1]] dim 0 : tensor<8xf32> -> tensor<16xf32>
  comm.barrier over [[0, 1]]
  return %0, %1 : tensor<8xf32>, tensor<16xf32>
}

// -----

/// An all_reduce whose result is unused still runs: the other ranks wait for
/// it. Two identical all_reduces are two transfers, not one.
// CHECK-LABEL: func.func @negative_unused_and_duplicate
// CHECK-COUNT-3: comm.all_reduce
// CSE-LABEL: func.func @negative_unused_and_duplicate
// CSE-COUNT-3: comm.all_reduce
func.func @negative_unused_and_duplicate(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = comm.all_reduce sum %x over [[0, 1]] : tensor<8xf32>
  %1 = comm.all_reduce sum %x over [[0, 1]] : tensor<8xf32>
  %2 = comm.all_reduce sum %x over [[0, 1]] : tensor<8xf32>
  return %1, %2 : tensor<8xf32>, tensor<8xf32>
}

// -----

/// unpack(pack) with the same layout gives back the packed tensors.
// CHECK-LABEL: func.func @unpack_of_pack
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<2x3xf32>)
// CHECK-NOT: comm.
// CHECK: return %[[A]], %[[B]]
func.func @unpack_of_pack(%a: tensor<4xf32>, %b: tensor<2x3xf32>) -> (tensor<4xf32>, tensor<2x3xf32>) {
  %0 = comm.pack %a, %b offsets [0, 8] : tensor<4xf32>, tensor<2x3xf32> -> tensor<16xf32>
  %1:2 = comm.unpack %0 offsets [0, 8] : tensor<16xf32> -> tensor<4xf32>, tensor<2x3xf32>
  return %1#0, %1#1 : tensor<4xf32>, tensor<2x3xf32>
}

// -----

/// The same with blocks: the parts go back where they came from.
// CHECK-LABEL: func.func @unpack_of_pack_blocks
// CHECK-NOT: comm.
// CHECK: return
func.func @unpack_of_pack_blocks(%a: tensor<8xf32>, %b: tensor<4x2xf32>) -> (tensor<8xf32>, tensor<4x2xf32>) {
  %0 = comm.pack %a, %b offsets [0, 2] blocks 4 : tensor<8xf32>, tensor<4x2xf32> -> tensor<16xf32>
  %1:2 = comm.unpack %0 offsets [0, 2] blocks 4 : tensor<16xf32> -> tensor<8xf32>, tensor<4x2xf32>
  return %1#0, %1#1 : tensor<8xf32>, tensor<4x2xf32>
}

// -----

/// Packed in blocks, unpacked whole: every tensor reads other elements.
// CHECK-LABEL: func.func @negative_unpack_other_blocks
// CHECK: comm.pack
// CHECK: comm.unpack
func.func @negative_unpack_other_blocks(%a: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = comm.pack %a, %b offsets [0, 2] blocks 4 : tensor<8xf32>, tensor<8xf32> -> tensor<16xf32>
  %1:2 = comm.unpack %0 offsets [0, 8] : tensor<16xf32> -> tensor<8xf32>, tensor<8xf32>
  return %1#0, %1#1 : tensor<8xf32>, tensor<8xf32>
}

// -----

/// Packing to bf16 rounds: unpacking does not give the inputs back.
// CHECK-LABEL: func.func @negative_unpack_of_converting_pack
// CHECK: comm.pack
// CHECK: comm.unpack
func.func @negative_unpack_of_converting_pack(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = comm.pack %a offsets [0] : tensor<4xf32> -> tensor<4xbf16>
  %1 = comm.unpack %0 offsets [0] : tensor<4xbf16> -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

/// A different layout reads other elements.
// CHECK-LABEL: func.func @negative_unpack_other_layout
// CHECK: comm.pack
// CHECK: comm.unpack
func.func @negative_unpack_other_layout(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = comm.pack %a, %b offsets [0, 4] : tensor<4xf32>, tensor<4xf32> -> tensor<8xf32>
  %1:2 = comm.unpack %0 offsets [4, 0] : tensor<8xf32> -> tensor<4xf32>, tensor<4xf32>
  return %1#0, %1#1 : tensor<4xf32>, tensor<4xf32>
}

// -----

/// An all_reduce between the pack and the unpack changes the values: the
/// layouts match but nothing folds.
// CHECK-LABEL: func.func @negative_reduced_in_between
// CHECK: comm.pack
// CHECK: comm.all_reduce
// CHECK: comm.unpack
func.func @negative_reduced_in_between(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = comm.pack %a, %b offsets [0, 4] : tensor<4xf32>, tensor<4xf32> -> tensor<8xf32>
  %1 = comm.all_reduce sum %0 over [[0, 1]] : tensor<8xf32>
  %2:2 = comm.unpack %1 offsets [0, 4] : tensor<8xf32> -> tensor<4xf32>, tensor<4xf32>
  return %2#0, %2#1 : tensor<4xf32>, tensor<4xf32>
}

// -----

/// pack(unpack(%buf)) with the same layout covering the whole buffer is %buf.
// CHECK-LABEL: func.func @pack_of_unpack
// CHECK-SAME: (%[[BUF:.*]]: tensor<8xf32>)
// CHECK-NOT: comm.
// CHECK: return %[[BUF]]
func.func @pack_of_unpack(%buf: tensor<8xf32>) -> tensor<8xf32> {
  %0:2 = comm.unpack %buf offsets [0, 4] : tensor<8xf32> -> tensor<4xf32>, tensor<2x2xf32>
  %1 = comm.pack %0#0, %0#1 offsets [0, 4] : tensor<4xf32>, tensor<2x2xf32> -> tensor<8xf32>
  return %1 : tensor<8xf32>
}

// -----

/// The repacked buffer has a hole that pack fills with zeros, so it differs
/// from the original.
// CHECK-LABEL: func.func @negative_pack_of_unpack_with_hole
// CHECK: comm.unpack
// CHECK: comm.pack
func.func @negative_pack_of_unpack_with_hole(%buf: tensor<8xf32>) -> tensor<8xf32> {
  %0:2 = comm.unpack %buf offsets [0, 4] : tensor<8xf32> -> tensor<2xf32>, tensor<4xf32>
  %1 = comm.pack %0#0, %0#1 offsets [0, 4] : tensor<2xf32>, tensor<4xf32> -> tensor<8xf32>
  return %1 : tensor<8xf32>
}
