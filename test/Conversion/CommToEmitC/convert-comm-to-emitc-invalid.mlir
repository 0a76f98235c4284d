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

// A bool mask all-reduced (pmax of a JAX comparison): named at the
// transfer, not at the buffer's alloc, which the compute made.
func.func @bool_transfer(%x: memref<4xf32>) {
  %m = memref.alloc() : memref<4xi1>
  %r = memref.alloc() : memref<4xi1>
  // expected-error @+1 {{moves 'i1' elements, which commrt has no type for (f32, f64, f16, bf16, i8, i32, i64); convert them before the transfer (a JAX bool: x.astype(jnp.int8))}}
  comm.buffer.all_reduce %m, %r {groups = #comm.groups<[[0, 1]]>, kind = #comm<reduction max>} : memref<4xi1>, memref<4xi1>
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

// The simulator times an f8 transfer; the runtime carries none.
func.func @f8_precision(%s: memref<4xf32>, %d: memref<4xf32>) {
  // expected-error @+1 {{plan precision 'f8E4M3FN' of comm.all_reduce is not one the runtime carries data in (f32, f64, f16, bf16); the simulator times it, but it cannot be compiled}}
  comm.buffer.all_reduce %s, %d {groups = #comm.groups<[[0, 1, 2, 3]]>, kind = #comm<reduction sum>, plan = #comm.plan<precision = f8E4M3FN>} : memref<4xf32>, memref<4xf32>
  return
}

// -----

// f64 data in a 16-bit type would round twice, through f32: the runtime
// refuses it, so it is refused here (it compiled, then aborted).
func.func @f64_in_bf16(%s: memref<4xf64>, %d: memref<4xf64>) {
  // expected-error @+1 {{plan precision 'bf16' of comm.all_reduce would carry f64 data in a 16-bit type, which the runtime converts through f32 (rounding twice) and refuses; use precision = f32}}
  comm.buffer.all_reduce %s, %d {groups = #comm.groups<[[0, 1, 2, 3]]>, kind = #comm<reduction sum>, plan = #comm.plan<precision = bf16>} : memref<4xf64>, memref<4xf64>
  return
}

// -----

func.func @f64_packed_in_f16(%a: memref<4xf32>, %b: memref<4xf64>, %buf: memref<8xf16>) {
  // expected-error @+1 {{comm.pack of f64 data into a 'f16' buffer: the runtime converts f64 to a 16-bit type only through f32 (rounding twice) and refuses it; pack into f32}}
  comm.buffer.pack %a, %b into %buf {offsets = array<i64: 0, 4>} : memref<4xf32>, memref<4xf64> into memref<8xf16>
  return
}

// -----

// A call to a function the module only declares would link against nothing.
func.func private @kernel(memref<4xf32>)
func.func @calls_declared(%x: memref<4xf32>) {
  // expected-error @+1 {{calls @kernel, which the module declares but does not define; a compiled program runs the functions of its module only (write the work as comm.compute, whose kernel a program links as comm_compute_<name>)}}
  func.call @kernel(%x) : (memref<4xf32>) -> ()
  return
}

// -----

// Every function becomes a C function; a public one a C entry point under
// its own name.
// expected-error @+1 {{function @layer.0 cannot be compiled: its name is not a C identifier (letters, digits and '_', not starting with a digit); rename it}}
func.func @"layer.0"(%x: memref<4xf32>) {
  return
}

// -----

// expected-error @+1 {{function @2nd cannot be compiled: its name is not a C identifier}}
func.func private @"2nd"(%x: memref<4xf32>) {
  return
}

// -----

// expected-error @+1 {{function @main cannot be compiled: its name is a C or C++ keyword, `main`, or a C library or CUDA function or macro, which its C entry point would collide with; rename it}}
func.func @main(%x: memref<4xf32>) {
  return
}

// -----

// expected-error @+1 {{function @exit cannot be compiled: its name is a C or C++ keyword}}
func.func @exit(%x: memref<4xf32>) {
  return
}

// -----

// expected-error @+1 {{function @int cannot be compiled: its name is a C or C++ keyword}}
func.func @int(%x: memref<4xf32>) {
  return
}

// -----

// expected-error @+1 {{function @commrt_step cannot be compiled: its name starts with 'commrt', which the runtime, the generated code, MPI, NCCL, CUDA, the verbs library or the C library use; rename it}}
func.func @commrt_step(%x: memref<4xf32>) {
  return
}

// -----

// Named like MPI's function, the entry point would take its place in the
// link: the harness hung in MPI_Comm_rank.
// expected-error @+1 {{function @MPI_Comm_rank cannot be compiled: its name starts with 'MPI_', which the runtime, the generated code, MPI, NCCL, CUDA, the verbs library or the C library use; rename it}}
func.func @MPI_Comm_rank(%x: memref<4xf32>) {
  return
}

// -----

// expected-error @+1 {{function @int32_t cannot be compiled: its name ends with '_t', which POSIX reserves for type names (int32_t, size_t); rename it}}
func.func @int32_t(%x: memref<4xf32>) {
  return
}

// -----

// expected-error @+1 {{function @std cannot be compiled: its name is a namespace or type the generated code uses; rename it}}
func.func @std(%x: memref<4xf32>) {
  return
}

// -----

// expected-error @+1 {{function @cuMemAlloc cannot be compiled: its name starts with 'cu' and a capital, like CUDA's driver API (cuInit); rename it}}
func.func @cuMemAlloc(%x: memref<4xf32>) {
  return
}

// -----

// Private functions have no entry point: any C identifier will do.
func.func private @MPI_helper(%x: memref<4xf32>) {
  return
}

// -----

// expected-error @+1 {{function @_Step cannot be compiled: its name is reserved in C and C++ (a '__' anywhere, or a leading '_' and a capital); rename it}}
func.func @_Step(%x: memref<4xf32>) {
  return
}

// -----

// Names the C compiler or nvcc failed on: macros and objects of the C
// headers, CUDA's built-ins and vector types, commrt's enumerators.
// expected-error @+1 {{function @NULL cannot be compiled: its name is a C or C++ keyword, `main`, or a C library or CUDA function}}
func.func @NULL(%x: memref<4xf32>) {
  return
}

// -----

// expected-error @+1 {{function @float4 cannot be compiled: its name is a CUDA vector type}}
func.func @float4(%x: memref<4xf32>) {
  return
}

// -----

// expected-error @+1 {{function @blockIdx cannot be compiled}}
func.func @blockIdx(%x: memref<4xf32>) {
  return
}

// -----

// expected-error @+1 {{function @COMMRT_F32 cannot be compiled: its name starts with 'COMMRT_'}}
func.func @COMMRT_F32(%x: memref<4xf32>) {
  return
}

// -----

// expected-error @+1 {{function @step__v2 cannot be compiled: its name is reserved in C and C++ (a '__' anywhere}}
func.func @step__v2(%x: memref<4xf32>) {
  return
}

// -----

// A private function's C name is prefixed: `main` is fine there.
func.func private @main(%x: memref<4xf32>) {
  return
}
func.func @step(%x: memref<4xf32>) {
  func.call @main(%x) : (memref<4xf32>) -> ()
  return
}

// -----

// Two computes whose kernels would be one symbol, comm_compute_bwd_x: the
// program's kernel for one ran for both.
func.func @two_kernels(%x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-note @+1 {{the other compute}}
  comm.buffer.compute "bwd.x"(%x) outs(%y) : (memref<4xf32>) outs(memref<4xf32>)
  // expected-error @+1 {{compute "bwd_x" calls comm_compute_bwd_x, as "bwd.x" does: a program's kernels are named comm_compute_<name> with every character but letters and digits made '_', so the two would run one kernel; rename one}}
  comm.buffer.compute "bwd_x"(%y) outs(%x) : (memref<4xf32>) outs(memref<4xf32>)
  return
}

// -----

// negative: one name twice is one kernel, as meant.
func.func @one_kernel(%x: memref<4xf32>, %y: memref<4xf32>) {
  comm.buffer.compute "bwd.x"(%x) outs(%y) : (memref<4xf32>) outs(memref<4xf32>)
  comm.buffer.compute "bwd.x"(%y) outs(%x) : (memref<4xf32>) outs(memref<4xf32>)
  return
}

// -----

// expected-error @+1 {{function @_start cannot be compiled: its name starts with '_', which C reserves for names at file scope (_start is where a program starts)}}
func.func @_start(%x: memref<4xf32>) {
  return
}

// -----

// expected-error @+1 {{function @linux cannot be compiled: its name is a C or C++ keyword, `main`, or a C library or CUDA function}}
func.func @linux(%x: memref<4xf32>) {
  return
}

// -----

// expected-error @+1 {{function @y1 cannot be compiled: its name is a C or C++ keyword}}
func.func @y1(%x: memref<4xf32>) {
  return
}

// -----

// negative: a private function's leading '_' is its comm_impl_ name's.
func.func private @_helper(%x: memref<4xf32>) {
  return
}
func.func @uses_helper(%x: memref<4xf32>) {
  func.call @_helper(%x) : (memref<4xf32>) -> ()
  return
}
