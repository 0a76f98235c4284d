//===- Pipeline.cpp - chunked compute/communication overlap ----*- C++ -*-===//
//
// comm-pipeline: a comm.compute whose result only an all_reduce reads is
// split into k parts along dimension 0, each followed by the all_reduce of
// its part; comm-schedule then overlaps part i's transfer with part i+1's
// compute. k comes from the cost model through the one bridge
// (getCollectiveRequest), as every planning pass's does. The tensor
// parallelism of sequence-parallel layers (XLA's windowed einsum, PyTorch's
// Async-TP): an all_gather read by a rowwise compute and a compute whose
// result a reduce_scatter scatters become their ring steps with the
// compute's parts between them (parts `rotated over` the groups: which
// rows a part holds depends on the rank).
//
//===----------------------------------------------------------------------===//

#include "comm/Analysis/CollectiveCost.h"
#include "comm/Analysis/TopologyAnalysis.h"
#include "comm/Dialect/Comm/IR/CommOps.h"
#include "comm/Dialect/Comm/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
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
  /// A rowwise compute that reads `value` (as its one input with that many
  /// rows) and makes as many rows: it can take the parts of a join, or of a
  /// gather, in its place.
  ComputeOp rowwiseReaderOf(Value value);
  /// Why an all_gather or a reduce_scatter cannot be cut into one part per
  /// rank of its groups, or "".
  std::string whyNotPerShard(Operation *op, int64_t dim, Value rowsOf);
  /// The model's times of a collective and the compute it feeds or reads:
  /// the whole collective, one ring step, a part of the compute.
  struct RingTimes {
    double wholeUs, stepUs, partUs, bytes;
    int64_t parts;
  };
  FailureOr<RingTimes> predictRing(Operation *collective, ComputeOp compute,
                                   const CostModel &model,
                                   const Topology &topology);
  /// Predicted times (as written, cut) of a gather and its reader, and of
  /// a compute and the reduce_scatter of its result.
  FailureOr<std::pair<double, double>> predictGather(AllGatherOp op,
                                                     ComputeOp reader,
                                                     const CostModel &model,
                                                     const Topology &topology);
  FailureOr<std::pair<double, double>> predictScatter(ComputeOp compute,
                                                      ReduceScatterOp op,
                                                      const CostModel &model,
                                                      const Topology &topology);
  void splitGather(AllGatherOp op, ComputeOp reader);
  /// Cuts the all_gathers read by a rowwise compute and the reduce_scatters
  /// of a compute's result into one part per rank of their groups.
  void runPerShard(ArrayRef<Operation *> ops, const CostModel *model,
                   const Topology *topology);
  void splitScatter(ComputeOp compute, ReduceScatterOp op);
  /// Whether the model says to cut; remarks under explain. (With `chunks`
  /// set there is no model: every candidate is cut.)
  bool worthCutting(Operation *op, FailureOr<std::pair<double, double>> times,
                    int64_t parts);

  /// All_reduces a chain took along (no longer candidates of their own).
  llvm::DenseSet<Operation *> consumed;
  /// A tag no transfer of the module uses yet (for the ring steps).
  int64_t nextTag = 0;
  /// Whether this run cut anything (what it leaves alone need not be
  /// verified again).
  bool changed = false;
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
  std::optional<double> transferUs =
      predictTimeUs(*request, model, backend, /*native=*/true);
  if (!transferUs)
    return failure();
  double part = *computeUs / k, transfer = *transferUs;
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

