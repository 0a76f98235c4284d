//===- Route.cpp - the path of every point-to-point transfer ----*- C++ -*-===//
//
// comm-route: each send, recv and permute gets the route its data takes on
// the topology for the backend (NCCL's transport rules, or the NIC for
// verbs); a route written by hand is checked; a host_staged transfer on
// verbs is carried out by copies through pinned host memory.
//
//===----------------------------------------------------------------------===//

#include "comm/Analysis/TopologyAnalysis.h"
#include "comm/CostModel/CostModel.h"
#include "comm/Dialect/Comm/IR/CommAlgorithms.h"
#include "comm/Dialect/Comm/IR/CommOps.h"
#include "comm/Dialect/Comm/Transforms/Passes.h"
#include "comm/Topology/Topology.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir {
namespace comm {
#define GEN_PASS_DEF_COMMROUTE
#include "comm/Dialect/Comm/CommPasses.h.inc"
} // namespace comm
} // namespace mlir

using namespace mlir;
using namespace mlir::comm;

namespace {
/// The route of one pair and why.
struct PairRoute {
  int64_t source = 0, target = 0;
  Route route = Route::nvlink;
  std::string why;
};

struct RoutePass : public comm::impl::CommRouteBase<RoutePass> {
  using CommRouteBase::CommRouteBase;
  void runOnOperation() override;

private:
  LogicalResult route(Operation *op, const Topology *topology);
  void stage(Operation *op);
  /// Whether this run routed or staged anything (what it leaves alone
  /// need not be verified again).
  bool changed = false;
};
} // namespace

/// The route `backend` takes between the GPUs of two ranks, or an error
/// message when they are not connected.
static FailureOr<PairRoute> getPairRoute(const Topology &topology,
                                         Backend backend, int64_t source,
                                         int64_t target, std::string &error) {
  PairRoute result{source, target, Route::nvlink, ""};
  DeviceId a = topology.getGPU(source), b = topology.getGPU(target);
  if (backend == Backend::verbs) {
    // Every byte crosses the NIC, also between GPUs of one machine.
    bool gdrA = topology.hasGPUDirect(a), gdrB = topology.hasGPUDirect(b);
    result.route = gdrA && gdrB ? Route::gdr : Route::host_staged;
    result.why = gdrA && gdrB
                     ? "the verbs backend moves data through the NIC, and "
                       "both GPUs' NICs can reach their memory (GPUDirect "
                       "RDMA)"
                     : llvm::formatv("the verbs backend moves data through "
                                     "the NIC, and {0}'s cannot reach its "
                                     "memory (no GPUDirect RDMA)",
                                     topology.getDeviceName(gdrA ? b : a))
                           .str();
    return result;
  }
  Path path = topology.getPath(a, b);
  std::string kind =
      (stringifyPathKind(path.kind) + " (" + describePathKind(path.kind) + ")")
          .str();
  if (path.kind == PathKind::Disconnected) {
    error = llvm::formatv("rank {0} and rank {1} have no path between their "
                          "GPUs on the topology",
                          source, target)
                .str();
    return failure();
  }
  // The route is the cost model's (getNcclRoute: the simulator times each
  // pair by it); here is why.
  result.route = getNcclRoute(path);
  switch (result.route) {
  case Route::nvlink:
    result.why = "the path is " + kind;
    break;
  case Route::pcie:
    result.why =
        "the path is " + kind + ", within NCCL's default NCCL_P2P_LEVEL (PXB)";
    break;
  case Route::host_staged:
    result.why =
        "the path is " + kind +
        (path.kind == PathKind::Net
             ? ", without GPUDirect RDMA at both ends: the data is staged "
               "through host memory"
             : ", beyond NCCL's default NCCL_P2P_LEVEL (PXB): NCCL stages "
               "it through host memory");
    break;
  case Route::gdr:
    result.why = "the path is " + kind + ", with GPUDirect RDMA at both ends";
    break;
  }
  return result;
}

