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

