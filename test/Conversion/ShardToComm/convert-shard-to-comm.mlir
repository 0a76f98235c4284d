// RUN: comm-opt %s --convert-shard-to-comm -verify-diagnostics | FileCheck %s

// Groups are checked against rank lists computed by hand: a process's rank
// is its grid index linearized row-major, a group holds the processes that
// differ only in `grid_axes`, ordered row-major over the axes as written.

// CHECK: module attributes {comm.world_size = 12 : i64}
// CHECK-NOT: shard.grid
shard.grid @line(shape = 8)
shard.grid @mesh(shape = 2x4)
shard.grid @cube(shape = 2x2x2)
shard.grid @box(shape = 2x3x2)

/// 1-D: one group of all, or groups of one with empty grid_axes.
// CHECK-LABEL: func.func @line_groups
// CHECK: comm.all_reduce sum %{{.*}} over {{\[}}[0, 1, 2, 3, 4, 5, 6, 7]]
// CHECK: comm.all_reduce max %{{.*}} over {{\[}}[0], [1], [2], [3], [4], [5], [6], [7]]
func.func @line_groups(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = shard.all_reduce %x on @line grid_axes = [0] : tensor<16xf32> -> tensor<16xf32>
  %1 = shard.all_reduce %0 on @line reduction = max : tensor<16xf32> -> tensor<16xf32>
  return %1 : tensor<16xf32>
}

/// 2-D 2x4: each axis alone, both axes in both orders.
// CHECK-LABEL: func.func @mesh_groups
// CHECK: comm.all_reduce sum %{{.*}} over {{\[}}[0, 4], [1, 5], [2, 6], [3, 7]]
// CHECK: comm.all_reduce sum %{{.*}} over {{\[}}[0, 1, 2, 3], [4, 5, 6, 7]]
// CHECK: comm.all_reduce sum %{{.*}} over {{\[}}[0, 1, 2, 3, 4, 5, 6, 7]]
// CHECK: comm.all_reduce sum %{{.*}} over {{\[}}[0, 4, 1, 5, 2, 6, 3, 7]]
func.func @mesh_groups(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = shard.all_reduce %x on @mesh grid_axes = [0] : tensor<16xf32> -> tensor<16xf32>
  %1 = shard.all_reduce %0 on @mesh grid_axes = [1] : tensor<16xf32> -> tensor<16xf32>
  %2 = shard.all_reduce %1 on @mesh grid_axes = [0, 1] : tensor<16xf32> -> tensor<16xf32>
  %3 = shard.all_reduce %2 on @mesh grid_axes = [1, 0] : tensor<16xf32> -> tensor<16xf32>
  return %3 : tensor<16xf32>
}

/// 3-D 2x2x2: the case upstream's convert-shard-to-mpi puts in one group of 8.
// CHECK-LABEL: func.func @cube_groups
// CHECK: comm.all_reduce sum %{{.*}} over {{\[}}[0, 4], [1, 5], [2, 6], [3, 7]]
// CHECK: comm.all_reduce sum %{{.*}} over {{\[}}[0, 2], [1, 3], [4, 6], [5, 7]]
// CHECK: comm.all_reduce sum %{{.*}} over {{\[}}[0, 1], [2, 3], [4, 5], [6, 7]]
// CHECK: comm.all_reduce sum %{{.*}} over {{\[}}[0, 1, 4, 5], [2, 3, 6, 7]]
// CHECK: comm.all_reduce sum %{{.*}} over {{\[}}[0, 4, 1, 5], [2, 6, 3, 7]]
func.func @cube_groups(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = shard.all_reduce %x on @cube grid_axes = [0] : tensor<16xf32> -> tensor<16xf32>
  %1 = shard.all_reduce %0 on @cube grid_axes = [1] : tensor<16xf32> -> tensor<16xf32>
  %2 = shard.all_reduce %1 on @cube grid_axes = [2] : tensor<16xf32> -> tensor<16xf32>
  %3 = shard.all_reduce %2 on @cube grid_axes = [0, 2] : tensor<16xf32> -> tensor<16xf32>
  %4 = shard.all_reduce %3 on @cube grid_axes = [2, 0] : tensor<16xf32> -> tensor<16xf32>
  return %4 : tensor<16xf32>
}

/// 3-D with unequal extents 2x3x2 (strides 6, 2, 1): the middle axis, and the
/// outer two.
// CHECK-LABEL: func.func @box_groups
// CHECK: comm.all_gather %{{.*}} over {{\[}}[0, 2, 4], [1, 3, 5], [6, 8, 10], [7, 9, 11]] dim 0
// CHECK: comm.all_gather %{{.*}} over {{\[}}[0, 1, 6, 7], [2, 3, 8, 9], [4, 5, 10, 11]] dim 1
func.func @box_groups(%x: tensor<2x4xf32>) -> tensor<6x16xf32> {
  %0 = shard.all_gather %x on @box grid_axes = [1] gather_axis = 0 : tensor<2x4xf32> -> tensor<6x4xf32>
  %1 = shard.all_gather %0 on @box grid_axes = [0, 2] gather_axis = 1 : tensor<6x4xf32> -> tensor<6x16xf32>
  return %1 : tensor<6x16xf32>
}

