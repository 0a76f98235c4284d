//===- ReducePrecision.cpp - narrower wire types where allowed --*- C++ -*-===//
//
// comm-reduce-precision: f32 data travels as bf16 (or f16) when the error
// the narrower type adds, bounded for what the op does on the wire, fits the
// tolerance the program states, and the cost model predicts the transfer
// faster with the conversions included.
//
//===----------------------------------------------------------------------===//

#include "comm/Analysis/CollectiveCost.h"
#include "comm/Analysis/TopologyAnalysis.h"
#include "comm/Dialect/Comm/IR/CommOps.h"
#include "comm/Dialect/Comm/Transforms/Passes.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>
#include <tuple>

namespace mlir {
namespace comm {
#define GEN_PASS_DEF_COMMREDUCEPRECISION
#include "comm/Dialect/Comm/CommPasses.h.inc"
} // namespace comm
} // namespace mlir

using namespace mlir;
using namespace mlir::comm;

namespace {
struct ReducePrecisionPass
    : public comm::impl::CommReducePrecisionBase<ReducePrecisionPass> {
  using CommReducePrecisionBase::CommReducePrecisionBase;
  void runOnOperation() override;

private:
  /// A narrower wire type for `op` and the error bound it adds.
  struct Narrowing {
    FloatType wire;
    double bound;
  };
  /// Decides whether `op`'s data travels narrower under `tolerance` (0:
  /// none stated): std::nullopt to keep it, failure on a cost model error.
  FailureOr<std::optional<Narrowing>> decide(Operation *op, double tolerance,
                                             const CostModel &model,
                                             const Topology &topology);
  void apply(Operation *op, const Narrowing &narrowing);
};

/// The comm.send and comm.recv ops of a module that may meet on the wire:
/// those sharing a (source, target, tag) message, transitively. Both ends
/// of a message must use one wire type.
struct Transfers {
  explicit Transfers(ModuleOp module);
  /// The ends of the transfers `op` belongs to; just `op` for an op that
  /// is no send or receive.
  SmallVector<Operation *, 2> getEnds(Operation *op) const;

private:
  llvm::EquivalenceClasses<Operation *> classes;
};
} // namespace

Transfers::Transfers(ModuleOp module) {
  std::map<std::tuple<int64_t, int64_t, int64_t>, Operation *> byMessage;
  module.walk([&](Operation *op) {
    if (!isa<SendOp, RecvOp>(op))
      return;
    auto p2p = cast<PointToPointOpInterface>(op);
    classes.insert(op);
    ArrayRef<int64_t> pairs = p2p.getSourceTargetPairs();
    int64_t tag = p2p.getTransferTag().value_or(0);
    for (size_t i = 0; i + 1 < pairs.size(); i += 2) {
      auto [it, inserted] =
          byMessage.insert({{pairs[i], pairs[i + 1], tag}, op});
      if (!inserted)
        classes.unionSets(it->second, op);
    }
  });
}

SmallVector<Operation *, 2> Transfers::getEnds(Operation *op) const {
  if (!classes.contains(op))
    return {op};
  return llvm::to_vector<2>(classes.members(op));
}

/// The tolerance of `op`: its own comm.max_rel_error, else the nearest
/// enclosing op's, else `fallback` (0: none).
static double getTolerance(Operation *op, double fallback) {
  for (Operation *scope = op; scope; scope = scope->getParentOp())
    if (auto value = scope->getAttrOfType<FloatAttr>(
            CommDialect::getMaxRelErrorAttrName()))
      return value.getValueAsDouble();
  return fallback;
}

/// γ(k) = k·u / (1 - k·u): the bound of k roundings at unit roundoff u
/// (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., §3.1).
static double gamma(double k, double u) {
  double ku = k * u;
  return ku < 1 ? ku / (1 - ku) : 1;
}

