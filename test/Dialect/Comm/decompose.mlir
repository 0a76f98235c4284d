// RUN: comm-opt %s --comm-decompose=split-all-reduce --comm-verify-schedule -split-input-file | FileCheck %s --check-prefix=SPLIT
// RUN: comm-opt %s --comm-decompose=to-p2p=all --comm-verify-schedule -split-input-file | FileCheck %s --check-prefix=P2P
// RUN: comm-opt %s --comm-decompose -split-input-file | FileCheck %s --check-prefix=NCCL
// RUN: comm-opt %s --comm-decompose=backend=verbs -split-input-file | FileCheck %s --check-prefix=VERBS
// RUN: comm-opt %s --comm-decompose="to-p2p=all split-all-reduce" --comm-verify-schedule -split-input-file | comm-opt --verify-each | FileCheck %s --check-prefix=BOTH
// The results of these programs, decomposed, are checked against the
// collectives on 4 MPI ranks in test/Compile/decompose.test.

module attributes {comm.world_size = 4 : i64} {
  // SPLIT-LABEL: func.func @all_reduce
  // SPLIT: %[[RS:.*]] = comm.reduce_scatter sum %{{.*}} over {{\[\[}}0, 1, 2, 3]] dim 0 : tensor<8x3xf32> -> tensor<2x3xf32>
  // SPLIT: %[[AG:.*]] = comm.all_gather %[[RS]] over {{\[\[}}0, 1, 2, 3]] dim 0 : tensor<2x3xf32> -> tensor<8x3xf32>
  // SPLIT: return %[[AG]]
  // P2P-LABEL: func.func @all_reduce
  // P2P: %[[ROT:.*]] = comm.pack %{{.*}} offsets [0] : tensor<8x3xf32> -> tensor<24xf32>
  // P2P: comm.rotate %[[ROT]] over {{\[\[}}0, 1, 2, 3]] shift 0 : tensor<24xf32>
  // P2P: %[[C:.*]]:4 = comm.unpack
  // 3 reduce-scatter steps, each a send, a receive and an addition...
  // P2P: comm.send %[[C]]#3 to {{\[\[}}0, 1], [1, 2], [2, 3], [3, 0]] tag 8 : tensor<6xf32>
  // P2P: %[[R1:.*]] = comm.recv from {{\[\[}}0, 1], [1, 2], [2, 3], [3, 0]] tag 8 : tensor<6xf32>
  // P2P: %[[S1:.*]] = arith.addf %[[C]]#2, %[[R1]] : tensor<6xf32>
  // P2P: comm.send %[[S1]] to
  // P2P: arith.addf %[[C]]#1
  // P2P: %[[FULL:.*]] = arith.addf %[[C]]#0
  // ...then 3 all-gather steps that forward what arrived.
  // P2P: comm.send %[[FULL]] to
  // P2P: %[[G1:.*]] = comm.recv
  // P2P: comm.send %[[G1]] to
  // P2P: %[[G2:.*]] = comm.recv
  // P2P: comm.send %[[G2]] to
  // P2P: %[[G3:.*]] = comm.recv
  // P2P: %[[J:.*]] = comm.pack %[[FULL]], %[[G3]], %[[G2]], %[[G1]] offsets [0, 6, 12, 18]
  // P2P: %[[U:.*]] = comm.rotate %[[J]] over {{\[\[}}0, 1, 2, 3]] shift 0 inverse : tensor<24xf32>
  // P2P: comm.unpack %[[U]] offsets [0] : tensor<24xf32> -> tensor<8x3xf32>
  // P2P-NOT: comm.all_reduce
  // NCCL-LABEL: func.func @all_reduce
  // NCCL: comm.all_reduce
  // VERBS-LABEL: func.func @all_reduce
  // VERBS-NOT: comm.all_reduce
  // VERBS: comm.send
  // BOTH-LABEL: func.func @all_reduce
  // BOTH-NOT: comm.reduce_scatter
  // BOTH-NOT: comm.all_gather
  // BOTH: return
  func.func @all_reduce(%x: tensor<8x3xf32>) -> tensor<8x3xf32> {
    comm.send %x to [[0, 1]] tag 7 : tensor<8x3xf32>
    %r = comm.recv from [[0, 1]] tag 7 : tensor<8x3xf32>
    %0 = comm.all_reduce sum %r over [[0, 1, 2, 3]] : tensor<8x3xf32>
    return %0 : tensor<8x3xf32>
  }
}

