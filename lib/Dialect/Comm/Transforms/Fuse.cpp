//===- Fuse.cpp - bucket compatible collectives ----------------*- C++ -*-===//
//
// comm-fuse: collectives that could travel as one (same kind, same
// attributes, same element type) are gathered in program order into
// runs and cut into buckets (the cost mode cuts a run in the order its
// members become ready), each becoming pack + one collective + unpack
// where its member latest in the block was. A bucket never moves a collective
// past a use of its result, nor across an async boundary or a point-to-point
// exchange. Bucket boundaries come from byte limits (PyTorch DDP), from fusion
// cycles (Horovod) or from the cost model.
//
//===----------------------------------------------------------------------===//

#include "comm/Analysis/CollectiveCost.h"
#include "comm/Analysis/TopologyAnalysis.h"
#include "comm/Dialect/Comm/IR/CommOps.h"
#include "comm/Dialect/Comm/Transforms/Passes.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

#include <cmath>
#include <map>

namespace mlir {
namespace comm {
#define GEN_PASS_DEF_COMMFUSE
#include "comm/Dialect/Comm/CommPasses.h.inc"
} // namespace comm
} // namespace mlir

using namespace mlir;
using namespace mlir::comm;

namespace {
/// Collectives waiting to travel as one.
struct Bucket {
  SmallVector<Operation *> members;
  int64_t bytes = 0;
  /// The members' results: an op using one closes the bucket.
  llvm::SmallDenseSet<Value, 8> results;
};

struct FusePass : public comm::impl::CommFuseBase<FusePass> {
  using CommFuseBase::CommFuseBase;
  void runOnOperation() override;

private:
  void fuseBlock(Block &block, const CostModel *model);
  /// Replaces the members of `bucket` by pack + collective + unpack.
  void materialize(Bucket &bucket);
  /// Cuts a run of compatible collectives into the buckets that finish the
  /// last of them first, by `model`; `ready` gives when each member's
  /// operand is computed.
  SmallVector<Bucket>
  partition(ArrayRef<Operation *> run,
            const llvm::DenseMap<Operation *, double> &ready,
            const CostModel &model);
};
} // namespace

/// Whether `op` is a collective that works on its whole buffer element by
/// element (or moves it whole), so that packing several tensors into one
/// buffer gives each the result it would have had alone.
static bool isFusible(Operation *op) {
  // An all_gather or reduce_scatter along dimension 0 moves contiguous
  // parts of each tensor: packed in blocks, one per rank, they fuse too.
  if (auto gather = dyn_cast<AllGatherOp>(op); gather && gather.getDim() != 0)
    return false;
  if (auto scatter = dyn_cast<ReduceScatterOp>(op);
      scatter && scatter.getDim() != 0)
    return false;
  if (!isa<AllReduceOp, BroadcastOp, ReduceOp, PermuteOp, AllGatherOp,
           ReduceScatterOp>(op))
    return false;
  auto input = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  return input && type && input.hasStaticShape() && type.hasStaticShape();
}

/// Ops no bucket may cross: async boundaries, point-to-point exchanges,
/// calls and ops with regions (they may hold any of those).
static bool isBarrier(Operation *op) {
  return isa<StartOp, WaitOp, SendOp, RecvOp, CallOpInterface>(op) ||
         op->getNumRegions() > 0;
}

/// The key of the bucket `op` may join: ops of one key compute the same
/// thing on each member when packed.
static std::pair<OperationName, std::pair<DictionaryAttr, Type>>
getKey(Operation *op) {
  return {op->getName(),
          {op->getAttrDictionary(),
           cast<ShapedType>(op->getResult(0).getType()).getElementType()}};
}

/// The bytes a collective moves as nccl-tests counts them: the larger of
/// its input and result (an all_gather's gathered result, a
/// reduce_scatter's whole input).
static int64_t getBytes(Operation *op) {
  auto input = cast<ShapedType>(op->getOperand(0).getType());
  auto type = cast<ShapedType>(op->getResult(0).getType());
  return std::max(input.getNumElements(), type.getNumElements()) *
         ((type.getElementType().getIntOrFloatBitWidth() + 7) / 8);
}

