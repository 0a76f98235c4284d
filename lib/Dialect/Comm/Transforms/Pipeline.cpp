//===- Pipeline.cpp - chunked compute/communication overlap ----*- C++ -*-===//
//
// comm-pipeline: a comm.compute whose result only an all_reduce reads is
// split into k parts along dimension 0, each followed by the all_reduce of
// its part; comm-schedule then overlaps part i's transfer with part i+1's
// compute. k comes from the cost model through the one bridge
// (getCollectiveRequest), as every planning pass's does. The tensor
// parallelism of sequence-parallel layers (XLA's windowed einsum, PyTorch's
// Async-TP): an all_gather read by a rowwise compute becomes one broadcast
// per shard, each followed by the compute's part on it; a compute whose
// result a reduce_scatter scatters becomes its parts each reduced onto the
// rank that keeps them.
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
  /// The compute whose result `op` scatters, if the pair can be cut.
  ComputeOp scatterProducerOf(ReduceScatterOp op);
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

  /// A rowwise compute that reads `value` (as its one input with that many
  /// rows) and makes as many rows.
  ComputeOp rowwiseReaderOf(Value value);
  /// Why an all_gather or a reduce_scatter cannot be cut into one part per
  /// rank of its groups, or "".
  std::string whyNotPerShard(Operation *op, int64_t dim, Value rowsOf);
  /// Predicted time of a gather and its reader (`split`: as broadcasts of
  /// the shards, each followed by the reader's part on it).
  FailureOr<double> predictGather(AllGatherOp op, ComputeOp reader, bool split,
                                  const CostModel &model,
                                  const Topology &topology);
  /// Predicted time of a compute and the reduce_scatter of its result
  /// (`split`: its parts, each reduced onto the rank that keeps it).
  FailureOr<double> predictScatter(ComputeOp compute, ReduceScatterOp op,
                                   bool split, const CostModel &model,
                                   const Topology &topology);
  void splitGather(AllGatherOp op, ComputeOp reader);
  /// Cuts the all_gathers read by a rowwise compute and the reduce_scatters
  /// of a compute's result into one part per rank of their groups.
  void runPerShard(ArrayRef<Operation *> ops, const CostModel *model,
                   const Topology *topology);
  void splitScatter(ComputeOp compute, ReduceScatterOp op);
  /// Whether the model says to cut; remarks under explain. (With `chunks`
  /// set there is no model: every candidate is cut.)
  bool worthCutting(Operation *op, FailureOr<double> whole,
                    FailureOr<double> cut, int64_t parts);

  /// All_reduces a chain took along (no longer candidates of their own).
  llvm::DenseSet<Operation *> consumed;
};
} // namespace

ComputeOp PipelinePass::scatterProducerOf(ReduceScatterOp op) {
  auto compute = op.getInput().getDefiningOp<ComputeOp>();
  if (!compute || compute->getNumResults() != 1 || compute.getPart() ||
      !op.getInput().hasOneUse() || compute->getBlock() != op->getBlock())
    return nullptr;
  return compute;
}

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
  return rowwiseReaderOf(join.getResult());
}

ComputeOp PipelinePass::rowwiseReaderOf(Value value) {
  if (!value.hasOneUse())
    return nullptr;
  auto reader = dyn_cast<ComputeOp>(*value.user_begin());
  auto type = cast<RankedTensorType>(value.getType());
  if (!reader || !reader.getRowwise() || reader.getPart() ||
      reader->getNumResults() != 1 || type.getRank() == 0 ||
      reader->getBlock() != value.getParentBlock())
    return nullptr;
  auto result = cast<RankedTensorType>(reader->getResult(0).getType());
  int64_t rows = type.getDimSize(0);
  if (result.getRank() == 0 || result.getDimSize(0) != rows)
    return nullptr;
  // Every other input with as many rows would need its rows cut too.
  unsigned reads = 0;
  for (Value input : reader.getInputs()) {
    if (input == value) {
      ++reads;
      continue;
    }
    auto inputType = cast<RankedTensorType>(input.getType());
    if (inputType.getRank() && inputType.getDimSize(0) == rows)
      return nullptr;
  }
  return reads == 1 ? reader : nullptr;
}

