// RUN: comm-opt %s -split-input-file -verify-diagnostics

// One case per user-facing diagnostic of the comm dialect.

//===----------------------------------------------------------------------===//
// Replica groups
//===----------------------------------------------------------------------===//

func.func @negative_rank(%x: tensor<4xf32>) {
  // expected-error @+1 {{rank must be non-negative, got -1}}
  %0 = comm.all_reduce sum %x over [[0, -1]] : tensor<4xf32>
  return
}

// -----

func.func @duplicate_rank_in_group(%x: tensor<4xf32>) {
  // expected-error @+1 {{rank 1 appears twice in replica group 0}}
  %0 = comm.all_reduce sum %x over [[0, 1, 1]] : tensor<4xf32>
  return
}

// -----

func.func @overlapping_groups(%x: tensor<4xf32>) {
  // expected-error @+1 {{rank 1 appears in replica groups 0 and 1; groups must be disjoint}}
  %0 = comm.all_reduce sum %x over [[0, 1], [1, 2]] : tensor<4xf32>
  return
}

// -----

func.func @empty_group(%x: tensor<4xf32>) {
  // expected-error @+1 {{replica group 0 is empty}}
  %0 = comm.all_reduce sum %x over [[]] : tensor<4xf32>
  return
}

// -----

func.func @unequal_groups(%x: tensor<4xf32>) {
  // expected-error @+1 {{replica group 1 has 3 ranks, but group 0 has 2; all groups must have the same size}}
  %0 = comm.all_reduce sum %x over [[0, 1], [2, 3, 4]] : tensor<4xf32>
  return
}

// -----

func.func @no_groups(%x: tensor<4xf32>) {
  // expected-error @+1 {{replica groups must contain at least one group}}
  %0 = comm.all_reduce sum %x over [] : tensor<4xf32>
  return
}

// -----

func.func @groups_attr_syntax() attributes {
  // expected-error @+1 {{rank 3 appears in replica groups 0 and 1; groups must be disjoint}}
  test.groups = #comm.groups<[[3], [3]]>} {
  return
}

// -----

module attributes {comm.world_size = 8 : i64} {
  func.func @rank_outside_world(%x: tensor<4xf32>) {
    // expected-error @+1 {{'comm.all_reduce' op replica group names rank 9, but the world has only 8 ranks (comm.world_size)}}
    %0 = comm.all_reduce sum %x over [[0, 9]] : tensor<4xf32>
    return
  }
}

// -----

// expected-error @+1 {{'comm.world_size' must be a positive integer, got 0 : i64}}
module attributes {comm.world_size = 0 : i64} {
}

// -----

// expected-error @+1 {{unknown comm attribute 'comm.topolgy' on builtin.module; expected 'comm.world_size', 'comm.topology', 'comm.cost_params', 'comm.backend', 'comm.target', 'comm.max_rel_error', 'comm.error_bound' or 'comm.space'}}
module attributes {comm.topolgy = "dgx-h100"} {
}

// -----

// expected-error @+1 {{'comm.topology' must be a non-empty string naming a preset or a file, got 8 : i64}}
module attributes {comm.topology = 8 : i64} {
}

// -----

// expected-error @+1 {{'comm.target' must be a non-empty string on a module, got 1 : i64}}
module attributes {comm.target = 1 : i64} {
}

// -----

module {
  // expected-error @+1 {{'comm.target' must be a non-empty string on a module, got "cpu-mpi"}}
  func.func @f() attributes {comm.target = "cpu-mpi"} {
    return
  }
}

// -----

// expected-error @+1 {{'comm.backend' must be "mpi", "nccl" or "verbs" on a module, got "gloo"}}
module attributes {comm.backend = "gloo"} {
}

// -----

// expected-error @+1 {{'comm.backend' must be "mpi", "nccl" or "verbs" on a module, got 1 : i64}}
module attributes {comm.backend = 1 : i64} {
}

// -----

module {
  // expected-error @+1 {{'comm.backend' must be "mpi", "nccl" or "verbs" on a module, got "mpi"}}
  func.func @f() attributes {comm.backend = "mpi"} {
    return
  }
}

//===----------------------------------------------------------------------===//
// Plans
//===----------------------------------------------------------------------===//

// -----

