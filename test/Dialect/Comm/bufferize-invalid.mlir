// RUN: comm-opt %s -comm-bufferize -split-input-file -verify-diagnostics

func.func @scalar_iter_args(%x: tensor<4xf32>) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{comm-bufferize: a loop may carry statically shaped tensors only, not 'index'}}
  %r = scf.for %i = %c0 to %c1 step %c1 iter_args(%a = %c0) -> index {
    scf.yield %i : index
  }
  return %r : index
}

// -----

func.func @unknown_op(%x: tensor<4xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{comm-bufferize cannot bufferize 'tensor.extract_slice'; comm programs use comm ops, element-wise arith ops, tensor.empty, scf.for and calls}}
  %r = tensor.extract_slice %x[0] [2] [1] : tensor<4xf32> to tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

func.func @dynamic(%n: index) -> tensor<?xf32> {
  // expected-error @+1 {{comm-bufferize: result 0 has the dynamic shape 'tensor<?xf32>'}}
  %e = tensor.empty(%n) : tensor<?xf32>
  return %e : tensor<?xf32>
}

// -----

func.func @yield_scalar(%x: tensor<4xf32>) -> i32 {
  %t = comm.start {
    %c = arith.constant 1 : i32
    // expected-error @+1 {{comm-bufferize: a comm.start may only yield tensors, got 'i32'}}
    comm.yield %c : i32
  }
  %r = comm.wait %t : i32
  return %r : i32
}

// -----

func.func @tensor_constant(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{comm-bufferize: a tensor constant is supported only as the splat factor of an arith.mulf (the scaling of an average)}}
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %s = arith.addf %x, %c : tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// A comm.compute may have a dynamically shaped result (the simulator times
// it); comm-bufferize cannot allocate its buffer.
module attributes {comm.world_size = 4 : i64} {
func.func @dynamic_compute_result(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{comm-bufferize: result 0 has the dynamic shape 'tensor<?xf32>'; comm allocates every buffer with a static shape (give the op a static result type)}}
  %d = comm.compute "k"(%x) : (tensor<4xf32>) -> tensor<?xf32>
  %r = comm.compute "k2"(%d) : (tensor<?xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
}
