//===- CheckTopology.cpp - check a program against its topology -*- C++ -*-===//

#include "comm/Analysis/TopologyAnalysis.h"
#include "comm/Topology/TopologyPrinter.h"
#include "comm/Dialect/Comm/IR/CommOps.h"
#include "comm/Dialect/Comm/Transforms/Passes.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir {
namespace comm {
#define GEN_PASS_DEF_COMMCHECKTOPOLOGY
#include "comm/Dialect/Comm/CommPasses.h.inc"
} // namespace comm
} // namespace mlir

using namespace mlir;
using namespace mlir::comm;

namespace {
struct CheckTopologyPass
    : public comm::impl::CommCheckTopologyBase<CheckTopologyPass> {
  using CommCheckTopologyBase::CommCheckTopologyBase;
  void runOnOperation() override;
};
} // namespace

/// The flat [source, target, ...] pairs of a point-to-point op.
static ArrayRef<int64_t> getPairs(Operation *op) {
  if (auto permute = dyn_cast<PermuteOp>(op))
    return permute.getPairs();
  if (auto send = dyn_cast<SendOp>(op))
    return send.getPairs();
  if (auto recv = dyn_cast<RecvOp>(op))
    return recv.getPairs();
  return {};
}

void CheckTopologyPass::runOnOperation() {
  ModuleOp module = getOperation();
  FailureOr<std::shared_ptr<const Topology>> loaded =
      getTopologyFor(module, topology);
  if (failed(loaded))
    return signalPassFailure();
  const Topology &hardware = **loaded;
  std::string spec = getTopologySpec(module, topology);
  uint64_t gpus = hardware.getNumGPUs();
  bool failedAny = false;

  if (std::optional<int64_t> world = getWorldSize(module);
      world && static_cast<uint64_t>(*world) > gpus) {
    module.emitError() << "comm.world_size is " << *world
                       << " but topology '" << spec << "' has " << gpus
                       << " GPUs";
    failedAny = true;
  }

  auto checkRank = [&](Operation *op, int64_t rank) {
    if (rank >= 0 && static_cast<uint64_t>(rank) < gpus)
      return true;
    op->emitError() << "rank " << rank << " is not a GPU of topology '" << spec
                    << "' (" << gpus << " GPUs, ranks 0-" << gpus - 1 << ")";
    failedAny = true;
    return false;
  };

  module.walk([&](Operation *op) {
    if (auto collective = dyn_cast<CollectiveOpInterface>(op)) {
      ++numOpsChecked;
      ReplicaGroupsAttr groups = collective.getReplicaGroups();
      if (groups && !isa<PermuteOp>(op))
        checkRank(op, groups.getMaxRank());
    }
    ArrayRef<int64_t> pairs = getPairs(op);
    if (pairs.empty())
      return;
    if (!isa<PermuteOp>(op))
      ++numOpsChecked;
    for (size_t i = 0; i + 1 < pairs.size(); i += 2) {
      if (!checkRank(op, pairs[i]) || !checkRank(op, pairs[i + 1]))
        return;
      if (!explain)
        continue;
      Path path = hardware.getGPUPath(pairs[i], pairs[i + 1]);
      auto remark = op->emitRemark()
                    << "pair [" << pairs[i] << ", " << pairs[i + 1] << "]: "
                    << hardware.getDeviceName(path.src) << " -> "
                    << hardware.getDeviceName(path.dst) << " "
                    << stringifyPathKind(path.kind) << " ("
                    << describePathKind(path.kind) << ")";
      if (path.kind != PathKind::Local && path.isConnected()) {
        LinkRef bottleneck = hardware.getLink(path.bottleneck);
        remark << ", " << formatBandwidth(path.bandwidthGBps)
               << " bottleneck at " << hardware.getDeviceName(bottleneck.a)
               << " - " << hardware.getDeviceName(bottleneck.b)
               << llvm::formatv(", {0:F2} us", path.latencyUs).str();
      }
    }
  });
  if (failedAny)
    signalPassFailure();
}
