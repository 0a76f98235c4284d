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

#include <algorithm>
#include <cmath>
#include <limits>

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

/// A bucket on the communication stream (cost mode): issued when its last
/// member is ready, then busy for `us`.
struct Job {
  double issue = 0;
  double us = 0;
};

/// A run of compatible collectives as the cost mode sees it: its members in
/// the order their operands become ready, when each is, and what a bucket
/// of them costs on the communication stream.
class RunTiming {
public:
  RunTiming(ArrayRef<Operation *> run,
            const llvm::DenseMap<Operation *, double> &ready,
            const CostModel &model, Backend backend);
  size_t size() const { return order.size(); }
  /// When member `i`'s operand is computed.
  double readyAt(size_t i) const { return at[i]; }
  /// The bytes member `i` moves, as the cost model counts them.
  uint64_t bytesOf(size_t i) const { return memberBytes[i]; }
  /// What a bucket of `count` members and `bytes` bytes keeps the stream
  /// busy for: the collective comm-select-algorithm will make of it, and
  /// for two or more members their pack and unpack.
  double bucketUs(size_t count, uint64_t bytes) {
    return bucketUs(count, bytes, getStep(bytes));
  }
  /// The same for a bucket whose grid step (getStep) the caller knows.
  double bucketUs(size_t count, uint64_t bytes, size_t step) {
    // A bucket of several also packs and unpacks on the stream.
    double packing = count > 1 ? 2 * getPackTimeUs(bytes, packGBps) : 0;
    double &us = cache[step];
    if (std::isnan(us))
      us = predictUs(step);
    return us + packing;
  }
  /// The members [from, to) as a bucket.
  Bucket makeBucket(size_t from, size_t to) const;

  /// The step of the grid of sizes a bucket of `bytes` is predicted at:
  /// ceil(32 log2(bytes + 1)), which never falls as the bytes grow.
  static size_t getStep(uint64_t bytes) {
    return static_cast<size_t>(std::ceil(32 * std::log2(bytes + 1.0)));
  }
  /// The most bytes each step of the grid holds, by step: a bucket that
  /// grows member by member finds its step by walking up this table
  /// rather than by a logarithm per member.
  static ArrayRef<uint64_t> getStepEnds();

private:
  /// The prediction at grid step `step`.
  double predictUs(size_t step) const;

  SmallVector<Operation *> order;
  std::vector<double> at;
  /// What each member moves, as the cost model counts it, and as its
  /// tensors hold (getBytes).
  SmallVector<uint64_t> memberBytes, memberTensorBytes;
  /// The first member's request: a bucket's is the same with its bytes
  /// (one copy of the groups, not one per member).
  CollectiveRequest first;
  const CostModel &model;
  Backend backend;
  /// The HBM bandwidth packing runs at.
  double packGBps;
  /// Predictions on a grid of sizes 2^(1/32) apart, by grid step (NaN:
  /// not predicted yet): the buckets' sizes vary, their costs change
  /// smoothly. partition asks for hundreds of millions of buckets in a
  /// block of 10,000 collectives.
  std::vector<double> cache;
};

struct FusePass : public comm::impl::CommFuseBase<FusePass> {
  using CommFuseBase::CommFuseBase;
  void runOnOperation() override;
  /// Set where cutting runs jointly gave other buckets than cutting each
  /// alone (createCommFuse's `jointChanged`).
  bool *jointChanged = nullptr;

private:
  /// Fuses the collectives of `block`.
  void fuseBlock(Block &block, const CostModel *model);
  /// The cost model of the module's topology and parameters (cost and
  /// cycle modes), after a located error if there is none.
  FailureOr<std::unique_ptr<CostModel>> getModel(ModuleOp module);
  /// The topology the model refers to.
  std::shared_ptr<const Topology> topologyRef;
  /// Replaces the members of `bucket` by pack + collective + unpack.
  void materialize(Bucket &bucket);
  /// Whether this run fused anything (what it leaves alone need not be
  /// verified again).
  bool fusedAny = false;
  /// Cuts a run of compatible collectives into the buckets that finish the
  /// last of them first, by `model`, on a stream that also serves `others`
  /// (sorted by issue time); `ready` gives when each member's operand is
  /// computed. The chosen buckets, as jobs, go to `jobs`.
  SmallVector<Bucket> partition(RunTiming &run, ArrayRef<Job> others,
                                SmallVectorImpl<Job> &jobs);
};