/// Every kind of collective, with the reduction kinds mapped.
// CHECK-LABEL: func.func @collectives
// CHECK: comm.reduce_scatter prod %{{.*}} over {{\[}}[0, 1, 2, 3], [4, 5, 6, 7]] dim 0 : tensor<8x4xf32> -> tensor<2x4xf32>
// CHECK: comm.all_to_all %{{.*}} over {{\[}}[0, 4], [1, 5], [2, 6], [3, 7]] split 0 concat 1 : tensor<2x4xf32> -> tensor<1x8xf32>
// CHECK: comm.all_reduce avg
// CHECK: comm.all_reduce xor %{{.*}} : tensor<4xi32>
func.func @collectives(%x: tensor<8x4xf32>, %i: tensor<4xi32>) -> (tensor<1x8xf32>, tensor<4xi32>) {
  %0 = shard.reduce_scatter %x on @mesh grid_axes = [1] reduction = product scatter_axis = 0 : tensor<8x4xf32> -> tensor<2x4xf32>
  %1 = shard.all_to_all %0 on @mesh grid_axes = [0] split_axis = 0 concat_axis = 1 : tensor<2x4xf32> -> tensor<1x8xf32>
  %2 = shard.all_reduce %1 on @mesh grid_axes = [0] reduction = average : tensor<1x8xf32> -> tensor<1x8xf32>
  %3 = shard.all_reduce %i on @line grid_axes = [0] reduction = bitwise_xor : tensor<4xi32> -> tensor<4xi32>
  return %2, %3 : tensor<1x8xf32>, tensor<4xi32>
}