func.func @unknown_plan_field(%x: tensor<4xf32>) {
  // expected-error @+1 {{unknown plan field 'algo'; expected one of algorithm, protocol, channels, chunk_bytes, precision, route, stream}}
  %0 = comm.all_reduce sum %x over [[0, 1]] plan <algo = ring> : tensor<4xf32>
  return
}

// -----

func.func @duplicate_plan_field(%x: tensor<4xf32>) {
  // expected-error @+1 {{plan field 'channels' is given more than once}}
  %0 = comm.all_reduce sum %x over [[0, 1]] plan <channels = 2, channels = 4> : tensor<4xf32>
  return
}

// -----

func.func @unknown_algorithm(%x: tensor<4xf32>) {
  // expected-error @+1 {{unknown algorithm 'butterfly'; expected one of ring, tree, direct, halving_doubling, hierarchical, nvls}}
  %0 = comm.all_reduce sum %x over [[0, 1]] plan <algorithm = butterfly> : tensor<4xf32>
  return
}

// -----

func.func @unknown_protocol(%x: tensor<4xf32>) {
  // expected-error @+1 {{unknown protocol 'll64'; expected one of simple, ll, ll128}}
  %0 = comm.all_reduce sum %x over [[0, 1]] plan <protocol = ll64> : tensor<4xf32>
  return
}

// -----

func.func @unknown_route(%x: tensor<4xf32>) {
  // expected-error @+1 {{unknown route 'ethernet'; expected one of nvlink, pcie, host_staged, gdr}}
  %0 = comm.all_reduce sum %x over [[0, 1]] plan <route = ethernet> : tensor<4xf32>
  return
}

// -----

func.func @zero_channels(%x: tensor<4xf32>) {
  // expected-error @+1 {{plan 'channels' must be at least 1, got 0}}
  %0 = comm.all_reduce sum %x over [[0, 1]] plan <channels = 0> : tensor<4xf32>
  return
}

// -----

func.func @zero_chunk(%x: tensor<4xf32>) {
  // expected-error @+1 {{plan 'chunk_bytes' must be at least 1, got 0}}
  %0 = comm.all_reduce sum %x over [[0, 1]] plan <chunk_bytes = 0> : tensor<4xf32>
  return
}

// -----

// The runtime's limits (commrt.h): COMMRT_MAX_CHANNELS channels,
// COMMRT_MAX_CHUNKS_PER_CHANNEL chunks in each channel's slice.
func.func @too_many_channels(%x: tensor<4xf32>) {
  // expected-error @+1 {{plan 'channels' is 65; the runtime runs at most 64}}
  %0 = comm.all_reduce sum %x over [[0, 1]] plan <channels = 65> : tensor<4xf32>
  return
}

// -----

func.func @too_many_chunks(%x: tensor<5000xi32>) {
  // expected-error @+1 {{plan 'chunk_bytes' 1 cuts each channel's 20000 bytes into 5000 chunks; the runtime runs at most 4096 per channel (chunk_bytes >= 8, or more channels)}}
  %0 = comm.all_reduce sum %x over [[0, 1]] plan <algorithm = ring, chunk_bytes = 1> : tensor<5000xi32>
  return
}

// -----

// On the wire in bf16 (precision), a reduce_scatter's block of 8192 f32
// in 2-byte chunks of one element: 8192 chunks.
func.func @too_many_chunks_per_block(%x: tensor<16384xf32>) {
  // expected-error @+1 {{plan 'chunk_bytes' 2 cuts each channel's 16384 bytes into 8192 chunks; the runtime runs at most 4096 per channel (chunk_bytes >= 4, or more channels)}}
  %0 = comm.reduce_scatter sum %x over [[0, 1]] dim 0 plan <algorithm = ring, chunk_bytes = 2, precision = bf16> : tensor<16384xf32> -> tensor<8192xf32>
  return
}

// -----

func.func @negative_stream(%x: tensor<4xf32>) {
  // expected-error @+1 {{plan 'stream' must be non-negative, got -1}}
  %0 = comm.all_reduce sum %x over [[0, 1]] plan <stream = -1> : tensor<4xf32>
  return
}

// -----

func.func @integer_precision(%x: tensor<4xf32>) {
  // expected-error @+1 {{plan 'precision' must be a floating-point type, got 'i8'}}
  %0 = comm.all_reduce sum %x over [[0, 1]] plan <precision = i8> : tensor<4xf32>
  return
}

