// RUN: comm-opt %s --convert-comm-to-emitc -split-input-file -verify-diagnostics

func.func @not_bufferized(%x: tensor<4xf32>) {
  // expected-error @+1 {{convert-comm-to-emitc expects buffers; run comm-bufferize first}}
  %0 = comm.all_reduce sum %x over [[0, 1]] : tensor<4xf32>
  return
}

// -----

// expected-error @+1 {{convert-comm-to-emitc expects functions without results; run buffer-results-to-out-params first}}
func.func @results(%x: memref<4xf32>) -> memref<4xf32> {
  return %x : memref<4xf32>
}

// -----

// expected-error @+1 {{argument of type 'memref<4xi16>' cannot be lowered: buffers need a static shape, the identity layout and an element type commrt knows (f32, f64, f16, bf16, i8, i32, i64)}}
func.func @element(%x: memref<4xi16>) {
  return
}

// -----

func.func @alloc(%x: memref<4xf32>) {
  // expected-error @+1 {{buffer of type 'memref<4xi1>' cannot be lowered}}
  %0 = memref.alloc() : memref<4xi1>
  return
}

// -----

func.func @never_waited(%x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{the token of this comm.start is never waited for; its transfers would never complete}}
  %t = comm.start {
    comm.buffer.all_reduce %x, %y {groups = #comm.groups<[[0, 1]]>, kind = #comm<reduction sum>} : memref<4xf32>, memref<4xf32>
    comm.yield
  }
  return
}


// -----

func.func @gather_algorithm(%s: memref<4xf32>, %d: memref<16xf32>) {
  // expected-error @+1 {{plan algorithm 'nvls' of comm.all_gather is not realized on the mpi backend (expected ring, hierarchical, direct, halving_doubling)}}
  comm.buffer.all_gather %s, %d {dim = 0 : i64, groups = #comm.groups<[[0, 1, 2, 3]]>, plan = #comm.plan<algorithm = nvls>} : memref<4xf32>, memref<16xf32>
  return
}

// -----

func.func @nvls_on_cpu(%s: memref<4xf32>, %d: memref<4xf32>) {
  // expected-error @+1 {{plan algorithm 'nvls' of comm.all_reduce is not realized on the mpi backend (expected ring, tree, hierarchical, direct, halving_doubling); NVLink SHARP needs the nccl backend (the cuda-nccl target)}}
  comm.buffer.all_reduce %s, %d {groups = #comm.groups<[[0, 1, 2, 3]]>, kind = #comm<reduction sum>, plan = #comm.plan<algorithm = nvls>} : memref<4xf32>, memref<4xf32>
  return
}

// -----

func.func @too_many_channels(%s: memref<4xf32>, %d: memref<4xf32>) {
  // expected-error @+1 {{plan channels = 65 exceeds the 64 channels the runtime's schedules run}}
  comm.buffer.all_reduce %s, %d {groups = #comm.groups<[[0, 1, 2, 3]]>, kind = #comm<reduction sum>, plan = #comm.plan<algorithm = ring, channels = 65>} : memref<4xf32>, memref<4xf32>
  return
}