/// Roots are multi-indices in the group: [1] on axis 1 is position 1; [1, 2]
/// over axes [0, 1] is 1 * 4 + 2 = 6; [2, 1] over axes [1, 0] is 2 * 2 + 1.
// CHECK-LABEL: func.func @roots
// CHECK: comm.broadcast %{{.*}} over {{\[}}[0, 1, 2, 3], [4, 5, 6, 7]] root 1
// CHECK: comm.reduce min %{{.*}} over {{\[}}[0, 1, 2, 3, 4, 5, 6, 7]] root 6
// CHECK: comm.broadcast %{{.*}} over {{\[}}[0, 4, 1, 5, 2, 6, 3, 7]] root 5
func.func @roots(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = shard.broadcast %x on @mesh grid_axes = [1] root = [1] : (tensor<4xf32>) -> tensor<4xf32>
  %1 = shard.reduce %0 on @mesh grid_axes = [0, 1] reduction = min root = [1, 2] : (tensor<4xf32>) -> tensor<4xf32>
  %2 = shard.broadcast %1 on @mesh grid_axes = [1, 0] root = [2, 1] : (tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}

/// Rooted gather and scatter have no comm op: all_gather, and a broadcast
/// then each process's slice, with warnings. A slice along the leading
/// axis is exact: the data rotated by the process's place in its group and
/// the first chunk taken; along another axis it is an opaque copy, with a
/// warning.
// CHECK-LABEL: func.func @rooted
// CHECK: comm.all_gather %{{.*}} over {{\[}}[0, 1, 2, 3], [4, 5, 6, 7]] dim 0 : tensor<2x4xf32> -> tensor<8x4xf32>
// CHECK: %[[B:.*]] = comm.broadcast %{{.*}} over {{\[}}[0, 4], [1, 5], [2, 6], [3, 7]] root 1 : tensor<8x4xf32>
// CHECK: %[[F:.*]] = comm.pack %[[B]] offsets [0] : tensor<8x4xf32> -> tensor<32xf32>
// CHECK: %[[R:.*]] = comm.rotate %[[F]] over {{\[}}[0, 4], [1, 5], [2, 6], [3, 7]] shift 0 : tensor<32xf32>
// CHECK: %[[S:.*]] = comm.unpack %[[R]] offsets [0] : tensor<32xf32> -> tensor<4x4xf32>
// CHECK: comm.compute "shard.all_slice"(%[[S]]) bytes 32 : (tensor<4x4xf32>) -> tensor<4x1xf32>
// CHECK: %[[L:.*]] = comm.rotate %{{.*}} over {{\[}}[0, 1, 2, 3], [4, 5, 6, 7]] shift 0 : tensor<8xf32>
// CHECK: comm.unpack %[[L]] offsets [0] : tensor<8xf32> -> tensor<2xf32>
func.func @rooted(%x: tensor<2x4xf32>, %v: tensor<8xf32>) -> (tensor<4x1xf32>, tensor<2xf32>) {
  // expected-warning @+1 {{comm has no rooted gather: imported as comm.all_gather, which gives root 3 of each group the same result}}
  %0 = shard.gather %x on @mesh grid_axes = [1] gather_axis = 0 root = [3] : (tensor<2x4xf32>) -> tensor<8x4xf32>
  // expected-warning @+1 {{comm has no scatter: imported as comm.broadcast from root 1 followed by each process's slice}}
  %1 = shard.scatter %0 on @mesh grid_axes = [0] scatter_axis = 0 root = [1] : (tensor<8x4xf32>) -> tensor<4x4xf32>
  // expected-warning @+1 {{the slice along axis 1 is not contiguous: imported as an opaque copy, which a compiled program runs as a stand-in}}
  %2 = shard.all_slice %1 on @mesh grid_axes = [1] slice_axis = 1 : tensor<4x4xf32> -> tensor<4x1xf32>
  %3 = shard.all_slice %v on @mesh grid_axes = [1] slice_axis = 0 : tensor<8xf32> -> tensor<2xf32>
  return %2, %3 : tensor<4x1xf32>, tensor<2xf32>
}

/// shift: the process at coordinate c of the axis sends to c + offset, modulo
/// the extent with rotate; without rotate the edge sends nothing.
// CHECK-LABEL: func.func @shifts
// CHECK: comm.permute %{{.*}} pairs {{\[}}[0, 1], [1, 2], [2, 3], [3, 0], [4, 5], [5, 6], [6, 7], [7, 4]]
// CHECK: comm.permute %{{.*}} pairs {{\[}}[4, 0], [5, 1], [6, 2], [7, 3]]
// CHECK: comm.permute %{{.*}} pairs {{\[}}[0, 2], [1, 3], [4, 6], [5, 7]]
func.func @shifts(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = shard.shift %x on @mesh grid_axes = [1] shift_axis = 1 offset = 1 rotate : tensor<4xf32> -> tensor<4xf32>
  %1 = shard.shift %0 on @mesh grid_axes = [0] shift_axis = 0 offset = -1 : tensor<4xf32> -> tensor<4xf32>
  %2 = shard.shift %1 on @cube grid_axes = [1] shift_axis = 1 offset = 1 : tensor<4xf32> -> tensor<4xf32>
  return %2 : tensor<4xf32>
}

/// send and recv pair the two processes of each group; the k-th send and the
/// k-th recv share tag k.
// CHECK-LABEL: func.func @point_to_point
// CHECK: comm.send %[[X:.*]] to {{\[}}[4, 0], [5, 1], [6, 2], [7, 3]] tag 0
// CHECK: comm.recv from {{\[}}[4, 0], [5, 1], [6, 2], [7, 3]] tag 0
// CHECK: comm.send %{{.*}} to {{\[}}[0, 4], [1, 5], [2, 6], [3, 7]] tag 1
func.func @point_to_point(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = shard.send %x on @mesh grid_axes = [0] destination = [0] : (tensor<4xf32>) -> tensor<4xf32>
  %1 = shard.recv %0 on @mesh grid_axes = [0] source = [1] : (tensor<4xf32>) -> tensor<4xf32>
  %2 = shard.send %1 on @mesh grid_axes = [0] destination = [1] : (tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}

/// grid_shape is a constant; the compute around collectives is comm.compute
/// with estimates (2*M*N*K for the matmul).
// CHECK-LABEL: func.func @compute
// CHECK: %[[F:.*]] = comm.compute "linalg.fill"() bytes 512 : () -> tensor<8x8xf32>
// CHECK: %[[M:.*]] = comm.compute "linalg.matmul"(%{{.*}}, %{{.*}}, %[[F]]) flops 8.192000e+03 bytes 4608
// CHECK: comm.all_reduce sum %[[M]] over {{\[}}[0, 1, 2, 3], [4, 5, 6, 7]]
// CHECK: comm.compute "tensor.extract_slice"
// CHECK-NOT: shard.
func.func @compute(%a: tensor<8x64xf32>, %b: tensor<64x8xf32>) -> tensor<2x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %m = linalg.matmul ins(%a, %b : tensor<8x64xf32>, tensor<64x8xf32>) outs(%f : tensor<8x8xf32>) -> tensor<8x8xf32>
  %r = shard.all_reduce %m on @mesh grid_axes = [1] : tensor<8x8xf32> -> tensor<8x8xf32>
  %n = shard.grid_shape @mesh axes = [1] : index
  %c2 = arith.constant 2 : index
  %rows = arith.divui %c2, %n : index
  %s = tensor.extract_slice %r[0, 0] [2, 8] [1, 1] : tensor<8x8xf32> to tensor<2x8xf32>
  return %s : tensor<2x8xf32>
}
