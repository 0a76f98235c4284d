// RUN: comm-opt %s --convert-comm-to-emitc -split-input-file | FileCheck %s
// RUN: comm-opt %s --convert-comm-to-emitc="target=cuda-nccl" -split-input-file | FileCheck %s --check-prefix=CUDA

// The pass on its own, on bufferized input (comm-bufferize, then
// buffer-results-to-out-params): buffer ops become helper calls whose
// arguments carry the plan, allocations go through the runtime, the public
// function gets its C entry point and the module records its target. The
// pipeline from tensors is tested in test/Pipelines/comm-lower-to-emitc.mlir.

// CHECK-LABEL: module attributes {comm.target = "cpu-mpi"}
// CHECK: emitc.include "commrt_gen.h"
// CHECK-LABEL: emitc.func @comm_impl_ops(
// CHECK-SAME: %[[A:.*]]: !emitc.ptr<f32>, %[[B:.*]]: !emitc.ptr<f32>, %[[I:.*]]: !emitc.ptr<i32>, %[[X:.*]]: !emitc.ptr<f32>, %[[Y:.*]]: !emitc.ptr<f32>, %[[M:.*]]: !emitc.ptr<i32>, %[[H:.*]]: !emitc.ptr<f32>) attributes {specifiers = ["static"]}
// CHECK: %[[P:.*]] = call_opaque "commgen::alloc"() {args = [128, #emitc.opaque<"COMMRT_F32">, #emitc.opaque<"COMMRT_HOST">,
// CHECK: call_opaque "commgen::pack"(%[[P]],
// CHECK: %[[R:.*]] = call_opaque "commgen::alloc"()
// CHECK: call_opaque "commgen::all_reduce"(%[[P]], %[[R]]) {args = [#emitc.opaque<"nullptr">, #emitc.opaque<"COMMGEN_RANKS(2, 0, 1, 2, 3)">, 0 : index, 1 : index, 128, #emitc.opaque<"COMMRT_F32">, #emitc.opaque<"COMMRT_BF16">, #emitc.opaque<"COMMRT_SUM">, #emitc.opaque<"commgen::Plan{COMMRT_ALGORITHM_RING, 2, 256}">, #emitc.opaque<"COMMRT_HOST">, 3,
// CHECK: call_opaque "commgen::unpack"(%[[R]],
// CHECK: call_opaque "commgen::reduce"(%[[I]], %[[M]]) {args = [#emitc.opaque<"nullptr">, #emitc.opaque<"COMMGEN_RANKS(4, 0, 1, 2, 3)">, 0 : index, 1 : index, 32, 2, #emitc.opaque<"COMMRT_I32">, #emitc.opaque<"COMMRT_I32">, #emitc.opaque<"COMMRT_MAX">, #emitc.opaque<"commgen::Plan{COMMRT_ALGORITHM_TREE, 0, 0}">, #emitc.opaque<"COMMRT_HOST">, -1,
// CHECK: call_opaque "commgen::copy"(%[[H]], %[[X]]) {args = [#emitc.opaque<"nullptr">, 0 : index, #emitc.opaque<"COMMRT_HOST">, 1 : index, #emitc.opaque<"COMMRT_HOST">, 64, #emitc.opaque<"COMMRT_F32">, -1,
// CHECK: call_opaque "commgen::dealloc"(%[[P]])
// CHECK: call_opaque "commgen::dealloc"(%[[R]])
// CHECK: emitc.verbatim "{{.*}}extern \22C\22 int32_t ops(commrt_context *ctx, float *arg0, float *arg1, int32_t *arg2, float *arg3, float *arg4, int32_t *arg5, float *arg6) {
// CHECK: emitc.verbatim "{{.*}}comm_last_error(void)

