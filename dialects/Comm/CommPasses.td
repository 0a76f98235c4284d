//===- CommPasses.td - comm passes -------------------------*- tablegen -*-===//

#ifndef COMM_DIALECT_COMM_COMMPASSES_TD
#define COMM_DIALECT_COMM_COMMPASSES_TD

include "mlir/Pass/PassBase.td"

def CommCheckTopology : Pass<"comm-check-topology", "::mlir::ModuleOp"> {
  let summary = "check a program against the hardware topology it targets";
  let description = [{
    Loads the topology named by the module attribute `comm.topology` (a
    preset such as `dgx-h100`, a cluster `dgx-h100x4`, an NCCL topology XML
    file or a comm YAML file), or by the `topology` option, which takes
    precedence. Reports, for each op, the first rank it names that the
    topology does not have (one rank per GPU, machine after machine; for a
    preset, with the cluster that has enough), and a `comm.world_size`
    larger than the topology's GPU count. With
    `explain`, every point-to-point pair and permute pair gets a remark
    with its path: kind, bottleneck bandwidth and link, latency.

    ```mlir
    module attributes {comm.topology = "dgx-h100", comm.world_size = 8 : i64} {
      func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
        // error: rank 9 is not a GPU of topology 'dgx-h100' (8 GPUs)
        %0 = comm.permute %x pairs [[0, 9]] : tensor<4xf32>
        return %0 : tensor<4xf32>
      }
    }
    ```
  }];
  let options = [
    Option<"topology", "topology", "std::string", /*default=*/"\"\"",
           "Topology to check against (overrides the comm.topology module "
           "attribute): a preset, <preset>x<N>, or a .xml/.yaml file">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Emit a remark with the path of every point-to-point pair">,
  ];
  let statistics = [
    Statistic<"numOpsChecked", "ops-checked",
              "Number of communication ops checked">,
  ];
}