void FusePass::materialize(Bucket &bucket) {
  if (bucket.members.size() < 2)
    return;
  // The fused op goes where the member latest in the block was: every
  // member's operand is defined by then, and no result of the run a bucket
  // comes from is used before its last member (a use closes the run). The
  // cost mode lists members in the order they become ready.
  Operation *last = bucket.members.front();
  for (Operation *member : bucket.members)
    if (last->isBeforeInBlock(member))
      last = member;
  OpBuilder builder(last);
  // An all_gather over k ranks gathers k blocks of the packed shards, so
  // its unpack reads each tensor from every block; a reduce_scatter hands
  // rank r block r, so its pack cuts every tensor into k parts. Offsets
  // are within a block.
  int64_t blocks = 1;
  bool gather = isa<AllGatherOp>(last), scatter = isa<ReduceScatterOp>(last);
  auto inputType = cast<RankedTensorType>(last->getOperand(0).getType());
  auto resultType = cast<RankedTensorType>(last->getResult(0).getType());
  if (gather)
    blocks = resultType.getNumElements() / inputType.getNumElements();
  if (scatter)
    blocks = inputType.getNumElements() / resultType.getNumElements();
  SmallVector<Value> inputs;
  SmallVector<Type> types;
  SmallVector<int64_t> offsets;
  SmallVector<Location> locations;
  int64_t perBlock = 0;
  for (Operation *member : bucket.members) {
    auto input = cast<RankedTensorType>(member->getOperand(0).getType());
    auto type = cast<RankedTensorType>(member->getResult(0).getType());
    inputs.push_back(member->getOperand(0));
    types.push_back(type);
    offsets.push_back(perBlock);
    perBlock += (scatter ? input.getNumElements() : type.getNumElements()) /
                (gather || scatter ? blocks : 1);
    locations.push_back(member->getLoc());
  }
  Location loc = builder.getFusedLoc(locations);
  Type element = resultType.getElementType();
  // The packed input holds every block for a reduce_scatter, one block
  // (this rank's shards) for an all_gather; the result the other way.
  auto packed =
      RankedTensorType::get({scatter ? perBlock * blocks : perBlock}, element);
  auto flat =
      RankedTensorType::get({gather ? perBlock * blocks : perBlock}, element);
  IntegerAttr packBlocks =
      scatter ? builder.getI64IntegerAttr(blocks) : IntegerAttr();
  IntegerAttr unpackBlocks =
      gather ? builder.getI64IntegerAttr(blocks) : IntegerAttr();
  auto pack = PackOp::create(builder, loc, packed, inputs,
                             builder.getDenseI64ArrayAttr(offsets), packBlocks);
  Operation *fused = builder.clone(*last);
  fused->setLoc(loc);
  fused->setOperand(0, pack.getResult());
  fused->getResult(0).setType(flat);
  auto unpack =
      UnpackOp::create(builder, loc, types, fused->getResult(0),
                       builder.getDenseI64ArrayAttr(offsets), unpackBlocks);
  for (auto [member, result] : llvm::zip(bucket.members, unpack.getResults())) {
    member->getResult(0).replaceAllUsesWith(result);
    member->erase();
  }
  numOpsFused += bucket.members.size();
  ++numBuckets;
  if (explain)
    fused->emitRemark() << "comm-fuse: " << bucket.members.size()
                        << " collectives, " << bucket.bytes << " bytes, in one";
}

