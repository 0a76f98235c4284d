// RUN: comm-opt %s --comm-select-algorithm --comm-verify-schedule -split-input-file | FileCheck %s
// RUN: comm-opt %s --comm-select-algorithm="backend=mpi" -split-input-file | FileCheck %s --check-prefix=MPI
// RUN: comm-opt %s --comm-select-algorithm="algorithm=tree channels=4 chunk-bytes=1048576" -split-input-file | FileCheck %s --check-prefix=FORCED
// RUN: comm-opt %s --comm-select-algorithm="backend=verbs" -split-input-file | FileCheck %s --check-prefix=VERBS

module attributes {comm.topology = "dgx-h100"} {
/// A small all_reduce is latency-bound: a one-shot exchange in LL wins; a
/// large one rides NVLink SHARP on nccl, which mpi does not have. MPI has
/// no protocol either (LL and LL128 are NCCL's): mpi's plans name none.
// CHECK-LABEL: func.func @sizes
// CHECK: comm.all_reduce sum %{{.*}} plan <algorithm = direct> : tensor<256xf32>
// CHECK: comm.all_reduce sum %{{.*}} plan <algorithm = nvls, protocol = simple> : tensor<67108864xf32>
// MPI-LABEL: func.func @sizes
// MPI: plan <algorithm = direct> : tensor<256xf32>
// MPI-NOT: nvls
// MPI: plan <algorithm = {{ring|tree|hierarchical|direct|halving_doubling}}> : tensor<67108864xf32>
func.func @sizes(%x: tensor<256xf32>, %y: tensor<67108864xf32>) -> (tensor<256xf32>, tensor<67108864xf32>) {
  %0 = comm.all_reduce sum %x over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<256xf32>
  %1 = comm.all_reduce sum %y over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<67108864xf32>
  return %0, %1 : tensor<256xf32>, tensor<67108864xf32>
}

/// NVLink SHARP reduces what NCCL lets it: the max of f32 is not among
/// that (only their sum), the max of bf16 and of i32 are.
// CHECK-LABEL: func.func @nvls_reductions
// CHECK: comm.all_reduce max %{{.*}} plan <algorithm = {{ring|tree|hierarchical|direct|halving_doubling}}> : tensor<67108864xf32>
// CHECK: comm.all_reduce max %{{.*}} plan <algorithm = nvls, protocol = simple> : tensor<67108864xbf16>
// CHECK: comm.all_reduce max %{{.*}} plan <algorithm = nvls, protocol = simple> : tensor<67108864xi32>
func.func @nvls_reductions(%f: tensor<67108864xf32>, %b: tensor<67108864xbf16>, %i: tensor<67108864xi32>) -> (tensor<67108864xf32>, tensor<67108864xbf16>, tensor<67108864xi32>) {
  %0 = comm.all_reduce max %f over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<67108864xf32>
  %1 = comm.all_reduce max %b over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<67108864xbf16>
  %2 = comm.all_reduce max %i over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<67108864xi32>
  return %0, %1, %2 : tensor<67108864xf32>, tensor<67108864xbf16>, tensor<67108864xi32>
}

/// Every kind gets a plan from the model; a barrier takes no algorithm, only
/// its protocol; fields of other kinds (precision, stream) stay. On verbs
/// only point to point runs: the collectives are left for the lowering to
/// reject, the permute, send and recv are planned (without a protocol:
/// LL and LL128 are NCCL's).
// VERBS-LABEL: func.func @kinds
// VERBS: comm.reduce_scatter sum %{{.*}} plan <precision = bf16> :
// VERBS: comm.all_to_all %{{.*}}]] split 0 concat 0 :
// VERBS: comm.permute %{{.*}} plan <algorithm = direct>
// VERBS: comm.send %{{.*}} plan <algorithm = direct>
// VERBS: comm.recv {{.*}} plan <algorithm = direct>
// VERBS: comm.barrier over {{\[\[}}0, 1, 2, 3, 4, 5, 6, 7]]{{$}}
// CHECK-LABEL: func.func @kinds
// CHECK: comm.reduce_scatter sum %{{.*}} plan <algorithm = {{[a-z_]+}}, precision = bf16>
// CHECK: comm.all_gather %{{.*}} plan <algorithm = {{[a-z_]+}}, stream = 2>
// CHECK: comm.all_to_all %{{.*}} plan <algorithm = direct>
// CHECK: comm.broadcast %{{.*}} plan <algorithm = {{[a-z_]+}}>
// CHECK: comm.reduce max %{{.*}} plan <algorithm = {{[a-z_]+}}>
// CHECK: comm.permute %{{.*}} plan <algorithm = direct>
// CHECK: comm.send %{{.*}} plan <algorithm = direct>
// CHECK: comm.recv {{.*}} plan <algorithm = direct>
// CHECK: comm.barrier over {{.*}} plan <protocol = ll>
func.func @kinds(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %0 = comm.reduce_scatter sum %x over [[0, 1, 2, 3, 4, 5, 6, 7]] dim 0 plan <precision = bf16> : tensor<1024xf32> -> tensor<128xf32>
  %1 = comm.all_gather %0 over [[0, 1, 2, 3, 4, 5, 6, 7]] dim 0 plan <stream = 2> : tensor<128xf32> -> tensor<1024xf32>
  %2 = comm.all_to_all %1 over [[0, 1, 2, 3, 4, 5, 6, 7]] split 0 concat 0 : tensor<1024xf32> -> tensor<1024xf32>
  %3 = comm.broadcast %2 over [[0, 1, 2, 3], [4, 5, 6, 7]] root 1 : tensor<1024xf32>
  %4 = comm.reduce max %3 over [[0, 1, 2, 3, 4, 5, 6, 7]] root 0 : tensor<1024xf32>
  %5 = comm.permute %4 pairs [[0, 1], [1, 0]] : tensor<1024xf32>
  comm.send %5 to [[2, 3]] tag 0 : tensor<1024xf32>
  %6 = comm.recv from [[2, 3]] tag 0 : tensor<1024xf32>
  comm.barrier over [[0, 1, 2, 3, 4, 5, 6, 7]]
  return %6 : tensor<1024xf32>
}

/// An algorithm a person wrote stays, and it takes no protocol: the
/// runtime's ring sends with ncclSend and ncclRecv, whose protocol NCCL
/// chooses by size. The forced channels and chunk apply.
// CHECK-LABEL: func.func @written_algorithm
// CHECK: plan <algorithm = ring> : tensor<67108864xf32>
// FORCED-LABEL: func.func @written_algorithm
// FORCED: plan <algorithm = ring, channels = 4, chunk_bytes = 1048576> : tensor<67108864xf32>
func.func @written_algorithm(%y: tensor<67108864xf32>) -> tensor<67108864xf32> {
  %0 = comm.all_reduce sum %y over [[0, 1, 2, 3, 4, 5, 6, 7]] plan <algorithm = ring> : tensor<67108864xf32>
  return %0 : tensor<67108864xf32>
}

/// A plan that names algorithm and protocol is the person's: unchanged.
// CHECK-LABEL: func.func @negative_fully_written
// CHECK: plan <algorithm = tree, protocol = ll128, channels = 2> : tensor<1024xf32>
func.func @negative_fully_written(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %0 = comm.all_reduce sum %x over [[0, 1, 2, 3, 4, 5, 6, 7]] plan <algorithm = tree, protocol = ll128, channels = 2> : tensor<1024xf32>
  return %0 : tensor<1024xf32>
}

/// A written algorithm no backend runs is left for the lowering to reject,
/// with its location.
// CHECK-LABEL: func.func @negative_unrealized
// CHECK: plan <algorithm = hierarchical> : tensor<1024xf32>
func.func @negative_unrealized(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %0 = comm.all_to_all %x over [[0, 1, 2, 3, 4, 5, 6, 7]] split 0 concat 0 plan <algorithm = hierarchical> : tensor<1024xf32> -> tensor<1024xf32>
  return %0 : tensor<1024xf32>
}

/// A copy moves within one rank: no algorithm, no plan.
// CHECK-LABEL: func.func @negative_copy
// CHECK: comm.copy %{{.*}} hbm to host : tensor<1024xf32>
func.func @negative_copy(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %0 = comm.copy %x hbm to host : tensor<1024xf32>
  return %0 : tensor<1024xf32>
}

/// Forcing: tree where it is realized (all_reduce), the model elsewhere
/// (all_to_all has only direct); channels and chunks only on collectives
/// the runtime runs as schedules, not on point to point.
// FORCED-LABEL: func.func @forced
// FORCED: comm.all_reduce sum %{{.*}} plan <algorithm = tree, channels = 4, chunk_bytes = 1048576>
// FORCED: comm.all_to_all %{{.*}} plan <algorithm = direct>
// FORCED: comm.permute %{{.*}} plan <algorithm = direct>
func.func @forced(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %0 = comm.all_reduce sum %x over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<1024xf32>
  %1 = comm.all_to_all %0 over [[0, 1, 2, 3, 4, 5, 6, 7]] split 0 concat 0 : tensor<1024xf32> -> tensor<1024xf32>
  %2 = comm.permute %1 pairs [[0, 1], [1, 0]] : tensor<1024xf32>
  return %2 : tensor<1024xf32>
}
}


