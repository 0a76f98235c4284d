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
    point-to-point transfers, `commrt_collective_planned`). A `route`
    must be one the backend realizes (the route table in
    `CommAlgorithms.h`: `nvlink` and `pcie` are errors on `cuda-verbs`), and
    a `host_staged` transfer on `cuda-verbs` must have its buffers in host
    memory (comm-route stages them). `protocol` is not realized (NCCL has
    no per-call protocol).

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
           "what is generated and which runtime backend it calls (default cpu-mpi)",
           "::mlir::comm::TargetValues()">,
  ];
  let dependentDialects = ["::mlir::comm::CommDialect",
                           "::mlir::emitc::EmitCDialect"];
}

def CommCheckSharding : Pass<"comm-check-sharding", "::mlir::func::FuncOp"> {
  let summary = "check shard annotations before upstream's partitioning";
  let description = [{
    Upstream's `sharding-propagation` and `shard-partition` trust that a
    `shard.sharding` names axes its grid has: given `split_axes = [[2]]` on
    a 2-D grid they produce empty tensors or crash. This pass checks, for
    every `shard.sharding` and every shard op naming `grid_axes`, that the
    grid exists and is static, that every axis is one of the grid's, and
    that no axis splits two dimensions, with a located error otherwise.
    comm-opt's `sharding-propagation` and `shard-partition` run it first,
    and `convert-shard-to-comm` checks the same.

    ```mlir
    shard.grid @mesh(shape = 2x4)
    // error: split_axes names grid axis 2, but grid @mesh has 2 axes
    %s = shard.sharding @mesh split_axes = [[2]] : !shard.sharding
    ```
  }];
}

def CommReshardInSteps : Pass<"comm-reshard-in-steps", "::mlir::func::FuncOp"> {
  let summary = "split reshards into the steps upstream's shard-partition takes";
  let description = [{
    A reshard is a `shard.shard` whose source is another `shard.shard` of a
    different sharding (a value split one way, then asked for another).
    Upstream's `shard-partition` (MLIR 22) does one step per reshard, on the
    last grid axis of one tensor dimension: move it to another dimension (an
    `all_to_all`), append one (a slice) or remove one (an `all_gather`). Any
    other reshard (`[[0, 1]]` to replicated, `[[0]]` to `[[1]]`) makes it
    crash. This pass leaves the reshards upstream takes alone and splits the
    others into such steps, inserting a `shard.shard` per step: the grid
    axes of each dimension past the prefix the two shardings share are
    removed one at a time (last first), then the target's are appended in
    order. On a 2x4 grid, `[[0, 1]]` to `[[]]` becomes `[[0, 1]]` to
    `[[0]]` to `[[]]`: two all_gathers, over axis 1 then axis 0. A reshard
    that also changes halo sizes or `sharded_dims_offsets` (other than
    halos alone) is a located error. comm-opt's `shard-partition` runs it
    first.

    ```mlir
    %a = shard.shard %x to %s01 : tensor<8x16xf32>       // [[0, 1]]
    %b = shard.shard %a to %none annotate_for_users : tensor<8x16xf32>
    // becomes
    %a = shard.shard %x to %s01 : tensor<8x16xf32>
    %s0 = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
    %i = shard.shard %a to %s0 annotate_for_users : tensor<8x16xf32>
    %b = shard.shard %i to %none annotate_for_users : tensor<8x16xf32>
    ```
  }];
  let statistics = [
    Statistic<"numReshardsSplit", "reshards-split",
              "reshards split into steps">,
    Statistic<"numSteps", "steps", "steps the split reshards take">,
  ];
  let dependentDialects = ["::mlir::shard::ShardDialect"];
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

def ConvertStableHLOToComm : Pass<"convert-stablehlo-to-comm",
                                  "::mlir::ModuleOp"> {
  let summary = "import StableHLO (as JAX writes it) into comm";
  let description = [{
    Reads StableHLO in MLIR's generic op form, parsed with unregistered
    dialects allowed (`comm-opt --allow-unregistered-dialect`): no StableHLO
    library is linked. Both of JAX's exports are read: GSPMD (shard_map's
    body a private function between `Sharding`/`SPMDFullToShardShape` and
    `SPMDShardToFullShape` custom calls) and Shardy (the body inside
    `sdy.manual_computation`; comm-opt defers verifying such input to this
    pass, since calls inside unregistered ops do not resolve).

    - The program must be partitioned already, its collectives explicit
      (`jax.shard_map`, `jax.pmap`): a sharding that would have XLA's SPMD
      partitioner split compute or reshard a value (a program partitioned
      by jit shardings instead) is a located error naming it, since comm
      does not run the partitioner.
    - The per-process program is made explicit: calls are inlined, private
      functions erased, and where shard_map's boundary meets an argument or
      a result of the entry function, it takes or gives the process's shard
      (local shapes). Elsewhere a boundary is a `comm.compute` of no cost
      named `stablehlo.shard_to_local` or `stablehlo.local_to_global`.
    - `comm.world_size` is `mhlo.num_replicas * mhlo.num_partitions`; a
      process's rank is `replica * num_partitions + partition`.
    - `all_reduce`, `all_gather`, `reduce_scatter`, `all_to_all`,
      `collective_permute` and `collective_broadcast` become comm ops, with
      groups read from `replica_groups` (or `source_target_pairs`) in the
      mode StableHLO's spec gives by `channel_handle` and
      `use_global_device_ids`: cross_replica, cross_partition,
      cross_replica_and_partition or flattened_ids. The reduction kind is
      read from the reduction body (one add, multiply, maximum, minimum,
      and, or, xor). Variadic collectives become one comm op per operand.
    - Counted loops (JAX's `fori_loop`: a counter from a constant, compared
      less-than a constant, incremented by a positive constant) become
      `scf.for` with the same iteration arguments, so collectives inside
      them are imported and simulated per trip; a collective in any other
      loop is a located error.
    - The compute around them becomes `comm.compute` with FLOP and byte
      estimates (dot_general, convolution, elementwise, reduce,
      reduce_window, data movement); ops with no rule are opaque compute
      with a warning.

    Malformed replica groups (ids out of range, -1 padding, a process in two
    groups, unequal sizes), unknown reduction bodies, calls to undefined
    functions, collectives inside loops and ops whose values comm cannot
    carry are located errors.

    ```mlir
    %1 = "stablehlo.all_reduce"(%0) <{channel_handle =
        #stablehlo.channel_handle<handle = 1, type = 1>,
        replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>,
        use_global_device_ids}> ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %s = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%s) : (tensor<f32>) -> ()
    }) : (tensor<1024xf32>) -> tensor<1024xf32>
    // becomes
    %1 = comm.all_reduce sum %0 over [[0, 1, 2, 3]] : tensor<1024xf32>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::comm::CommDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::scf::SCFDialect"];
  let statistics = [
    Statistic<"numCollectives", "collectives",
              "StableHLO collectives turned into comm ops">,
    Statistic<"numCompute", "compute-ops", "ops imported as comm.compute">,
    Statistic<"numOpaque", "opaque-compute",
              "compute ops imported without a cost rule">,
  ];
}

#endif // COMM_CONVERSION_PASSES_TD
