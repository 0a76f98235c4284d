//===- SelectAlgorithm.cpp - algorithms and protocols from the model -*- C++
//-*-===//
//
// comm-select-algorithm: the cost model's fastest (algorithm, protocol) for
// every op, among what the backend realizes, written into its #comm.plan.
// An op reaches the model through the one bridge (getCollectiveRequest), so
// the choice is made on exactly what the simulator will simulate and what
// the lowering will accept.
//
//===----------------------------------------------------------------------===//

#include "comm/Analysis/CollectiveCost.h"
#include "comm/Analysis/TopologyAnalysis.h"
#include "comm/Dialect/Comm/IR/CommOps.h"
#include "comm/Dialect/Comm/IR/EnumNames.h"
#include "comm/Dialect/Comm/Transforms/Passes.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir {
namespace comm {
#define GEN_PASS_DEF_COMMSELECTALGORITHM
#include "comm/Dialect/Comm/CommPasses.h.inc"
} // namespace comm
} // namespace mlir

using namespace mlir;
using namespace mlir::comm;

namespace {
struct SelectAlgorithmPass
    : public comm::impl::CommSelectAlgorithmBase<SelectAlgorithmPass> {
  using CommSelectAlgorithmBase::CommSelectAlgorithmBase;
  void runOnOperation() override;

private:
  /// What the model chooses for an op, and why a forced field could not
  /// apply.
  struct Choice {
    /// Best first; empty where a person's algorithm has no figure and
    /// stays as written, or on `error`.
    SmallVector<Prediction, 4> predictions;
    std::string droppedAlgorithm, droppedProtocol, droppedBoth;
    bool withinNoise = false;
    /// Why the model has nothing for the op.
    std::string error;
  };
  LogicalResult plan(Operation *op, const CostModel &model);
  /// The choice for `request`, an op `opName` whose plan wrote `written`
  /// and `writtenProtocol`.
  Choice choose(CollectiveRequest request, StringRef opName,
                std::optional<Algorithm> written,
                std::optional<Protocol> writtenProtocol,
                const CostModel &model);

  /// Choices by op name, attributes and operand and result types.
  llvm::DenseMap<std::tuple<const void *, Attribute, Type>, Choice> choices;
  /// The ops whose plan this run wrote or removed (it changes nothing else).
  SmallVector<Operation *> changed;

  std::optional<Algorithm> forcedAlgorithm;
  std::optional<Protocol> forcedProtocol;
};
} // namespace

/// Whether the runtime runs `kind` as a schedule that takes channels and a
/// chunk size (commrt_collective_planned).
static bool takesChannels(CollectiveKind kind) {
  switch (kind) {
  case CollectiveKind::AllReduce:
  case CollectiveKind::ReduceScatter:
  case CollectiveKind::AllGather:
  case CollectiveKind::Broadcast:
  case CollectiveKind::Reduce:
    return true;
  default:
    return false;
  }
}

/// Reads a forced field, spelled as in the IR (the dialect's ODS enum).
template <typename EnumT>
static LogicalResult parseForced(ModuleOp module, StringRef option,
                                 StringRef text, std::optional<EnumT> &forced) {
  if (text.empty())
    return success();
  forced = symbolizeEnum<EnumT>(text);
  if (forced)
    return success();
  return emitError(module.getLoc())
         << "comm-select-algorithm: unknown " << option << " '" << text
         << "'; expected one of " << getEnumNames<EnumT>();
}

static std::string describe(const Prediction &p) {
  return llvm::formatv("{0} {1:F2} us", describeAlgorithm(p), p.timeUs).str();
}

