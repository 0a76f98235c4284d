// RUN: comm-opt %s --comm-fuse --comm-verify-schedule -split-input-file | FileCheck %s
// RUN: comm-opt %s --comm-fuse="threshold-bytes=1024 first-bucket-bytes=512" --comm-verify-schedule -split-input-file | FileCheck %s --check-prefix=SMALL
// RUN: comm-opt %s --comm-fuse="mode=cost topology=dgx-h100" --comm-verify-schedule -split-input-file | FileCheck %s --check-prefix=COST
// RUN: comm-opt %s --comm-fuse="mode=cost topology=dgx-h100 joint=false" --comm-verify-schedule -split-input-file | FileCheck %s --check-prefix=ALONE
// RUN: not comm-opt %s --comm-fuse="mode=cost" --mlir-disable-threading -split-input-file 2>&1 | FileCheck %s --check-prefix=NOTOPO
// NOTOPO: error: no topology
// RUN: not comm-opt %s --comm-fuse="threshold-bytes=0" 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: error: comm-fuse: threshold-bytes and first-bucket-bytes must be positive, got 0 and 1048576
// RUN: comm-opt %s --comm-fuse="mode=cycle cycle-us=400 topology=dgx-h100" -split-input-file | FileCheck %s --check-prefix=CYCLE
// RUN: comm-opt %s --comm-fuse="mode=cycle cycle-us=2000 threshold-bytes=67108864 topology=dgx-h100" -split-input-file | FileCheck %s --check-prefix=LONGCYCLE
// RUN: comm-opt %s --comm-fuse="max-tensors=3" -split-input-file | FileCheck %s --check-prefix=MAX
// RUN: not comm-opt %s --comm-fuse="mode=cycle cycle-us=0" 2>&1 | FileCheck %s --check-prefix=NOCYCLE
// NOCYCLE: error: comm-fuse: cycle-us must be a positive number of microseconds, got 0
// RUN: not comm-opt %s --comm-fuse="max-tensors=-1" 2>&1 | FileCheck %s --check-prefix=NEGMAX
// NEGMAX: error: comm-fuse: max-tensors must be 0 (no limit) or positive, got -1

/// Three gradients of one group: one pack, one all_reduce, one unpack whose
/// results replace the three, where the last one was.
// CHECK-LABEL: func.func @grads
// CHECK-SAME: (%[[A:.*]]: tensor<64xf32>, %[[B:.*]]: tensor<8x16xf32>, %[[C:.*]]: tensor<3xf32>)
// CHECK-NEXT: %[[P:.*]] = comm.pack %[[A]], %[[B]], %[[C]] offsets [0, 64, 192] : tensor<64xf32>, tensor<8x16xf32>, tensor<3xf32> -> tensor<195xf32>
// CHECK-NEXT: %[[R:.*]] = comm.all_reduce sum %[[P]] over {{\[\[}}0, 1, 2, 3]] : tensor<195xf32>
// CHECK-NEXT: %[[U:.*]]:3 = comm.unpack %[[R]] offsets [0, 64, 192] : tensor<195xf32> -> tensor<64xf32>, tensor<8x16xf32>, tensor<3xf32>
// CHECK-NEXT: return %[[U]]#0, %[[U]]#1, %[[U]]#2
func.func @grads(%a: tensor<64xf32>, %b: tensor<8x16xf32>, %c: tensor<3xf32>) -> (tensor<64xf32>, tensor<8x16xf32>, tensor<3xf32>) {
  %x = comm.all_reduce sum %a over [[0, 1, 2, 3]] : tensor<64xf32>
  %y = comm.all_reduce sum %b over [[0, 1, 2, 3]] : tensor<8x16xf32>
  %z = comm.all_reduce sum %c over [[0, 1, 2, 3]] : tensor<3xf32>
  return %x, %y, %z : tensor<64xf32>, tensor<8x16xf32>, tensor<3xf32>
}

// -----

