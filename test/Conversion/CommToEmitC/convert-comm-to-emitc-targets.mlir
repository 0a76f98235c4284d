// The target a program is lowered for: on cuda-verbs (point to point only)
// a collective is a compile-time error; nvls needs cuda-nccl; a plan names
// only what the target's backend realizes (the one algorithm table).
// RUN: comm-opt %s --convert-comm-to-emitc="target=cuda-verbs" -split-input-file -verify-diagnostics
// RUN: not comm-opt %s --convert-comm-to-emitc="target=cuda" -split-input-file 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: comm-opt %s --pass-pipeline="builtin.module(convert-comm-to-emitc{target=cuda-verbs})" --dump-pass-pipeline -split-input-file -verify-diagnostics 2>&1 | FileCheck %s --check-prefix=PIPELINE
// UNKNOWN: for the --target option: 'cuda' is not a value of --target (expected cpu-mpi, cuda-nccl or cuda-verbs)
// UNKNOWN-NOT: <unknown>
// RUN: not comm-opt %s --pass-pipeline="builtin.module(convert-comm-to-emitc{target=cuda})" -split-input-file 2>&1 | FileCheck %s --check-prefix=UNKNOWN-PIPELINE
// UNKNOWN-PIPELINE: for the --target option: 'cuda' is not a value of --target (expected cpu-mpi, cuda-nccl or cuda-verbs)
// UNKNOWN-PIPELINE-NEXT: comm-opt: error: failed to add `convert-comm-to-emitc` with options `target=cuda`
// UNKNOWN-PIPELINE-NOT: <unknown>
// PIPELINE: convert-comm-to-emitc{target=cuda-verbs}

func.func @all_reduce(%s: memref<4xf32>, %d: memref<4xf32>) {
  // expected-error @+1 {{comm.all_reduce cannot run on the verbs backend, which carries point to point only (send, recv, permute); compile for cuda-nccl, or write the collective as sends and receives}}
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
  // expected-error @+1 {{comm.all_reduce cannot run on the verbs backend}}
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
