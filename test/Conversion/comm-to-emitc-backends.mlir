// The backend a program is lowered for: on verbs (point to point only) a
// collective is a compile-time error; nvls needs nccl; a backend that cannot
// carry the target's buffers is rejected.
// RUN: comm-opt %s --convert-comm-to-emitc="target=cuda backend=verbs" -split-input-file -verify-diagnostics
// RUN: comm-opt %s --convert-comm-to-emitc="target=cpu backend=verbs" -split-input-file -verify-diagnostics
// RUN: not comm-opt %s --convert-comm-to-emitc="target=cuda backend=mpi" -split-input-file 2>&1 | FileCheck %s --check-prefix=MPI
// RUN: not comm-opt %s --convert-comm-to-emitc="target=cpu backend=nccl" -split-input-file 2>&1 | FileCheck %s --check-prefix=NCCL
// RUN: not comm-opt %s --convert-comm-to-emitc="backend=shm" -split-input-file 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// MPI: error: convert-comm-to-emitc: the mpi backend carries host buffers, not the device buffers of the cuda target
// NCCL: error: convert-comm-to-emitc: the nccl backend carries device buffers, not the host buffers of the cpu target
// UNKNOWN: error: convert-comm-to-emitc: unknown backend 'shm' (expected mpi, nccl or verbs)

func.func @all_reduce(%s: memref<4xf32>, %d: memref<4xf32>) {
  // expected-error @+1 {{comm.all_reduce cannot run on the verbs backend, which carries point to point only (send, recv, permute); compile for}}
  comm.buffer.all_reduce %s, %d {groups = #comm.groups<[[0, 1, 2, 3]]>, kind = #comm<reduction sum>} : memref<4xf32>, memref<4xf32>
  return
}

// -----

func.func @all_gather(%s: memref<4xf32>, %d: memref<16xf32>) {
  // expected-error @+1 {{comm.all_gather cannot run on the verbs backend}}
  comm.buffer.all_gather %s, %d {dim = 0 : i64, groups = #comm.groups<[[0, 1, 2, 3]]>} : memref<4xf32>, memref<16xf32>
  return
}

// -----

func.func @barrier() {
  // expected-error @+1 {{comm.barrier cannot run on the verbs backend}}
  comm.barrier over [[0, 1, 2, 3]]
  return
}

// -----

func.func @planned(%s: memref<4xf32>, %d: memref<4xf32>) {
  // expected-error @+1 {{plan algorithm 'nvls' of comm.all_reduce is not realized on the verbs backend (expected ring, tree, direct, halving_doubling, hierarchical); NVLink SHARP needs the nccl backend (the cuda target)}}
  comm.buffer.all_reduce %s, %d {groups = #comm.groups<[[0, 1, 2, 3]]>, kind = #comm<reduction sum>, plan = #comm.plan<algorithm = nvls>} : memref<4xf32>, memref<4xf32>
  return
}

// -----

// Point to point lowers on verbs.
func.func @ring(%s: memref<4xf32>, %d: memref<4xf32>) {
  comm.buffer.send %s {pairs = array<i64: 0, 1, 1, 2, 2, 3, 3, 0>, tag = 0 : i64} : memref<4xf32>
  comm.buffer.recv %d {pairs = array<i64: 0, 1, 1, 2, 2, 3, 3, 0>, tag = 0 : i64} : memref<4xf32>
  comm.buffer.permute %s, %d {pairs = array<i64: 0, 1, 1, 0>} : memref<4xf32>, memref<4xf32>
  return
}
