//===- Pipelines.cpp - the pass pipelines of comm ---------------*- C++ -*-===//

#include "comm/Pipelines/Pipelines.h"
#include "comm/Conversion/Passes.h"
#include "comm/Dialect/Comm/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::comm;

void mlir::comm::buildPlanningPipeline(OpPassManager &pm,
                                       const PlanningPipelineOptions &options) {
  CommCheckTopologyOptions check;
  check.topology = options.topology;
  pm.addPass(createCommCheckTopology(check));
  CommFuseOptions fuse;
  fuse.mode = FuseMode::cost;
  fuse.topology = options.topology;
  fuse.backend = options.backend;
  fuse.explain = options.explain;
  pm.addPass(createCommFuse(fuse));
  CommReducePrecisionOptions precision;
  precision.topology = options.topology;
  precision.backend = options.backend;
  precision.maxRelError = options.maxRelError;
  precision.explain = options.explain;
  pm.addPass(createCommReducePrecision(precision));
  CommSelectAlgorithmOptions select;
  select.topology = options.topology;
  select.backend = options.backend;
  select.explain = options.explain;
  pm.addPass(createCommSelectAlgorithm(select));
  CommScheduleOptions schedule;
  schedule.memoryBudget = options.memoryBudget;
  schedule.explain = options.explain;
  pm.addPass(createCommSchedule(schedule));
  pm.addPass(createCanonicalizerPass());
}

void mlir::comm::buildLoweringPipeline(OpPassManager &pm,
                                       const LoweringPipelineOptions &options) {
  pm.addPass(createCommBufferize());
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.hoistStaticAllocs = true;
  outParams.modifyPublicFunctions = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  ConvertCommToEmitCOptions convert;
  convert.target = options.target;
  pm.addPass(createConvertCommToEmitC(convert));
}

void mlir::comm::buildCompilePipeline(OpPassManager &pm,
                                      const CompileOptions &options) {
  if (!options.topology.empty()) {
    PlanningPipelineOptions planning;
    planning.topology = options.topology;
    planning.backend = getBackend(options.target);
    buildPlanningPipeline(pm, planning);
  }
  LoweringPipelineOptions lowering;
  lowering.target = options.target;
  buildLoweringPipeline(pm, lowering);
}

void mlir::comm::registerPipelines() {
  PassPipelineRegistration<PlanningPipelineOptions>(
      "comm-plan",
      "The planning pipeline: check the program against the topology, "
      "fuse small collectives into buckets, narrow wire types where a "
      "tolerance allows, choose algorithms and protocols with the cost "
      "model, start transfers early and wait late, simplify",
      buildPlanningPipeline);
  PassPipelineRegistration<LoweringPipelineOptions>(
      "comm-lower-to-emitc",
      "Lower comm on tensors to EmitC calls of the commrt runtime "
      "(comm-bufferize, buffer-results-to-out-params, convert-comm-to-emitc)",
      buildLoweringPipeline);
}
