//===- Pipeline.cpp - chunked compute/communication overlap ----*- C++ -*-===//
//
// comm-pipeline: a comm.compute whose result only an all_reduce reads is
// split into k parts along dimension 0, each followed by the all_reduce of
// its part; comm-schedule then overlaps part i's transfer with part i+1's
// compute. k comes from the cost model through the one bridge
// (getCollectiveRequest), as every planning pass's does.
//
//===----------------------------------------------------------------------===//

#include "comm/Analysis/CollectiveCost.h"
#include "comm/Analysis/TopologyAnalysis.h"
#include "comm/Dialect/Comm/IR/CommOps.h"
#include "comm/Dialect/Comm/Transforms/Passes.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir {
namespace comm {
#define GEN_PASS_DEF_COMMPIPELINE
#include "comm/Dialect/Comm/CommPasses.h.inc"
} // namespace comm
} // namespace mlir

using namespace mlir;
using namespace mlir::comm;

namespace {
struct PipelinePass : public comm::impl::CommPipelineBase<PipelinePass> {
  using CommPipelineBase::CommPipelineBase;
  void runOnOperation() override;

private:
  /// The compute that `op` reduces, if the pair can be split.
  ComputeOp producerOf(AllReduceOp op);
  /// Predicted time of the pair split into `k` parts (k = 1: as written).
  FailureOr<double> predict(ComputeOp compute, AllReduceOp op, int64_t k,
                            const CostModel &model, const Topology &topology);
  /// Splits the pair; returns the join of the reduced parts.
  PackOp split(ComputeOp compute, AllReduceOp op, int64_t k);
  /// Carries the parts on through a rowwise compute that reads the join
  /// (and its all_reduce, where the model says the parts pay).
  void extend(PackOp join, int64_t k, const CostModel *model,
              const Topology *topology);
  /// A rowwise compute that can take the parts of `join` in its place.
  ComputeOp rowwiseReaderOf(PackOp join);

  /// All_reduces a chain took along (no longer candidates of their own).
  llvm::DenseSet<Operation *> consumed;
};
} // namespace

ComputeOp PipelinePass::producerOf(AllReduceOp op) {
  auto compute = op.getInput().getDefiningOp<ComputeOp>();
  if (!compute || compute->getNumResults() != 1 || compute.getPart() ||
      !op.getInput().hasOneUse() || compute->getBlock() != op->getBlock())
    return nullptr;
  return compute;
}

FailureOr<double> PipelinePass::predict(ComputeOp compute, AllReduceOp op,
                                        int64_t k, const CostModel &model,
                                        const Topology &topology) {
  std::optional<CollectiveRequest> request = getCollectiveRequest(op);
  std::optional<double> computeUs = getLocalTimeUs(compute, topology);
  if (!request || !computeUs)
    return failure();
  request->bytes /= k;
  request->backend = backend;
  request->native = true;
  llvm::Expected<Prediction> prediction = model.predict(*request);
  if (!prediction) {
    llvm::consumeError(prediction.takeError());
    return failure();
  }
  double part = *computeUs / k, transfer = prediction->timeUs;
  if (k == 1)
    return part + transfer;
  // Parts compute back to back; each part's transfer runs once the part
  // and the transfer before it are done; the join reads them all.
  double computeEnd = 0, commEnd = 0;
  for (int64_t i = 0; i < k; ++i) {
    computeEnd += part;
    commEnd = std::max(commEnd, computeEnd) + transfer;
  }
  double bytes = static_cast<double>(getStorageBytes(op.getType()).value_or(0));
  return std::max(commEnd, computeEnd) + getPackTimeUs(bytes, topology);
}