def CommFuse : Pass<"comm-fuse", "::mlir::ModuleOp"> {
  let summary = "bucket compatible collectives into one packed transfer";
  let description = [{
    Walks every block in program order and gathers collectives that could
    travel as one into buckets: all_reduce, broadcast, reduce, permute, and
    all_gather and reduce_scatter along dimension 0, of the same kind with
    the same attributes (groups or pairs, reduction, root, dimension, plan)
    and element type. A bucket becomes one `comm.pack` of its members'
    inputs, one collective on the flat buffer, and one `comm.unpack` whose
    results replace the members', placed where its last member was. An
    all_gather's unpack reads each tensor from every rank's block
    (`blocks k`); a reduce_scatter's pack cuts every tensor into one part
    per rank. Each rank pays one launch and one set of steps per bucket
    instead of per tensor.

    Buckets respect what the program says about order: a bucket closes
    before an op that uses one of its members' results (so nothing is
    moved after its use, and no member depends on another), and every
    bucket closes at a `comm.start`, `comm.wait`, send, recv, call or op
    with regions (so no transfer crosses an async boundary or a point-to-
    point exchange). Ops inside a `comm.start` body fuse with each other.

    With `mode=threshold` (the default), bucket size follows PyTorch DDP's
    rule: a bucket closes when the next tensor would take it over
    `threshold-bytes` (default 25 MiB), and the first bucket of a block over
    `first-bucket-bytes` (default 1 MiB) so that the first gradients go out
    early. A tensor larger than the limit travels alone.

    With `mode=cost`, the boundaries come from the cost model on the
    module's topology for `backend`: each run of compatible collectives is
    cut into the buckets that let the last of them finish first, assuming
    (as `comm-schedule` arranges) that a bucket starts on the communication
    stream as soon as its last member's operand is computed and the stream
    is free. One large bucket waits for everything; many small ones each
    pay the latency of a collective; the cut between trades the two. A
    bucket still holds at most `threshold-bytes`, and at most 256 tensors.
    Runs of different kinds or element types share the stream: each is cut
    first as if alone, then again, one run at a time, with the others'
    buckets in place, until no cut changes. That descent ends in a local
    optimum, so it starts from several cuts (the runs cut alone, and every
    run cut at 1, 4, 25 and 100 MiB, capped by `threshold-bytes`), re-cuts
    in both orders of the runs from each, and keeps the cuts whose stream
    ends first (`joint=false` keeps the first cuts). The stream is modeled
    as one queue in the order buckets are issued, as NCCL runs them
    (comm-plan still simulates the runs cut alone too, and keeps the
    faster). Blocks of thousands of runs, or of runs of tens of thousands
    of collectives, start from fewer cuts (the runs cut alone only), or cut
    each run alone, so that the work stays near linear.

    On the four element types of `test/Pipelines/Inputs/mixed-dtypes.mlir`
    on dgx-h100, comm's plan simulates at 931.18 us with the joint cuts
    (DDP's buckets: 931.99 us) and 1488.16 us with the runs cut alone; from
    the runs cut alone only, the descent put every i32 gradient into one
    bucket behind the last layer (969.95 us). A bucket costs what
    comm-select-algorithm will make of it: on NCCL the faster of the
    runtime's schedules and NCCL's own collective, on a host's MPI ranks
    MPI's own collective unless a schedule is faster by more than the
    measurements' noise.

    With `mode=cycle`, bucket size follows Horovod's tensor fusion: a
    background thread wakes every `cycle-us` and sends the tensors that
    became ready since, fused up to `threshold-bytes`. A bucket closes when
    the next tensor's operand is computed in a later cycle than its first
    member's (by the compute clock of the cost model, as in cost mode) or
    would take it over the limit.

    ```mlir
    %x = comm.all_reduce sum %a over [[0, 1, 2, 3]] : tensor<64xf32>
    %y = comm.all_reduce sum %b over [[0, 1, 2, 3]] : tensor<8x16xf32>
    // becomes
    %p = comm.pack %a, %b offsets [0, 64] : tensor<64xf32>, tensor<8x16xf32> -> tensor<192xf32>
    %r = comm.all_reduce sum %p over [[0, 1, 2, 3]] : tensor<192xf32>
    %x, %y = comm.unpack %r offsets [0, 64] : tensor<192xf32> -> tensor<64xf32>, tensor<8x16xf32>
    ```
  }];
  let options = [
    Option<"thresholdBytes", "threshold-bytes", "int64_t",
           /*default=*/"25 << 20",
           "Largest bucket in bytes (default 25 MiB, PyTorch DDP's bucket_cap_mb)">,
    Option<"firstBucketBytes", "first-bucket-bytes", "int64_t",
           /*default=*/"1 << 20",
           "Largest first bucket of a block in bytes (default 1 MiB, DDP's first bucket)">,
    Option<"mode", "mode", "::mlir::comm::FuseMode",
           /*default=*/"::mlir::comm::FuseMode::threshold",
           "How buckets are sized (default threshold)",
           [{::llvm::cl::values(
             clEnumValN(::mlir::comm::FuseMode::threshold, "threshold",
                        "fixed limits (PyTorch DDP's rule)"),
             clEnumValN(::mlir::comm::FuseMode::cost, "cost",
                        "the boundaries that finish the transfers first, "
                        "by the cost model"),
             clEnumValN(::mlir::comm::FuseMode::cycle, "cycle",
                        "what becomes ready within one cycle (Horovod's "
                        "rule)"))}]>,
    Option<"maxTensors", "max-tensors", "int64_t", /*default=*/"0",
           "Most tensors in one bucket (0: no limit; cost mode never "
           "puts more than 256 in one; XLA's combiners stop at 256)">,
    Option<"cycleUs", "cycle-us", "double", /*default=*/"1000.0",
           "Length of a fusion cycle in us (mode=cycle; Horovod's "
           "HOROVOD_CYCLE_TIME, 1 ms by default)">,
    Option<"topology", "topology", "std::string", /*default=*/"\"\"",
           "Topology the cost mode plans for (overrides the comm.topology "
           "module attribute)">,
    Option<"costParams", "cost-params", "std::string", /*default=*/"\"\"",
           "Cost model parameters (YAML, as comm-sim calibrate "
           "--write-params writes; overrides the comm.cost_params module "
           "attribute; empty and no attribute: the built-in calibration)">,
    Option<"backend", "backend", "::mlir::comm::Backend",
           /*default=*/"::mlir::comm::Backend::nccl",
           "The runtime backend the cost mode plans for (default nccl)",
           "::mlir::comm::BackendValues()">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Emit a remark on each bucket's collective">,
    Option<"joint", "joint", "bool", /*default=*/"true",
           "mode=cost: cut the runs of a block together, since they share "
           "the communication stream (false: each as if it had the stream "
           "alone) (default true)">,
  ];
  let statistics = [
    Statistic<"numOpsFused", "ops-fused", "Collectives fused into buckets">,
    Statistic<"numBuckets", "buckets", "Buckets of two or more created">,
  ];
}