// -----

// Across machines the network shapes the choice.
// CHECK-LABEL: func.func @cluster
// CHECK: comm.all_reduce sum %{{.*}} plan <algorithm = {{ring|tree|nvls|hierarchical|direct|halving_doubling}}{{(, protocol = simple)?}}> : tensor<268435456xf32>
module attributes {comm.topology = "dgx-h100x4"} {
func.func @cluster(%x: tensor<268435456xf32>) -> tensor<268435456xf32> {
  %0 = comm.all_reduce sum %x over [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31]] : tensor<268435456xf32>
  return %0 : tensor<268435456xf32>
}
}

// -----

module attributes {comm.topology = "pcie-4gpu"} {
/// On a PCIe machine whose GPUs hang off two CPUs, large collectives over
/// all four take the hierarchical schedule split by CPU socket, with the
/// chunk size its pipeline was timed with (a 17th of the 32 MiB buffer, a
/// 24th of each 32 MiB block of the reduce_scatter); a small one is
/// latency-bound and left to NCCL's own all_reduce (no plan: its LL128
/// beats the runtime's schedules, whose sends NCCL runs in LL). A
/// hierarchical plan written without a chunk size runs, and is planned as,
/// one chunk; a chunk size written is kept.
// CHECK-LABEL: func.func @sockets
// CHECK: comm.all_reduce sum %{{.*}} plan <algorithm = hierarchical, chunk_bytes = 1973792> : tensor<8388608xf32>
// CHECK: comm.reduce_scatter sum %{{.*}} plan <algorithm = hierarchical, chunk_bytes = 1398104> : tensor<33554432xf32>
// CHECK: comm.all_reduce sum %{{.*}} over {{\[\[}}0, 1, 2, 3]] : tensor<256xf32>
// CHECK: comm.all_reduce sum %{{.*}} plan <algorithm = hierarchical> : tensor<8388608xf32>
// CHECK: comm.all_reduce sum %{{.*}} plan <algorithm = hierarchical, chunk_bytes = 1048576> : tensor<8388608xf32>
func.func @sockets(%x: tensor<8388608xf32>, %y: tensor<33554432xf32>, %z: tensor<256xf32>) -> (tensor<8388608xf32>, tensor<8388608xf32>, tensor<256xf32>, tensor<8388608xf32>, tensor<8388608xf32>) {
  %0 = comm.all_reduce sum %x over [[0, 1, 2, 3]] : tensor<8388608xf32>
  %1 = comm.reduce_scatter sum %y over [[0, 1, 2, 3]] dim 0 : tensor<33554432xf32> -> tensor<8388608xf32>
  %2 = comm.all_reduce sum %z over [[0, 1, 2, 3]] : tensor<256xf32>
  %3 = comm.all_reduce sum %x over [[0, 1, 2, 3]] plan <algorithm = hierarchical> : tensor<8388608xf32>
  %4 = comm.all_reduce sum %x over [[0, 1, 2, 3]] plan <algorithm = hierarchical, chunk_bytes = 1048576> : tensor<8388608xf32>
  return %0, %1, %2, %3, %4 : tensor<8388608xf32>, tensor<8388608xf32>, tensor<256xf32>, tensor<8388608xf32>, tensor<8388608xf32>
}
}
