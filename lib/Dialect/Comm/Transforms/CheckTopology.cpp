//===- CheckTopology.cpp - check a program against its topology -*- C++ -*-===//

#include "comm/Analysis/CollectiveCost.h"
#include "comm/Analysis/TopologyAnalysis.h"
#include "comm/Dialect/Comm/IR/CommOps.h"
#include "comm/Dialect/Comm/Transforms/Passes.h"
#include "comm/Topology/TopologyPrinter.h"
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

void CheckTopologyPass::runOnOperation() {
  ModuleOp module = getOperation();
  FailureOr<std::shared_ptr<const Topology>> loaded =
      getTopologyFor(module, topology);
  if (failed(loaded))
    return signalPassFailure();
  const Topology &hardware = **loaded;
  FailureOr<ProgramRanks> ranks =
      getProgramRanks(module, hardware, getTopologySpec(module, topology));
  if (failed(ranks))
    return signalPassFailure();

  bool failedAny = false;
  module.walk([&](Operation *op) {
    std::optional<CollectiveRequest> request = getCollectiveRequest(op);
    if (!request || request->kind == CollectiveKind::Copy)
      return;
    ++numOpsChecked;
    if (failed(checkRanks(op, *request, *ranks))) {
      failedAny = true;
      return;
    }
    if (!explain)
      return;
    for (auto [source, target] : request->pairs) {
      Path path = hardware.getGPUPath(source, target);
      auto remark = mlir::emitRemark(op->getLoc())
                    << "pair [" << source << ", " << target
                    << "]: " << hardware.getDeviceName(path.src) << " -> "
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
  // It only reads the module: the pass manager need not verify it again.
  markAllAnalysesPreserved();
}