std::string PipelinePass::whyNotPerShard(Operation *op, int64_t dim,
                                         Value rowsOf) {
  auto groups = cast<CollectiveOpInterface>(op).getReplicaGroups();
  int64_t n = groups.getGroupSize();
  std::optional<int64_t> world = getWorldSize(op);
  if (dim != 0)
    return "it does not cut dimension 0";
  if (!world || groups.getNumGroups() * n != *world)
    return "its groups leave ranks of comm.world_size out";
  if (n < 2)
    return "its groups have one rank";
  if (op->getParentOfType<StartOp>())
    return "it is inside a comm.start";
  auto type = cast<RankedTensorType>(rowsOf.getType());
  if (type.getRank() == 0 || type.getDimSize(0) % n != 0)
    return "its rows do not divide by the group size";
  return "";
}

/// The model's time for `request` on `backend`, or failure.
static FailureOr<double> predictRequest(CollectiveRequest request,
                                        const CostModel &model,
                                        Backend backend) {
  request.backend = backend;
  request.native = true;
  llvm::Expected<Prediction> prediction = model.predict(request);
  if (!prediction) {
    llvm::consumeError(prediction.takeError());
    return failure();
  }
  return prediction->timeUs;
}

/// The end of `parts` computes of `partUs` each that wait for transfers of
/// `transferUs` each issued back to back from the start (part i reads
/// transfer i).
static double pipelineAfter(int64_t parts, double partUs, double transferUs) {
  double computeEnd = 0;
  for (int64_t i = 0; i < parts; ++i)
    computeEnd = std::max(computeEnd, (i + 1) * transferUs) + partUs;
  return computeEnd;
}

/// The end of `parts` computes of `partUs` each, back to back, each
/// followed by a transfer of `transferUs` (one at a time).
static double pipelineBefore(int64_t parts, double partUs, double transferUs) {
  double computeEnd = 0, commEnd = 0;
  for (int64_t i = 0; i < parts; ++i) {
    computeEnd += partUs;
    commEnd = std::max(commEnd, computeEnd) + transferUs;
  }
  return std::max(commEnd, computeEnd);
}

FailureOr<double> PipelinePass::predictGather(AllGatherOp op, ComputeOp reader,
                                              bool split,
                                              const CostModel &model,
                                              const Topology &topology) {
  std::optional<CollectiveRequest> request = getCollectiveRequest(op);
  std::optional<double> computeUs = getLocalTimeUs(reader, topology);
  if (!request || !computeUs)
    return failure();
  int64_t n = op.getGroups().getGroupSize();
  if (!split) {
    FailureOr<double> gather = predictRequest(*request, model, backend);
    if (failed(gather))
      return failure();
    return *gather + *computeUs;
  }
  // One broadcast of a shard (the gathered bytes / n) per rank.
  CollectiveRequest shard = *request;
  shard.kind = CollectiveKind::Broadcast;
  shard.bytes = request->bytes / n;
  shard.root = 0;
  shard.algorithm.reset();
  FailureOr<double> broadcast = predictRequest(shard, model, backend);
  if (failed(broadcast))
    return failure();
  double bytes = static_cast<double>(
      getStorageBytes(cast<ShapedType>(reader->getResult(0).getType()))
          .value_or(0));
  return pipelineAfter(n, *computeUs / n, *broadcast) +
         getPackTimeUs(bytes, topology);
}

