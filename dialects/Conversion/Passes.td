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

def ConvertShardToComm : Pass<"convert-shard-to-comm", "::mlir::ModuleOp"> {
  let summary = "import a partitioned shard program: collectives and compute";
  let description = [{
    Turns a program in MLIR's `shard` dialect, after `shard-partition` made
    every collective explicit, into a comm program that the planner,
    simulator and compiler take:

    - `shard.grid`s give the world: `comm.world_size` is the number of
      processes of the largest grid, and a process's rank is its index in the
      grid, linearized row-major (the last grid axis varies fastest).
    - The groups of a collective over `grid_axes` are the processes that
      differ only in those axes; inside a group, processes are ordered
      row-major over `grid_axes` in the order written. Empty `grid_axes`
      means groups of one.
    - `all_reduce`, `all_gather`, `reduce_scatter`, `all_to_all`,
      `broadcast` and `reduce` become the comm op of the same name (a `root`
      multi-index becomes the position in the group); `shift` becomes a
      `comm.permute` in which the process at coordinate `c` of `shift_axis`
      sends to `c + offset` (modulo the axis with `rotate`).
    - `gather` becomes `comm.all_gather` and `scatter` a `comm.broadcast`
      followed by each process's slice, with a warning: comm has no rooted
      gather or scatter, and these move more bytes but give the root the
      same result. `all_slice` moves nothing and becomes local compute.
    - `send`/`recv` pair the processes of groups of two; the k-th send and
      the k-th receive of a function share tag k.
    - `shard.grid_shape` becomes constants; the compute around the
      collectives (linalg, tensor, arith, scf) becomes `comm.compute` with
      FLOP and byte estimates from its shapes, and ops with no cost rule are
      opaque compute with a warning.

    Dynamic grid dimensions or roots, reductions comm does not have
    (`generic`), memref operands, unpartitioned `shard.shard` annotations and
    rank-dependent values that survive are located errors.

    ```mlir
    shard.grid @grid(shape = 2x4)
    %0 = shard.all_reduce %x on @grid grid_axes = [1]
        : tensor<4x64xf32> -> tensor<4x64xf32>
    // becomes, in a module with comm.world_size = 8
    %0 = comm.all_reduce sum %x over [[0, 1, 2, 3], [4, 5, 6, 7]]
        : tensor<4x64xf32>
    ```
  }];
  let dependentDialects = ["::mlir::comm::CommDialect",
                           "::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numCollectives", "collectives",
              "shard collectives turned into comm ops">,
    Statistic<"numCompute", "compute-ops", "ops imported as comm.compute">,
    Statistic<"numOpaque", "opaque-compute",
              "compute ops imported without a cost rule">,
  ];
}

#endif // COMM_CONVERSION_PASSES_TD
