// RUN: comm-opt %s --comm-lower-to-emitc -split-input-file | FileCheck %s
// RUN: comm-opt %s --comm-lower-to-emitc="target=cuda-nccl" -split-input-file | FileCheck %s --check-prefix=CUDA

// A fused step: results become out-parameters written in place, temporary
// buffers go through the runtime allocator, plans become arguments.
// CHECK: emitc.include "commrt_gen.h"
// CHECK-LABEL: emitc.func @comm_impl_step(
// CHECK-SAME: %[[A:.*]]: !emitc.ptr<f32>, %[[B:.*]]: !emitc.ptr<f32>, %[[X:.*]]: !emitc.ptr<f32>, %[[Y:.*]]: !emitc.ptr<f32>) attributes {specifiers = ["static"]}
// CHECK: %[[P:.*]] = call_opaque "commgen::alloc"() {args = [128, #emitc.opaque<"COMMRT_F32">, #emitc.opaque<"COMMRT_HOST">, #emitc.opaque<"\22{{.*}}comm-lower-to-emitc.mlir:{{[0-9]+}}:{{[0-9]+}}\22">], template_args = [f32]}
// CHECK: %[[PA:.*]] = call_opaque "commgen::piece"(%[[A]]) {args = [0 : index, 64, 0, #emitc.opaque<"COMMRT_F32">]}
// CHECK: call_opaque "commgen::pack"(%[[P]], %[[PA]], %{{.*}}) {args = [#emitc.opaque<"nullptr">, 0 : index, #emitc.opaque<"COMMRT_F32">, 128,
// CHECK: call_opaque "commgen::all_reduce"(%[[P]], %[[R:.*]]) {args = [#emitc.opaque<"nullptr">, #emitc.opaque<"COMMGEN_RANKS(2, 0, 1, 2, 3)">, 0 : index, 1 : index, 128, #emitc.opaque<"COMMRT_F32">, #emitc.opaque<"COMMRT_BF16">, #emitc.opaque<"COMMRT_SUM">, #emitc.opaque<"commgen::Plan{COMMRT_ALGORITHM_DEFAULT, 0, 0}">, #emitc.opaque<"COMMRT_HOST">, 3,
// CHECK: call_opaque "commgen::piece"(%[[X]])
// CHECK: call_opaque "commgen::unpack"(%[[R]],
// CHECK: call_opaque "commgen::dealloc"(%[[P]])
// CHECK: emitc.verbatim "{{.*}}extern \22C\22 int32_t step(commrt_context *ctx, float *arg0, float *arg1, float *arg2, float *arg3)
// CUDA: emitc.include "commrt_gen_cuda.cuh"
// CUDA: call_opaque "commgen::cuda::pack"
// CUDA: #emitc.opaque<"COMMRT_HBM">
// CUDA: call_opaque "commgen::cuda::unpack"
func.func @step(%a: tensor<64xf32>, %b: tensor<8x8xf32>) -> (tensor<64xf32>, tensor<8x8xf32>) {
  %p = comm.pack %a, %b offsets [0, 64] : tensor<64xf32>, tensor<8x8xf32> -> tensor<128xf32>
  %r = comm.all_reduce sum %p over [[0, 1], [2, 3]] plan <precision = bf16, stream = 3> : tensor<128xf32>
  %x, %y = comm.unpack %r offsets [0, 64] : tensor<128xf32> -> tensor<64xf32>, tensor<8x8xf32>
  return %x, %y : tensor<64xf32>, tensor<8x8xf32>
}

// -----

// The async form: one handle per comm.start; the ops of the body take it;
// the wait completes it. A compute stand-in gets a weak user hook.
// CHECK: emitc.verbatim "extern \22C\22 __attribute__((weak)) void comm_compute_layer_fwd(const comm_compute_args *);"
// CHECK-LABEL: emitc.func @comm_impl_overlap(
// CHECK: %[[H:.*]] = call_opaque "commgen::start"() : () -> !emitc.ptr<!emitc.opaque<"commgen::Async">>
// CHECK: call_opaque "commgen::all_gather"(%[[H]], %{{.*}}, %{{.*}}) {args = [0 : index, #emitc.opaque<"COMMGEN_RANKS(4, 0, 1, 2, 3)">, 1 : index, 2 : index, 16, 4,
// CHECK: call_opaque "commgen::compute"(%{{.*}}, %{{.*}}) {args = [#emitc.opaque<"nullptr">, #emitc.opaque<"\22layer.fwd\22">, #emitc.opaque<"comm_compute_layer_fwd">, 7.500000e+00, 0, 1, 0, 1,
// CHECK: call_opaque "commgen::wait"(%[[H]])
func.func @overlap(%x: tensor<4x4xf32>, %w: tensor<8xf32>) -> (tensor<4x16xf32>, tensor<8xf32>) {
  %t = comm.start {
    %g = comm.all_gather %x over [[0, 1, 2, 3]] dim 1 : tensor<4x4xf32> -> tensor<4x16xf32>
    comm.yield %g : tensor<4x16xf32>
  }
  %y = comm.compute "layer.fwd"(%w) time_us 7.5 : (tensor<8xf32>) -> tensor<8xf32>
  %g = comm.wait %t : tensor<4x16xf32>
  return %g, %y : tensor<4x16xf32>, tensor<8xf32>
}

// -----