/// The error bound of moving `request`'s data at unit roundoff `u`, or
/// std::nullopt when a narrower type must not be used.
static std::optional<double>
getErrorBound(const CollectiveRequest &request,
              std::optional<ReductionKind> reduction, double u) {
  double n = request.groups.empty() ? 2 : request.groups.front().size();
  if (!reduction)
    return u; // moved, not combined: one rounding
  switch (*reduction) {
  case ReductionKind::sum:
    return gamma(n, u);
  case ReductionKind::avg:
    return gamma(n + 1, u);
  case ReductionKind::prod:
    return gamma(2 * n - 1, u);
  default:
    // min and max would no longer return one of the contributions; the
    // bitwise reductions take integers.
    return std::nullopt;
  }
}

/// Time to convert what a rank sends from f32 to a 2-byte type and what it
/// receives back: each kernel reads one and writes the other (6 bytes of
/// HBM traffic per element), and each costs a launch.
static double getConversionUs(const Topology &topology, double sentBytes,
                              double receivedBytes) {
  const Device &gpu = topology.getDevice(topology.getGPU(0));
  double hbm = getMemoryGBps(gpu);
  double moved = 1.5 * (sentBytes + receivedBytes);
  return 2 * 3.0 + moved / (hbm * 1e3);
}

/// The element type of the data `op` moves between ranks; null for ops
/// that move none (copies stay on one rank, barriers carry no data).
static Type getMovedElementType(Operation *op) {
  std::optional<CollectiveRequest> request = getCollectiveRequest(op);
  if (!request || request->kind == CollectiveKind::Copy ||
      request->kind == CollectiveKind::Barrier)
    return {};
  if (auto collective = dyn_cast<CollectiveOpInterface>(op))
    return collective.getCommElementType();
  if (auto p2p = dyn_cast<PointToPointOpInterface>(op))
    return cast<ShapedType>(p2p.getTransferType()).getElementType();
  return {};
}

/// Whether comm-reduce-precision considers `op` at all: f32 data that
/// moves between ranks.
static bool isCandidate(Operation *op) {
  Type element = getMovedElementType(op);
  return element && element.isF32();
}

static bool hasWrittenPrecision(Operation *op) {
  auto plan = op->getAttrOfType<PlanAttr>("plan");
  return plan && plan.getPrecision();
}

/// A bound or tolerance in a message: two significant digits.
static std::string formatBound(double value) {
  return llvm::formatv("{0}", llvm::format("%.2g", value)).str();
}

/// A precision a person wrote is kept, but one that breaks the tolerance
/// in force at `op` gets a warning saying by how much (it was silent, and
/// the harness then checked the results at the written type's rounding).
static void warnOnWrittenPrecision(Operation *op, double tolerance) {
  auto plan = op->getAttrOfType<PlanAttr>("plan");
  auto wire = dyn_cast_or_null<FloatType>(plan ? plan.getPrecision() : Type());
  auto data = dyn_cast_or_null<FloatType>(getMovedElementType(op));
  if (tolerance <= 0 || !wire || !data ||
      wire.getFPMantissaWidth() >= data.getFPMantissaWidth() ||
      op->hasAttr(CommDialect::getErrorBoundAttrName()))
    return;
  std::optional<ReductionKind> reduction;
  if (auto collective = dyn_cast<CollectiveOpInterface>(op))
    reduction = collective.getReduction();
  // min and max of rounded values are the rounded min and max: one
  // rounding (the planner itself does not narrow them, as they would no
  // longer return one of the contributions).
  double u = std::ldexp(1.0, -int(wire.getFPMantissaWidth()));
  double bound =
      getErrorBound(*getCollectiveRequest(op), reduction, u).value_or(u);
  if (bound > tolerance)
    op->emitWarning() << "comm-reduce-precision: the plan's precision " << wire
                      << ", written by hand, bounds the error at "
                      << formatBound(bound) << ", above the tolerance "
                      << formatBound(tolerance)
                      << " in force here; kept as written";
}