/// Interleaved collectives of two groups, two reductions and two element
/// types: one bucket each, never mixed.
// CHECK-LABEL: func.func @keys
// CHECK: comm.all_reduce sum %{{.*}} over {{\[\[}}0, 1, 2, 3]] : tensor<20xf32>
// CHECK: comm.all_reduce sum %{{.*}} over {{\[\[}}0, 1], [2, 3]] : tensor<20xf32>
// CHECK: comm.all_reduce max %{{.*}} over {{\[\[}}0, 1, 2, 3]] : tensor<8xf32>
// CHECK: comm.all_reduce sum %{{.*}} over {{\[\[}}0, 1, 2, 3]] : tensor<8xi32>
// CHECK-NOT: comm.all_reduce
// CHECK: return
func.func @keys(%a: tensor<10xf32>, %b: tensor<10xf32>, %m: tensor<4xf32>, %i: tensor<4xi32>)
    -> (tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xi32>) {
  %0 = comm.all_reduce sum %a over [[0, 1, 2, 3]] : tensor<10xf32>
  %1 = comm.all_reduce sum %a over [[0, 1], [2, 3]] : tensor<10xf32>
  %2 = comm.all_reduce max %m over [[0, 1, 2, 3]] : tensor<4xf32>
  %3 = comm.all_reduce sum %i over [[0, 1, 2, 3]] : tensor<4xi32>
  %4 = comm.all_reduce sum %b over [[0, 1, 2, 3]] : tensor<10xf32>
  %5 = comm.all_reduce sum %b over [[0, 1], [2, 3]] : tensor<10xf32>
  %6 = comm.all_reduce max %m over [[0, 1, 2, 3]] : tensor<4xf32>
  %7 = comm.all_reduce sum %i over [[0, 1, 2, 3]] : tensor<4xi32>
  return %0, %1, %4, %5, %2, %6, %3, %7 : tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xi32>
}

// -----