/// Every run's cuts in a block (cost mode), and their buckets as jobs.
struct Cuts {
  std::vector<SmallVector<Bucket>> buckets;
  std::vector<SmallVector<Job>> jobs;
};

/// The bucket sizes the cost mode's joint cuts also start from: from
/// small buckets to large (PyTorch DDP's 25 MiB among them).
constexpr uint64_t kStartBytes[] = {1 << 20, 4 << 20, 25 << 20, 100 << 20};

/// Cuts `run` in ready order into buckets of at most `limit` bytes (a
/// member over it alone), as jobs to `jobs`: a start for the cost mode's
/// joint cuts.
SmallVector<Bucket> cutBySize(RunTiming &run, uint64_t limit,
                              SmallVectorImpl<Job> &jobs);
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
         getElementStorageBytes(type.getElementType());
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
  // One block per rank of the group (from the groups, not the shapes,
  // which may hold no elements).
  bool gather = isa<AllGatherOp>(last), scatter = isa<ReduceScatterOp>(last);
  auto resultType = cast<RankedTensorType>(last->getResult(0).getType());
  int64_t blocks =
      gather || scatter
          ? cast<CollectiveOpInterface>(last).getReplicaGroups().getGroupSize()
          : 1;
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
  fusedAny = true;
  if (explain)
    mlir::emitRemark(fused->getLoc())
        << "comm-fuse: " << bucket.members.size() << " collectives, "
        << bucket.bytes << " bytes, in one";
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
  // Runs of one collective each have nothing to cut (a block of one
  // comm.start's body: asking the model about each of 100,000 took 10 s).
  if (llvm::all_of(runs, [](const auto &run) { return run.size() < 2; }))
    return;
  // Each run cut as if it had the stream alone first; then, since all runs
  // share the stream, each is cut again with the others' buckets in place
  // until no cut changes (a few rounds). Cut alone, runs of four element
  // types made 23 buckets where 6 were best, 1.48x slower than DDP's plan
  // (test/Pipelines/Inputs/mixed-dtypes.mlir).
  std::vector<RunTiming> timings;
  timings.reserve(runs.size());
  for (const SmallVector<Operation *> &run : runs)
    timings.emplace_back(run, ready, *model, backend);
  Cuts alone;
  for (RunTiming &run : timings) {
    alone.jobs.emplace_back();
    alone.buckets.push_back(partition(run, {}, alone.jobs.back()));
  }
  size_t totalJobs = 0;
  for (const SmallVector<Job> &list : alone.jobs)
    totalJobs += list.size();
  // Each re-cut serves every other bucket: bounded, so that a block of
  // thousands of runs stays near linear (they are then cut alone, or from
  // fewer starts).
  constexpr size_t kMaxJointWork = 4'000'000;
  size_t work = runs.size() * totalJobs;
  bool jointCuts = joint && runs.size() > 1 && work <= kMaxJointWork;
  auto sameCut = [](ArrayRef<Bucket> a, ArrayRef<Bucket> b) {
    if (a.size() != b.size())
      return false;
    for (auto [x, y] : llvm::zip(a, b))
      if (x.members.size() != y.members.size())
        return false;
    return true;
  };
  // When the one stream has run every bucket of every run, in issue order.
  auto queueEnd = [](const Cuts &cuts) {
    SmallVector<Job> queue;
    for (const SmallVector<Job> &list : cuts.jobs)
      queue.append(list.begin(), list.end());
    llvm::stable_sort(
        queue, [](const Job &a, const Job &b) { return a.issue < b.issue; });
    double clock = 0;
    for (const Job &job : queue)
      clock = std::max(clock, job.issue) + job.us;
    return clock;
  };
  // Re-cuts one run at a time, the others' buckets in place, until no cut
  // changes (a few rounds). Each re-cut only improves its own run given
  // the others, so the descent ends in a local optimum that depends on
  // where it starts and on which run goes first (two element types ready
  // together: whichever is re-cut first ends in one late bucket, the other
  // keeps a small early one).
  // Every run's jobs in issue order (ties: by run, then in the run's
  // order), each with its run.
  struct Tagged {
    Job job;
    size_t run;
  };
  auto byIssue = [](const Tagged &a, const Tagged &b) {
    return a.job.issue < b.job.issue ||
           (a.job.issue == b.job.issue && a.run < b.run);
  };
  auto descend = [&](bool reversed, Cuts &cuts) {
    std::vector<Tagged> all;
    for (auto [r, list] : llvm::enumerate(cuts.jobs))
      for (const Job &job : list)
        all.push_back({job, r});
    llvm::stable_sort(all, byIssue);
    // A run re-cut against the same others gets the same cut: it is
    // re-cut only where another changed since (`cutAt`, `changedAt`: the
    // count of changes then; -1: never cut against the others).
    int64_t changes = 0;
    std::vector<int64_t> cutAt(runs.size(), -1), changedAt(runs.size(), 0);
    SmallVector<Job> others;
    std::vector<Tagged> kept;
    for (unsigned round = 0; round < 4; ++round) {
      bool changed = false;
      for (size_t i = 0; i < runs.size(); ++i) {
        size_t r = reversed ? runs.size() - 1 - i : i;
        if (cutAt[r] >= 0 &&
            llvm::all_of(llvm::seq<size_t>(0, runs.size()), [&](size_t o) {
              return o == r || changedAt[o] <= cutAt[r];
            }))
          continue;
        kept.clear();
        others.clear();
        for (const Tagged &tagged : all)
          if (tagged.run != r) {
            kept.push_back(tagged);
            others.push_back(tagged.job);
          }
        SmallVector<Job> recut;
        SmallVector<Bucket> again = partition(timings[r], others, recut);
        if (sameCut(again, cuts.buckets[r])) {
          cutAt[r] = changes;
          continue;
        }
        changed = true;
        changedAt[r] = cutAt[r] = ++changes;
        cuts.buckets[r] = std::move(again);
        cuts.jobs[r] = std::move(recut);
        // The others' jobs and the new ones, merged in issue order.
        std::vector<Tagged> mine;
        for (const Job &job : cuts.jobs[r])
          mine.push_back({job, r});
        all.clear();
        std::merge(kept.begin(), kept.end(), mine.begin(), mine.end(),
                   std::back_inserter(all), byIssue);
      }
      if (!changed)
        break;
    }
  };
  Cuts cuts = alone;
  if (jointCuts) {
    // The descent starts from the runs cut alone and from the runs cut at
    // fixed sizes (DDP's 25 MiB among them), in both orders of the runs,
    // and the cuts whose stream ends first are kept (ties: the earlier
    // start). From the runs cut alone only, the four element types of
    // mixed-dtypes.mlir ended with all their i32 gradients in one bucket
    // behind the last layer (969.95 us), slower than DDP's buckets.
    //
    // A descent re-cuts every run in up to four rounds, each re-cut
    // weighing every bucket of up to 256 members that could end at each
    // member: in a block of 100,000 collectives of four element types, ten
    // descents weighed 10^9 buckets (20 s). Starts past the first are
    // tried while the descents' buckets stay within kMaxDescentWork (a few
    // seconds; 10,000 such collectives keep all of them).
    constexpr uint64_t kMaxDescentWork = 200'000'000;
    uint64_t descentWork = 0;
    for (const RunTiming &run : timings)
      descentWork += 4 * run.size() * std::min<size_t>(run.size(), 256);
    SmallVector<Cuts> starts{alone};
    for (uint64_t limit : kStartBytes) {
      if (starts.size() * 2 * work > kMaxJointWork ||
          (starts.size() + 1) * 2 * descentWork > kMaxDescentWork)
        break;
      Cuts start;
      for (RunTiming &run : timings) {
        start.jobs.emplace_back();
        start.buckets.push_back(cutBySize(
            run, std::min<uint64_t>(limit, thresholdBytes), start.jobs.back()));
      }
      starts.push_back(std::move(start));
    }
    double bestEnd = std::numeric_limits<double>::infinity();
    for (const Cuts &start : starts)
      for (bool reversed : {false, true}) {
        Cuts tried = start;
        descend(reversed, tried);
        double end = queueEnd(tried);
        if (end < bestEnd * (1 - 1e-9)) {
          bestEnd = end;
          cuts = std::move(tried);
        }
      }
    if (jointChanged)
      for (size_t r = 0; r < runs.size(); ++r)
        if (!sameCut(cuts.buckets[r], alone.buckets[r]))
          *jointChanged = true;
  }
  for (SmallVector<Bucket> &cut : cuts.buckets)
    for (Bucket &bucket : cut)
      materialize(bucket);
}