SelectAlgorithmPass::Choice
SelectAlgorithmPass::choose(CollectiveRequest request, StringRef opName,
                            std::optional<Algorithm> written,
                            std::optional<Protocol> writtenProtocol,
                            const CostModel &model) {
  CollectiveKind kind = request.kind;
  CollectiveRequest free = request;
  // Forced fields apply where they can; where the model finds nothing with
  // them (a protocol the algorithm has no form for), it chooses freely.
  // Why a forced field could not apply, said as a warning: the user asked
  // for it. Each field's reason apart; `droppedBoth` where the model found
  // nothing with the two together.
  Choice choice;
  std::string &droppedAlgorithm = choice.droppedAlgorithm,
              &droppedProtocol = choice.droppedProtocol,
              &droppedBoth = choice.droppedBoth;
  bool takesAlgorithm = !getRealizedAlgorithms(kind, backend).empty();
  if (!written && forcedAlgorithm && takesAlgorithm) {
    if (isRealized(kind, *forcedAlgorithm, backend))
      request.algorithm = forcedAlgorithm;
    else
      droppedAlgorithm =
          ("the " + stringifyBackend(backend) + " backend does not run " +
           stringifyAlgorithm(*forcedAlgorithm) + " for " + opName)
              .str();
  }
  // MPI, verbs and the processes of a host have no LL or LL128: the model
  // is not asked to time them there.
  if (forcedProtocol && !writtenProtocol &&
      *forcedProtocol != Protocol::simple &&
      (backend != Backend::nccl || model.getTopology().hasProcessRanks()))
    droppedProtocol =
        model.getTopology().hasProcessRanks()
            ? "the processes of a host send through MPI, which has no "
              "protocols"
            : "the " + stringifyBackend(backend).str() +
                  " backend has no protocols; LL and LL128 are NCCL's";
  else if (!writtenProtocol && forcedProtocol)
    request.protocol = forcedProtocol;
  llvm::Expected<SmallVector<Prediction, 4>> predictions =
      model.predictAll(request);
  if (!predictions) {
    std::string why = llvm::toString(predictions.takeError());
    if ((request.algorithm && !written) ||
        (request.protocol && !writtenProtocol))
      droppedBoth = why;
    predictions = model.predictAll(free);
  }
  if (!predictions) {
    // An algorithm a person wrote that the model has no figure for (a
    // schedule the host was not measured with) stays as written.
    if (written)
      llvm::consumeError(predictions.takeError());
    else
      choice.error = llvm::toString(predictions.takeError());
    return choice;
  }
  // Where the model predicts the backend's own collective apart from the
  // schedules a plan can name (MPI among the processes of a host; NCCL's
  // own ring, tree and NVLS in any protocol, where the runtime's schedules
  // send in the protocol NCCL gives point-to-point transfers), it is one
  // more candidate: the plan names a schedule only where one is predicted
  // faster, by more than the measurements' noise where the times are
  // measured.
  if (!written && !request.algorithm) {
    CollectiveRequest own = free;
    own.protocol = request.protocol;
    if (std::optional<Prediction> native = getOwnCollectiveChoice(
            std::move(own), model, backend, predictions->front().timeUs,
            &choice.withinNoise))
      predictions->insert(predictions->begin(), *native);
  }
  choice.predictions = std::move(*predictions);
  return choice;
}