void FusePass::fuseBlock(Block &block, const CostModel *model) {
  using Key = std::pair<OperationName, std::pair<DictionaryAttr, Type>>;
  bool byCost = mode == FuseMode::cost;
  bool byCycle = mode == FuseMode::cycle;
  // In cost and cycle mode, when each op's operands are computed: the
  // compute stream's clock after the op that defines them.
  llvm::DenseMap<Operation *, double> ready;
  if (model) {
    double clock = 0;
    llvm::DenseMap<Operation *, double> after;
    for (Operation &op : block) {
      clock += getLocalTimeUs(&op, model->getTopology()).value_or(0);
      after[&op] = clock;
    }
    for (Operation &op : block) {
      double at = 0;
      for (Value operand : op.getOperands())
        if (Operation *def = operand.getDefiningOp();
            def && def->getBlock() == &block)
          at = std::max(at, after.lookup(def));
      ready[&op] = at;
    }
  }
  // Runs of compatible collectives (cost mode), cut once the block is read.
  SmallVector<SmallVector<Operation *>> runs;
  llvm::MapVector<Key, Bucket> open;
  // In cycle mode, the cycle each open bucket's first member is ready in.
  llvm::DenseMap<Key, int64_t> openCycle;
  bool firstBucket = true;
  auto close = [&](Key key) {
    auto it = open.find(key);
    if (it == open.end())
      return;
    Bucket bucket = std::move(it->second);
    open.erase(it);
    firstBucket = false;
    if (byCost)
      runs.push_back(bucket.members);
    else
      materialize(bucket);
  };
  auto closeAll = [&]() {
    SmallVector<Key> keys;
    for (auto &entry : open)
      keys.push_back(entry.first);
    for (const Key &key : keys)
      close(key);
  };

  for (Operation &op : llvm::make_early_inc_range(block)) {
    if (isBarrier(&op)) {
      closeAll();
      continue;
    }
    // A bucket must land before any use of its members' results.
    SmallVector<Key> used;
    for (auto &[key, bucket] : open)
      for (Value operand : op.getOperands())
        if (bucket.results.contains(operand)) {
          used.push_back(key);
          break;
        }
    for (const Key &key : used)
      close(key);
    if (!isFusible(&op))
      continue;

    Key key = getKey(&op);
    int64_t bytes = getBytes(&op);
    if (maxTensors > 0) {
      auto it = open.find(key);
      if (it != open.end() &&
          it->second.members.size() >= static_cast<size_t>(maxTensors))
        close(key);
    }
    if (byCycle) {
      // Horovod sends what became ready in one cycle together, up to the
      // limit; a tensor over the limit on its own travels alone.
      auto cycle =
          static_cast<int64_t>(std::floor(ready.lookup(&op) / cycleUs));
      auto it = open.find(key);
      if (it != open.end() && (openCycle.lookup(key) != cycle ||
                               it->second.bytes + bytes > thresholdBytes))
        close(key);
      if (bytes > thresholdBytes)
        continue;
      if (!open.count(key))
        openCycle[key] = cycle;
    } else if (!byCost) {
      // A tensor that would take its bucket over the limit closes it and
      // starts the next one; one over the limit on its own travels alone.
      auto it = open.find(key);
      if (it != open.end() &&
          it->second.bytes + bytes >
              (firstBucket ? firstBucketBytes : thresholdBytes))
        close(key);
      if (bytes > (firstBucket ? firstBucketBytes : thresholdBytes)) {
        firstBucket = false; // it goes first, alone
        continue;
      }
    }
    Bucket &bucket = open[key];
    bucket.members.push_back(&op);
    bucket.bytes += bytes;
    bucket.results.insert(op.getResult(0));
  }
  closeAll();
  for (ArrayRef<Operation *> run : runs)
    for (Bucket &bucket : partition(run, ready, *model))
      materialize(bucket);
}

