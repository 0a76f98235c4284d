// RUN: comm-opt %s -split-input-file -verify-diagnostics

func.func @target_size(%a: memref<1024xf32>, %b: memref<512xf32>) {
  // expected-error @+1 {{target of 512 elements does not match a source of 1024 elements (expected 1024)}}
  comm.buffer.all_reduce %a, %b {groups = #comm.groups<[[0, 1]]>, kind = #comm<reduction sum>} : memref<1024xf32>, memref<512xf32>
  return
}

// -----

func.func @element_mismatch(%a: memref<16xf32>, %b: memref<16xf16>) {
  // expected-error @+1 {{source holds 'f32' but target holds 'f16'}}
  comm.buffer.broadcast %a, %b {groups = #comm.groups<[[0, 1]]>, root = 0 : i64} : memref<16xf32>, memref<16xf16>
  return
}

// -----

func.func @bitwise_float(%a: memref<16xf32>, %b: memref<16xf32>) {
  // expected-error @+1 {{reduction 'and' is not defined for element type 'f32'; bitwise reductions need integers}}
  comm.buffer.all_reduce %a, %b {groups = #comm.groups<[[0, 1]]>, kind = #comm<reduction and>} : memref<16xf32>, memref<16xf32>
  return
}

// -----

func.func @scatter_dim(%a: memref<4x6xf32>, %b: memref<4x3xf32>) {
  // expected-error @+1 {{dim 2 is out of range for 'memref<4x6xf32>' of rank 2}}
  comm.buffer.reduce_scatter %a, %b {dim = 2 : i64, groups = #comm.groups<[[0, 1]]>, kind = #comm<reduction sum>} : memref<4x6xf32>, memref<4x3xf32>
  return
}

// -----

func.func @scatter_shape(%a: memref<4x6xf32>, %b: memref<2x6xf32>) {
  // expected-error @+1 {{expected result type 'memref<4x3xf32>' for groups of 2, got 'memref<2x6xf32>'}}
  comm.buffer.reduce_scatter %a, %b {dim = 1 : i64, groups = #comm.groups<[[0, 1]]>, kind = #comm<reduction sum>} : memref<4x6xf32>, memref<2x6xf32>
  return
}

// -----

func.func @gather_shape(%a: memref<4x3xf32>, %b: memref<8x3xf32>) {
  // expected-error @+1 {{expected result type 'memref<4x6xf32>' for groups of 2, got 'memref<8x3xf32>'}}
  comm.buffer.all_gather %a, %b {dim = 1 : i64, groups = #comm.groups<[[0, 1]]>} : memref<4x3xf32>, memref<8x3xf32>
  return
}

// -----

func.func @a2a_split(%a: memref<3x4xf32>, %b: memref<3x4xf32>) {
  // expected-error @+1 {{dimension 0 of size 3 does not split into groups of 2}}
  comm.buffer.all_to_all %a, %b {concat_dim = 1 : i64, groups = #comm.groups<[[0, 1]]>, split_dim = 0 : i64} : memref<3x4xf32>, memref<3x4xf32>
  return
}

// -----

func.func @a2a_shape(%a: memref<4x4xf32>, %b: memref<4x4xf32>) {
  // expected-error @+1 {{expected target type 'memref<2x8xf32>' for groups of 2, got 'memref<4x4xf32>'}}
  comm.buffer.all_to_all %a, %b {concat_dim = 1 : i64, groups = #comm.groups<[[0, 1]]>, split_dim = 0 : i64} : memref<4x4xf32>, memref<4x4xf32>
  return
}

// -----

func.func @a2a_concat(%a: memref<4x4xf32>, %b: memref<4x4xf32>) {
  // expected-error @+1 {{concat_dim 5 is out of range for 'memref<4x4xf32>' of rank 2}}
  comm.buffer.all_to_all %a, %b {concat_dim = 5 : i64, groups = #comm.groups<[[0, 1]]>, split_dim = 0 : i64} : memref<4x4xf32>, memref<4x4xf32>
  return
}

// -----

func.func @plan_precision(%a: memref<16xi32>, %b: memref<16xi32>) {
  // expected-error @+1 {{plan precision 'bf16' needs floating-point data, but the op moves elements of type 'i32'}}
  comm.buffer.all_reduce %a, %b {groups = #comm.groups<[[0, 1]]>, kind = #comm<reduction sum>, plan = #comm.plan<precision = bf16>} : memref<16xi32>, memref<16xi32>
  return
}

// -----

func.func @plan_algorithm(%a: memref<16xf32>, %b: memref<16xf32>) {
  // expected-error @+1 {{'comm.buffer.copy' op takes no algorithm, but its plan names 'ring'}}
  comm.buffer.copy %a, %b {dst = #comm<memory_space host>, src = #comm<memory_space hbm>, plan = #comm.plan<algorithm = ring>} : memref<16xf32>, memref<16xf32>
  return
}

// -----

func.func @root(%a: memref<16xf32>, %b: memref<16xf32>) {
  // expected-error @+1 {{root}}
  comm.buffer.reduce %a, %b {groups = #comm.groups<[[0, 1]]>, kind = #comm<reduction sum>, root = 2 : i64} : memref<16xf32>, memref<16xf32>
  return
}

// -----

func.func @send_tag(%a: memref<16xf32>) {
  // expected-error @+1 {{tag must be non-negative, got -1}}
  comm.buffer.send %a {pairs = array<i64: 0, 1>, tag = -1 : i64} : memref<16xf32>
  return
}

// -----

func.func @recv_tag(%a: memref<16xf32>) {
  // expected-error @+1 {{tag must be non-negative, got -2}}
  comm.buffer.recv %a {pairs = array<i64: 0, 1>, tag = -2 : i64} : memref<16xf32>
  return
}

// -----

func.func @pairs(%a: memref<16xf32>, %b: memref<16xf32>) {
  // expected-error @+1 {{pairs}}
  comm.buffer.permute %a, %b {pairs = array<i64: 0, 1, 2>} : memref<16xf32>, memref<16xf32>
  return
}

// -----

func.func @pack_overflow(%m: memref<64xf32>, %h: memref<32xf32>) {
  // expected-error @+1 {{input}}
  comm.buffer.pack %m into %h {offsets = array<i64: 0>} : memref<64xf32> into memref<32xf32>
  return
}

// -----

func.func @unpack_overflow(%h: memref<32xf32>, %m: memref<64xf32>) {
  // expected-error @+1 {{output}}
  comm.buffer.unpack %h into %m {offsets = array<i64: 0>} : memref<32xf32> into memref<64xf32>
  return
}

// -----

func.func @compute_name(%m: memref<64xf32>) {
  // expected-error @+1 {{expects a non-empty name}}
  comm.buffer.compute ""(%m) outs(%m) : (memref<64xf32>) outs(memref<64xf32>)
  return
}

// -----

func.func @combine_kind(%a: memref<16xf32>) {
  // expected-error @+1 {{reduction 'xor' is not defined for element type 'f32'; bitwise reductions need integers}}
  comm.buffer.combine xor %a, %a into %a : memref<16xf32>
  return
}

// -----

func.func @dynamic(%a: memref<?xf32>, %b: memref<?xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped memref}}
  comm.buffer.all_reduce %a, %b {groups = #comm.groups<[[0, 1]]>, kind = #comm<reduction sum>} : memref<?xf32>, memref<?xf32>
  return
}

// -----

func.func @rotate_in_place(%a: memref<8xf32>) {
  // expected-error @+1 {{'comm.buffer.rotate' op needs a target other than its source}}
  comm.buffer.rotate %a, %a over [[0, 1, 2, 3]] shift 0 : memref<8xf32>
  return
}

// -----

func.func @rotate_indivisible(%a: memref<6xf32>, %b: memref<6xf32>) {
  // expected-error @+1 {{'comm.buffer.rotate' op cannot cut dimension 0 of 'memref<6xf32>' into 4 equal chunks}}
  comm.buffer.rotate %a, %b over [[0, 1, 2, 3]] shift 0 : memref<6xf32>
  return
}

// -----

func.func @scale_integers(%a: memref<8xi32>, %b: memref<8xi32>) {
  // expected-error @+1 {{'comm.buffer.scale' op scales floating-point buffers only, not 'memref<8xi32>'}}
  comm.buffer.scale %a by 5.000000e-01 into %b : memref<8xi32>
  return
}

// -----

// The runtime's plan limits hold for the bufferized ops too (the lowering
// relies on the verifier for them).
func.func @too_many_channels(%s: memref<4xf32>, %d: memref<4xf32>) {
  // expected-error @+1 {{plan 'channels' is 65; the runtime runs at most 64}}
  comm.buffer.all_reduce %s, %d {groups = #comm.groups<[[0, 1, 2, 3]]>, kind = #comm<reduction sum>, plan = #comm.plan<algorithm = ring, channels = 65>} : memref<4xf32>, memref<4xf32>
  return
}

// -----

// A block of 6000 i32 per rank (the all_gather's source), in 1-byte
// chunks of one element.
func.func @too_many_chunks(%s: memref<6000xi32>, %d: memref<24000xi32>) {
  // expected-error @+1 {{plan 'chunk_bytes' 1 cuts each channel's 24000 bytes into 6000 chunks; the runtime runs at most 4096 per channel (chunk_bytes >= 8, or more channels)}}
  comm.buffer.all_gather %s, %d {groups = #comm.groups<[[0, 1, 2, 3]]>, dim = 0 : i64, plan = #comm.plan<algorithm = ring, chunk_bytes = 1>} : memref<6000xi32>, memref<24000xi32>
  return
}