/// Part `i` of `k` of `compute`, built at `b`'s point, reading
/// `replacement` in place of `whole` when given; `rotatedOver` makes the
/// part index rank-dependent (comm.compute's `rotated over`).
static ComputeOp computePart(OpBuilder &b, ComputeOp compute, int64_t i,
                             int64_t k, Value whole = {},
                             Value replacement = {},
                             ReplicaGroupsAttr rotatedOver = nullptr) {
  RankedTensorType partType =
      getSliceType(cast<RankedTensorType>(compute->getResult(0).getType()), k);
  auto scaled = [&](FloatAttr attr) {
    return attr ? b.getF64FloatAttr(attr.getValueAsDouble() / k) : FloatAttr();
  };
  IntegerAttr bytes =
      compute.getBytesAttr()
          ? b.getI64IntegerAttr(compute.getBytesAttr().getInt() / k)
          : IntegerAttr();
  SmallVector<Value> inputs(compute.getInputs());
  if (whole)
    for (Value &input : inputs)
      if (input == whole)
        input = replacement;
  auto piece = ComputeOp::create(
      b, compute.getLoc(), TypeRange{partType}, compute.getNameAttr(), inputs,
      scaled(compute.getFlopsAttr()), bytes, scaled(compute.getTimeUsAttr()),
      b.getDenseI64ArrayAttr({i, k}), compute.getRowwiseAttr(), rotatedOver);
  piece->setDiscardableAttrs(compute->getDiscardableAttrDictionary());
  return piece;
}

/// Whether the parts of `compute` (a rowwise one with `rows` rows) in `k`
/// parts would read row by row an input the whole op reads whole: a part
/// reads rowwise the inputs with its own rows too (comm.compute's `part`,
/// commrt_gen.h's stand-in), so a weight with as many rows as a part would
/// change meaning. `replaced` is the input the parts read cut (a gather's
/// chunks), which is meant to.
static bool readsWeightByRows(ComputeOp compute, int64_t rows, int64_t k,
                              Value replaced = {}) {
  if (!compute.getRowwise() || k <= 1 || rows % k != 0)
    return false;
  for (Value input : compute.getInputs()) {
    auto type = cast<RankedTensorType>(input.getType());
    if (input != replaced && type.getRank() && type.getDimSize(0) == rows / k &&
        type.getDimSize(0) != rows)
      return true;
  }
  return false;
}

/// Why `compute` is not cut into `k` parts, or "" (readsWeightByRows).
static std::string whyNotCut(ComputeOp compute, int64_t rows, int64_t k,
                             Value replaced = {}) {
  if (!readsWeightByRows(compute, rows, k, replaced))
    return "";
  return llvm::formatv("'{0}' reads an input whole that has as many rows as "
                       "one of {1} parts ({2}), which a part would read row "
                       "by row",
                       compute.getName(), k, rows / k)
      .str();
}

/// `compute` split into `k` parts at `b`'s point, part `i` reading
/// `replacement[i]` in place of `whole` when given.
static SmallVector<ComputeOp> splitCompute(OpBuilder &b, ComputeOp compute,
                                           int64_t k, Value whole = {},
                                           ArrayRef<Value> replacement = {}) {
  SmallVector<ComputeOp> parts;
  for (int64_t i = 0; i < k; ++i)
    parts.push_back(
        computePart(b, compute, i, k, whole, whole ? replacement[i] : Value()));
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
  if (auto scatter = dyn_cast<ReduceScatterOp>(op);
      scatter && scatter.getKind() == ReductionKind::avg &&
      !isa<FloatType>(scatter.getType().getElementType()))
    return "it averages integers";
  auto type = cast<RankedTensorType>(rowsOf.getType());
  if (type.getRank() == 0 || type.getDimSize(0) % n != 0)
    return "its rows do not divide by the group size";
  return "";
}

/// The request of one ring step over `groups`: every rank sends `bytes` to
/// the next rank of its group.
static CollectiveRequest ringStep(ReplicaGroupsAttr groups, uint64_t bytes,
                                  unsigned elementBytes) {
  CollectiveRequest step;
  step.kind = CollectiveKind::SendRecv;
  step.bytes = bytes;
  step.elementBytes = elementBytes;
  SmallVector<int64_t> flat = getRingPairs(groups, 1);
  for (size_t i = 0; i + 1 < flat.size(); i += 2)
    step.pairs.push_back({flat[i], flat[i + 1]});
  return step;
}