LogicalResult SelectAlgorithmPass::plan(Operation *op, const CostModel &model) {
  std::optional<CollectiveRequest> request = getCollectiveRequest(op);
  if (!request || request->kind == CollectiveKind::Copy)
    return success();
  CollectiveKind kind = request->kind;
  if (!isCarriedBy(kind, backend)) {
    ++numOpsNotCarried;
    return success();
  }
  // An empty tensor moves nothing: there is nothing to choose.
  if (request->bytes == 0 && kind != CollectiveKind::Barrier) {
    if (explain)
      mlir::emitRemark(op->getLoc())
          << "comm-select-algorithm: moves 0 bytes; no plan";
    return success();
  }
  auto old = op->getAttrOfType<PlanAttr>("plan");
  std::optional<Algorithm> written = old ? old.getAlgorithm() : std::nullopt;
  std::optional<Protocol> writtenProtocol =
      old ? old.getProtocol() : std::nullopt;
  numFieldsKept += (written ? 1 : 0) + (writtenProtocol ? 1 : 0) +
                   (old && old.getChannels() ? 1 : 0) +
                   (old && old.getChunkBytes() ? 1 : 0);
  // A hand-written algorithm the backend does not run is the lowering's
  // error to report, with its location.
  if (written && !isRealized(kind, *written, backend))
    return success();

  request->backend = backend;
  request->native = false;
  // The chunk-bytes option, where the plan wrote none, is what the
  // schedule will run with.
  if (!(old && old.getChunkBytes()) && chunkBytes > 0 && takesChannels(kind))
    request->chunkBytes = static_cast<uint64_t>(chunkBytes);
  // Ops of one name, attributes and types ask the model the same
  // question: a block of 100,000 collectives holds few distinct ones.
  auto signature = FunctionType::get(op->getContext(), op->getOperandTypes(),
                                     op->getResultTypes());
  auto [it, inserted] = choices.try_emplace(
      std::make_tuple(op->getName().getAsOpaquePointer(),
                      op->getAttrDictionary(), Type(signature)));
  if (inserted)
    it->second = choose(std::move(*request), op->getName().getStringRef(),
                        written, writtenProtocol, model);
  const Choice &choice = it->second;
  if (!choice.error.empty())
    return op->emitError() << "comm-select-algorithm: " << choice.error;
  if (choice.predictions.empty())
    return success();
  ArrayRef<Prediction> predictions = choice.predictions;
  const std::string &droppedAlgorithm = choice.droppedAlgorithm;
  const std::string &droppedBoth = choice.droppedBoth;
  std::string droppedProtocol = choice.droppedProtocol;
  bool withinNoise = choice.withinNoise;
  const Prediction &best = predictions.front();
  // A protocol forced on the runtime's own schedule cannot apply on NCCL:
  // its steps are ncclSend/ncclRecv, which take none.
  if (droppedProtocol.empty() && droppedBoth.empty() && forcedProtocol &&
      !writtenProtocol && !best.native &&
      isRuntimeSchedule(kind, best.algorithm, backend) &&
      backend == Backend::nccl && best.protocol != *forcedProtocol)
    droppedProtocol = ("the runtime's " + stringifyAlgorithm(best.algorithm) +
                       " schedule sends with ncclSend and ncclRecv, whose "
                       "protocol NCCL chooses by size")
                          .str();
  if (!droppedAlgorithm.empty() || !droppedProtocol.empty() ||
      !droppedBoth.empty()) {
    InFlightDiagnostic warning = op->emitWarning() << "comm-select-algorithm:";
    if (!droppedBoth.empty()) {
      if (forcedAlgorithm && !written)
        warning << " algorithm=" << stringifyAlgorithm(*forcedAlgorithm);
      if (forcedProtocol && !writtenProtocol)
        warning << " protocol=" << stringifyProtocol(*forcedProtocol);
      warning << " does not apply here (" << droppedBoth << ");";
    }
    if (!droppedAlgorithm.empty())
      warning << " algorithm=" << stringifyAlgorithm(*forcedAlgorithm)
              << " does not apply here (" << droppedAlgorithm << ");";
    if (!droppedProtocol.empty())
      warning << " protocol=" << stringifyProtocol(*forcedProtocol)
              << " does not apply here (" << droppedProtocol << ");";
    warning << " chose " << describe(best);
  }

  // A barrier takes no algorithm: its prediction is the backend's own.
  std::optional<Algorithm> chosen = written;
  if (!chosen && !best.native && isRealized(kind, best.algorithm, backend))
    chosen = best.algorithm;
  // A protocol means nothing to the backend's own collective, to the
  // runtime's schedules (whose sends and receives NCCL gives the protocol
  // it chooses by size), to a measured schedule, to any transfer among the
  // processes of a host or to a backend other than NCCL (MPI and verbs
  // have no LL): it is written where NCCL's own collective runs the
  // algorithm the plan names (nvls) or a barrier.
  std::optional<Protocol> protocolToWrite = writtenProtocol;
  if (!protocolToWrite && !best.native && !best.measured &&
      !model.getTopology().hasProcessRanks() && backend == Backend::nccl &&
      !(chosen && isRuntimeSchedule(kind, *chosen, backend)))
    protocolToWrite = best.protocol;
  std::optional<int64_t> planChannels = old ? old.getChannels() : std::nullopt;
  std::optional<int64_t> planChunk = old ? old.getChunkBytes() : std::nullopt;
  if (chosen && takesChannels(kind)) {
    if (!planChannels && channels > 0)
      planChannels = channels;
    if (!planChunk && chunkBytes > 0)
      planChunk = chunkBytes;
    // A pipelined schedule runs in the chunks the model timed it with.
    if (!planChunk && !best.native && best.algorithm == *chosen &&
        best.chunkBytes > 0)
      planChunk = static_cast<int64_t>(best.chunkBytes);
  }
  PlanAttr updated =
      getPlanWith(op->getContext(), old, [&](PlanFields &fields) {
        fields.algorithm = chosen;
        fields.protocol = protocolToWrite;
        fields.channels = planChannels;
        fields.chunkBytes = planChunk;
      });
  bool empty =
      !chosen && !protocolToWrite && !planChannels && !planChunk &&
      !(old && (old.getPrecision() || old.getRoute() || old.getStream()));
  if (empty) {
    if (old) {
      op->removeAttr("plan");
      changed.push_back(op);
      ++numOpsPlanned;
    }
  } else if (updated != old) {
    op->setAttr("plan", updated);
    // The channels and chunk-bytes options may cut this buffer past what
    // the runtime runs: the verifier says so at the op, once the walk is
    // done. (The model's own chunks stay far below the limit.)
    changed.push_back(op);
    ++numOpsPlanned;
  }

  if (explain) {
    InFlightDiagnostic remark = mlir::emitRemark(op->getLoc())
                                << "comm-select-algorithm: " << describe(best)
                                << " on the " << stringifyBackend(backend)
                                << " backend";
    remark << llvm::formatv(" (bound {0:F2} us, {1:P0} of it)", best.boundUs,
                            best.efficiency)
                  .str();
    if (!best.bottleneck.empty())
      remark << "; limited by " << best.bottleneck;
    if (best.native && withinNoise)
      remark << llvm::formatv("; the backend's own collective: no schedule "
                              "is predicted more than {0:P0} faster (the "
                              "measurements' noise)",
                              HostProfile::kNoise)
                    .str();
    else if (best.native)
      remark << "; the backend's own collective beats every schedule";
    for (const Prediction &next : llvm::drop_begin(predictions))
      if (next.native != best.native || next.algorithm != best.algorithm ||
          next.protocol != best.protocol) {
        remark << "; next best " << describe(next);
        break;
      }
    // What the op carries now, which is less than the prediction names
    // where the backend takes no protocol or the op no algorithm (a
    // barrier runs the backend's own).
    if (auto plan = op->getAttrOfType<PlanAttr>("plan"))
      remark << "; its plan: " << plan;
    else
      remark << "; it keeps no plan (the backend's own "
             << op->getName().stripDialect() << " runs)";
  }
  return success();
}