// -----

// A size the group does not divide is padded with zeros; a plan's wire
// type and stream carry over to the pieces, its algorithm does not.
module attributes {comm.world_size = 4 : i64} {
  // SPLIT-LABEL: func.func @padded
  // SPLIT: %[[P:.*]] = comm.pack %{{.*}} offsets [0] : tensor<7xf32> -> tensor<8xf32>
  // SPLIT: comm.reduce_scatter max %[[P]] over {{\[\[}}0, 1], [2, 3]] dim 0 plan <precision = bf16, stream = 1> : tensor<8xf32> -> tensor<4xf32>
  // SPLIT: %[[G:.*]] = comm.all_gather %{{.*}} plan <precision = bf16, stream = 1> : tensor<4xf32> -> tensor<8xf32>
  // SPLIT: comm.unpack %[[G]] offsets [0] : tensor<8xf32> -> tensor<7xf32>
  // P2P-LABEL: func.func @padded
  // P2P: comm.send %{{.*}} to {{\[\[}}0, 1], [1, 0], [2, 3], [3, 2]] tag 0 plan <precision = bf16, stream = 1> : tensor<4xf32>
  // P2P: arith.maximumf
  func.func @padded(%x: tensor<7xf32>) -> tensor<7xf32> {
    %0 = comm.all_reduce max %x over [[0, 1], [2, 3]]
        plan <algorithm = ring, precision = bf16, stream = 1> : tensor<7xf32>
    return %0 : tensor<7xf32>
  }
}

// -----

module attributes {comm.world_size = 4 : i64} {
  // P2P-LABEL: func.func @others
  // reduce_scatter: the chunk each rank keeps is chunk 0 after rotating.
  // P2P: comm.rotate %{{.*}} over {{\[\[}}0, 1, 2, 3]] shift 0 : tensor<8xi32>
  // P2P-COUNT-3: arith.xori
  // all_gather: the own chunk first, three forwards, rotated back.
  // P2P: comm.rotate %{{.*}} inverse : tensor<8xf16>
  // P2P: comm.unpack %{{.*}} offsets [0] : tensor<8xf16> -> tensor<1x8xf16>
  // all_to_all: chunk s goes s places along the ring.
  // P2P: comm.send %{{.*}} to {{\[\[}}0, 1], [1, 2], [2, 3], [3, 0]] tag 2
  // P2P: comm.send %{{.*}} to {{\[\[}}0, 2], [1, 3], [2, 0], [3, 1]] tag 2
  // P2P: comm.send %{{.*}} to {{\[\[}}0, 3], [1, 0], [2, 1], [3, 2]] tag 2
  // permute: one send and one receive on its pairs.
  // P2P: comm.send %{{.*}} to {{\[\[}}0, 2], [2, 0]] tag 3 : tensor<5xf32>
  // P2P: comm.recv from {{\[\[}}0, 2], [2, 0]] tag 3 : tensor<5xf32>
  // P2P-NOT: comm.reduce_scatter
  // P2P-NOT: comm.all_gather
  // P2P-NOT: comm.all_to_all
  // P2P-NOT: comm.permute
  func.func @others(%a: tensor<8xi32>, %b: tensor<1x2xf16>, %c: tensor<4x2xf32>, %d: tensor<5xf32>)
      -> (tensor<2xi32>, tensor<1x8xf16>, tensor<4x2xf32>, tensor<5xf32>) {
    %0 = comm.reduce_scatter xor %a over [[0, 1, 2, 3]] dim 0 : tensor<8xi32> -> tensor<2xi32>
    %1 = comm.all_gather %b over [[0, 1, 2, 3]] dim 1 : tensor<1x2xf16> -> tensor<1x8xf16>
    %2 = comm.all_to_all %c over [[0, 1, 2, 3]] split 0 concat 0 : tensor<4x2xf32> -> tensor<4x2xf32>
    %3 = comm.permute %d pairs [[0, 2], [2, 0]] : tensor<5xf32>
    return %0, %1, %2, %3 : tensor<2xi32>, tensor<1x8xf16>, tensor<4x2xf32>, tensor<5xf32>
  }
}

