//===- Pipelines.cpp - the pass pipelines of comm ---------------*- C++ -*-===//

#include "comm/Pipelines/Pipelines.h"
#include "comm/Conversion/Passes.h"
#include "comm/Dialect/Comm/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::comm;

/// The comm-fuse options of each strategy: DDP's and XLA's byte limits,
/// Horovod's cycle, comm's cost model.
CommFuseOptions
mlir::comm::getStrategyFuseOptions(const PlanningPipelineOptions &options) {
  CommFuseOptions fuse;
  fuse.topology = options.topology;
  fuse.costParams = options.costParams;
  fuse.backend = options.backend;
  fuse.explain = options.explain;
  switch (options.strategy) {
  case Strategy::comm:
    // The cost model sizes the buckets; the limit only bounds the memory a
    // bucket's buffer takes.
    fuse.mode = FuseMode::cost;
    fuse.thresholdBytes = 256 << 20;
    fuse.joint = options.fuseJoint;
    break;
  case Strategy::ddp:
    // torch.nn.parallel.DistributedDataParallel: bucket_cap_mb=25 and
    // _DEFAULT_FIRST_BUCKET_BYTES = 1 MiB.
    fuse.mode = FuseMode::threshold;
    fuse.thresholdBytes = 25 << 20;
    fuse.firstBucketBytes = 1 << 20;
    break;
  case Strategy::horovod:
    // HOROVOD_FUSION_THRESHOLD 128 MiB, HOROVOD_CYCLE_TIME 1 ms (0.21+).
    fuse.mode = FuseMode::cycle;
    fuse.thresholdBytes = 128 << 20;
    fuse.cycleUs = 1000;
    break;
  case Strategy::xla:
    // xla/service/collective_utils.h: 30 MiB + 7 bytes; 256 ops per
    // combined collective; no smaller first group.
    fuse.mode = FuseMode::threshold;
    fuse.thresholdBytes = (30 << 20) + 7;
    fuse.firstBucketBytes = (30 << 20) + 7;
    fuse.maxTensors = 256;
    break;
  case Strategy::naive:
    break;
  }
  return fuse;
}

void mlir::comm::buildPlanningPipeline(OpPassManager &pm,
                                       const PlanningPipelineOptions &options) {
  pm.addPass(createCheckPlanningOptions(options));
  CommCheckTopologyOptions check;
  check.topology = options.topology;
  pm.addPass(createCommCheckTopology(check));
  // comm's plan is judged against the baselines' on the simulated step
  // (PlanComparison.cpp), which plans the module with each.
  // A split a person forces (hierarchical=faster|always) is kept as asked.
  if (options.strategy == Strategy::comm && options.compare &&
      options.hierarchical == "auto") {
    pm.addPass(createPlanComparison(options));
    return;
  }
  buildStrategyPipeline(pm, options);
}

void mlir::comm::buildStrategyPipeline(OpPassManager &pm,
                                       const PlanningPipelineOptions &options,
                                       OpPassManager *afterFuse) {
  if (options.strategy == Strategy::naive) {
    // The program as written, each transfer on the route its backend gives
    // it (on verbs without GPUDirect RDMA, through pinned host memory):
    // what it would run as, not a choice.
    CommRouteOptions route;
    route.topology = options.topology;
    route.backend = options.backend;
    pm.addPass(createCommRoute(route));
    pm.addPass(createCanonicalizerPass());
    return;
  }
  pm.addPass(createCommFuse(getStrategyFuseOptions(options),
                            options.fuseJointChanged));
  OpPassManager &rest = afterFuse ? *afterFuse : pm;
  // Only comm's planner narrows wire types (the frameworks leave the wire
  // to the backend). It judges the ops the program wrote, before any is
  // cut into pieces: a tolerance bounds what the whole op does to its
  // data, and pieces narrowed one by one would each spend all of it. The
  // pieces inherit the precision and the recorded bound.
  if (options.strategy == Strategy::comm) {
    CommReducePrecisionOptions precision;
    precision.topology = options.topology;
    precision.costParams = options.costParams;
    precision.backend = options.backend;
    precision.maxRelError = options.maxRelError;
    precision.explain = options.explain;
    rest.addPass(createCommReducePrecision(precision));
  }
  // Only comm's planner splits all_reduces across a slow cut by itself (it
  // keeps the split that simulates fastest); a baseline splits them only
  // when told to (hierarchical=faster or always), to see what that gives.
  StringRef hierarchical = options.hierarchical;
  if (options.strategy == Strategy::comm ||
      (hierarchical != "auto" && hierarchical != "never"))
    rest.addPass(createHierarchicalSearch(options));
  buildPlanningTail(rest, options);
  if (options.verify) {
    CommVerifyScheduleOptions verify;
    verify.backend = options.backend;
    rest.addPass(createCommVerifySchedule(verify));
  }
}