RunTiming::RunTiming(ArrayRef<Operation *> run,
                     const llvm::DenseMap<Operation *, double> &ready,
                     const CostModel &model, Backend backend)
    : order(run.begin(), run.end()), model(model), backend(backend),
      packGBps(getPackMemoryGBps(model.getTopology())),
      cache(32 * 65, std::numeric_limits<double>::quiet_NaN()) {
  // The communication stream takes the members in the order their operands
  // become ready, not in program order: comm-schedule starts each
  // collective right after its operand is computed. A gradient computed
  // early and all-reduced late in the program (JAX's and XLA's order) runs
  // under the compute that follows it, unless a bucket ties it to a later
  // one; judged in program order, fusing the two looked free.
  llvm::stable_sort(order, [&](Operation *a, Operation *b) {
    return ready.lookup(a) < ready.lookup(b);
  });
  for (auto [i, op] : llvm::enumerate(order)) {
    at.push_back(ready.lookup(op));
    std::optional<CollectiveRequest> request = getCollectiveRequest(op);
    memberBytes.push_back(request->bytes);
    memberTensorBytes.push_back(getBytes(op));
    if (i == 0) {
      first = std::move(*request);
      first.backend = backend;
      first.native = false;
    }
  }
}

ArrayRef<uint64_t> RunTiming::getStepEnds() {
  // Step 2048 holds every 64-bit size. Each end is the last size whose
  // step is at most its own, found by bisection on getStep itself, so
  // that walking the table gives getStep's step exactly.
  static const std::vector<uint64_t> ends = [] {
    std::vector<uint64_t> table(getStep(UINT64_MAX) + 1);
    for (size_t step = 0; step < table.size(); ++step) {
      uint64_t low = 0, high = UINT64_MAX; // getStep(low) <= step
      if (getStep(high) <= step) {
        table[step] = high;
        continue;
      }
      while (high - low > 1) {
        uint64_t mid = low + (high - low) / 2;
        (getStep(mid) <= step ? low : high) = mid;
      }
      table[step] = low;
    }
    return table;
  }();
  return ends;
}