LogicalResult RoutePass::route(Operation *op, const Topology *topology) {
  auto p2p = cast<PointToPointOpInterface>(op);
  MLIRContext *ctx = op->getContext();
  StringRef opName = op->getName().stripDialect();
  PlanAttr plan = p2p.getPlanAttr();
  bool hasWritten = plan && plan.getRoute();
  Route written = hasWritten ? *plan.getRoute() : Route::nvlink;
  if (hasWritten && !isRouteRealized(written, backend)) {
    std::string message;
    llvm::raw_string_ostream os(message);
    describeUnrealizedRoute(opName, written, backend, os);
    return op->emitError() << "comm-route: " << message;
  }
  if (!choose || !topology || backend == Backend::mpi) {
    if (hasWritten && written == Route::host_staged &&
        backend == Backend::verbs)
      stage(op);
    return success();
  }

  // The route of every pair; the op takes its farthest pair's.
  ArrayRef<int64_t> flat = p2p.getSourceTargetPairs();
  SmallVector<PairRoute> pairs;
  for (size_t i = 0; i + 1 < flat.size(); i += 2) {
    if (flat[i] == flat[i + 1])
      continue; // a copy on the rank
    for (int64_t rank : {flat[i], flat[i + 1]})
      if (rank < 0 || static_cast<uint64_t>(rank) >= topology->getNumGPUs())
        return op->emitError()
               << "comm-route: rank " << rank << " is not a GPU of the "
               << topology->getNumGPUs() << "-GPU topology";
    std::string error;
    FailureOr<PairRoute> pair =
        getPairRoute(*topology, backend, flat[i], flat[i + 1], error);
    if (failed(pair))
      return op->emitError() << "comm-route: " << error;
    pairs.push_back(std::move(*pair));
  }
  if (pairs.empty()) {
    if (explain)
      mlir::emitRemark(op->getLoc())
          << "comm-route: no route: every pair is a rank with "
             "itself (a local copy)";
    return success();
  }
  const PairRoute *farthest = &pairs.front();
  for (const PairRoute &pair : pairs)
    if (getRouteDistance(pair.route) > getRouteDistance(farthest->route))
      farthest = &pair;

  if (hasWritten) {
    if (backend == Backend::nccl && written != farthest->route)
      return op->emitError()
             << "comm-route: plan route '" << stringifyRoute(written)
             << "' of comm." << opName << " is not the one NCCL takes: "
             << "rank " << farthest->source << " -> rank " << farthest->target
             << " goes by '" << stringifyRoute(farthest->route) << "' ("
             << farthest->why
             << "), and NCCL chooses its transport itself; remove the route "
                "or use the verbs backend";
    // On verbs, host_staged carries any pair; gdr needs it at every pair.
    for (const PairRoute &pair : pairs)
      if (getRouteDistance(pair.route) > getRouteDistance(written))
        return op->emitError()
               << "comm-route: plan route '" << stringifyRoute(written)
               << "' of comm." << opName << " cannot carry rank " << pair.source
               << " -> rank " << pair.target << ": " << pair.why
               << " (expected '" << stringifyRoute(pair.route) << "')";
  } else {
    op->setAttr("plan", getPlanWith(ctx, plan, [&](PlanFields &fields) {
                  fields.route = farthest->route;
                }));
    ++numRouted;
    changed = true;
  }
  Route chosen = hasWritten ? written : farthest->route;
  if (explain)
    mlir::emitRemark(op->getLoc())
        << "comm-route: " << (hasWritten ? "kept" : "chose") << " route "
        << stringifyRoute(chosen) << " (farthest pair rank " << farthest->source
        << " -> rank " << farthest->target << ": " << farthest->why << ")";
  if (chosen == Route::host_staged && backend == Backend::verbs)
    stage(op);
  return success();
}

void RoutePass::stage(Operation *op) {
  MLIRContext *ctx = op->getContext();
  OpBuilder builder(op);
  Location loc = op->getLoc();
  auto hbm = MemorySpaceAttr::get(ctx, MemorySpace::hbm);
  auto pinned = MemorySpaceAttr::get(ctx, MemorySpace::pinned_host);
  bool staged = false;
  // The sender's tensor goes to pinned host memory first, unless it is
  // there already: a copy out of GPU memory, or a staged receive (whose
  // copy to the GPU this send then does not need).
  auto stageInput = [&](OpOperand &input) {
    if (getRecordedSpace(input.get()).value_or(MemorySpace::hbm) !=
        MemorySpace::hbm)
      return;
    if (auto copy = input.get().getDefiningOp<CopyOp>()) {
      if (copy.getDst() != MemorySpace::hbm)
        return;
      if (copy.getSrc() != MemorySpace::hbm) {
        input.set(copy.getInput());
        if (copy->use_empty())
          copy->erase();
        staged = true;
        return;
      }
    }
    Value host = CopyOp::create(builder, loc, input.get().getType(),
                                input.get(), hbm, pinned, PlanAttr());
    input.set(host);
    staged = true;
  };
  // The receiver's tensor arrives in pinned host memory (comm.space, which
  // comm-bufferize allocates it in) and is copied to the GPU.
  auto stageResult = [&](Value result) {
    if (op->hasAttr(CommDialect::getSpaceAttrName()))
      return;
    op->setAttr(CommDialect::getSpaceAttrName(), pinned);
    builder.setInsertionPointAfter(op);
    auto device = CopyOp::create(builder, loc, result.getType(), result, pinned,
                                 hbm, PlanAttr());
    result.replaceAllUsesExcept(device.getResult(), device);
    staged = true;
  };
  if (auto send = dyn_cast<SendOp>(op))
    stageInput(send.getInputMutable());
  else if (auto recv = dyn_cast<RecvOp>(op))
    stageResult(recv.getResult());
  else if (auto permute = dyn_cast<PermuteOp>(op)) {
    stageInput(permute.getInputMutable());
    stageResult(permute.getResult());
  }
  if (staged) {
    ++numStaged;
    changed = true;
  }
}

void RoutePass::runOnOperation() {
  ModuleOp module = getOperation();
  std::shared_ptr<const Topology> loaded;
  if (choose && backend != Backend::mpi) {
    FailureOr<std::shared_ptr<const Topology>> found =
        getTopologyFor(module, topology);
    if (failed(found))
      return signalPassFailure();
    loaded = *found;
    if (loaded->hasProcessRanks()) {
      if (explain)
        mlir::emitRemark(module.getLoc())
            << "comm-route: the ranks are processes on a "
               "host: there is no GPU memory to route";
      loaded = nullptr;
    }
  }
  SmallVector<Operation *> transfers;
  module.walk([&](Operation *op) {
    if (isa<SendOp, RecvOp, PermuteOp>(op))
      transfers.push_back(op);
  });
  changed = false;
  for (Operation *op : transfers)
    if (failed(route(op, loaded.get())))
      return signalPassFailure();
  if (!changed)
    markAllAnalysesPreserved();
}