// Point to point, layouts, loops: scf.for and index arithmetic go through
// the upstream conversions.
// CHECK-LABEL: emitc.func @comm_impl_p2p(
// CHECK: for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} : !emitc.size_t
// A send, then a receive (the allocation of its buffer between them): one
// run, started as one commrt group.
// CHECK: call_opaque "commgen::p2p_begin"() {args = []}
// CHECK-NEXT: call_opaque "commgen::send"(%{{.*}}) {args = [#emitc.opaque<"nullptr">, #emitc.opaque<"COMMGEN_PAIRS(0, 1, 1, 0)">, 7, 0 : index, 32, #emitc.opaque<"COMMRT_I32">, #emitc.opaque<"COMMRT_I32">,
// CHECK: call_opaque "commgen::recv"
// CHECK-NEXT: call_opaque "commgen::p2p_end"() {args = [#emitc.opaque<"\22{{.*}}comm-lower-to-emitc.mlir:72:8\22">]}
// CHECK-NOT: p2p_begin
// CHECK: call_opaque "commgen::combine"({{.*}}) {args = [#emitc.opaque<"nullptr">, 0 : index, 1 : index, 2 : index, 32, #emitc.opaque<"COMMRT_I32">, #emitc.opaque<"COMMRT_MAX">,
// CHECK: call_opaque "commgen::reduce_scatter"({{.*}}) {args = [#emitc.opaque<"nullptr">, #emitc.opaque<"COMMGEN_RANKS(2, 0, 1)">, 0 : index, 1 : index, 16, 4,
// CHECK: call_opaque "commgen::all_to_all"({{.*}}) {args = [#emitc.opaque<"nullptr">, #emitc.opaque<"COMMGEN_RANKS(2, 0, 1)">, 0 : index, 1 : index, 32, 4, 1,
func.func @p2p(%x: tensor<32xi32>, %m: tensor<4x8xi32>) -> (tensor<32xi32>, tensor<4x4xi32>, tensor<8x4xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.for %i = %c0 to %c2 step %c1 {
    comm.barrier over [[0, 1]]
  }
  comm.send %x to [[0, 1], [1, 0]] tag 7 : tensor<32xi32>
  %r = comm.recv from [[0, 1], [1, 0]] tag 7 : tensor<32xi32>
  %s = arith.maxsi %x, %r : tensor<32xi32>
  %rs = comm.reduce_scatter sum %m over [[0, 1]] dim 1 : tensor<4x8xi32> -> tensor<4x4xi32>
  %a = comm.all_to_all %m over [[0, 1]] split 1 concat 0 : tensor<4x8xi32> -> tensor<8x4xi32>
  return %s, %rs, %a : tensor<32xi32>, tensor<4x4xi32>, tensor<8x4xi32>
}

// -----

// A blocking send, then a comm.start that receives (comm-pipeline's rotated
// exchange): one run, so the send and the started receive go into one
// group (NCCL runs a lone ncclSend until the peer's receive runs: a ring
// that sends, then receives on one stream outside a group, hangs). The
// compute after the start is outside the run.
// CHECK-LABEL: emitc.func @comm_impl_rotated
// CHECK: call_opaque "commgen::p2p_begin"() {args = []}
// CHECK-NEXT: call_opaque "commgen::send"(%{{.*}}) {args = [#emitc.opaque<"nullptr">, #emitc.opaque<"COMMGEN_PAIRS(0, 1, 1, 0)">, 3,
// CHECK: %[[H:.*]] = call_opaque "commgen::start"()
// CHECK: call_opaque "commgen::recv"(%[[H]], %{{.*}}) {args = [0 : index, #emitc.opaque<"COMMGEN_PAIRS(0, 1, 1, 0)">, 3,
// CHECK-NEXT: call_opaque "commgen::p2p_end"()
// CHECK: call_opaque "commgen::compute"
// CHECK: call_opaque "commgen::wait"(%[[H]])
// A started send and receive alone: a run too.
// CHECK-LABEL: emitc.func @comm_impl_started_pair
// CHECK: %[[S:.*]] = call_opaque "commgen::start"()
// CHECK-NEXT: call_opaque "commgen::p2p_begin"() {args = []}
// CHECK-NEXT: call_opaque "commgen::send"(%[[S]],
// CHECK: call_opaque "commgen::recv"(%[[S]],
// CHECK-NEXT: call_opaque "commgen::p2p_end"()
// One started receive after a compute: no run.
// CHECK-LABEL: emitc.func @comm_impl_lone
// CHECK-NOT: p2p_begin
// CHECK: return
func.func @rotated(%x: tensor<32xf32>, %w: tensor<8xf32>) -> (tensor<32xf32>, tensor<32xf32>) {
  comm.send %x to [[0, 1], [1, 0]] tag 3 : tensor<32xf32>
  %t = comm.start {
    %r = comm.recv from [[0, 1], [1, 0]] tag 3 : tensor<32xf32>
    comm.yield %r : tensor<32xf32>
  }
  %c = comm.compute "part0"(%w) time_us 10.0 : (tensor<8xf32>) -> tensor<32xf32>
  %r = comm.wait %t : tensor<32xf32>
  return %r, %c : tensor<32xf32>, tensor<32xf32>
}
func.func @started_pair(%x: tensor<32xf32>) -> tensor<32xf32> {
  %t = comm.start {
    comm.send %x to [[0, 1], [1, 0]] tag 4 : tensor<32xf32>
    %r = comm.recv from [[0, 1], [1, 0]] tag 4 : tensor<32xf32>
    comm.yield %r : tensor<32xf32>
  }
  %r = comm.wait %t : tensor<32xf32>
  return %r : tensor<32xf32>
}
func.func @lone(%w: tensor<8xf32>) -> tensor<32xf32> {
  %c = comm.compute "part0"(%w) time_us 10.0 : (tensor<8xf32>) -> tensor<32xf32>
  %t = comm.start {
    %r = comm.recv from [[0, 1], [1, 0]] tag 5 : tensor<32xf32>
    comm.yield %r : tensor<32xf32>
  }
  %r = comm.wait %t : tensor<32xf32>
  return %r : tensor<32xf32>
}