double RunTiming::predictUs(size_t step) const {
  CollectiveRequest request = first;
  // Whole elements, and for gathers and scatters a whole number of them
  // per rank.
  uint64_t unit = std::max(1u, request.elementBytes);
  if (request.kind == CollectiveKind::AllGather ||
      request.kind == CollectiveKind::ReduceScatter)
    unit *= std::max<size_t>(1, request.groups.front().size());
  uint64_t rounded = static_cast<uint64_t>(std::exp2(step / 32.0));
  request.bytes = std::max<uint64_t>(unit, rounded / unit * unit);
  // What comm-select-algorithm will make of the bucket (on NCCL, its own
  // collective where no schedule is faster). A size the model rejects
  // (it should not happen: the members were predicted) costs as if it
  // took forever, so it is never chosen.
  return predictPlannedTimeUs(request, model, backend)
      .value_or(std::numeric_limits<double>::infinity());
}

Bucket RunTiming::makeBucket(size_t from, size_t to) const {
  Bucket bucket;
  for (size_t i = from; i < to; ++i) {
    bucket.members.push_back(order[i]);
    bucket.bytes += memberTensorBytes[i];
  }
  return bucket;
}

namespace {
SmallVector<Bucket> cutBySize(RunTiming &run, uint64_t limit,
                              SmallVectorImpl<Job> &jobs) {
  SmallVector<Bucket> buckets;
  size_t from = 0;
  uint64_t bytes = 0;
  for (size_t k = 0; k <= run.size(); ++k) {
    if (k < run.size() && (k == from || bytes + run.bytesOf(k) <= limit)) {
      bytes += run.bytesOf(k);
      continue;
    }
    if (k > from) {
      buckets.push_back(run.makeBucket(from, k));
      jobs.push_back({run.readyAt(k - 1), run.bucketUs(k - from, bytes)});
    }
    from = k;
    bytes = k < run.size() ? run.bytesOf(k) : 0;
  }
  return buckets;
}
} // namespace