SmallVector<Bucket>
FusePass::partition(ArrayRef<Operation *> run,
                    const llvm::DenseMap<Operation *, double> &ready,
                    const CostModel &model) {
  size_t maxMembers = maxTensors > 0 ? std::min<int64_t>(maxTensors, 256) : 256;
  size_t m = run.size();
  // The communication stream takes the members in the order their operands
  // become ready, not in program order: comm-schedule starts each
  // collective right after its operand is computed. A gradient computed
  // early and all-reduced late in the program (JAX's and XLA's order) runs
  // under the compute that follows it, unless a bucket ties it to a later
  // one; judged in program order, fusing the two looked free.
  SmallVector<Operation *> order(run.begin(), run.end());
  llvm::stable_sort(order, [&](Operation *a, Operation *b) {
    return ready.lookup(a) < ready.lookup(b);
  });
  run = order;
  SmallVector<CollectiveRequest> requests;
  for (Operation *op : run) {
    std::optional<CollectiveRequest> request = getCollectiveRequest(op);
    request->backend = backend;
    request->native = false;
    requests.push_back(*request);
  }
  // Predictions on a grid of sizes 2^(1/32) apart: the buckets' sizes
  // vary, their costs change smoothly.
  std::map<int64_t, double> cache;
  auto cost = [&](uint64_t bytes) {
    int64_t step = static_cast<int64_t>(std::ceil(32 * std::log2(bytes + 1.0)));
    auto it = cache.find(step);
    if (it != cache.end())
      return it->second;
    CollectiveRequest request = requests.front();
    // Whole elements, and for gathers and scatters a whole number of them
    // per rank.
    uint64_t unit = std::max(1u, request.elementBytes);
    if (request.kind == CollectiveKind::AllGather ||
        request.kind == CollectiveKind::ReduceScatter)
      unit *= std::max<size_t>(1, request.groups.front().size());
    uint64_t rounded = static_cast<uint64_t>(std::exp2(step / 32.0));
    request.bytes = std::max<uint64_t>(unit, rounded / unit * unit);
    llvm::Expected<Prediction> p = model.predict(request);
    // A size the model rejects (it should not happen: the members were
    // predicted) costs as if it took forever, so it is never chosen.
    double us = p ? p->timeUs : std::numeric_limits<double>::infinity();
    if (!p)
      llvm::consumeError(p.takeError());
    cache[step] = us;
    return us;
  };
  // best[k]: the earliest the communication stream can finish the first k
  // members; from[k]: where the last bucket of that cut begins.
  std::vector<double> best(m + 1, 0);
  std::vector<size_t> from(m + 1, 0);
  for (size_t k = 1; k <= m; ++k) {
    best[k] = std::numeric_limits<double>::infinity();
    uint64_t bytes = 0;
    double readyAt = 0;
    for (size_t j = k; j >= 1 && k - j < maxMembers; --j) {
      bytes += requests[j - 1].bytes;
      if (j < k && bytes > static_cast<uint64_t>(thresholdBytes))
        break;
      readyAt = std::max(readyAt, ready.lookup(run[j - 1]));
      // A bucket of several also packs and unpacks on the stream.
      double packing =
          j < k ? 2 * getPackTimeUs(bytes, model.getTopology()) : 0;
      double end = std::max(readyAt, best[j - 1]) + cost(bytes) + packing;
      // Ties go to the larger bucket (found first).
      if (end < best[k] * (1 - 1e-9)) {
        best[k] = end;
        from[k] = j - 1;
      }
    }
  }
  SmallVector<Bucket> buckets;
  for (size_t k = m; k > 0; k = from[k]) {
    Bucket bucket;
    for (size_t i = from[k]; i < k; ++i) {
      bucket.members.push_back(run[i]);
      bucket.bytes += getBytes(run[i]);
    }
    buckets.push_back(std::move(bucket));
  }
  std::reverse(buckets.begin(), buckets.end());
  return buckets;
}

void FusePass::runOnOperation() {
  if (thresholdBytes <= 0 || firstBucketBytes <= 0) {
    emitError(getOperation().getLoc())
        << "comm-fuse: threshold-bytes and first-bucket-bytes must be "
           "positive, got "
        << static_cast<int64_t>(thresholdBytes) << " and "
        << static_cast<int64_t>(firstBucketBytes);
    return signalPassFailure();
  }
  if (maxTensors < 0) {
    emitError(getOperation().getLoc())
        << "comm-fuse: max-tensors must be 0 (no limit) or positive, got "
        << static_cast<int64_t>(maxTensors);
    return signalPassFailure();
  }
  if (!(cycleUs > 0) || !std::isfinite(cycleUs)) {
    emitError(getOperation().getLoc())
        << "comm-fuse: cycle-us must be a positive number of microseconds, "
           "got "
        << static_cast<double>(cycleUs);
    return signalPassFailure();
  }
  std::unique_ptr<CostModel> model;
  std::shared_ptr<const Topology> topologyRef;
  if (mode != FuseMode::threshold) {
    FailureOr<std::shared_ptr<const Topology>> loaded =
        getTopologyFor(getOperation(), topology);
    if (failed(loaded))
      return signalPassFailure();
    topologyRef = *loaded;
    FailureOr<CostParams> params = getCostParamsFor(getOperation(), costParams);
    if (failed(params))
      return signalPassFailure();
    model = std::make_unique<CostModel>(*topologyRef, *params);
  }
  SmallVector<Block *> blocks;
  getOperation()->walk([&](Block *block) { blocks.push_back(block); });
  for (Block *block : blocks)
    fuseBlock(*block, model.get());
}