void mlir::comm::buildPlanningTail(OpPassManager &pm,
                                   const PlanningPipelineOptions &options) {
  // What the backend cannot run becomes sends and receives, before the
  // rest of planning sees the program.
  CommDecomposeOptions decompose;
  decompose.backend = options.backend;
  decompose.explain = options.explain;
  pm.addPass(createCommDecompose(decompose));
  // Only comm's planner chooses algorithms; the frameworks leave that to
  // the backend (NCCL's own tuner).
  if (options.strategy == Strategy::comm) {
    // Computes whose result is all-reduced are cut into parts whose
    // transfers overlap the next part (comm-schedule starts them).
    CommPipelineOptions chunked;
    chunked.topology = options.topology;
    chunked.costParams = options.costParams;
    chunked.backend = options.backend;
    chunked.explain = options.explain;
    pm.addPass(createCommPipeline(chunked));
    CommSelectAlgorithmOptions select;
    select.topology = options.topology;
    select.costParams = options.costParams;
    select.backend = options.backend;
    select.explain = options.explain;
    pm.addPass(createCommSelectAlgorithm(select));
  }
  // Every point-to-point transfer gets its path; on verbs, those the NIC
  // cannot read from GPU memory are staged through pinned host memory.
  CommRouteOptions route;
  route.topology = options.topology;
  route.backend = options.backend;
  route.explain = options.explain;
  pm.addPass(createCommRoute(route));
  CommScheduleOptions schedule;
  schedule.memoryBudget = options.memoryBudget;
  schedule.topology = options.topology;
  schedule.costParams = options.costParams;
  schedule.backend = options.backend;
  schedule.explain = options.explain;
  pm.addPass(createCommSchedule(schedule));
  pm.addPass(createCanonicalizerPass());
}

void mlir::comm::buildLoweringPipeline(OpPassManager &pm,
                                       const LoweringPipelineOptions &options) {
  // A collective the target's backend cannot run (any on cuda-verbs) is
  // lowered through its point-to-point schedule.
  CommDecomposeOptions decompose;
  decompose.backend = getBackend(options.target);
  pm.addPass(createCommDecompose(decompose));
  // Routes written in plans are checked against the backend, and
  // host-staged transfers on verbs get their copies.
  CommRouteOptions route;
  route.backend = decompose.backend;
  route.choose = false;
  pm.addPass(createCommRoute(route));
  pm.addPass(createCommBufferize());
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.hoistStaticAllocs = true;
  outParams.modifyPublicFunctions = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  ConvertCommToEmitCOptions convert;
  convert.target = options.target;
  pm.addPass(createConvertCommToEmitC(convert));
}

/// comm-plan's options for what comm-compile was asked.
static void getPlanningOptions(const CompileOptions &options,
                               PlanningPipelineOptions &planning) {
  planning.topology = options.topology;
  planning.costParams = options.costParams;
  planning.backend = getBackend(options.target);
  planning.strategy = options.strategy;
}

/// What comm-compile checks a program it does not plan with.
static std::unique_ptr<Pass>
createUnplannedCheck(const CompileOptions &options) {
  CommVerifyScheduleOptions verify;
  verify.backend = getBackend(options.target);
  return createCommVerifySchedule(verify);
}

void mlir::comm::buildCompilePipeline(OpPassManager &pm,
                                      const CompileOptions &options) {
  if (!options.topology.empty()) {
    PlanningPipelineOptions planning;
    getPlanningOptions(options, planning);
    buildPlanningPipeline(pm, planning);
  } else {
    // Unplanned, the program is still checked as comm-plan ends: a recv
    // that no rank sends would hang the compiled program.
    pm.addPass(createUnplannedCheck(options));
  }
  LoweringPipelineOptions lowering;
  lowering.target = options.target;
  buildLoweringPipeline(pm, lowering);
}

void mlir::comm::printCompilePipeline(const CompileOptions &options,
                                      llvm::raw_ostream &os) {
  os << "builtin.module(";
  if (!options.topology.empty()) {
    PlanningPipelineOptions planning;
    getPlanningOptions(options, planning);
    os << "comm-plan";
    planning.print(os);
    os << ",";
  } else {
    createUnplannedCheck(options)->printAsTextualPipeline(os);
    os << ",";
  }
  LoweringPipelineOptions lowering;
  lowering.target = options.target;
  os << "comm-lower-to-emitc";
  lowering.print(os);
  os << ")";
}

void mlir::comm::registerPipelines() {
  PassPipelineRegistration<PlanningPipelineOptions>(
      "comm-plan",
      "The planning pipeline: check the program against the topology, "
      "fuse small collectives into buckets, narrow wire types where a "
      "tolerance allows, choose algorithms and protocols with the cost "
      "model, start transfers early and wait late, simplify; or, with "
      "strategy=naive|ddp|horovod|xla, what that framework does",
      buildPlanningPipeline);
  PassPipelineRegistration<LoweringPipelineOptions>(
      "comm-lower-to-emitc",
      "Lower comm on tensors to EmitC calls of the commrt runtime "
      "(comm-decompose of what the target's backend cannot run, comm-route "
      "to check routes and stage host_staged transfers, comm-bufferize, "
      "buffer-results-to-out-params, convert-comm-to-emitc)",
      buildLoweringPipeline);
}