def CommSchedule : Pass<"comm-schedule", "::mlir::ModuleOp"> {
  let summary = "start collectives as early and wait as late as the program "
                "allows";
  let description = [{
    Turns blocking collectives into `comm.start` / `comm.wait` pairs so that
    they overlap the compute around them: each start goes right after the
    last op its operands come from (a bucket's `comm.pack` goes into the
    start with its collective, and its `comm.unpack` too), each wait right
    before the first op that uses a result. Where nothing between the start
    and the wait occupies the compute stream (the block's tail: waits and
    the return), the pack stays on the compute stream, right before the
    start: there it overlaps the transfers already on the communication
    stream instead of queueing behind them (on `examples/data_parallel_step.mlir`,
    5.5 us of a 340.70 us step). Collectives whose operands are
    ready at the same point start in the order they are needed, the first
    needed first. Nothing is started above a point-to-point exchange, an
    existing start or wait, a barrier, a call or an op with regions, so the
    order of those stays; every rank runs the same program, so every rank
    issues the collectives of a group in the same order, and nothing waits
    on a transfer that another rank starts later. A collective with nothing
    between its start and its wait stays blocking.

    `memory-budget` bounds the bytes in flight (the payloads of started,
    not yet waited transfers) on a rank. With a topology (the option or the
    module's `comm.topology`), the cost model says when each transfer ends
    (the compute before it, one communication stream): a start that would
    exceed the budget first waits for earlier transfers that will have
    ended by then, the oldest first, which costs nothing; otherwise, and
    without a topology, it is delayed until enough earlier transfers are
    waited for where they are needed. `streams` spreads
    the transfers round-robin over that many communication streams
    (`#comm.plan<stream = k>`); 1 keeps them on the backend's own.

    ```mlir
    %g = comm.compute "layer2.backward"(...) ...
    %r = comm.all_reduce sum %g over [[0, 1, 2, 3]] : tensor<1024xf32>
    %h = comm.compute "layer1.backward"(...) ...
    use(%r)
    // becomes
    %g = comm.compute "layer2.backward"(...) ...
    %t = comm.start {
      %0 = comm.all_reduce sum %g over [[0, 1, 2, 3]] : tensor<1024xf32>
      comm.yield %0 : tensor<1024xf32>
    }
    %h = comm.compute "layer1.backward"(...) ...
    %r = comm.wait %t : tensor<1024xf32>
    use(%r)
    ```
  }];
  let options = [
    Option<"memoryBudget", "memory-budget", "int64_t", /*default=*/"0",
           "Most bytes in flight per rank (0: no bound)">,
    Option<"streams", "streams", "int64_t", /*default=*/"1",
           "Communication streams to spread the transfers over (default 1)">,
    Option<"topology", "topology", "std::string", /*default=*/"\"\"",
           "Topology whose cost model says when transfers end (overrides "
           "the comm.topology module attribute; empty and no attribute: "
           "none)">,
    Option<"costParams", "cost-params", "std::string", /*default=*/"\"\"",
           "Cost model parameters (YAML, as comm-sim calibrate "
           "--write-params writes; overrides the comm.cost_params module "
           "attribute; empty and no attribute: the built-in calibration)">,
    Option<"backend", "backend", "::mlir::comm::Backend",
           /*default=*/"::mlir::comm::Backend::nccl",
           "The runtime backend the transfers run on (default nccl)",
           "::mlir::comm::BackendValues()">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Emit a remark on each scheduled collective">,
  ];
  let statistics = [
    Statistic<"numOpsScheduled", "ops-scheduled",
              "Collectives turned into a start and a wait">,
  ];
}

def CommReducePrecision : Pass<"comm-reduce-precision", "::mlir::ModuleOp"> {
  let summary = "send f32 data as bf16 (or f16) where a tolerance allows it";
  let description = [{
    For every collective and point-to-point op that moves f32 data, finds
    the error its results may take: the op's `comm.max_rel_error`, else the
    nearest function's or module's, else the `max-rel-error` option; without
    one, the op is left alone. It then bounds the error of sending the data
    in a narrower type u (bf16: 2^-8, f16: 2^-11 per rounding) for what the op
    does on the wire, where n is the group's size:

    - moving data (all_gather, broadcast, all_to_all, permute, send/recv):
      one rounding, u;
    - summing (all_reduce, reduce_scatter, reduce with sum): n roundings of
      inputs and partial sums, γ(n) = n·u / (1 - n·u), relative to the sum
      of the magnitudes of the contributions; avg one more, γ(n+1);
    - multiplying (prod): γ(2n-1), relative to the magnitude of the product;
    - min and max: never, since the result would no longer be one of the
      contributions; integers: never.

    It picks bf16 when its bound is within the tolerance (same exponent
    range as f32, so nothing overflows), else f16 when `allow-f16` is set
    and its bound is within it (f16 overflows beyond 65504), and only when
    the cost model predicts the transfer in that type, plus converting the
    buffer on both ends (read 4 and write 2 bytes per element, then the
    reverse, at the GPU's HBM bandwidth, and two kernel launches), is
    faster than in f32. It writes the type into the plan's `precision` and
    the bound into `comm.error_bound`. A precision a person wrote stays.

    A `comm.send` and the `comm.recv`s that take its messages (the same
    source, target and tag) are one transfer: both ends get one wire type,
    under the smallest tolerance stated at any of them, or neither changes
    (comm-verify-schedule rejects ends that disagree). A collective the
    backend does not carry (any on `verbs`) is timed as the point-to-point
    schedule comm-decompose will write, on MPI's model of those transfers.

    The pass judges each op it sees against the whole tolerance, so it must
    see the ops the program wrote: `comm-plan` runs it before it cuts any
    op into pieces (the hierarchical split, comm-decompose, comm-pipeline),
    and the pieces inherit the op's precision and `comm.error_bound`. Run
    alone after those passes, it would judge each piece by itself, and
    values that pass through several pieces could take more error than the
    tolerance states.

    ```mlir
    %0 = comm.all_reduce sum %g over [[0, 1, 2, 3, 4, 5, 6, 7]]
        {comm.max_rel_error = 5.0e-02 : f64} : tensor<16777216xf32>
    // becomes
    %0 = comm.all_reduce sum %g over [[0, 1, 2, 3, 4, 5, 6, 7]]
        plan <precision = bf16> {comm.error_bound = 0.032258064516129031 : f64,
        comm.max_rel_error = 5.0e-02 : f64} : tensor<16777216xf32>
    ```
  }];
  let options = [
    Option<"topology", "topology", "std::string", /*default=*/"\"\"",
           "Topology to plan for (overrides the comm.topology module "
           "attribute): a preset, <preset>x<N>, or a .xml/.yaml file">,
    Option<"costParams", "cost-params", "std::string", /*default=*/"\"\"",
           "Cost model parameters (YAML, as comm-sim calibrate "
           "--write-params writes; overrides the comm.cost_params module "
           "attribute; empty and no attribute: the built-in calibration)">,
    Option<"backend", "backend", "::mlir::comm::Backend",
           /*default=*/"::mlir::comm::Backend::nccl",
           "The runtime backend the program runs on (default nccl)",
           "::mlir::comm::BackendValues()">,
    Option<"maxRelError", "max-rel-error", "double", /*default=*/"0.0",
           "Error the results may take where no comm.max_rel_error says "
           "(0: none, the ops without the attribute stay f32)">,
    Option<"allowF16", "allow-f16", "bool", /*default=*/"false",
           "Also consider f16, whose range ends at 65504">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Emit a remark with each decision">,
  ];
  let statistics = [
    Statistic<"numOpsNarrowed", "ops-narrowed",
              "Ops whose data now travels in a narrower type">,
    Statistic<"numOpsTooTight", "ops-too-tight",
              "Ops whose tolerance no narrower type meets">,
    Statistic<"numOpsNotFaster", "ops-not-faster",
              "Ops that would not be faster narrower (conversion included)">,
  ];
}

def CommSelectAlgorithm : Pass<"comm-select-algorithm", "::mlir::ModuleOp"> {
  let summary = "choose each collective's algorithm and protocol with the "
                "cost model";
  let description = [{
    For every collective and point-to-point op, asks the cost model which
    algorithm and protocol are fastest on the module's topology for the
    op's group and size, searching only what the `backend` realizes when a
    plan names it (the one algorithm table, `comm-sim algorithms`), and
    writes them into the op's `#comm.plan`. On the nccl backend NCCL's own
    collective (ring, tree and NVLS in any protocol, what runs when no plan
    names an algorithm) is a candidate too: a plan names one of the
    runtime's schedules only where it is predicted strictly faster. Those
    schedules send with ncclSend and ncclRecv, whose protocol NCCL chooses
    by size (LL up to 16 KiB, Simple above), so no protocol is written for
    them; a protocol is written only where NCCL's own collective runs the
    plan (`nvls`, a barrier). Fields a person wrote are kept: an algorithm
    written by hand fixes the algorithm; an op whose plan names both
    algorithm and protocol is left alone. The
    `algorithm`, `protocol`, `channels` and `chunk-bytes` options force a
    field on every op where it applies and was not written (a forced
    algorithm the backend does not realize for an op leaves that op to the
    model). A barrier takes no algorithm; an op the backend cannot run at
    all (a collective on verbs) is left for the lowering to reject.

    Channels are written only when forced. A chunk size is written when
    forced, and for a `hierarchical` schedule the model chose: it runs its
    chunks as a pipeline and the model picks how many (a hierarchical plan
    written without `chunk_bytes` runs, and is predicted as, one chunk).
    On the other schedules the model times a chunk size that is written or
    forced (each chunk after the first of a channel's slice adds a step;
    among the processes of a host, m chunks take m calls), but does not
    choose one.

    With `explain`, each op gets a remark with the prediction: the chosen
    algorithm and protocol, the predicted time, the lower bound, what
    limits it, and the next-best choice.

    ```mlir
    %0 = comm.all_reduce sum %x over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<256xf32>
    // on dgx-h100 for the nccl backend becomes
    %0 = comm.all_reduce sum %x over [[0, 1, 2, 3, 4, 5, 6, 7]]
        plan <algorithm = direct> : tensor<256xf32>
    ```
  }];
  let options = [
    Option<"topology", "topology", "std::string", /*default=*/"\"\"",
           "Topology to plan for (overrides the comm.topology module "
           "attribute): a preset, <preset>x<N>, or a .xml/.yaml file">,
    Option<"costParams", "cost-params", "std::string", /*default=*/"\"\"",
           "Cost model parameters (YAML, as comm-sim calibrate "
           "--write-params writes; overrides the comm.cost_params module "
           "attribute; empty and no attribute: the built-in calibration)">,
    Option<"backend", "backend", "::mlir::comm::Backend",
           /*default=*/"::mlir::comm::Backend::nccl",
           "The runtime backend the program runs on: only what it realizes "
           "is chosen (default nccl)", "::mlir::comm::BackendValues()">,
    Option<"algorithm", "algorithm", "std::string", /*default=*/"\"\"",
           "Force this algorithm where it applies (ring, tree, direct, "
           "halving_doubling, hierarchical, nvls; empty: the model's)">,
    Option<"protocol", "protocol", "std::string", /*default=*/"\"\"",
           "Force this protocol (simple, ll, ll128; empty: the model's)">,
    Option<"channels", "channels", "int64_t", /*default=*/"0",
           "Force this many channels on planned collectives (0: none)">,
    Option<"chunkBytes", "chunk-bytes", "int64_t", /*default=*/"0",
           "Force this pipeline chunk size on planned collectives (0: none)">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Emit a remark with each op's prediction">,
  ];
  let statistics = [
    Statistic<"numOpsPlanned", "ops-planned",
              "Ops whose plan got a field from the cost model or an option">,
    Statistic<"numFieldsKept", "fields-kept",
              "Plan fields a person wrote, kept">,
    Statistic<"numOpsNotCarried", "ops-not-carried",
              "Ops the backend cannot run, left to the lowering">,
  ];
}

def CommDecompose : Pass<"comm-decompose", "::mlir::ModuleOp"> {
  let summary = "split all_reduces into their halves and write collectives "
                "as point-to-point schedules";
  let description = [{
    Two decompositions, each of every collective it applies to:

    - `split-all-reduce`: a `comm.all_reduce` becomes a `comm.reduce_scatter`
      and a `comm.all_gather` (as ZeRO does), so that the halves can be
      scheduled apart. A tensor whose size the group does not divide is
      packed into a zero-padded flat buffer first.
    - `hierarchical`: a `comm.all_reduce` whose groups span machines of the
      topology, with the same number of ranks on each, becomes a
      reduce_scatter inside each machine (over NVLink), an all_reduce across
      machines among the ranks with the same place on their machine (one
      per rail), and an all_gather inside each machine: the traffic that
      crosses the network shrinks by the ranks per machine. A group inside
      one machine whose GPUs hang off different CPUs, where every path into
      one CPU's GPUs crosses one link (a PCIe machine's socket link; the
      cost model's socket cut), is split the same way by CPU: on
      `pcie-4gpu` the all_reduce across the sockets carries half the
      buffer, and the socket link S instead of a ring's 1.5 S. An
      all_gather along dimension 0 splits too: across first (only each
      rank's own block crosses the cut), then inside, then its blocks are
      put back in the group's order (`comm.unpack` and `comm.pack`); a
      reduce_scatter along dimension 0 puts its blocks in that order, then
      reduces inside (the cut carries sums), then across. With
      `hierarchical-if-faster`, only where the cost model predicts the
      parts faster than the whole. comm-plan decides by simulating the
      planned step instead (docs/Planning.md).
    - `to-p2p`: a collective becomes its explicit ring schedule of
      `comm.send`, `comm.recv` and element-wise combines, one chunk per rank
      of the group: `n - 1` steps of reduce-scatter and `n - 1` of
      all-gather for an all_reduce, `n - 1` for a reduce_scatter or an
      all_gather, `n - 1` pairwise exchanges for an all_to_all, a binomial
      tree of `log2 n` steps for a broadcast (after a send of the root to
      itself, so that every other rank starts from zeros), and a send and
      receive for a permute. The data is rotated once by the
      rank's place in its group (`comm.rotate`), so that every rank sends
      and receives the same chunk indices at every step, and rotated back
      at the end. `unsupported` (the default) decomposes what the `backend`
      cannot run (every collective on `verbs`; the one algorithm table
      says), `all` everything it can, `none` nothing.

    A plan's `chunk_bytes` cuts every ring chunk into pieces of about that
    size (at most 64; an all_reduce pads to whole pieces, a reduce_scatter
    or all_gather takes the most pieces that divide its chunk): piece `q`
    of step `s + 1` is sent as soon as piece `q` of step `s` has arrived
    and been combined, while the other pieces are in flight (each receive
    is started ahead, `comm.start`).

    An average is summed around the ring and scaled by `1/n` once
    (`arith.mulf` by a splat constant, which comm-bufferize makes a
    `comm.buffer.scale`).

    A `comm.reduce` is Rabenseifner's: the ring's reduce-scatter, then
    every rank's reduced chunk sent to the root, which joins them; the root
    keeps the join and every other rank its input (each receives the one it
    keeps from itself and zeros of the other, and adds them: a -0.0 input
    comes back +0.0). A `comm.barrier` is a dissemination barrier: in round
    k every rank sends one byte 2^k places ahead in its group and receives
    one from 2^k places behind, for ceil(log2 n) rounds.

    A dimension scattered, gathered or exchanged with larger dimensions
    before it leaves each rank's part in pieces, one per row: the schedule
    puts them together before sending (`comm.unpack` with `blocks`) and lays
    what arrives out in rows after (`comm.pack` with `blocks`).

    What cannot be decomposed is kept, with a remark under `explain` (and
    an error when the backend cannot run it): groups that leave ranks of
    `comm.world_size` out, but a barrier's and a broadcast's (a rank
    outside every group would keep its own data where it must get zeros).

    Every step of a decomposed op uses one tag, above every tag the module
    uses already, so that sends and receives match in order.

    ```mlir
    %0 = comm.all_reduce sum %x over [[0, 1, 2, 3]] : tensor<1024xf32>
    // with split-all-reduce becomes
    %1 = comm.reduce_scatter sum %x over [[0, 1, 2, 3]] dim 0
        : tensor<1024xf32> -> tensor<256xf32>
    %0 = comm.all_gather %1 over [[0, 1, 2, 3]] dim 0
        : tensor<256xf32> -> tensor<1024xf32>
    ```
  }];
  let options = [
    Option<"splitAllReduce", "split-all-reduce", "bool", /*default=*/"false",
           "Split every all_reduce into a reduce_scatter and an all_gather">,
    Option<"hierarchical", "hierarchical", "bool", /*default=*/"false",
           "Split every all_reduce across machines (or across the CPU "
           "sockets of one PCIe machine) into reduce_scatter inside each, "
           "all_reduce across them, all_gather inside; all_gathers and "
           "reduce_scatters along dimension 0 into their parts across and "
           "inside">,
    Option<"hierarchicalIfFaster", "hierarchical-if-faster", "bool",
           /*default=*/"false",
           "With hierarchical: split only the all_reduces the cost model "
           "predicts faster in three parts than whole">,
    Option<"topology", "topology", "std::string", /*default=*/"\"\"",
           "Topology that says which machine each rank is on, for "
           "hierarchical (overrides the comm.topology module attribute)">,
    Option<"toP2P", "to-p2p", "std::string", /*default=*/"\"unsupported\"",
           "Which collectives become point-to-point schedules: unsupported "
           "(those the backend cannot run), all, none (default unsupported)">,
    Option<"backend", "backend", "::mlir::comm::Backend",
           /*default=*/"::mlir::comm::Backend::nccl",
           "The runtime backend the program runs on (default nccl)",
           "::mlir::comm::BackendValues()">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Emit a remark for each op kept as it is, saying why">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
  let statistics = [
    Statistic<"numSplit", "all-reduces-split",
              "All_reduces split into reduce_scatter + all_gather">,
    Statistic<"numHierarchical", "all-reduces-hierarchical",
              "All_reduces split by machine">,
    Statistic<"numToP2P", "collectives-to-p2p",
              "Collectives written as point-to-point schedules">,
    Statistic<"numKept", "collectives-kept",
              "Collectives the options asked to decompose but that were kept">,
  ];
}

def CommPipeline : Pass<"comm-pipeline", "::mlir::ModuleOp"> {
  let summary = "split a compute and the collective that feeds or reads "
                "it into chunks that overlap";
  let description = [{
    Where a `comm.compute` produces a tensor that only an all_reduce reads
    (the output projection of a tensor-parallel layer and its all-reduce,
    the last layer's gradient in data parallelism), the compute is split
    into `k` parts along dimension 0 (`part [i, k]`, each with `1/k` of the
    FLOPs and bytes) and the all_reduce into `k` all_reduces, one per part,
    placed right after it; the parts are joined with a pack. `comm-schedule`
    then starts part `i`'s all_reduce while part `i + 1` computes, so only
    the last part's transfer stays exposed (as XLA's collective matmul,
    PyTorch's Async-TP and Flux do for tensor parallelism).

    `k` comes from the cost model: for each `k` in 2, 4, 8, ... up to
    `max-chunks` that divides dimension 0, the pipelined time (parts of the
    compute back to back; each part's all_reduce, as the model predicts it
    for its size, as soon as the part and the previous transfer are done;
    then the join) is compared with the compute followed by the whole
    all_reduce; the fastest wins if it saves time. `chunks` forces `k`.
    With `explain`, each candidate gets a remark with the prediction.

    Sequence-parallel tensor parallelism (Megatron-LM) as XLA's windowed
    einsum does it: an `all_gather` of dimension 0 that a `rowwise` compute
    reads becomes its ring: each rank computes its own rows first while they
    travel to the next rank, then, `n - 1` times, the rows that arrive from
    the rank before (passed on as they come; each step's receive is started
    before the part computes and waited for after it). The parts are
    `part [s, n] rotated over` the groups (the rank at position `p`
    computes part `(s + p) mod n`), joined and rotated back (`comm.rotate
    ... inverse`). A compute whose result a `reduce_scatter` of dimension 0
    scatters becomes the ring's reduce-scatter with the compute cut into its
    steps: the part sent first is computed first, each next part computes
    while the running sum travels, and adds what arrives; the last sum is
    the rank's own rows. Both are cut when the model predicts the ring
    (steps of `1/n` of the bytes between neighbours, the compute parts
    between them) faster by 2% than the whole collective, timed with the
    best schedule the backend runs (comm-select-algorithm picks it later),
    plus the whole compute; `chunks` forces the cut. Groups must cover
    `comm.world_size`.

    ```mlir
    %y = comm.compute "proj"(%x) flops 3.0e+11 : (tensor<2048x4096xbf16>) -> tensor<2048x4096xbf16>
    %r = comm.all_reduce sum %y over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<2048x4096xbf16>
    // with chunks=2 becomes
    %y0 = comm.compute "proj"(%x) flops 1.5e+11 part [0, 2] : (...) -> tensor<1024x4096xbf16>
    %r0 = comm.all_reduce sum %y0 over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<1024x4096xbf16>
    %y1 = comm.compute "proj"(%x) flops 1.5e+11 part [1, 2] : (...) -> tensor<1024x4096xbf16>
    %r1 = comm.all_reduce sum %y1 over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<1024x4096xbf16>
    %r = comm.pack %r0, %r1 offsets [0, 4194304] : ... -> tensor<2048x4096xbf16>
    ```
  }];
  let options = [
    Option<"topology", "topology", "std::string", /*default=*/"\"\"",
           "Topology to plan for (overrides the comm.topology module "
           "attribute): a preset, <preset>x<N>, or a .xml/.yaml file">,
    Option<"costParams", "cost-params", "std::string", /*default=*/"\"\"",
           "Cost model parameters (YAML; overrides the comm.cost_params "
           "module attribute)">,
    Option<"backend", "backend", "::mlir::comm::Backend",
           /*default=*/"::mlir::comm::Backend::nccl",
           "The runtime backend the program runs on (default nccl)",
           "::mlir::comm::BackendValues()">,
    Option<"chunks", "chunks", "int64_t", /*default=*/"0",
           "Split into this many parts wherever dimension 0 divides (0: the "
           "cost model chooses)">,
    Option<"maxChunks", "max-chunks", "int64_t", /*default=*/"8",
           "The most parts the cost model considers (default 8)">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Emit a remark with each decision and its prediction">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numPipelined", "pipelined",
              "Compute + all_reduce pairs split into parts">,
    Statistic<"numKept", "kept",
              "Pairs the cost model (or dimension 0) left whole">,
  ];
}

def CommRoute : Pass<"comm-route", "::mlir::ModuleOp"> {
  let summary = "choose the path of every point-to-point transfer and "
                "stage it through host memory where the NIC cannot reach "
                "GPU memory";
  let description = [{
    For every `comm.send`, `comm.recv` and `comm.permute` writes the plan's
    `route`: how its data gets from one GPU's memory to the other's, on the
    topology, for the `backend` the program runs on. Each `[source, target]`
    pair has its route, and the op takes its farthest pair's (from the
    closest: `nvlink`, `pcie`, `gdr`, `host_staged`); a rank's pair with
    itself is a local copy and has none.

    - `backend=nccl` (the routes NCCL's transports take, by the rules of
      NCCL's `src/graph/paths.cc`): a path through NVLink, NVSwitch or an
      NVLink bridge GPU is `nvlink`; one through PCIe switches only (PIX,
      PXB; NCCL's default NCCL_P2P_LEVEL) is `pcie`; one through a host
      bridge or between sockets (PHB, SYS) is `host_staged` (NCCL's SHM
      transport); a path across the network is `gdr` when both GPUs and
      their NICs support GPUDirect RDMA with at most PCIe switches between
      them (NCCL_NET_GDR_LEVEL's default), `host_staged` otherwise. NCCL
      chooses its transport itself: a route written by hand must be the one
      it takes.
    - `backend=verbs` moves every byte through the NIC, also between GPUs
      of one machine: `gdr` when both GPUs' NICs can register their memory
      (GPUDirect RDMA), `host_staged` otherwise. A `host_staged` transfer is
      carried out here: the sender copies its tensor into pinned host memory
      (`comm.copy hbm to pinned_host`) and sends that; the receiver receives
      into pinned host memory (comm-bufferize allocates it there) and copies
      it into GPU memory.
    - `backend=mpi` moves host memory: no route is chosen.

    A route already in a plan is checked instead of chosen: one the backend
    cannot take (`nvlink` or `pcie` on `verbs`), one the hardware does not
    offer for one of the pairs (`gdr` without GPUDirect RDMA, `nvlink`
    without an NVLink path), or one NCCL would not take is a located error
    naming the pair and its path. With `choose=false` (the lowering
    pipeline) routes are only checked against the backend and realized, and
    no topology is needed. Running the pass twice changes nothing.

    The cost model and `comm-sim` read the route: a `host_staged` transfer
    runs between the CPUs' memories (the staging copies are ops of their
    own).

    ```mlir
    // dgx-h100x4, backend=verbs, GPUs without GPUDirect RDMA:
    comm.send %x to [[0, 8]] tag 1 : tensor<1024xf32>
    // becomes
    %h = comm.copy %x hbm to pinned_host : tensor<1024xf32>
    comm.send %h to [[0, 8]] tag 1 plan #comm.plan<route = host_staged>
        : tensor<1024xf32>
    ```
  }];
  let options = [
    Option<"topology", "topology", "std::string", /*default=*/"\"\"",
           "Topology the paths are read from (overrides the comm.topology "
           "module attribute)">,
    Option<"backend", "backend", "::mlir::comm::Backend",
           /*default=*/"::mlir::comm::Backend::nccl",
           "The runtime backend the program runs on (default nccl)",
           "::mlir::comm::BackendValues()">,
    Option<"choose", "choose", "bool", /*default=*/"true",
           "Choose routes from the topology (false: only check written "
           "routes against the backend and stage host_staged transfers) (default true)">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Emit a remark for each transfer routed, saying why">,
  ];
  let statistics = [
    Statistic<"numRouted", "transfers-routed", "Transfers given a route">,
    Statistic<"numStaged", "transfers-staged",
              "Transfers staged through pinned host memory">,
  ];
}

def CommVerifySchedule : Pass<"comm-verify-schedule", "::mlir::ModuleOp"> {
  let summary = "check that every rank's schedule matches and cannot deadlock";
  let description = [{
    Runs every public function once per rank of `comm.world_size` as an
    abstract machine (no data, no time), with the runtime's semantics: a
    collective blocks until every rank of its group has reached it, a
    receive until its send was posted, a `comm.wait` until the transfers of
    its `comm.start` ended; sends do not block; each plan `stream` runs the
    transfers started on it in order, beside the compute stream. Loops with
    constant bounds are unrolled and calls followed, as the simulator does;
    a loop whose trip count is known only at run time is checked as one
    trip (every rank runs it equally often, the program being SPMD), which
    covers any count when each trip's transfers meet within the trip.
    Loops and other ops without transfers in their regions (or the
    functions those call) are skipped; transfers inside an `scf.if` (whose
    branch may differ between ranks) are an error.

    Errors, each located at the op, with notes where the other ranks wait:

    - a send nobody receives, and a receive whose send never comes;
    - a receive that matches a send of another type;
    - a cycle of waits (ranks waiting for each other, through receives,
      collectives or waits), with the chain of ranks and ops;
    - crossed collective order: two collectives over groups sharing two or
      more ranks, in flight at once on different plan streams, so that the
      ranks may run them in different orders (with `backend=nccl`, whose
      documentation warns that communicators used concurrently can
      deadlock: "Using multiple NCCL communicators concurrently" in the
      NCCL user guide).

    What the program computes is not checked here: the tests compile
    transformed programs and compare their results with the originals' on 4
    MPI ranks (the harness).

    ```mlir
    // error: rank 0's comm.send to rank 1 (tag 5) is never received
    comm.send %x to [[0, 1]] tag 5 : tensor<1024xf32>
    ```
  }];
  let options = [
    Option<"backend", "backend", "::mlir::comm::Backend",
           /*default=*/"::mlir::comm::Backend::nccl",
           "The runtime backend the program runs on (default nccl)",
           "::mlir::comm::BackendValues()">,
  ];
  let statistics = [
    Statistic<"numFunctions", "functions-checked", "Functions checked">,
    Statistic<"numSteps", "steps-checked",
              "Transfers checked, over all ranks">,
  ];
}

def CommBufferize : Pass<"comm-bufferize", "::mlir::ModuleOp"> {
  let summary = "turn comm ops on tensors into comm ops on buffers";
  let description = [{
    Rewrites every function: tensor arguments and results become memrefs,
    every tensor a comm op produces becomes a `memref.alloc` written by the
    op's `comm.buffer.*` form, element-wise arith ops on tensors become
    `comm.buffer.combine`, `comm.start` bodies write into buffers allocated
    before the start (so that `comm.wait` has nothing to return), and
    buffers that do not escape are freed at the end of their block. Loops
    (`scf.for`) and calls are rewritten in place; a tensor a loop carries
    lives in one buffer, its initial value copied in and each trip's yield
    copied back.
    Ops it cannot bufferize are a located error.

    ```mlir
    %0 = comm.all_reduce sum %x over [[0, 1]] : tensor<4xf32>
    // becomes
    %alloc = memref.alloc() : memref<4xf32>
    comm.buffer.all_reduce %x, %alloc {...} : memref<4xf32>, memref<4xf32>
    ```
  }];
  // The comm dialect too: a program without a comm op has not loaded it,
  // and the pass builds comm attributes.
  let dependentDialects = ["::mlir::comm::CommDialect",
                           "::mlir::memref::MemRefDialect"];
}

#endif // COMM_DIALECT_COMM_COMMPASSES_TD