FailureOr<PipelinePass::RingTimes>
PipelinePass::predictRing(Operation *collective, ComputeOp compute,
                          const CostModel &model, const Topology &topology) {
  std::optional<CollectiveRequest> request = getCollectiveRequest(collective);
  std::optional<double> computeUs = getLocalTimeUs(compute, topology);
  if (!request || !computeUs)
    return failure();
  ReplicaGroupsAttr groups =
      cast<CollectiveOpInterface>(collective).getReplicaGroups();
  int64_t n = groups.getGroupSize();
  // The whole collective as comm-select-algorithm will plan it (the best
  // schedule the backend realizes, or NCCL's own collective where faster),
  // and one ring step: every rank sends 1/n of the bytes to the next.
  std::optional<double> whole = predictPlannedTimeUs(*request, model, backend);
  std::optional<double> step =
      predictTimeUs(ringStep(groups, request->bytes / n, request->elementBytes),
                    model, backend, /*native=*/false);
  if (!whole || !step)
    return failure();
  return RingTimes{*whole, *step, *computeUs / n,
                   static_cast<double>(request->bytes), n};
}

FailureOr<std::pair<double, double>>
PipelinePass::predictGather(AllGatherOp op, ComputeOp reader,
                            const CostModel &model, const Topology &topology) {
  FailureOr<RingTimes> t = predictRing(op, reader, model, topology);
  if (failed(t))
    return failure();
  // Part 0 is the rank's own rows; part s waits for ring step s.
  double end = 0;
  for (int64_t s = 0; s < t->parts; ++s)
    end = std::max(end, s * t->stepUs) + t->partUs;
  // The parts joined and rotated back: two passes over the result.
  double bytes = static_cast<double>(
      getStorageBytes(cast<ShapedType>(reader->getResult(0).getType()))
          .value_or(0));
  return std::make_pair(t->wholeUs + t->partUs * t->parts,
                        end + 2 * getPackTimeUs(bytes, topology));
}

FailureOr<std::pair<double, double>>
PipelinePass::predictScatter(ComputeOp compute, ReduceScatterOp op,
                             const CostModel &model, const Topology &topology) {
  FailureOr<RingTimes> t = predictRing(op, compute, model, topology);
  if (failed(t))
    return failure();
  // The first part, then n - 1 ring steps: each sends the running sum on
  // while the next part computes, and adds what arrives to that part.
  double combine = getPackTimeUs(1.5 * t->bytes / t->parts, topology);
  double computeEnd = t->partUs, ready = t->partUs;
  for (int64_t s = 0; s + 1 < t->parts; ++s) {
    computeEnd += t->partUs;
    ready = std::max(ready + t->stepUs, computeEnd) + combine;
  }
  return std::make_pair(t->wholeUs + t->partUs * t->parts, ready);
}

/// Sends `value` to the next rank of each group (one ring step; the
/// matching receive is ringRecv's, placed apart so work fits between).
static SendOp ringSend(OpBuilder &b, Location loc, ReplicaGroupsAttr groups,
                       Value value, int64_t tag, PlanAttr plan) {
  return SendOp::create(b, loc, value,
                        b.getDenseI64ArrayAttr(getRingPairs(groups, 1)),
                        b.getI64IntegerAttr(tag), plan);
}

void PipelinePass::splitGather(AllGatherOp op, ComputeOp reader) {
  // XLA's windowed einsum: the rank's own rows are computed first while
  // they travel to the next rank; at step s the rows of the rank s places
  // before arrive, are passed on, and computed. Part s of the rotated
  // result (`rotated over`: part (s + p) mod n on the rank at position p)
  // is the rows of the rank s places after; the join is rotated back.
  OpBuilder b(reader);
  PieceBoundListener bounds(b, op);
  Location loc = op.getLoc();
  ReplicaGroupsAttr groups = op.getGroups();
  int64_t n = groups.getGroupSize();
  PlanAttr plan = getPiecePlan(op.getPlanAttr());
  int64_t tag = nextTag++;
  auto rowsOf = [&](int64_t s) { return ((-s) % n + n) % n; };
  SmallVector<Value> parts(n);
  Value rows = op.getInput();
  for (int64_t s = 0; s < n; ++s) {
    StartOp next;
    if (s + 1 < n)
      next = createStartedRecv(b, ringSend(b, loc, groups, rows, tag, plan));
    parts[rowsOf(s)] =
        computePart(b, reader, rowsOf(s), n, op.getResult(), rows, groups)
            ->getResult(0);
    if (next)
      rows = createWaitedRecv(b, next);
  }
  auto type = reader->getResult(0).getType();
  PackOp joined = createJoin(b, loc, type, parts);
  Value result = RotateOp::create(b, loc, type, joined.getResult(), groups,
                                  b.getI64IntegerAttr(0), b.getUnitAttr());
  reader->getResult(0).replaceAllUsesWith(result);
  reader.erase();
  op.erase();
}