FailureOr<double> PipelinePass::predictScatter(ComputeOp compute,
                                               ReduceScatterOp op, bool split,
                                               const CostModel &model,
                                               const Topology &topology) {
  std::optional<CollectiveRequest> request = getCollectiveRequest(op);
  std::optional<double> computeUs = getLocalTimeUs(compute, topology);
  if (!request || !computeUs)
    return failure();
  int64_t n = op.getGroups().getGroupSize();
  if (!split) {
    FailureOr<double> scatter = predictRequest(*request, model, backend);
    if (failed(scatter))
      return failure();
    return *scatter + *computeUs;
  }
  // One reduce of a part (the scattered input's bytes / n) per rank.
  CollectiveRequest part = *request;
  part.kind = CollectiveKind::Reduce;
  part.bytes = request->bytes / n;
  part.root = 0;
  part.algorithm.reset();
  FailureOr<double> reduce = predictRequest(part, model, backend);
  if (failed(reduce))
    return failure();
  // The parts joined, rotated and the rank's own cut out: two passes over
  // the whole.
  double bytes =
      static_cast<double>(getStorageBytes(op.getInput().getType()).value_or(0));
  return pipelineBefore(n, *computeUs / n, *reduce) +
         2 * getPackTimeUs(bytes, topology);
}

void PipelinePass::splitGather(AllGatherOp op, ComputeOp reader) {
  OpBuilder b(reader);
  ReplicaGroupsAttr groups = op.getGroups();
  int64_t n = groups.getGroupSize();
  PlanAttr plan = getPiecePlan(op.getPlanAttr());
  SmallVector<Value> shards;
  for (int64_t j = 0; j < n; ++j)
    shards.push_back(BroadcastOp::create(b, op.getLoc(),
                                         op.getInput().getType(), op.getInput(),
                                         groups, b.getI64IntegerAttr(j), plan)
                         .getResult());
  SmallVector<ComputeOp> parts =
      splitCompute(b, reader, n, op.getResult(), shards);
  // Part j reads shard j, so it must follow broadcast j (the broadcasts go
  // first, in order; comm-schedule starts them early).
  SmallVector<Value> results;
  for (ComputeOp part : parts)
    results.push_back(part->getResult(0));
  PackOp joined =
      createJoin(b, reader.getLoc(), reader->getResult(0).getType(), results);
  reader->getResult(0).replaceAllUsesWith(joined.getResult());
  reader.erase();
  op.erase();
}

/// Whether `join` is createJoin's of `n` parts of equal rows along
/// dimension 0.
static bool isJoinOfParts(PackOp join, int64_t n) {
  auto type = cast<RankedTensorType>(join.getType());
  if (join.getInputs().size() != static_cast<size_t>(n) ||
      join.getNumBlocks() != 1 || type.getRank() == 0)
    return false;
  int64_t offset = 0;
  for (auto [input, at] : llvm::zip(join.getInputs(), join.getOffsets())) {
    auto part = cast<RankedTensorType>(input.getType());
    if (at != offset || part.getRank() != type.getRank() ||
        part.getDimSize(0) * n != type.getDimSize(0))
      return false;
    offset += part.getNumElements();
  }
  return true;
}

void PipelinePass::splitScatter(ComputeOp compute, ReduceScatterOp op) {
  OpBuilder b(compute);
  ReplicaGroupsAttr groups = op.getGroups();
  int64_t n = groups.getGroupSize();
  PlanAttr plan = getPiecePlan(op.getPlanAttr());
  // A rowwise compute that reads the join of n parts (a gather cut before
  // it) reads part j for its part j: no join, and no wait for all of them.
  Value whole;
  SmallVector<Value> rows;
  for (Value input : compute.getInputs())
    if (auto join = input.getDefiningOp<PackOp>();
        join && rowwiseReaderOf(join.getResult()) == compute &&
        isJoinOfParts(join, n)) {
      whole = input;
      rows.assign(join.getInputs().begin(), join.getInputs().end());
    }
  SmallVector<ComputeOp> parts = splitCompute(b, compute, n, whole, rows);
  // Part j is the rows rank j of each group keeps: reduced onto it.
  SmallVector<Value> reduced;
  for (auto [j, part] : llvm::enumerate(parts)) {
    b.setInsertionPointAfter(part);
    reduced.push_back(ReduceOp::create(b, op.getLoc(),
                                       part->getResult(0).getType(),
                                       part->getResult(0), op.getKindAttr(),
                                       groups, b.getI64IntegerAttr(j), plan)
                          .getResult());
  }
  // Joined flat, rotated by the rank's place (chunk 0 becomes its own), and
  // the rank's rows cut out.
  b.setInsertionPoint(op);
  auto inputType = cast<RankedTensorType>(op.getInput().getType());
  auto flat = RankedTensorType::get({inputType.getNumElements()},
                                    inputType.getElementType());
  PackOp joined = createJoin(b, op.getLoc(), flat, reduced);
  Value rotated = RotateOp::create(b, op.getLoc(), flat, joined.getResult(),
                                   groups, b.getI64IntegerAttr(0), UnitAttr());
  Value mine = UnpackOp::create(b, op.getLoc(), TypeRange{op.getType()},
                                rotated, b.getDenseI64ArrayAttr({0}), nullptr)
                   .getResult(0);
  op.replaceAllUsesWith(mine);
  op.erase();
  compute.erase();
  if (whole && whole.use_empty())
    whole.getDefiningOp()->erase();
}