FailureOr<std::optional<ReducePrecisionPass::Narrowing>>
ReducePrecisionPass::decide(Operation *op, double tolerance,
                            const CostModel &model, const Topology &topology) {
  std::optional<CollectiveRequest> request = getCollectiveRequest(op);
  std::optional<ReductionKind> reduction;
  double sent = request->bytes, received = request->bytes;
  if (auto collective = dyn_cast<CollectiveOpInterface>(op)) {
    reduction = collective.getReduction();
    sent = collective.getBytesSentPerRank();
    received = collective.getBytesReceivedPerRank();
  }
  if (tolerance <= 0)
    return std::optional<Narrowing>();

  // Narrower types that meet the tolerance, the range-safe one first.
  MLIRContext *ctx = op->getContext();
  SmallVector<std::pair<FloatType, double>, 2> candidates;
  if (auto bound = getErrorBound(*request, reduction, 0x1p-8);
      bound && *bound <= tolerance)
    candidates.push_back({BFloat16Type::get(ctx), *bound});
  else if (auto bound = getErrorBound(*request, reduction, 0x1p-11);
           allowF16 && bound && *bound <= tolerance)
    candidates.push_back({Float16Type::get(ctx), *bound});
  if (candidates.empty()) {
    ++numOpsTooTight;
    if (explain) {
      std::optional<double> bf16 = getErrorBound(*request, reduction, 0x1p-8);
      InFlightDiagnostic remark = mlir::emitRemark(op->getLoc())
                                  << "comm-reduce-precision: kept f32: ";
      if (!bf16)
        remark << stringifyReductionKind(*reduction)
               << " in a narrower type would not return one of the "
                  "contributions";
      else
        remark << llvm::formatv("bf16 bounds the error at {0:e} > {1:e} "
                                "allowed",
                                *bf16, tolerance)
                      .str();
    }
    return std::optional<Narrowing>();
  }
  auto [wire, bound] = candidates.front();

  // Worth it only if the transfer gains more than the conversions cost.
  // A collective the backend does not carry (any on verbs) becomes its
  // point-to-point schedule (comm-decompose, later in comm-plan): it is
  // timed as those transfers would run it on MPI.
  request->backend =
      isCarriedBy(request->kind, backend) ? backend : Backend::mpi;
  request->native = !request->algorithm;
  llvm::Expected<Prediction> full = model.predict(*request);
  if (!full) {
    op->emitError() << "comm-reduce-precision: "
                    << llvm::toString(full.takeError());
    return failure();
  }
  CollectiveRequest narrowed = *request;
  narrowed.bytes = request->bytes / request->elementBytes * 2;
  narrowed.elementBytes = 2;
  llvm::Expected<Prediction> small = model.predict(narrowed);
  if (!small) {
    op->emitError() << "comm-reduce-precision: "
                    << llvm::toString(small.takeError());
    return failure();
  }
  double conversion = getConversionUs(topology, sent, received);
  double narrowUs = small->timeUs + conversion;
  if (narrowUs >= full->timeUs) {
    ++numOpsNotFaster;
    if (explain)
      mlir::emitRemark(op->getLoc()) << llvm::formatv(
          "comm-reduce-precision: kept f32: {0} would take {1:F2} us "
          "({2:F2} us on the wire + {3:F2} us converting) against {4:F2} us",
          wire, narrowUs, small->timeUs, conversion, full->timeUs);
    return std::optional<Narrowing>();
  }

  if (explain)
    mlir::emitRemark(op->getLoc()) << llvm::formatv(
        "comm-reduce-precision: {0} on the wire, error bound {1:e} <= {2:e} "
        "allowed; {3:F2} us ({4:F2} us on the wire + {5:F2} us converting) "
        "instead of {6:F2} us",
        wire, bound, tolerance, narrowUs, small->timeUs, conversion,
        full->timeUs);
  return std::optional<Narrowing>(Narrowing{wire, bound});
}

void ReducePrecisionPass::apply(Operation *op, const Narrowing &narrowing) {
  MLIRContext *ctx = op->getContext();
  op->setAttr("plan", getPlanWith(ctx, op->getAttrOfType<PlanAttr>("plan"),
                                  [&](PlanFields &fields) {
                                    fields.precision = narrowing.wire;
                                  }));
  op->setAttr(CommDialect::getErrorBoundAttrName(),
              FloatAttr::get(Float64Type::get(ctx), narrowing.bound));
  ++numOpsNarrowed;
}

