//===- InitAllPasses.cpp - register comm's passes and pipelines -*- C++ -*-===//

#include "comm/InitAllPasses.h"
#include "comm/Conversion/Passes.h"
#include "comm/Dialect/Comm/Transforms/Passes.h"
#include "comm/Pipelines/Pipelines.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Shard/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace {
struct ShardingPropagationOptions
    : public PassPipelineOptions<ShardingPropagationOptions> {
  PassOptions::Option<shard::TraversalOrder> traversal{
      *this, "traversal",
      llvm::cl::desc("Traversal order to use for sharding propagation"),
      llvm::cl::init(shard::TraversalOrder::BackwardForward),
      llvm::cl::values(
          clEnumValN(shard::TraversalOrder::Forward, "forward",
                     "Forward only traversal."),
          clEnumValN(shard::TraversalOrder::Backward, "backward",
                     "backward only traversal."),
          clEnumValN(shard::TraversalOrder::ForwardBackward, "forward-backward",
                     "forward-backward traversal."),
          clEnumValN(shard::TraversalOrder::BackwardForward, "backward-forward",
                     "backward-forward traversal."))};
};
} // namespace

/// Adds `pass`, a pass on functions, to `pm` whatever it is anchored on:
/// upstream's partitioning passes run on func.func, and
/// `comm-opt --sharding-propagation --shard-partition` anchors on the module.
static void addOnFunctions(OpPassManager &pm, std::unique_ptr<Pass> pass,
                           bool reshardInSteps = false) {
  OpPassManager &onFunctions =
      pm.getOpName() == func::FuncOp::getOperationName()
          ? pm
          : pm.nest<func::FuncOp>();
  // Upstream's passes trust the annotations' axes: comm checks them first.
  onFunctions.addPass(comm::createCommCheckSharding());
  // Upstream partitions only the reshards it can do in one step.
  if (reshardInSteps)
    onFunctions.addPass(comm::createCommReshardInSteps());
  onFunctions.addPass(std::move(pass));
}

/// Registers upstream's sharding-propagation and shard-partition under their
/// own names, but usable on a module as well as nested in func.func.
static void registerShardFrontendPasses() {
  PassPipelineRegistration<ShardingPropagationOptions>(
      "sharding-propagation",
      "Upstream's sharding propagation on every function (the shard "
      "frontend's first step)",
      [](OpPassManager &pm, const ShardingPropagationOptions &options) {
        shard::ShardingPropagationOptions upstream;
        upstream.traversal = options.traversal;
        addOnFunctions(pm, shard::createShardingPropagation(upstream));
      });
  PassPipelineRegistration<>(
      "shard-partition",
      "Upstream's SPMD partitioning of every function (after "
      "sharding-propagation, before convert-shard-to-comm)",
      [](OpPassManager &pm) {
        addOnFunctions(pm, shard::createPartition(), /*reshardInSteps=*/true);
      });
}

void mlir::comm::registerAllPasses() {
  mlir::registerTransformsPasses();
  mlir::bufferization::registerBufferResultsToOutParamsPass();
  registerShardFrontendPasses();
  comm::registerCommPasses();
  comm::registerCommConversionPasses();
  comm::registerPipelines();
}