/// `compute` split into `k` parts, each right before `before` (or where the
/// compute is), reading `replacement[i]` in place of `whole` when given.
static SmallVector<ComputeOp> splitCompute(OpBuilder &b, ComputeOp compute,
                                           int64_t k, Value whole = {},
                                           ArrayRef<Value> replacement = {}) {
  auto type = cast<RankedTensorType>(compute->getResult(0).getType());
  SmallVector<int64_t> partShape(type.getShape());
  partShape[0] /= k;
  auto partType = RankedTensorType::get(partShape, type.getElementType());
  auto scaled = [&](FloatAttr attr) {
    return attr ? b.getF64FloatAttr(attr.getValueAsDouble() / k) : FloatAttr();
  };
  IntegerAttr bytes =
      compute.getBytesAttr()
          ? b.getI64IntegerAttr(compute.getBytesAttr().getInt() / k)
          : IntegerAttr();
  SmallVector<ComputeOp> parts;
  for (int64_t i = 0; i < k; ++i) {
    SmallVector<Value> inputs(compute.getInputs());
    if (whole)
      for (Value &input : inputs)
        if (input == whole)
          input = replacement[i];
    auto piece = ComputeOp::create(
        b, compute.getLoc(), TypeRange{partType}, compute.getNameAttr(), inputs,
        scaled(compute.getFlopsAttr()), bytes, scaled(compute.getTimeUsAttr()),
        b.getDenseI64ArrayAttr({i, k}), compute.getRowwiseAttr());
    piece->setDiscardableAttrs(compute->getDiscardableAttrDictionary());
    parts.push_back(piece);
  }
  return parts;
}

/// All-reduces each part right after the op that makes it, as `op` does,
/// and joins the results where `op` was.
static PackOp reduceParts(OpBuilder &b, AllReduceOp op,
                          ArrayRef<ComputeOp> parts) {
  SmallVector<Value> reduced;
  for (ComputeOp part : parts) {
    b.setInsertionPointAfter(part);
    auto piece = AllReduceOp::create(
        b, op.getLoc(), part->getResult(0).getType(), part->getResult(0),
        op.getKindAttr(), op.getGroupsAttr(), op.getPlanAttr());
    piece->setDiscardableAttrs(op->getDiscardableAttrDictionary());
    reduced.push_back(piece.getResult());
  }
  b.setInsertionPoint(op);
  PackOp join = createJoin(b, op.getLoc(), op.getType(), reduced);
  op.replaceAllUsesWith(join.getResult());
  op.erase();
  return join;
}

PackOp PipelinePass::split(ComputeOp compute, AllReduceOp op, int64_t k) {
  OpBuilder b(compute);
  SmallVector<ComputeOp> parts = splitCompute(b, compute, k);
  PackOp join = reduceParts(b, op, parts);
  compute.erase();
  return join;
}

ComputeOp PipelinePass::rowwiseReaderOf(PackOp join) {
  if (!join->hasOneUse())
    return nullptr;
  auto reader = dyn_cast<ComputeOp>(*join->user_begin());
  if (!reader || !reader.getRowwise() || reader.getPart() ||
      reader->getNumResults() != 1 || reader->getBlock() != join->getBlock())
    return nullptr;
  auto result = cast<RankedTensorType>(reader->getResult(0).getType());
  int64_t rows = join.getType().getDimSize(0);
  if (result.getRank() == 0 || result.getDimSize(0) != rows)
    return nullptr;
  // Every other input with as many rows would need its rows cut too.
  unsigned reads = 0;
  for (Value input : reader.getInputs()) {
    if (input == join.getResult()) {
      ++reads;
      continue;
    }
    auto type = cast<RankedTensorType>(input.getType());
    if (type.getRank() && type.getDimSize(0) == rows)
      return nullptr;
  }
  return reads == 1 ? reader : nullptr;
}

