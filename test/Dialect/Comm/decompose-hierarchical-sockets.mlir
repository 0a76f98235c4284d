// RUN: comm-opt %s --comm-decompose="hierarchical topology=pcie-4gpu explain" -verify-diagnostics | FileCheck %s --check-prefix=PCIE
// RUN: comm-opt %s --comm-decompose="hierarchical hierarchical-if-faster topology=pcie-4gpu" | FileCheck %s --check-prefix=FASTER

// On pcie-4gpu the two GPUs of each CPU reach the other two only across
// the CPUs' 10 GB/s link: an all_reduce over the four is split by CPU, its
// all_reduce across the sockets among GPUs with the same place. Groups
// inside one socket, with one GPU per socket or unequal sockets are kept.
// With hierarchical-if-faster a latency-bound all_reduce stays whole.
//
// An all_gather goes across first (only each rank's own block crosses the
// socket link), then inside; its blocks then come as [0, 2, 1, 3] and are
// put back in the group's order. A reduce_scatter puts its blocks in that
// order first, then reduces inside (the link carries sums), then across.
// Gathers along another dimension, and other kinds, are not split.

module attributes {comm.world_size = 4 : i64} {
  // PCIE-LABEL: func.func @sockets
  // PCIE: comm.reduce_scatter sum %{{.*}} over {{\[\[}}0, 1], [2, 3]] dim 0 : tensor<8388608xf32> -> tensor<4194304xf32>
  // PCIE-NEXT: comm.all_reduce sum %{{.*}} over {{\[\[}}0, 2], [1, 3]] : tensor<4194304xf32>
  // PCIE-NEXT: comm.all_gather %{{.*}} over {{\[\[}}0, 1], [2, 3]] dim 0 : tensor<4194304xf32> -> tensor<8388608xf32>
  // FASTER-LABEL: func.func @sockets
  // FASTER: comm.reduce_scatter
  // FASTER: comm.all_reduce sum %{{.*}} over {{\[\[}}0, 2], [1, 3]]
  // FASTER: comm.all_reduce sum %{{.*}} over {{\[\[}}0, 1, 2, 3]] : tensor<256xf32>
  func.func @sockets(%x: tensor<8388608xf32>, %y: tensor<256xf32>) -> (tensor<8388608xf32>, tensor<256xf32>) {
    // expected-remark @+1 {{comm-decompose: split by CPU (2 CPUs of 2 ranks): 5708.82 us predicted against 5986.78 us whole}}
    %0 = comm.all_reduce sum %x over [[0, 1, 2, 3]] : tensor<8388608xf32>
    // expected-remark @+1 {{comm-decompose: split by CPU (2 CPUs of 2 ranks)}}
    %1 = comm.all_reduce sum %y over [[0, 1, 2, 3]] : tensor<256xf32>
    return %0, %1 : tensor<8388608xf32>, tensor<256xf32>
  }
  // PCIE-LABEL: func.func @kept_pcie
  // PCIE-NEXT: comm.all_reduce sum
  // PCIE-NEXT: comm.all_reduce sum
  // PCIE-NEXT: comm.all_reduce sum
  func.func @kept_pcie(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) {
    // expected-remark @+1 {{comm-decompose: kept whole: it stays inside one machine, where no link joins its CPUs' GPUs alone}}
    %0 = comm.all_reduce sum %x over [[0, 1], [2, 3]] : tensor<64xf32>
    // expected-remark @+1 {{comm-decompose: kept whole: it has one rank per CPU}}
    %1 = comm.all_reduce sum %x over [[0, 2], [1, 3]] : tensor<64xf32>
    // expected-remark @+1 {{comm-decompose: kept whole: it has a different number of ranks on each CPU}}
    %2 = comm.all_reduce sum %x over [[0, 1, 2]] : tensor<64xf32>
    return %0, %1, %2 : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
  }
  // PCIE-LABEL: func.func @gather_scatter
  // PCIE: %[[A:.*]] = comm.all_gather %{{.*}} over {{\[\[}}0, 2], [1, 3]] dim 0 : tensor<2x8xf32> -> tensor<4x8xf32>
  // PCIE-NEXT: %[[B:.*]] = comm.all_gather %[[A]] over {{\[\[}}0, 1], [2, 3]] dim 0 : tensor<4x8xf32> -> tensor<8x8xf32>
  // PCIE-NEXT: %[[F:.*]] = comm.pack %[[B]] offsets [0] : tensor<8x8xf32> -> tensor<64xf32>
  // PCIE-NEXT: %[[S:.*]]:4 = comm.unpack %[[F]] offsets [0, 16, 32, 48]
  // PCIE-NEXT: %[[P:.*]] = comm.pack %[[S]]#0, %[[S]]#1, %[[S]]#2, %[[S]]#3 offsets [0, 32, 16, 48]
  // PCIE-NEXT: %[[G:.*]] = comm.unpack %[[P]] offsets [0] : tensor<64xf32> -> tensor<8x8xf32>
  // PCIE: comm.pack %{{.*}} offsets [0, 32, 16, 48]
  // PCIE-NEXT: %[[Z:.*]] = comm.unpack %{{.*}} offsets [0] : tensor<64xf32> -> tensor<8x8xf32>
  // PCIE-NEXT: %[[R:.*]] = comm.reduce_scatter avg %[[Z]] over {{\[\[}}0, 1], [2, 3]] dim 0 : tensor<8x8xf32> -> tensor<4x8xf32>
  // PCIE-NEXT: %[[Q:.*]] = comm.reduce_scatter avg %[[R]] over {{\[\[}}0, 2], [1, 3]] dim 0 : tensor<4x8xf32> -> tensor<2x8xf32>
  // PCIE-NEXT: return %[[G]], %[[Q]]
  func.func @gather_scatter(%y: tensor<2x8xf32>, %z: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<2x8xf32>) {
    // expected-remark @+1 {{comm-decompose: split by CPU (2 CPUs of 2 ranks)}}
    %0 = comm.all_gather %y over [[0, 1, 2, 3]] dim 0 : tensor<2x8xf32> -> tensor<8x8xf32>
    // expected-remark @+1 {{comm-decompose: split by CPU (2 CPUs of 2 ranks)}}
    %1 = comm.reduce_scatter avg %z over [[0, 1, 2, 3]] dim 0 : tensor<8x8xf32> -> tensor<2x8xf32>
    return %0, %1 : tensor<8x8xf32>, tensor<2x8xf32>
  }
  // PCIE-LABEL: func.func @kept_kinds
  // PCIE-NEXT: comm.all_gather %{{.*}} over {{\[\[}}0, 1, 2, 3]] dim 1
  // PCIE-NEXT: comm.all_to_all %{{.*}} over {{\[\[}}0, 1, 2, 3]]
  func.func @kept_kinds(%y: tensor<8x2xf32>, %z: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
    // expected-remark @+1 {{comm-decompose: kept whole: it is not an all_reduce, or an all_gather or reduce_scatter along dimension 0}}
    %0 = comm.all_gather %y over [[0, 1, 2, 3]] dim 1 : tensor<8x2xf32> -> tensor<8x8xf32>
    %1 = comm.all_to_all %z over [[0, 1, 2, 3]] split 0 concat 0 : tensor<8x8xf32> -> tensor<8x8xf32>
    return %0, %1 : tensor<8x8xf32>, tensor<8x8xf32>
  }
}