/// Broadcasts from one root fuse, from another they do not; permutes with
/// the same pairs fuse; plans must agree.
// CHECK-LABEL: func.func @rooted
// CHECK: comm.broadcast %{{.*}} over {{\[\[}}0, 1, 2, 3]] root 2 : tensor<8xf32>
// CHECK: comm.broadcast %{{.*}} over {{\[\[}}0, 1, 2, 3]] root 1 : tensor<16xf32>
// CHECK: comm.permute %{{.*}} pairs {{\[\[}}0, 1], [1, 0]] plan <precision = bf16> : tensor<16xf32>
func.func @rooted(%a: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0 = comm.broadcast %a over [[0, 1, 2, 3]] root 1 : tensor<8xf32>
  %1 = comm.broadcast %a over [[0, 1, 2, 3]] root 2 : tensor<8xf32>
  %2 = comm.broadcast %b over [[0, 1, 2, 3]] root 1 : tensor<8xf32>
  %3 = comm.permute %a pairs [[0, 1], [1, 0]] plan <precision = bf16> : tensor<8xf32>
  %4 = comm.permute %b pairs [[0, 1], [1, 0]] plan <precision = bf16> : tensor<8xf32>
  return %0, %1, %2, %3, %4 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

/// A collective whose input comes from another's result cannot join it:
/// the first bucket closes at the use.
// CHECK-LABEL: func.func @negative_dependence
// CHECK: %[[X:.*]] = comm.all_reduce sum %{{.*}} : tensor<8xf32>
// CHECK: %[[Y:.*]] = comm.all_reduce sum %[[X]] over {{.*}} : tensor<8xf32>
// CHECK-NOT: comm.pack
func.func @negative_dependence(%a: tensor<8xf32>) -> tensor<8xf32> {
  %x = comm.all_reduce sum %a over [[0, 1, 2, 3]] : tensor<8xf32>
  %y = comm.all_reduce sum %x over [[0, 1, 2, 3]] : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

/// A result used before the next collective (here by compute) keeps its
/// collective where it was; the next two fuse after the use.
// CHECK-LABEL: func.func @use_between
// CHECK: %[[X:.*]] = comm.all_reduce sum %{{.*}} : tensor<8xf32>
// CHECK: comm.compute "update"(%[[X]])
// CHECK: comm.pack
// CHECK: comm.all_reduce sum %{{.*}} : tensor<16xf32>
func.func @use_between(%a: tensor<8xf32>, %b: tensor<8xf32>, %c: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %x = comm.all_reduce sum %a over [[0, 1, 2, 3]] : tensor<8xf32>
  comm.compute "update"(%x) time_us 10.0 : (tensor<8xf32>) -> ()
  %y = comm.all_reduce sum %b over [[0, 1, 2, 3]] : tensor<8xf32>
  %z = comm.all_reduce sum %c over [[0, 1, 2, 3]] : tensor<8xf32>
  return %y, %z : tensor<8xf32>, tensor<8xf32>
}

// -----

/// Nothing crosses an async boundary or a point-to-point exchange; inside a
/// comm.start body the ops fuse with each other.
// CHECK-LABEL: func.func @negative_boundaries
// CHECK: comm.all_reduce sum %{{.*}} : tensor<8xf32>
// CHECK: comm.start
// CHECK-NEXT: comm.pack
// CHECK-NEXT: comm.all_reduce sum %{{.*}} : tensor<16xf32>
// CHECK-NEXT: comm.unpack
// CHECK: comm.wait
// CHECK: comm.all_reduce sum %{{.*}} : tensor<8xf32>
// CHECK: comm.send
// CHECK: comm.all_reduce sum %{{.*}} : tensor<8xf32>
func.func @negative_boundaries(%a: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0 = comm.all_reduce sum %a over [[0, 1, 2, 3]] : tensor<8xf32>
  %t = comm.start {
    %1 = comm.all_reduce sum %a over [[0, 1, 2, 3]] : tensor<8xf32>
    %2 = comm.all_reduce sum %a over [[0, 1, 2, 3]] : tensor<8xf32>
    comm.yield %1, %2 : tensor<8xf32>, tensor<8xf32>
  }
  %3:2 = comm.wait %t : tensor<8xf32>, tensor<8xf32>
  %4 = comm.all_reduce sum %a over [[0, 1, 2, 3]] : tensor<8xf32>
  comm.send %a to [[0, 1]] tag 0 : tensor<8xf32>
  %r = comm.recv from [[0, 1]] tag 0 : tensor<8xf32>
  %5 = comm.all_reduce sum %a over [[0, 1, 2, 3]] : tensor<8xf32>
  return %0, %3#0, %3#1, %4, %5 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

/// All-gathers along dimension 0 fuse: the shards are packed whole, the
/// gathered buffer holds one block per rank, and the unpack reads each
/// tensor from every block. Reduce-scatters the other way round: the pack
/// cuts every tensor into one part per rank.
// CHECK-LABEL: func.func @gather_scatter
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<4xf32>, %[[C:.*]]: tensor<8x2xf32>, %[[D:.*]]: tensor<16xf32>)
// CHECK-NEXT: %[[P:.*]] = comm.pack %[[A]], %[[B]] offsets [0, 6] : tensor<2x3xf32>, tensor<4xf32> -> tensor<10xf32>
// CHECK-NEXT: %[[G:.*]] = comm.all_gather %[[P]] over {{\[\[}}0, 1, 2, 3]] dim 0 : tensor<10xf32> -> tensor<40xf32>
// CHECK-NEXT: %[[U:.*]]:2 = comm.unpack %[[G]] offsets [0, 6] blocks 4 : tensor<40xf32> -> tensor<8x3xf32>, tensor<16xf32>
// CHECK-NEXT: %[[Q:.*]] = comm.pack %[[C]], %[[D]] offsets [0, 4] blocks 4 : tensor<8x2xf32>, tensor<16xf32> -> tensor<32xf32>
// CHECK-NEXT: %[[S:.*]] = comm.reduce_scatter sum %[[Q]] over {{\[\[}}0, 1, 2, 3]] dim 0 : tensor<32xf32> -> tensor<8xf32>
// CHECK-NEXT: %[[V:.*]]:2 = comm.unpack %[[S]] offsets [0, 4] : tensor<8xf32> -> tensor<2x2xf32>, tensor<4xf32>
// CHECK-NEXT: return %[[U]]#0, %[[U]]#1, %[[V]]#0, %[[V]]#1
func.func @gather_scatter(%a: tensor<2x3xf32>, %b: tensor<4xf32>, %c: tensor<8x2xf32>, %d: tensor<16xf32>)
    -> (tensor<8x3xf32>, tensor<16xf32>, tensor<2x2xf32>, tensor<4xf32>) {
  %0 = comm.all_gather %a over [[0, 1, 2, 3]] dim 0 : tensor<2x3xf32> -> tensor<8x3xf32>
  %1 = comm.all_gather %b over [[0, 1, 2, 3]] dim 0 : tensor<4xf32> -> tensor<16xf32>
  %2 = comm.reduce_scatter sum %c over [[0, 1, 2, 3]] dim 0 : tensor<8x2xf32> -> tensor<2x2xf32>
  %3 = comm.reduce_scatter sum %d over [[0, 1, 2, 3]] dim 0 : tensor<16xf32> -> tensor<4xf32>
  return %0, %1, %2, %3 : tensor<8x3xf32>, tensor<16xf32>, tensor<2x2xf32>, tensor<4xf32>
}

// -----

/// An empty shard (a rank that holds none of a tensor) still makes one
/// block per rank of the group: the blocks come from the group, not from
/// the shapes (these divided zero by zero).
// CHECK-LABEL: func.func @empty_shards
// CHECK-SAME: (%[[A:.*]]: tensor<0xf32>, %[[B:.*]]: tensor<4xf32>, %[[C:.*]]: tensor<0xf32>)
// CHECK-NEXT: %[[P:.*]] = comm.pack %[[A]], %[[B]] offsets [0, 0] : tensor<0xf32>, tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT: %[[G:.*]] = comm.all_gather %[[P]] over {{\[\[}}0, 1, 2, 3]] dim 0 : tensor<4xf32> -> tensor<16xf32>
// CHECK-NEXT: %[[U:.*]]:2 = comm.unpack %[[G]] offsets [0, 0] blocks 4 : tensor<16xf32> -> tensor<0xf32>, tensor<16xf32>
func.func @empty_shards(%a: tensor<0xf32>, %b: tensor<4xf32>, %c: tensor<0xf32>)
    -> (tensor<0xf32>, tensor<16xf32>, tensor<0xf32>, tensor<0xf32>) {
  %0 = comm.all_gather %a over [[0, 1, 2, 3]] dim 0 : tensor<0xf32> -> tensor<0xf32>
  %1 = comm.all_gather %b over [[0, 1, 2, 3]] dim 0 : tensor<4xf32> -> tensor<16xf32>
  %2 = comm.reduce_scatter sum %c over [[0, 1, 2, 3]] dim 0 : tensor<0xf32> -> tensor<0xf32>
  %3 = comm.reduce_scatter sum %c over [[0, 1, 2, 3]] dim 0 : tensor<0xf32> -> tensor<0xf32>
  return %0, %1, %2, %3 : tensor<0xf32>, tensor<16xf32>, tensor<0xf32>, tensor<0xf32>
}

// -----

/// Along another dimension a rank's part of a tensor is not contiguous,
/// and an all_to_all's blocks interleave: they never fuse.
// CHECK-LABEL: func.func @negative_gather
// CHECK-NOT: comm.pack
// CHECK: return
func.func @negative_gather(%a: tensor<2x8xf32>, %b: tensor<8xf32>) -> (tensor<2x32xf32>, tensor<2x32xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0 = comm.all_gather %a over [[0, 1, 2, 3]] dim 1 : tensor<2x8xf32> -> tensor<2x32xf32>
  %1 = comm.all_gather %a over [[0, 1, 2, 3]] dim 1 : tensor<2x8xf32> -> tensor<2x32xf32>
  %2 = comm.all_to_all %b over [[0, 1, 2, 3]] split 0 concat 0 : tensor<8xf32> -> tensor<8xf32>
  %3 = comm.all_to_all %b over [[0, 1, 2, 3]] split 0 concat 0 : tensor<8xf32> -> tensor<8xf32>
  return %0, %1, %2, %3 : tensor<2x32xf32>, tensor<2x32xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

/// Bucket limits: with a 512-byte first bucket and 1 KiB after, four
/// 256-byte gradients make buckets of 2 and 2; a 2 KiB one closes the open
/// bucket and goes alone; the four after it make one bucket of 4.
// SMALL-LABEL: func.func @limits
// SMALL: comm.all_reduce sum %{{.*}} : tensor<128xf32>
// SMALL: comm.all_reduce sum %{{.*}} : tensor<128xf32>
// SMALL: comm.all_reduce sum %{{.*}} : tensor<512xf32>
// SMALL: comm.all_reduce sum %{{.*}} : tensor<256xf32>
func.func @limits(%a: tensor<64xf32>, %big: tensor<512xf32>) -> tensor<64xf32> {
  %0 = comm.all_reduce sum %a over [[0, 1, 2, 3]] : tensor<64xf32>
  %1 = comm.all_reduce sum %a over [[0, 1, 2, 3]] : tensor<64xf32>
  %2 = comm.all_reduce sum %a over [[0, 1, 2, 3]] : tensor<64xf32>
  %3 = comm.all_reduce sum %a over [[0, 1, 2, 3]] : tensor<64xf32>
  %b = comm.all_reduce sum %big over [[0, 1, 2, 3]] : tensor<512xf32>
  %4 = comm.all_reduce sum %a over [[0, 1, 2, 3]] : tensor<64xf32>
  %5 = comm.all_reduce sum %a over [[0, 1, 2, 3]] : tensor<64xf32>
  %6 = comm.all_reduce sum %a over [[0, 1, 2, 3]] : tensor<64xf32>
  %7 = comm.all_reduce sum %a over [[0, 1, 2, 3]] : tensor<64xf32>
  return %7 : tensor<64xf32>
}

// -----

/// Cost mode: gradients of two layers, each layer's ready when its backward
/// is done. One bucket would wait for both layers; a bucket per layer lets
/// the first travel while the second layer computes, which the cost model
/// predicts finishes first. Threshold mode only counts bytes: the first
/// gradient (over the 1 MiB first bucket) goes alone, the other three share
/// a bucket that waits for layer 1.

// COST-LABEL: func.func @layers
// COST: comm.compute "layer2.backward"
// COST: comm.compute "layer1.backward"
// COST: comm.pack
// COST-NEXT: comm.all_reduce sum %{{.*}} : tensor<4198400xf32>
// COST: comm.pack
// COST-NEXT: comm.all_reduce sum %{{.*}} : tensor<4198400xf32>
// CHECK-LABEL: func.func @layers
// CHECK: comm.all_reduce sum %{{.*}} : tensor<4194304xf32>
// CHECK: comm.all_reduce sum %{{.*}} : tensor<4202496xf32>
/// Cycle mode (Horovod): layer 2's gradients are ready at 500 us, layer
/// 1's at 1000 us. With 400 us cycles they fall in cycles 1 and 2: a bucket
/// each; with 2 ms cycles (and a 64 MiB limit) both in cycle 0: one bucket.
// CYCLE-LABEL: func.func @layers
// CYCLE: comm.all_reduce sum %{{.*}} : tensor<4198400xf32>
// CYCLE: comm.all_reduce sum %{{.*}} : tensor<4198400xf32>
// CYCLE-NOT: comm.all_reduce
// CYCLE: return
// LONGCYCLE-LABEL: func.func @layers
// LONGCYCLE: comm.all_reduce sum %{{.*}} : tensor<8396800xf32>
// LONGCYCLE-NOT: comm.all_reduce
// LONGCYCLE: return
module attributes {comm.topology = "dgx-h100"} {
func.func @layers(%x: tensor<1024xf32>, %w: tensor<64xf32>) -> tensor<64xf32> {
  %g2, %b2 = comm.compute "layer2.backward"(%x, %w) time_us 500.0 : (tensor<1024xf32>, tensor<64xf32>) -> (tensor<4194304xf32>, tensor<4096xf32>)
  %g1, %b1 = comm.compute "layer1.backward"(%x, %w) time_us 500.0 : (tensor<1024xf32>, tensor<64xf32>) -> (tensor<4194304xf32>, tensor<4096xf32>)
  %r2 = comm.all_reduce sum %g2 over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<4194304xf32>
  %s2 = comm.all_reduce sum %b2 over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<4096xf32>
  %r1 = comm.all_reduce sum %g1 over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<4194304xf32>
  %s1 = comm.all_reduce sum %b1 over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<4096xf32>
  %u = comm.compute "optimizer"(%r2, %s2, %r1, %s1) time_us 50.0 : (tensor<4194304xf32>, tensor<4096xf32>, tensor<4194304xf32>, tensor<4096xf32>) -> tensor<64xf32>
  return %u : tensor<64xf32>
}
}

// -----

/// Cost mode, the collectives written in the opposite order of their
/// readiness (JAX and XLA all-reduce after the whole backward, the first
/// layer's gradients first): the run is cut in the order the operands
/// become ready, so layer 2's gradients (ready at 500 us) travel under
/// layer 1's backward as in @layers. Cut in program order, one bucket of
/// all four looked as fast (each waited for layer 1), which delayed layer
/// 2's gradients by the whole of layer 1. Each bucket goes where its
/// member latest in the block was.
// COST-LABEL: func.func @reversed
// COST: %[[L2:.*]]:2 = comm.compute "layer2.backward"
// COST-NEXT: %[[L1:.*]]:2 = comm.compute "layer1.backward"
// COST-NEXT: %[[P1:.*]] = comm.pack %[[L1]]#0, %[[L1]]#1 offsets [0, 4194304] : tensor<4194304xf32>, tensor<4096xf32> -> tensor<4198400xf32>
// COST-NEXT: comm.all_reduce sum %[[P1]] {{.*}} : tensor<4198400xf32>
// COST-NEXT: comm.unpack
// COST-NEXT: %[[P2:.*]] = comm.pack %[[L2]]#0, %[[L2]]#1 offsets [0, 4194304] : tensor<4194304xf32>, tensor<4096xf32> -> tensor<4198400xf32>
// COST-NEXT: comm.all_reduce sum %[[P2]] {{.*}} : tensor<4198400xf32>
// COST-NEXT: comm.unpack
// COST-NEXT: comm.compute "optimizer"
module attributes {comm.topology = "dgx-h100"} {
func.func @reversed(%x: tensor<1024xf32>, %w: tensor<64xf32>) -> tensor<64xf32> {
  %g2, %b2 = comm.compute "layer2.backward"(%x, %w) time_us 500.0 : (tensor<1024xf32>, tensor<64xf32>) -> (tensor<4194304xf32>, tensor<4096xf32>)
  %g1, %b1 = comm.compute "layer1.backward"(%x, %w) time_us 500.0 : (tensor<1024xf32>, tensor<64xf32>) -> (tensor<4194304xf32>, tensor<4096xf32>)
  %r1 = comm.all_reduce sum %g1 over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<4194304xf32>
  %r2 = comm.all_reduce sum %g2 over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<4194304xf32>
  %s1 = comm.all_reduce sum %b1 over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<4096xf32>
  %s2 = comm.all_reduce sum %b2 over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<4096xf32>
  %u = comm.compute "optimizer"(%r2, %s2, %r1, %s1) time_us 50.0 : (tensor<4194304xf32>, tensor<4096xf32>, tensor<4194304xf32>, tensor<4096xf32>) -> tensor<64xf32>
  return %u : tensor<64xf32>
}
}

// -----

/// Cost mode: small gradients all ready together go in one bucket (each
/// collective's latency would otherwise be paid again).
// COST-LABEL: func.func @together
// COST: comm.all_reduce sum %{{.*}} : tensor<4096xf32>
// COST-NOT: comm.all_reduce
/// max-tensors=3: a bucket closes at three tensors.
// MAX-LABEL: func.func @together
// MAX: comm.all_reduce sum %{{.*}} : tensor<3072xf32>
// MAX: comm.all_reduce sum %{{.*}} : tensor<1024xf32>
// MAX-NOT: comm.all_reduce
// MAX: return
module attributes {comm.topology = "dgx-h100"} {
func.func @together(%a: tensor<1024xf32>, %b: tensor<1024xf32>, %c: tensor<1024xf32>, %d: tensor<1024xf32>) -> (tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>) {
  %0 = comm.all_reduce sum %a over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<1024xf32>
  %1 = comm.all_reduce sum %b over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<1024xf32>
  %2 = comm.all_reduce sum %c over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<1024xf32>
  %3 = comm.all_reduce sum %d over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<1024xf32>
  return %0, %1, %2, %3 : tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>
}
}

// -----

/// Cost mode, two element types: their runs share the communication
/// stream. Cut alone, each sends its first gradient early and the rest
/// together. Cut jointly, whichever run is re-cut first given the other's
/// buckets waits and sends all four together: re-cutting f32 first gives
/// bf16 1 + f32 4 + bf16 3, bf16 first gives f32 1 + 3 and bf16 4, whose
/// stream ends first (the larger f32 gradient runs under the compute), so
/// those cuts are kept.
// COST-LABEL: func.func @shared
// COST: comm.all_reduce sum %{{.*}} : tensor<1048576xf32>
// COST: comm.all_reduce sum %{{.*}} : tensor<3145728xf32>
// COST: comm.all_reduce sum %{{.*}} : tensor<4194304xbf16>
// COST-NOT: comm.all_reduce
// COST: return
// ALONE-LABEL: func.func @shared
// ALONE: comm.all_reduce sum %{{.*}} : tensor<1048576xf32>
// ALONE: comm.all_reduce sum %{{.*}} : tensor<1048576xbf16>
// ALONE: comm.all_reduce sum %{{.*}} : tensor<3145728xf32>
// ALONE: comm.all_reduce sum %{{.*}} : tensor<3145728xbf16>
// ALONE-NOT: comm.all_reduce
// ALONE: return
module attributes {comm.topology = "dgx-h100"} {
func.func @shared(%x: tensor<1024xf32>) -> (tensor<1048576xf32>, tensor<1048576xf32>, tensor<1048576xf32>, tensor<1048576xf32>, tensor<1048576xbf16>, tensor<1048576xbf16>, tensor<1048576xbf16>, tensor<1048576xbf16>) {
  %a4, %b4 = comm.compute "layer4.backward"(%x) time_us 20.0 : (tensor<1024xf32>) -> (tensor<1048576xf32>, tensor<1048576xbf16>)
  %a3, %b3 = comm.compute "layer3.backward"(%x) time_us 20.0 : (tensor<1024xf32>) -> (tensor<1048576xf32>, tensor<1048576xbf16>)
  %a2, %b2 = comm.compute "layer2.backward"(%x) time_us 20.0 : (tensor<1024xf32>) -> (tensor<1048576xf32>, tensor<1048576xbf16>)
  %a1, %b1 = comm.compute "layer1.backward"(%x) time_us 20.0 : (tensor<1024xf32>) -> (tensor<1048576xf32>, tensor<1048576xbf16>)
  %r4 = comm.all_reduce sum %a4 over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<1048576xf32>
  %s4 = comm.all_reduce sum %b4 over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<1048576xbf16>
  %r3 = comm.all_reduce sum %a3 over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<1048576xf32>
  %s3 = comm.all_reduce sum %b3 over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<1048576xbf16>
  %r2 = comm.all_reduce sum %a2 over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<1048576xf32>
  %s2 = comm.all_reduce sum %b2 over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<1048576xbf16>
  %r1 = comm.all_reduce sum %a1 over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<1048576xf32>
  %s1 = comm.all_reduce sum %b1 over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<1048576xbf16>
  return %r1, %r2, %r3, %r4, %s1, %s2, %s3, %s4 : tensor<1048576xf32>, tensor<1048576xf32>, tensor<1048576xf32>, tensor<1048576xf32>, tensor<1048576xbf16>, tensor<1048576xbf16>, tensor<1048576xbf16>, tensor<1048576xbf16>
}
}