void PipelinePass::splitScatter(ComputeOp compute, ReduceScatterOp op) {
  // The ring's reduce-scatter with the compute cut into its steps: the part
  // sent first is the rows of the rank before, computed first; at step s
  // the rank computes the rows of the rank s + 2 before while the running
  // sum travels, adds what arrives and passes it on; the last sum is the
  // rank's own rows.
  OpBuilder b(compute);
  PieceBoundListener bounds(b, op);
  Location loc = op.getLoc();
  ReplicaGroupsAttr groups = op.getGroups();
  int64_t n = groups.getGroupSize();
  PlanAttr plan = getPiecePlan(op.getPlanAttr());
  int64_t tag = nextTag++;
  auto mod = [&](int64_t v) { return ((v % n) + n) % n; };
  // The parts in the order the ring needs them: n - 1, n - 2, ..., 0.
  SmallVector<ComputeOp> all(n);
  for (int64_t c = n - 1; c >= 0; --c)
    all[c] = computePart(b, compute, c, n, {}, {}, groups);
  ReductionKind kind = op.getKind();
  ReductionKind pairwise =
      kind == ReductionKind::avg ? ReductionKind::sum : kind;
  Value sum = all[n - 1]->getResult(0);
  for (int64_t s = 0; s + 1 < n; ++s) {
    ComputeOp next = all[mod(-2 - s)];
    b.setInsertionPoint(next);
    StartOp recv =
        createStartedRecv(b, ringSend(b, loc, groups, sum, tag, plan));
    b.setInsertionPointAfter(next);
    Value arrived = createWaitedRecv(b, recv);
    FailureOr<Value> combined =
        buildCombine(b, loc, pairwise, next->getResult(0), arrived);
    assert(succeeded(combined) && "the reduction was checked before");
    sum = *combined;
  }
  b.setInsertionPoint(op);
  if (kind == ReductionKind::avg) {
    auto type = cast<RankedTensorType>(sum.getType());
    auto element = cast<FloatType>(type.getElementType());
    Value factor = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(type, FloatAttr::get(element, 1.0 / n)));
    sum = arith::MulFOp::create(b, loc, sum, factor);
  }
  op.replaceAllUsesWith(sum);
  op.erase();
  compute.erase();
}

bool PipelinePass::worthCutting(Operation *op,
                                FailureOr<std::pair<double, double>> times,
                                int64_t parts) {
  if (failed(times)) {
    if (explain)
      mlir::emitRemark(op->getLoc())
          << "comm-pipeline: kept whole: the cost model has no "
             "time for it";
    return false;
  }
  auto [whole, cut] = *times;
  // Only a clear gain pays for the extra launches the model does not see.
  if (cut > 0.98 * whole) {
    if (explain)
      mlir::emitRemark(op->getLoc()) << llvm::formatv(
          "comm-pipeline: kept whole: {0:F2} us as written, {1} parts "
          "{2:F2} us",
          whole, parts, cut);
    return false;
  }
  if (explain)
    mlir::emitRemark(op->getLoc()) << llvm::formatv(
        "comm-pipeline: {0} parts: {1:F2} us instead of {2:F2} us", parts, cut,
        whole);
  return true;
}