void ReducePrecisionPass::runOnOperation() {
  ModuleOp module = getOperation();
  if (!(maxRelError >= 0 && maxRelError < 1)) { // NaN too
    emitError(module.getLoc())
        << "comm-reduce-precision: max-rel-error must be in "
           "[0, 1), got "
        << static_cast<double>(maxRelError);
    return signalPassFailure();
  }
  FailureOr<std::shared_ptr<const Topology>> loaded =
      getTopologyFor(module, topology);
  FailureOr<CostParams> params = getCostParamsFor(module, costParams);
  if (failed(loaded) || failed(params))
    return signalPassFailure();
  CostModel model(**loaded, *params);
  Transfers transfers(module);
  DenseSet<Operation *> decided;
  // The ops given a precision or a bound (the pass changes nothing else).
  SmallVector<Operation *> changed;
  WalkResult result = module.walk([&](Operation *op) -> WalkResult {
    if (!isCandidate(op) && hasWrittenPrecision(op))
      warnOnWrittenPrecision(op, getTolerance(op, maxRelError));
    if (decided.count(op) || !isCandidate(op))
      return WalkResult::advance();
    // A send and the receives that take its messages are one transfer:
    // both ends use one wire type or the receiver reads garbage. Its
    // tolerance is the smallest one stated at any end; a precision a
    // person wrote at one end is left for comm-verify-schedule to check
    // against the others. Every message must be offered a tolerance: one
    // at a send covers what its receivers read, one at a receive what it
    // reads, so every send or every receive must state one (a receive
    // without one, fed by a send without one, once went bf16 because
    // another receive of that send stated one).
    SmallVector<Operation *, 2> ends = transfers.getEnds(op);
    decided.insert(ends.begin(), ends.end());
    double tolerance = 0;
    bool candidates = true, everySend = true, everyRecv = true;
    for (Operation *end : ends) {
      if (hasWrittenPrecision(end) || !isCandidate(end))
        candidates = false;
      double stated = getTolerance(end, maxRelError);
      if (stated > 0)
        tolerance = tolerance > 0 ? std::min(tolerance, stated) : stated;
      (isa<RecvOp>(end) ? everyRecv : everySend) &= stated > 0;
    }
    if (!everySend && !everyRecv)
      tolerance = 0;
    for (Operation *end : ends)
      warnOnWrittenPrecision(end, tolerance);
    // An op with a recorded bound was judged already: by an earlier run,
    // or as part of the whole op a later pass cut it from (whose pieces
    // inherit the bound; judged alone, a value crossing several pieces
    // could take more error than the tolerance). It keeps its decision,
    // unless the tolerance it is under now is tighter than its bound.
    for (Operation *end : ends) {
      auto bound =
          end->getAttrOfType<FloatAttr>(CommDialect::getErrorBoundAttrName());
      if (!bound)
        continue;
      candidates = false;
      if (tolerance > 0 && bound.getValueAsDouble() > tolerance) {
        end->emitError() << "comm-reduce-precision: this op's data was "
                            "narrowed with an error bound of "
                         << formatBound(bound.getValueAsDouble())
                         << " (its comm.error_bound), above the tolerance "
                         << formatBound(tolerance)
                         << " it is under now: plan the program from before "
                            "its precision was reduced";
        return WalkResult::interrupt();
      }
    }
    if (!candidates)
      return WalkResult::advance();
    FailureOr<std::optional<Narrowing>> narrowing =
        decide(op, tolerance, model, **loaded);
    if (failed(narrowing))
      return WalkResult::interrupt();
    if (*narrowing || tolerance > 0)
      changed.append(ends.begin(), ends.end());
    if (*narrowing) {
      for (Operation *end : ends)
        apply(end, **narrowing);
    } else if (tolerance > 0) {
      // Judged and kept: the wire adds no error. Pieces a later pass cuts
      // from it inherit the 0 and are not judged alone.
      for (Operation *end : ends)
        end->setAttr(CommDialect::getErrorBoundAttrName(),
                     FloatAttr::get(Float64Type::get(end->getContext()), 0.0));
    }
    return WalkResult::advance();
  });
  if (result.wasInterrupted() || failed(verifyOpsWithNewAttributes(changed)))
    return signalPassFailure();
  markAllAnalysesPreserved();
}