// CUDA-LABEL: module attributes {comm.target = "cuda-nccl"}
// CUDA: emitc.verbatim "// The kernels this program uses.\0A#define COMMGEN_CUDA_PACK_KERNELS(X) X(COMMRT_F32, COMMRT_F32)\0A#define COMMGEN_CUDA_UNPACK_KERNELS(X) X(COMMRT_F32, COMMRT_F32)\0A#define COMMGEN_CUDA_COMBINE_KERNELS(X)"
// CUDA: emitc.include "commrt_gen_cuda.cuh"
// CUDA: call_opaque "commgen::alloc"() {args = [128, #emitc.opaque<"COMMRT_F32">, #emitc.opaque<"COMMRT_HBM">,
// CUDA: call_opaque "commgen::cuda::pack"
// CUDA: call_opaque "commgen::cuda::unpack"
// CUDA: call_opaque "commgen::copy"(%{{.*}}, %{{.*}}) {args = [#emitc.opaque<"nullptr">, 0 : index, #emitc.opaque<"COMMRT_PINNED_HOST">, 1 : index, #emitc.opaque<"COMMRT_HBM">,
func.func @ops(%arg0: memref<64xf32>, %arg1: memref<8x8xf32>, %arg2: memref<32xi32>, %arg3: memref<64xf32>, %arg4: memref<8x8xf32>, %arg5: memref<32xi32>, %arg6: memref<64xf32>) {
  %alloc = memref.alloc() : memref<128xf32>
  comm.buffer.pack %arg0, %arg1 into %alloc {offsets = array<i64: 0, 64>} : memref<64xf32>, memref<8x8xf32> into memref<128xf32>
  %alloc_0 = memref.alloc() : memref<128xf32>
  comm.buffer.all_reduce %alloc, %alloc_0 {groups = #comm.groups<[[0, 1], [2, 3]]>, kind = #comm<reduction sum>, plan = #comm.plan<algorithm = ring, channels = 2, chunk_bytes = 256, precision = bf16, stream = 3>} : memref<128xf32>, memref<128xf32>
  comm.buffer.unpack %alloc_0 into %arg3, %arg4 {offsets = array<i64: 0, 64>} : memref<128xf32> into memref<64xf32>, memref<8x8xf32>
  comm.buffer.reduce %arg2, %arg5 {groups = #comm.groups<[[0, 1, 2, 3]]>, kind = #comm<reduction max>, plan = #comm.plan<algorithm = tree>, root = 2 : i64} : memref<32xi32>, memref<32xi32>
  comm.buffer.copy %arg3, %arg6 {dst = #comm<memory_space pinned_host>, src = #comm<memory_space hbm>} : memref<64xf32>, memref<64xf32>
  memref.dealloc %alloc : memref<128xf32>
  memref.dealloc %alloc_0 : memref<128xf32>
  return
}

// -----

// A comm.start body moves in front of it: its ops take the start's handle,
// the wait completes it; a barrier takes no buffer.
// CHECK-LABEL: emitc.func @comm_impl_async(
// CHECK: %[[HANDLE:.*]] = call_opaque "commgen::start"() : () -> !emitc.ptr<!emitc.opaque<"commgen::Async">>
// CHECK: call_opaque "commgen::all_gather"(%[[HANDLE]], %{{.*}}, %{{.*}}) {args = [0 : index, #emitc.opaque<"COMMGEN_RANKS(4, 0, 1, 2, 3)">, 1 : index, 2 : index, 4, 1,
// CHECK: call_opaque "commgen::barrier"() {args = [#emitc.opaque<"nullptr">, #emitc.opaque<"COMMGEN_RANKS(4, 0, 1, 2, 3)">,
// CHECK: call_opaque "commgen::wait"(%[[HANDLE]])
func.func @async(%arg0: memref<4xf32>, %arg1: memref<16xf32>) {
  %t = comm.start {
    comm.buffer.all_gather %arg0, %arg1 {dim = 0 : i64, groups = #comm.groups<[[0, 1, 2, 3]]>} : memref<4xf32>, memref<16xf32>
    comm.yield
  }
  comm.barrier over [[0, 1, 2, 3]]
  comm.wait %t
  return
}