SmallVector<Bucket> FusePass::partition(RunTiming &run, ArrayRef<Job> others,
                                        SmallVectorImpl<Job> &jobs) {
  size_t maxMembers = maxTensors > 0 ? std::min<int64_t>(maxTensors, 256) : 256;
  size_t m = run.size();
  // The others issued at or before `t` go first (ties: the others first).
  auto servedBy = [&](double t) {
    return static_cast<size_t>(std::upper_bound(others.begin(), others.end(), t,
                                                [](double x, const Job &job) {
                                                  return x < job.issue;
                                                }) -
                               others.begin());
  };
  // best[k]: the earliest the communication stream can finish the first k
  // members and the others issued before the last of them is ready;
  // served[k]: how many others that is; from[k]: where the last bucket of
  // that cut begins. Forward: from each finished prefix j, every bucket
  // j..k-1 that fits.
  std::vector<double> best(m + 1, std::numeric_limits<double>::infinity());
  std::vector<size_t> from(m + 1, 0), served(m + 1, 0);
  served[0] = m ? servedBy(run.readyAt(0)) : 0;
  for (size_t k = 1; k <= m; ++k)
    served[k] = servedBy(run.readyAt(k - 1));
  // Serving others issued while the stream's clock is c ends at
  // max(c + add, atLeast): serving one (issue, us) ends at
  // max(c, issue) + us, and serving one after another composes to the
  // same form. Before member k-1 is ready the stream serves others
  // [served[k-1], served[k]) (`add[k]`, `atLeast[k]`), whichever bucket it
  // is in: a block of 10,000 collectives of 35 kinds served each of them
  // once per bucket it could end.
  std::vector<double> add(m + 1, 0),
      atLeast(m + 1, -std::numeric_limits<double>::infinity());
  for (size_t k = 1; k <= m; ++k)
    for (size_t i = served[k - 1]; i < served[k]; ++i) {
      add[k] += others[i].us;
      atLeast[k] = std::max(atLeast[k], others[i].issue) + others[i].us;
    }
  best[0] = 0;
  for (size_t i = 0; i < served[0]; ++i)
    best[0] = std::max(best[0], others[i].issue) + others[i].us;
  std::vector<double> busy(m + 1, 0);
  ArrayRef<uint64_t> stepEnds = RunTiming::getStepEnds();
  for (size_t j = 0; j < m; ++j) {
    if (!std::isfinite(best[j]))
      continue;
    double clock = best[j];
    uint64_t bytes = run.bytesOf(j);
    size_t step = RunTiming::getStep(bytes);
    for (size_t k = j + 1; k <= m && k - j <= maxMembers; ++k) {
      if (k > j + 1) {
        bytes += run.bytesOf(k - 1);
        if (bytes > static_cast<uint64_t>(thresholdBytes))
          break;
        while (bytes > stepEnds[step])
          ++step;
      }
      clock = std::max(clock + add[k], atLeast[k]);
      double us = run.bucketUs(k - j, bytes, step);
      double end = std::max(clock, run.readyAt(k - 1)) + us;
      // Ties go to the smaller last bucket (found last).
      if (end <= best[k] * (1 + 1e-9)) {
        best[k] = end;
        from[k] = j;
        busy[k] = us;
      }
    }
  }
  SmallVector<Bucket> buckets;
  for (size_t k = m; k > 0; k = from[k]) {
    buckets.push_back(run.makeBucket(from[k], k));
    jobs.push_back({run.readyAt(k - 1), busy[k]});
  }
  std::reverse(buckets.begin(), buckets.end());
  std::reverse(jobs.begin(), jobs.end());
  return buckets;
}

FailureOr<std::unique_ptr<CostModel>> FusePass::getModel(ModuleOp module) {
  FailureOr<std::shared_ptr<const Topology>> loaded =
      getTopologyFor(module, topology);
  if (failed(loaded))
    return failure();
  topologyRef = *loaded;
  FailureOr<CostParams> params = getCostParamsFor(module, costParams);
  if (failed(params))
    return failure();
  return std::make_unique<CostModel>(*topologyRef, *params);
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
  if (mode != FuseMode::threshold) {
    FailureOr<std::unique_ptr<CostModel>> made = getModel(getOperation());
    if (failed(made))
      return signalPassFailure();
    model = std::move(*made);
  }
  SmallVector<Block *> blocks;
  getOperation()->walk([&](Block *block) { blocks.push_back(block); });
  fusedAny = false;
  for (Block *block : blocks)
    fuseBlock(*block, model.get());
  if (!fusedAny)
    markAllAnalysesPreserved();
}

std::unique_ptr<Pass> mlir::comm::createCommFuse(const CommFuseOptions &options,
                                                 bool *jointChanged) {
  auto pass = std::make_unique<FusePass>(options);
  pass->jointChanged = jointChanged;
  return pass;
}