void PipelinePass::extend(PackOp join, int64_t k, const CostModel *model,
                          const Topology *topology) {
  while (ComputeOp reader = rowwiseReaderOf(join.getResult())) {
    auto joinType = cast<RankedTensorType>(join.getResult().getType());
    if (readsWeightByRows(reader, joinType.getDimSize(0), k, join.getResult()))
      return; // the reader reads the join whole
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
    emitError(module.getLoc())
        << "comm-pipeline: chunks must be 0 (the cost model "
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
  changed = false;
  if (candidates.empty() && perShard.empty())
    return markAllAnalysesPreserved();
  module.walk([&](PointToPointOpInterface p2p) {
    if (std::optional<int64_t> used = p2p.getTransferTag())
      nextTag = std::max(nextTag, *used + 1);
  });
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
    // An earlier cut may have split its producer (a row-wise reader of an
    // all_reduce it pipelined, whose parts it joined): nothing to cut.
    ComputeOp compute = producerOf(op);
    if (!compute) {
      ++numKept;
      if (explain)
        mlir::emitRemark(op.getLoc())
            << "comm-pipeline: kept whole: its producer was already split "
               "into the parts of an earlier pipelined all_reduce";
      continue;
    }
    int64_t rows = op.getType().getRank() ? op.getType().getDimSize(0) : 0;
    if (chunks > 0) {
      if (rows % chunks != 0 || rows == 0) {
        ++numKept;
        if (explain)
          mlir::emitRemark(op.getLoc())
              << "comm-pipeline: kept whole: dimension 0 (" << rows
              << ") does not divide into " << static_cast<int64_t>(chunks)
              << " parts";
        continue;
      }
      if (std::string why = whyNotCut(compute, rows, chunks); !why.empty()) {
        ++numKept;
        if (explain)
          mlir::emitRemark(op.getLoc()) << "comm-pipeline: kept whole: " << why;
        continue;
      }
      extend(split(compute, op, chunks), chunks, nullptr, nullptr);
      ++numPipelined;
      changed = true;
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
      if (readsWeightByRows(compute, rows, k)) {
        tried += llvm::formatv(", not {0} parts (a part would read a "
                               "weight row by row)",
                               k)
                     .str();
        continue;
      }
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
        mlir::emitRemark(op.getLoc()) << llvm::formatv(
            "comm-pipeline: kept whole: {0:F2} us as written{1}", *whole,
            tried.empty() ? std::string(", dimension 0 does not divide")
                          : tried);
      continue;
    }
    if (explain)
      mlir::emitRemark(op.getLoc()) << llvm::formatv(
          "comm-pipeline: {0} parts: {1:F2} us instead of {2:F2} us{3}", best,
          bestUs, *whole, tried);
    extend(split(compute, op, best), best, &*model, topologyRef.get());
    ++numPipelined;
    changed = true;
  }
  runPerShard(perShard, model ? &*model : nullptr, topologyRef.get());
  if (!changed)
    markAllAnalysesPreserved();
}

void PipelinePass::runPerShard(ArrayRef<Operation *> ops,
                               const CostModel *model,
                               const Topology *topology) {
  for (Operation *op : ops) {
    auto gather = dyn_cast<AllGatherOp>(op);
    auto scatter = dyn_cast<ReduceScatterOp>(op);
    // The compute the collective feeds (a gather) or reads (a scatter).
    ComputeOp compute = gather ? rowwiseReaderOf(gather.getResult())
                               : scatterProducerOf(scatter);
    if (!compute)
      continue; // an earlier cut took it
    std::string why =
        gather ? whyNotPerShard(op, gather.getDim(), gather.getResult())
               : whyNotPerShard(op, scatter.getDim(), scatter.getInput());
    int64_t n =
        cast<CollectiveOpInterface>(op).getReplicaGroups().getGroupSize();
    if (why.empty()) {
      auto rowsOf = cast<RankedTensorType>(
          gather ? gather.getResult().getType() : scatter.getInput().getType());
      why = whyNotCut(compute, rowsOf.getDimSize(0), n,
                      gather ? gather.getResult() : Value());
    }
    if (!why.empty()) {
      ++numKept;
      if (explain)
        mlir::emitRemark(op->getLoc()) << "comm-pipeline: kept whole: " << why;
      continue;
    }
    if (model &&
        !worthCutting(op,
                      gather
                          ? predictGather(gather, compute, *model, *topology)
                          : predictScatter(compute, scatter, *model, *topology),
                      n)) {
      ++numKept;
      continue;
    }
    if (gather)
      splitGather(gather, compute);
    else
      splitScatter(compute, scatter);
    ++numPipelined;
    changed = true;
  }
}