// -----

func.func @algorithm_not_for_op(%x: tensor<4xf32>) {
  // expected-error @+1 {{'comm.all_to_all' op cannot use algorithm 'nvls'; expected one of direct, hierarchical}}
  %0 = comm.all_to_all %x over [[0, 1]] split 0 concat 0 plan <algorithm = nvls> : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @rooted_algorithm(%x: tensor<4xf32>) {
  // expected-error @+1 {{'comm.broadcast' op cannot use algorithm 'nvls'; expected one of ring, tree, direct, halving_doubling, hierarchical}}
  %0 = comm.broadcast %x over [[0, 1]] root 0 plan <algorithm = nvls> : tensor<4xf32>
  return
}

// -----

func.func @algorithm_on_copy(%x: tensor<4xf32>) {
  // expected-error @+1 {{'comm.copy' op takes no algorithm, but its plan names 'ring'}}
  %0 = comm.copy %x hbm to host plan <algorithm = ring> : tensor<4xf32>
  return
}

// -----

func.func @precision_on_integers(%x: tensor<4xi32>) {
  // expected-error @+1 {{'comm.all_reduce' op plan precision 'bf16' needs floating-point data, but the op moves elements of type 'i32'}}
  %0 = comm.all_reduce sum %x over [[0, 1]] plan <precision = bf16> : tensor<4xi32>
  return
}

// -----

func.func @precision_on_barrier() {
  // expected-error @+1 {{'comm.barrier' op plan precision 'bf16' needs floating-point data, but the op moves no data}}
  comm.barrier over [[0, 1]] plan <precision = bf16>
  return
}

// -----

func.func @wider_precision(%x: tensor<4xf32>) {
  // expected-error @+1 {{'comm.all_reduce' op plan precision 'f64' is wider than the element type 'f32'}}
  %0 = comm.all_reduce sum %x over [[0, 1]] plan <precision = f64> : tensor<4xf32>
  return
}

//===----------------------------------------------------------------------===//
// Reductions and shapes
//===----------------------------------------------------------------------===//

// -----

func.func @bitwise_on_float(%x: tensor<4xf32>) {
  // expected-error @+1 {{'comm.all_reduce' op reduction 'and' is not defined for element type 'f32'; bitwise reductions need integers}}
  %0 = comm.all_reduce and %x over [[0, 1]] : tensor<4xf32>
  return
}

// -----

func.func @avg_on_integer(%x: tensor<4xi32>) {
  // expected-error @+1 {{'comm.reduce' op reduction 'avg' is not defined for element type 'i32'; 'avg' needs floating point}}
  %0 = comm.reduce avg %x over [[0, 1]] root 0 : tensor<4xi32>
  return
}

// -----

func.func @reduce_scatter_bitwise_float(%x: tensor<4xf16>) {
  // expected-error @+1 {{'comm.reduce_scatter' op reduction 'xor' is not defined for element type 'f16'}}
  %0 = comm.reduce_scatter xor %x over [[0, 1]] dim 0 : tensor<4xf16> -> tensor<2xf16>
  return
}

// -----

func.func @dynamic_shape(%x: tensor<?xf32>) {
  // expected-error @+1 {{'comm.all_reduce' op operand #0 must be statically shaped tensor of signless integer or floating-point values, but got 'tensor<?xf32>'}}
  %0 = comm.all_reduce sum %x over [[0, 1]] : tensor<?xf32>
  return
}

// -----

func.func @reduce_scatter_indivisible(%x: tensor<10xf32>) {
  // expected-error @+1 {{'comm.reduce_scatter' op dimension 0 of size 10 is not divisible by the group size 4}}
  %0 = comm.reduce_scatter sum %x over [[0, 1, 2, 3]] dim 0 : tensor<10xf32> -> tensor<2xf32>
  return
}

// -----

func.func @reduce_scatter_wrong_result(%x: tensor<8xf32>) {
  // expected-error @+1 {{'comm.reduce_scatter' op expected result type 'tensor<2xf32>' for groups of 4, got 'tensor<4xf32>'}}
  %0 = comm.reduce_scatter sum %x over [[0, 1, 2, 3]] dim 0 : tensor<8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @reduce_scatter_dim_out_of_range(%x: tensor<8xf32>) {
  // expected-error @+1 {{'comm.reduce_scatter' op dim 1 is out of range for 'tensor<8xf32>' of rank 1}}
  %0 = comm.reduce_scatter sum %x over [[0, 1]] dim 1 : tensor<8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @all_gather_wrong_result(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'comm.all_gather' op expected result type 'tensor<2x6xf32>' for groups of 2, got 'tensor<4x3xf32>'}}
  %0 = comm.all_gather %x over [[0, 1]] dim 1 : tensor<2x3xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @all_gather_rank_mismatch(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'comm.all_gather' op result rank 1 differs from input rank 2}}
  %0 = comm.all_gather %x over [[0, 1]] dim 0 : tensor<2x3xf32> -> tensor<12xf32>
  return
}

