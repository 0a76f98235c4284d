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
#include "llvm/Support/FormatVariadic.h"

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
  LogicalResult narrow(Operation *op, const CostModel &model,
                       const Topology &topology);
};
} // namespace

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
  double hbm = gpu.memoryGBps > 0 ? gpu.memoryGBps : 1000;
  double moved = 1.5 * (sentBytes + receivedBytes);
  return 2 * 3.0 + moved / (hbm * 1e3);
}

LogicalResult ReducePrecisionPass::narrow(Operation *op, const CostModel &model,
                                          const Topology &topology) {
  std::optional<CollectiveRequest> request = getCollectiveRequest(op);
  if (!request || request->kind == CollectiveKind::Copy ||
      request->kind == CollectiveKind::Barrier ||
      !isCarriedBy(request->kind, backend))
    return success();
  Type element;
  std::optional<ReductionKind> reduction;
  double sent = request->bytes, received = request->bytes;
  if (auto collective = dyn_cast<CollectiveOpInterface>(op)) {
    element = collective.getCommElementType();
    reduction = collective.getReduction();
    sent = collective.getBytesSentPerRank();
    received = collective.getBytesReceivedPerRank();
  } else if (auto p2p = dyn_cast<PointToPointOpInterface>(op)) {
    element = cast<ShapedType>(p2p.getTransferType()).getElementType();
  }
  if (!element || !element.isF32())
    return success();
  auto plan = op->getAttrOfType<PlanAttr>("plan");
  if (plan && plan.getPrecision())
    return success(); // a person's choice
  double tolerance = getTolerance(op, maxRelError);
  if (tolerance <= 0)
    return success();

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
      InFlightDiagnostic remark = op->emitRemark()
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
    return success();
  }
  auto [wire, bound] = candidates.front();

  // Worth it only if the transfer gains more than the conversions cost.
  request->backend = backend;
  request->native = !request->algorithm;
  llvm::Expected<Prediction> full = model.predict(*request);
  if (!full)
    return op->emitError() << "comm-reduce-precision: "
                           << llvm::toString(full.takeError());
  CollectiveRequest narrowed = *request;
  narrowed.bytes = request->bytes / request->elementBytes * 2;
  narrowed.elementBytes = 2;
  llvm::Expected<Prediction> small = model.predict(narrowed);
  if (!small)
    return op->emitError() << "comm-reduce-precision: "
                           << llvm::toString(small.takeError());
  double conversion = getConversionUs(topology, sent, received);
  double narrowUs = small->timeUs + conversion;
  if (narrowUs >= full->timeUs) {
    ++numOpsNotFaster;
    if (explain)
      op->emitRemark() << llvm::formatv(
          "comm-reduce-precision: kept f32: {0} would take {1:F2} us "
          "({2:F2} us on the wire + {3:F2} us converting) against {4:F2} us",
          wire, narrowUs, small->timeUs, conversion, full->timeUs);
    return success();
  }

  op->setAttr("plan", getPlanWith(ctx, plan, [&](PlanFields &fields) {
                fields.precision = wire;
              }));
  op->setAttr(CommDialect::getErrorBoundAttrName(),
              FloatAttr::get(Float64Type::get(ctx), bound));
  ++numOpsNarrowed;
  if (explain)
    op->emitRemark() << llvm::formatv(
        "comm-reduce-precision: {0} on the wire, error bound {1:e} <= {2:e} "
        "allowed; {3:F2} us ({4:F2} us on the wire + {5:F2} us converting) "
        "instead of {6:F2} us",
        wire, bound, tolerance, narrowUs, small->timeUs, conversion,
        full->timeUs);
  return success();
}

void ReducePrecisionPass::runOnOperation() {
  ModuleOp module = getOperation();
  if (maxRelError < 0 || maxRelError >= 1) {
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
  WalkResult result = module.walk([&](Operation *op) -> WalkResult {
    return failed(narrow(op, model, **loaded)) ? WalkResult::interrupt()
                                               : WalkResult::advance();
  });
  if (result.wasInterrupted())
    signalPassFailure();
}