void PipelinePass::extend(PackOp join, int64_t k, const CostModel *model,
                          const Topology *topology) {
  while (ComputeOp reader = rowwiseReaderOf(join)) {
    // The reader's parts each start once their rows are reduced.
    OpBuilder b(reader);
    SmallVector<Value> rows(join.getInputs());
    SmallVector<ComputeOp> parts =
        splitCompute(b, reader, k, join.getResult(), rows);
    auto next = reader->getResult(0).hasOneUse()
                    ? dyn_cast<AllReduceOp>(*reader->getResult(0).user_begin())
                    : AllReduceOp();
    bool reduceToo = next && next->getBlock() == reader->getBlock();
    if (reduceToo && model) {
      FailureOr<double> whole = predict(reader, next, 1, *model, *topology);
      FailureOr<double> cut = predict(reader, next, k, *model, *topology);
      reduceToo = succeeded(whole) && succeeded(cut) && *cut < *whole;
    }
    if (reduceToo) {
      consumed.insert(next);
      PackOp nextJoin = reduceParts(b, next, parts);
      reader.erase();
      join.erase();
      ++numPipelined;
      join = nextJoin;
      continue;
    }
    // The parts of the reader joined where it was.
    b.setInsertionPoint(reader);
    SmallVector<Value> results;
    for (ComputeOp part : parts)
      results.push_back(part->getResult(0));
    PackOp joined =
        createJoin(b, reader.getLoc(), reader->getResult(0).getType(), results);
    reader->getResult(0).replaceAllUsesWith(joined.getResult());
    reader.erase();
    join.erase();
    return;
  }
}

void PipelinePass::runOnOperation() {
  ModuleOp module = getOperation();
  if (chunks < 0 || chunks == 1 || maxChunks < 2 || maxChunks > 1024) {
    module.emitError() << "comm-pipeline: chunks must be 0 (the cost model "
                          "chooses) or at least 2, and max-chunks in [2, "
                          "1024], got chunks="
                       << static_cast<int64_t>(chunks)
                       << " max-chunks=" << static_cast<int64_t>(maxChunks);
    return signalPassFailure();
  }
  SmallVector<AllReduceOp> candidates;
  module.walk([&](AllReduceOp op) {
    if (!op->getParentOfType<StartOp>() && producerOf(op))
      candidates.push_back(op);
  });
  if (candidates.empty())
    return;
  std::shared_ptr<const Topology> topologyRef;
  std::optional<CostModel> model;
  if (chunks == 0) {
    FailureOr<std::shared_ptr<const Topology>> loaded =
        getTopologyFor(module, topology);
    FailureOr<CostParams> params = getCostParamsFor(module, costParams);
    if (failed(loaded) || failed(params))
      return signalPassFailure();
    topologyRef = *loaded;
    model.emplace(*topologyRef, *params);
  }
  for (AllReduceOp op : candidates) {
    if (consumed.contains(op))
      continue;
    ComputeOp compute = producerOf(op);
    int64_t rows = op.getType().getRank() ? op.getType().getDimSize(0) : 0;
    if (chunks > 0) {
      if (rows % chunks != 0 || rows == 0) {
        ++numKept;
        if (explain)
          op.emitRemark() << "comm-pipeline: kept whole: dimension 0 (" << rows
                          << ") does not divide into "
                          << static_cast<int64_t>(chunks) << " parts";
        continue;
      }
      extend(split(compute, op, chunks), chunks, nullptr, nullptr);
      ++numPipelined;
      continue;
    }
    FailureOr<double> whole = predict(compute, op, 1, *model, *topologyRef);
    if (failed(whole)) {
      ++numKept;
      continue;
    }
    int64_t best = 1;
    double bestUs = *whole;
    std::string tried;
    for (int64_t k = 2; k <= maxChunks && rows > 0 && rows % k == 0; k *= 2) {
      FailureOr<double> us = predict(compute, op, k, *model, *topologyRef);
      if (failed(us))
        break;
      tried += llvm::formatv(", {0} parts {1:F2} us", k, *us).str();
      if (*us < bestUs) {
        best = k;
        bestUs = *us;
      }
    }
    // Only a clear gain pays for the extra launches the model does not see.
    if (best == 1 || bestUs > 0.98 * *whole) {
      ++numKept;
      if (explain)
        op.emitRemark() << llvm::formatv(
            "comm-pipeline: kept whole: {0:F2} us as written{1}", *whole,
            tried.empty() ? std::string(", dimension 0 does not divide")
                          : tried);
      continue;
    }
    if (explain)
      op.emitRemark() << llvm::formatv(
          "comm-pipeline: {0} parts: {1:F2} us instead of {2:F2} us{3}", best,
          bestUs, *whole, tried);
    extend(split(compute, op, best), best, &*model, topologyRef.get());
    ++numPipelined;
  }
}
