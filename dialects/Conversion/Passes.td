//===- Passes.td - comm conversion passes ------------------*- tablegen -*-===//

#ifndef COMM_CONVERSION_PASSES_TD
#define COMM_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertCommToEmitC : Pass<"convert-comm-to-emitc", "::mlir::ModuleOp"> {
  let summary = "lower bufferized comm programs to EmitC calls of commrt";
  let description = [{
    Expects the output of `comm-bufferize` and `buffer-results-to-out-params`
    (the `comm-lower-to-emitc` pipeline runs all three): functions on
    memrefs without results. The result is EmitC that MLIR's C++ translator
    prints (`comm-translate --comm-to-cpp`):

    - every `comm.buffer.*` op becomes a call of the helpers in
      `runtime/include/commrt_gen.h`, which call the `commrt_*` C ABI, check
      its status and report failures with the op's source location;
    - `comm.start` becomes `commgen::start()`, whose ops are started without
      waiting (an op of the body that reads what an earlier op of the body
      receives waits for it), and `comm.wait` completes them;
    - `memref.alloc`/`memref.dealloc` go through the runtime's allocator (host
      memory on the cpu target, HBM on cuda unless comm-bufferize recorded
      another space for the target of a `comm.copy`), pooled for reuse;
    - `comm.buffer.compute` calls `comm_compute_<name>` when the program
      links one (a weak symbol) and a deterministic stand-in otherwise;
    - func, scf and arith go through MLIR's own EmitC conversions;
    - every public function gets an `extern "C"` entry point of the same name
      whose first parameter is the `commrt_context *`, followed by its
      buffers as pointers; it returns a `commrt_status` and
      `comm_last_error()` says what failed.

    `#comm.plan` fields it honors: `precision` (the data travels converted
    to that type, is reduced in it and converted back), `stream` (the CUDA
    stream the transfer is ordered on), and `algorithm`, `channels` and
    `chunk_bytes` (the runtime runs the collective as that schedule over its
    point-to-point transfers, `commrt_collective_planned`). `protocol` and
    `route` are not realized (NCCL has no per-call protocol; routes are for a
    planning pass rewriting copies).

    The `target` option names what is generated and which runtime backend
    it calls: `cpu-mpi` (C++, host buffers), `cuda-nccl` (CUDA C++, device
    buffers, generated kernels) or `cuda-verbs` (CUDA C++, point to point
    by RDMA). What the backend cannot run is an error at compile time
    rather than at run time: a collective on `cuda-verbs`, or a plan that
    names an algorithm the backend does not realize (the one algorithm
    table, `comm/Dialect/Comm/IR/CommAlgorithms.h`; `nvls` needs
    `cuda-nccl`). The module records the target in `comm.target`.

    ```mlir
    comm.buffer.all_reduce %a, %b {groups = #comm.groups<[[0, 1, 2, 3]]>,
        kind = #comm<reduction sum>} : memref<1024xf32>, memref<1024xf32>
    // becomes
    emitc.call_opaque "commgen::all_reduce"(%a, %b) {args = [...]}
    ```
  }];
  let options = [
    Option<"target", "target", "::mlir::comm::Target",
           /*default=*/"::mlir::comm::Target::cpu_mpi",
           "what is generated and which runtime backend it calls",
           "::mlir::comm::TargetValues()">,
  ];
  let dependentDialects = ["::mlir::comm::CommDialect",
                           "::mlir::emitc::EmitCDialect"];
}

#endif // COMM_CONVERSION_PASSES_TD