// -----

func.func @all_gather_element_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'comm.all_gather' op result element type 'f16' differs from input element type 'f32'}}
  %0 = comm.all_gather %x over [[0, 1]] dim 0 : tensor<4xf32> -> tensor<8xf16>
  return
}

// -----

func.func @all_to_all_indivisible(%x: tensor<6x4xf32>) {
  // expected-error @+1 {{'comm.all_to_all' op split dimension 0 of size 6 is not divisible by the group size 4}}
  %0 = comm.all_to_all %x over [[0, 1, 2, 3]] split 0 concat 1 : tensor<6x4xf32> -> tensor<1x16xf32>
  return
}

// -----

func.func @all_to_all_wrong_result(%x: tensor<8x4xf32>) {
  // expected-error @+1 {{'comm.all_to_all' op expected result type 'tensor<2x16xf32>' (split 0, concat 1, groups of 4), got 'tensor<8x4xf32>'}}
  %0 = comm.all_to_all %x over [[0, 1, 2, 3]] split 0 concat 1 : tensor<8x4xf32> -> tensor<8x4xf32>
  return
}

// -----

func.func @all_to_all_concat_out_of_range(%x: tensor<8x4xf32>) {
  // expected-error @+1 {{'comm.all_to_all' op concat dimension 2 is out of range for 'tensor<8x4xf32>' of rank 2}}
  %0 = comm.all_to_all %x over [[0, 1]] split 0 concat 2 : tensor<8x4xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @all_to_all_split_out_of_range(%x: tensor<8x4xf32>) {
  // expected-error @+1 {{'comm.all_to_all' op split dimension 3 is out of range for 'tensor<8x4xf32>' of rank 2}}
  %0 = comm.all_to_all %x over [[0, 1]] split 3 concat 0 : tensor<8x4xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @broadcast_root(%x: tensor<4xf32>) {
  // expected-error @+1 {{'comm.broadcast' op root 4 is not a position in groups of 4 ranks}}
  %0 = comm.broadcast %x over [[0, 1, 2, 3]] root 4 : tensor<4xf32>
  return
}

// -----

func.func @broadcast_type_mismatch(%x: tensor<4xf32>) {
  // expected-error @+1 {{'comm.broadcast' op failed to verify that all of {input, result} have same type}}
  %0 = "comm.broadcast"(%x) <{groups = #comm.groups<[[0, 1]]>, root = 0 : i64}> : (tensor<4xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @negative_root(%x: tensor<4xf32>) {
  // expected-error @+1 {{'comm.reduce' op attribute 'root' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = comm.reduce sum %x over [[0, 1]] root -1 : tensor<4xf32>
  return
}

//===----------------------------------------------------------------------===//
// Source/target pairs
//===----------------------------------------------------------------------===//

// -----

func.func @pair_of_three(%x: tensor<4xf32>) {
  // expected-error @+1 {{expected a [source, target] pair, got 3 ranks}}
  %0 = comm.permute %x pairs [[0, 1, 2]] : tensor<4xf32>
  return
}

// -----

func.func @no_pairs(%x: tensor<4xf32>) {
  // expected-error @+1 {{'comm.permute' op expects at least one [source, target] pair}}
  %0 = comm.permute %x pairs [] : tensor<4xf32>
  return
}

// -----

func.func @odd_pairs(%x: tensor<4xf32>) {
  // expected-error @+1 {{'comm.permute' op expects [source, target] pairs, got an odd number of ranks (3)}}
  %0 = "comm.permute"(%x) <{pairs = array<i64: 0, 1, 2>}> : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @negative_pair(%x: tensor<4xf32>) {
  // expected-error @+1 {{'comm.send' op pair [0, -2] names a negative rank}}
  comm.send %x to [[0, -2]] tag 0 : tensor<4xf32>
  return
}

// -----

func.func @duplicate_source(%x: tensor<4xf32>) {
  // expected-error @+1 {{'comm.permute' op rank 0 is the source of more than one pair}}
  %0 = comm.permute %x pairs [[0, 1], [0, 2]] : tensor<4xf32>
  return
}

// -----

func.func @duplicate_target() -> tensor<4xf32> {
  // expected-error @+1 {{'comm.recv' op rank 2 is the target of more than one pair}}
  %0 = comm.recv from [[0, 2], [1, 2]] tag 0 : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

module attributes {comm.world_size = 4 : i64} {
  func.func @pair_outside_world(%x: tensor<4xf32>) {
    // expected-error @+1 {{'comm.send' op pair names rank 4, but the world has only 4 ranks (comm.world_size)}}
    comm.send %x to [[3, 4]] tag 0 : tensor<4xf32>
    return
  }
}

// -----

func.func @negative_tag(%x: tensor<4xf32>) {
  // expected-error @+1 {{'comm.send' op attribute 'tag' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  comm.send %x to [[0, 1]] tag -3 : tensor<4xf32>
  return
}

// -----

func.func @recv_algorithm() -> tensor<4xf32> {
  // expected-error @+1 {{'comm.recv' op cannot use algorithm 'ring'; expected one of direct}}
  %0 = comm.recv from [[0, 1]] tag 0 plan <algorithm = ring> : tensor<4xf32>
  return %0 : tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

// -----

func.func @pack_scalar_buffer(%a: tensor<1xf32>) {
  // expected-error @+1 {{'comm.pack' op expects a buffer with at least one dimension, got 'tensor<f32>'}}
  %0 = comm.pack %a offsets [0] : tensor<1xf32> -> tensor<f32>
  return
}

// -----

func.func @pack_nothing() {
  // expected-error @+1 {{'comm.pack' op expects at least one input}}
  %0 = "comm.pack"() <{offsets = array<i64>}> : () -> tensor<4xf32>
  return
}

// -----

func.func @pack_offsets_count(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'comm.pack' op expects one offset per input (2), got 1}}
  %0 = comm.pack %a, %b offsets [0] : tensor<4xf32>, tensor<4xf32> -> tensor<8xf32>
  return
}

// -----

func.func @pack_mixed_types(%a: tensor<4xf32>, %b: tensor<4xi32>) {
  // expected-error @+1 {{'comm.pack' op input #1 has element type 'i32' but the buffer holds 'f32'; only floating-point types convert}}
  %0 = comm.pack %a, %b offsets [0, 4] : tensor<4xf32>, tensor<4xi32> -> tensor<8xf32>
  return
}

// -----

func.func @pack_negative_offset(%a: tensor<4xf32>) {
  // expected-error @+1 {{'comm.pack' op offset of input #0 is negative (-1)}}
  %0 = comm.pack %a offsets [-1] : tensor<4xf32> -> tensor<8xf32>
  return
}

// -----

func.func @pack_overflow(%a: tensor<4xf32>, %b: tensor<2x2xf32>) {
  // expected-error @+1 {{'comm.pack' op input #1 (4 elements at offset 6) does not fit in the buffer of 8 elements}}
  %0 = comm.pack %a, %b offsets [0, 6] : tensor<4xf32>, tensor<2x2xf32> -> tensor<8xf32>
  return
}

// -----

func.func @pack_overlap(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'comm.pack' op inputs #0 and #1 overlap in the buffer}}
  %0 = comm.pack %a, %b offsets [0, 3] : tensor<4xf32>, tensor<4xf32> -> tensor<8xf32>
  return
}

// -----

func.func @unpack_overlap(%buf: tensor<8xf32>) {
  // expected-error @+1 {{'comm.unpack' op results #0 and #1 overlap in the buffer}}
  %0:2 = comm.unpack %buf offsets [4, 2] : tensor<8xf32> -> tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @unpack_too_large(%buf: tensor<8xf32>) {
  // expected-error @+1 {{'comm.unpack' op result #0 (16 elements at offset 0) does not fit in the buffer of 8 elements}}
  %0 = comm.unpack %buf offsets [0] : tensor<8xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @pack_blocks_buffer(%a: tensor<4xf32>) {
  // expected-error @+1 {{'comm.pack' op buffer of 6 elements does not split into 4 equal blocks}}
  %0 = comm.pack %a offsets [0] blocks 4 : tensor<4xf32> -> tensor<6xf32>
  return
}

// -----

func.func @pack_blocks_input(%a: tensor<6xf32>) {
  // expected-error @+1 {{'comm.pack' op input #0 of 6 elements does not split into 4 equal parts}}
  %0 = comm.pack %a offsets [0] blocks 4 : tensor<6xf32> -> tensor<8xf32>
  return
}

// -----

func.func @unpack_blocks_overflow(%buf: tensor<16xf32>) {
  // expected-error @+1 {{'comm.unpack' op result #1 (2 elements at offset 3) does not fit in the block of 4 elements}}
  %0:2 = comm.unpack %buf offsets [0, 3] blocks 4 : tensor<16xf32> -> tensor<8xf32>, tensor<8xf32>
  return
}

// -----

func.func @pack_blocks_zero(%a: tensor<4xf32>) {
  // expected-error @+1 {{'comm.pack' op attribute 'blocks' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = comm.pack %a offsets [0] blocks 0 : tensor<4xf32> -> tensor<4xf32>
  return
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

// -----

func.func @compute_no_name() {
  // expected-error @+1 {{'comm.compute' op expects a non-empty name}}
  comm.compute ""() : () -> ()
  return
}

// -----

func.func @compute_negative_flops() {
  // expected-error @+1 {{'comm.compute' op flops must be non-negative and finite, got -1}}
  comm.compute "gemm"() flops -1.0 : () -> ()
  return
}

// -----

func.func @compute_negative_bytes() {
  // expected-error @+1 {{'comm.compute' op bytes must be non-negative, got -5}}
  comm.compute "gemm"() bytes -5 : () -> ()
  return
}

// -----

func.func @compute_negative_time() {
  // expected-error @+1 {{'comm.compute' op time_us must be non-negative and finite, got -2}}
  comm.compute "gemm"() time_us -2.0 : () -> ()
  return
}

// -----

// NaN and infinity passed the verifier and then failed in the C++ compiler
// ('NAN' was not declared).
func.func @compute_nan_time() {
  // expected-error @+1 {{'comm.compute' op time_us must be non-negative and finite, got nan}}
  comm.compute "gemm"() time_us 0x7FF8000000000000 : () -> ()
  return
}

// -----

func.func @compute_infinite_flops() {
  // expected-error @+1 {{'comm.compute' op flops must be non-negative and finite, got INF}}
  comm.compute "gemm"() flops 0x7FF0000000000000 : () -> ()
  return
}

//===----------------------------------------------------------------------===//
// Async
//===----------------------------------------------------------------------===//

// -----

func.func @wait_on_tensor(%x: tensor<4xf32>) {
  // expected-note @-1 {{prior use here}}
  // expected-error @+1 {{use of value '%x' expects different type than prior uses: '!comm.token' vs 'tensor<4xf32>'}}
  comm.wait %x
  return
}

// -----

func.func @wait_on_tensor_generic(%x: tensor<4xf32>) {
  // expected-error @+1 {{'comm.wait' op operand #0 must be handle of a transfer in flight, but got 'tensor<4xf32>'}}
  "comm.wait"(%x) : (tensor<4xf32>) -> ()
  return
}

// -----

func.func @wait_wrong_results(%x: tensor<4xf32>) {
  %t = comm.start {
    %0 = comm.all_reduce sum %x over [[0, 1]] : tensor<4xf32>
    comm.yield %0 : tensor<4xf32>
  }
  // expected-error @+1 {{'comm.wait' op returns 1 value(s) of type(s) ('tensor<8xf32>') but its comm.start yields ('tensor<4xf32>')}}
  %r = comm.wait %t : tensor<8xf32>
  return
}

// -----

func.func @nested_start(%x: tensor<4xf32>) {
  %t = comm.start {
    // expected-error @+1 {{'comm.start' op may not be nested inside another comm.start}}
    %t2 = comm.start {
      comm.yield
    }
    comm.yield
  }
  comm.wait %t
  return
}

// -----

// Only a wait completes a start's transfers: the lowering cannot emit a
// start nobody waits for, and comm-sim would time a program that cannot run.
func.func @never_waited(%x: tensor<4xf32>) {
  // expected-error @+1 {{'comm.start' op has a token that is never waited for; a comm.start is waited for exactly once, or its transfers never complete}}
  %t = comm.start {
    %0 = comm.all_reduce sum %x over [[0, 1]] : tensor<4xf32>
    comm.yield %0 : tensor<4xf32>
  }
  return
}

// -----

func.func @yield_outside_start(%x: tensor<4xf32>) {
  // expected-error @+1 {{'comm.yield' op expects parent op 'comm.start'}}
  comm.yield %x : tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// Sizes
//===----------------------------------------------------------------------===//

// -----

func.func @huge_tensor(%x: tensor<4611686018427387904x4xf32>) {
  // expected-error @+1 {{'comm.all_reduce' op moves 'tensor<4611686018427387904x4xf32>', whose size in bytes overflows 64 bits}}
  %0 = comm.all_reduce sum %x over [[0, 1]] : tensor<4611686018427387904x4xf32>
  return
}

// -----

func.func @huge_pack(%x: tensor<4611686018427387904x4xf32>) {
  // expected-error @+1 {{'comm.pack' op moves 'tensor<4611686018427387904x4xf32>', whose size in bytes overflows 64 bits}}
  %0 = comm.pack %x offsets [0] : tensor<4611686018427387904x4xf32> -> tensor<8xf32>
  return
}

// -----

func.func @gather_overflow(%x: tensor<4611686018427387904xi8>) {
  // expected-error @+1 {{'comm.all_gather' op dimension 0 of size 4611686018427387904 times 4 ranks overflows 64 bits}}
  %0 = comm.all_gather %x over [[0, 1, 2, 3]] dim 0 : tensor<4611686018427387904xi8> -> tensor<4xi8>
  return
}

// -----

func.func @all_to_all_overflow(%x: tensor<4x4611686018427387904xi8>) {
  // expected-error @+1 {{'comm.all_to_all' op concat dimension 1 times 4 ranks overflows 64 bits}}
  %0 = comm.all_to_all %x over [[0, 1, 2, 3]] split 0 concat 1 : tensor<4x4611686018427387904xi8> -> tensor<1x4xi8>
  return
}

// -----

func.func @pack_offset_overflow(%a: tensor<4xf32>) {
  // expected-error @+1 {{'comm.pack' op input #0 (4 elements at offset 9223372036854775806) does not fit in the buffer of 8 elements}}
  %0 = comm.pack %a offsets [9223372036854775806] : tensor<4xf32> -> tensor<8xf32>
  return
}

// -----

func.func @space_not_a_space() {
  // expected-error @+1 {{'comm.space' must be a memory space (hbm, host, pinned_host), got "host"}}
  %0 = memref.alloc() {comm.space = "host"} : memref<4xf32>
  return
}

// -----

func.func @space_on_non_allocation() {
  // expected-error @+1 {{'comm.space' belongs on an op that allocates one buffer, or on a comm.recv or comm.permute (the memory its result arrives in)}}
  "func.call"() {callee = @space_on_non_allocation, comm.space = #comm<memory_space host>} : () -> ()
  return
}

// -----

// expected-error @+1 {{'comm.max_rel_error' must be a float in (0, 1), got 1.500000e+00 : f64}}
module attributes {comm.max_rel_error = 1.5 : f64} {
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'comm.error_bound' must be a float in [0, 1), got "small"}}
  %0 = comm.all_reduce sum %x over [[0, 1]] {comm.error_bound = "small"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{'comm.error_bound' belongs on an op that moves data}}
func.func @g() attributes {comm.error_bound = 1.0e-02 : f64} {
  return
}

// -----

// A token is waited for once (a second wait reached a crash in the
// lowering before the verifier rejected it).
func.func @wait_twice(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %t = comm.start {
    %0 = comm.all_reduce sum %x over [[0, 1]] : tensor<8xf32>
    comm.yield %0 : tensor<8xf32>
  }
  // expected-note @+1 {{the other comm.wait}}
  %a = comm.wait %t : tensor<8xf32>
  // expected-error @+1 {{'comm.wait' op waits for a token that is already waited for; a comm.start is waited for exactly once}}
  %b = comm.wait %t : tensor<8xf32>
  return %a, %b : tensor<8xf32>, tensor<8xf32>
}

// -----

// A wait in a loop its start is outside of would wait on every iteration
// (the compiled program freed the transfer at the first and crashed at the
// second).
func.func @wait_in_loop(%x: tensor<8xf32>) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  // expected-note @+1 {{the comm.start}}
  %t = comm.start {
    %0 = comm.all_reduce sum %x over [[0, 1]] : tensor<8xf32>
    comm.yield %0 : tensor<8xf32>
  }
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %x) -> tensor<8xf32> {
    %c = arith.constant true
    %a = scf.if %c -> tensor<8xf32> {
      // expected-error @+1 {{'comm.wait' op waits inside a loop ('scf.for') for a comm.start outside it: it would wait on every iteration, or on none; wait before the loop, or start the transfer inside it}}
      %w = comm.wait %t : tensor<8xf32>
      scf.yield %w : tensor<8xf32>
    } else {
      scf.yield %acc : tensor<8xf32>
    }
    scf.yield %a : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// -----

// A token stays in the function that started it, used only by its wait.
func.func @token_returned(%x: tensor<8xf32>) -> !comm.token {
  // expected-error @+1 {{'comm.start' op has a token used by 'func.return'; a token is used only by the comm.wait that completes it, in the function that started it}}
  %t = comm.start {
    %0 = comm.all_reduce sum %x over [[0, 1]] : tensor<8xf32>
    comm.yield
  }
  // expected-note @+1 {{used here}}
  return %t : !comm.token
}

// -----

func.func private @takes_token(!comm.token)

func.func @token_passed(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'comm.start' op has a token used by 'func.call'}}
  %t = comm.start {
    %0 = comm.all_reduce sum %x over [[0, 1]] : tensor<8xf32>
    comm.yield %0 : tensor<8xf32>
  }
  // expected-note @+1 {{used here}}
  func.call @takes_token(%t) : (!comm.token) -> ()
  %w = comm.wait %t : tensor<8xf32>
  return %w : tensor<8xf32>
}

// -----

func.func @rotate_indivisible(%x: tensor<10xf32>) -> tensor<10xf32> {
  // expected-error @+1 {{'comm.rotate' op cannot cut dimension 0 of 'tensor<10xf32>' into 4 equal chunks (one per rank of a group): expected a multiple of 4}}
  %0 = comm.rotate %x over [[0, 1, 2, 3]] shift 0 : tensor<10xf32>
  return %0 : tensor<10xf32>
}

// -----

func.func @rotate_scalar(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'comm.rotate' op rotates chunks along dimension 0, but 'tensor<f32>' has no dimensions}}
  %0 = comm.rotate %x over [[0, 1]] shift 1 : tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @rotate_groups(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{rank 1 appears in replica groups 0 and 1; groups must be disjoint}}
  %0 = comm.rotate %x over [[0, 1], [1, 2]] shift 0 : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @compute_part_range(%x: tensor<4xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'comm.compute' op part must be [i, k] with 0 <= i < k}}
  %0 = comm.compute "f"(%x) time_us 1.0 part [2, 2] : (tensor<4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @compute_rotated_without_part(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'comm.compute' op 'rotated over' needs a part [i, k]}}
  %0 = comm.compute "f"(%x) time_us 1.0 rotated over [[0, 1]] : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @compute_rotated_group_size(%x: tensor<4xf32>) -> tensor<1xf32> {
  // expected-error @+1 {{'comm.compute' op 'rotated over' groups of 2 ranks, but the op is cut into 4 parts: a rotated part needs one per rank}}
  %0 = comm.compute "f"(%x) time_us 1.0 part [1, 4] rotated over [[0, 1], [2, 3]] : (tensor<4xf32>) -> tensor<1xf32>
  return %0 : tensor<1xf32>
}

// -----

func.func @compute_part_scalar(%x: tensor<4xf32>) -> tensor<f32> {
  // expected-error @+1 {{'comm.compute' op a part is a slice along dimension 0, but 'tensor<f32>' has no dimensions}}
  %0 = comm.compute "f"(%x) time_us 1.0 part [0, 2] : (tensor<4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}