// -----

// An average is summed around the ring and scaled by 1/n once, before the
// gather.
module attributes {comm.world_size = 4 : i64} {
  // P2P-LABEL: func.func @avg
  // P2P-COUNT-3: arith.addf
  // P2P: %[[F:.*]] = arith.constant dense<2.500000e-01> : tensor<2xbf16>
  // P2P: arith.mulf %{{.*}}, %[[F]] : tensor<2xbf16>
  // P2P-NOT: arith.addf
  // P2P: return
  func.func @avg(%x: tensor<8xbf16>) -> tensor<8xbf16> {
    %0 = comm.all_reduce avg %x over [[0, 1, 2, 3]] : tensor<8xbf16>
    return %0 : tensor<8xbf16>
  }
}

// -----

// A broadcast: the root sends to itself (every other rank receives zeros),
// then a binomial tree from the root, each step adding what arrives.
module attributes {comm.world_size = 4 : i64} {
  // P2P-LABEL: func.func @bcast
  // P2P: comm.send %[[X:.*]] to {{\[\[}}1, 1]] tag 0 : tensor<6xf32>
  // P2P-NEXT: %[[H:.*]] = comm.recv from {{\[\[}}1, 1]] tag 0 : tensor<6xf32>
  // P2P-NEXT: comm.send %[[H]] to {{\[\[}}1, 2]] tag 0
  // P2P-NEXT: %[[R1:.*]] = comm.recv from {{\[\[}}1, 2]] tag 0
  // P2P-NEXT: %[[H1:.*]] = arith.addf %[[H]], %[[R1]]
  // P2P-NEXT: comm.send %[[H1]] to {{\[\[}}1, 3], [2, 0]] tag 0
  // P2P-NEXT: %[[R2:.*]] = comm.recv from {{\[\[}}1, 3], [2, 0]] tag 0
  // P2P-NEXT: %[[H2:.*]] = arith.addf %[[H1]], %[[R2]]
  // P2P-NEXT: return %[[H2]]
  func.func @bcast(%x: tensor<6xf32>) -> tensor<6xf32> {
    %0 = comm.broadcast %x over [[0, 1, 2, 3]] root 1 : tensor<6xf32>
    return %0 : tensor<6xf32>
  }
}

// -----

// Groups of one rank move nothing: the collectives go, their results are
// their inputs (on verbs they were an error, "it has groups of one rank").
module attributes {comm.world_size = 2 : i64} {
  // P2P-LABEL: func.func @one_rank_groups
  // P2P-NOT: comm.
  // P2P: return %arg0, %arg0
  // VERBS-LABEL: func.func @one_rank_groups
  // VERBS-NOT: comm.
  // VERBS: return %arg0, %arg0
  func.func @one_rank_groups(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
    %0 = comm.all_reduce sum %x over [[0], [1]] : tensor<8xf32>
    comm.barrier over [[0], [1]]
    %1 = comm.all_gather %x over [[0], [1]] dim 0 : tensor<8xf32> -> tensor<8xf32>
    return %0, %1 : tensor<8xf32>, tensor<8xf32>
  }
}