void SelectAlgorithmPass::runOnOperation() {
  ModuleOp module = getOperation();
  if (failed(parseForced(module, "algorithm", algorithm, forcedAlgorithm)) ||
      failed(parseForced(module, "protocol", protocol, forcedProtocol)))
    return signalPassFailure();
  if (channels < 0 || channels > getMaxPlanChannels() || chunkBytes < 0) {
    emitError(module.getLoc())
        << "comm-select-algorithm: channels must be in [0, "
        << getMaxPlanChannels()
        << "] and chunk-bytes non-negative, got channels="
        << static_cast<int64_t>(channels)
        << " chunk-bytes=" << static_cast<int64_t>(chunkBytes);
    return signalPassFailure();
  }
  FailureOr<std::shared_ptr<const Topology>> loaded =
      getTopologyFor(module, topology);
  FailureOr<CostParams> params = getCostParamsFor(module, costParams);
  if (failed(loaded) || failed(params))
    return signalPassFailure();
  CostModel model(**loaded, *params);
  choices.clear();
  changed.clear();
  WalkResult result = module.walk([&](Operation *op) -> WalkResult {
    return failed(plan(op, model)) ? WalkResult::interrupt()
                                   : WalkResult::advance();
  });
  if (result.wasInterrupted() || failed(verifyOpsWithNewAttributes(changed)))
    return signalPassFailure();
  markAllAnalysesPreserved();
}