bool PipelinePass::worthCutting(Operation *op, FailureOr<double> whole,
                                FailureOr<double> cut, int64_t parts) {
  if (failed(whole) || failed(cut)) {
    if (explain)
      op->emitRemark() << "comm-pipeline: kept whole: the cost model has no "
                          "time for it";
    return false;
  }
  // Only a clear gain pays for the extra launches the model does not see.
  if (*cut > 0.98 * *whole) {
    if (explain)
      op->emitRemark() << llvm::formatv(
          "comm-pipeline: kept whole: {0:F2} us as written, {1} parts "
          "{2:F2} us",
          *whole, parts, *cut);
    return false;
  }
  if (explain)
    op->emitRemark() << llvm::formatv(
        "comm-pipeline: {0} parts: {1:F2} us instead of {2:F2} us", parts, *cut,
        *whole);
  return true;
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
  SmallVector<Operation *> perShard;
  module.walk([&](Operation *op) {
    if (auto ar = dyn_cast<AllReduceOp>(op);
        ar && !op->getParentOfType<StartOp>() && producerOf(ar))
      candidates.push_back(ar);
    if (auto gather = dyn_cast<AllGatherOp>(op);
        gather && rowwiseReaderOf(gather.getResult()))
      perShard.push_back(op);
    if (auto scatter = dyn_cast<ReduceScatterOp>(op);
        scatter && scatterProducerOf(scatter))
      perShard.push_back(op);
  });
  if (candidates.empty() && perShard.empty())
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
  runPerShard(perShard, model ? &*model : nullptr, topologyRef.get());
}

void PipelinePass::runPerShard(ArrayRef<Operation *> ops,
                               const CostModel *model,
                               const Topology *topology) {
  for (Operation *op : ops) {
    if (auto gather = dyn_cast<AllGatherOp>(op)) {
      ComputeOp reader = rowwiseReaderOf(gather.getResult());
      if (!reader)
        continue;
      std::string why = whyNotPerShard(op, gather.getDim(), gather.getResult());
      if (!why.empty()) {
        ++numKept;
        if (explain)
          op->emitRemark() << "comm-pipeline: kept whole: " << why;
        continue;
      }
      int64_t n = gather.getGroups().getGroupSize();
      if (model &&
          !worthCutting(
              op, predictGather(gather, reader, false, *model, *topology),
              predictGather(gather, reader, true, *model, *topology), n)) {
        ++numKept;
        continue;
      }
      splitGather(gather, reader);
      ++numPipelined;
      continue;
    }
    auto scatter = cast<ReduceScatterOp>(op);
    ComputeOp compute = scatterProducerOf(scatter);
    if (!compute)
      continue;
    std::string why = whyNotPerShard(op, scatter.getDim(), scatter.getInput());
    if (!why.empty()) {
      ++numKept;
      if (explain)
        op->emitRemark() << "comm-pipeline: kept whole: " << why;
      continue;
    }
    int64_t n = scatter.getGroups().getGroupSize();
    if (model &&
        !worthCutting(
            op, predictScatter(compute, scatter, false, *model, *topology),
            predictScatter(compute, scatter, true, *model, *topology), n)) {
      ++numKept;
      continue;
    }
    splitScatter(compute, scatter);
    ++numPipelined;
  }
}
