//===- Schedule.cpp - start early, wait late -------------------*- C++ -*-===//
//
// comm-schedule: every blocking collective of a block becomes a comm.start
// right after the last op its operands come from and a comm.wait right
// before its first use, so the transfer overlaps whatever lies between.
// Starts that become possible at the same point go in the order their
// results are needed; a memory budget bounds the bytes in flight.
//
//===----------------------------------------------------------------------===//

#include "comm/Analysis/CollectiveCost.h"
#include "comm/Analysis/TopologyAnalysis.h"
#include "comm/Dialect/Comm/IR/CommOps.h"
#include "comm/Dialect/Comm/Transforms/Passes.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/Sequence.h"

#include <deque>
#include <queue>
#include <tuple>

namespace mlir {
namespace comm {
#define GEN_PASS_DEF_COMMSCHEDULE
#include "comm/Dialect/Comm/CommPasses.h.inc"
} // namespace comm
} // namespace mlir

using namespace mlir;
using namespace mlir::comm;

namespace {
/// A collective with the pack that feeds it and the unpack that reads it,
/// which move with it into one comm.start; or a chain of collectives, each
/// the only reader of the one before (a hierarchical all_reduce's
/// reduce_scatter, all_reduce and all_gather), which run one after the
/// other in one comm.start.
struct Transfer {
  SmallVector<Operation *, 3> ops; ///< in program order
  Operation *collective = nullptr; ///< the first collective
  SmallVector<Operation *, 1> collectives;
  /// The values the rest of the block uses.
  SmallVector<Value, 4> outputs;
  int64_t bytes = 0;
  /// Block positions: the start goes after `earliest` (-1: the block's
  /// beginning); the wait before `needed` (the first user, or the
  /// terminator).
  int64_t earliest = -1, needed = 0, start = -1;
};

struct SchedulePass : public comm::impl::CommScheduleBase<SchedulePass> {
  using CommScheduleBase::CommScheduleBase;
  void runOnOperation() override;

private:
  void scheduleBlock(Block &block);
  /// With a topology: the cost model that says when a transfer ends
  /// (owned by runOnOperation).
  const CostModel *model = nullptr;
};
} // namespace

/// Ops a start may not move above: their order with the transfers must
/// stay (point to point, async regions, barriers, calls, regions).
static bool isFence(Operation *op) {
  return isa<StartOp, WaitOp, SendOp, RecvOp, BarrierOp, CallOpInterface>(op) ||
         op->getNumRegions() > 0;
}

/// Collectives worth starting early: they produce a value the block uses
/// later (a barrier produces nothing; point-to-point keeps its order).
static bool isSchedulable(Operation *op) {
  return isa<AllReduceOp, ReduceScatterOp, AllGatherOp, AllToAllOp, BroadcastOp,
             ReduceOp, PermuteOp>(op);
}

/// "'comm.compute' (file:line)", for remarks.
static std::string describe(Operation *op) {
  std::string text = "'" + op->getName().getStringRef().str() + "'";
  if (auto loc = dyn_cast<FileLineColLoc>(op->getLoc()))
    text += " (line " + std::to_string(loc.getLine()) + ")";
  return text;
}

static int64_t getPayload(Operation *op) {
  auto collective = cast<CollectiveOpInterface>(op);
  return std::max(collective.getBytesSentPerRank(),
                  collective.getBytesReceivedPerRank());
}

/// The bytes a comm.start's transfers hold while in flight: a chain (a
/// hierarchical all_reduce's pieces) its largest piece's, as a Transfer
/// does; other transfers add up.
static int64_t getHeldBytes(StartOp begun) {
  int64_t bytes = 0;
  llvm::DenseMap<Operation *, int64_t> chainOf;
  begun.getBody().walk([&](Operation *inner) {
    int64_t payload = 0;
    if (isa<CollectiveOpInterface>(inner)) {
      payload = getPayload(inner);
    } else if (auto p2p = dyn_cast<PointToPointOpInterface>(inner)) {
      auto shaped = dyn_cast<ShapedType>(p2p.getTransferType());
      if (!shaped || !shaped.hasStaticShape())
        return;
      payload =
          shaped.getNumElements() * ((shaped.getElementTypeBitWidth() + 7) / 8);
    } else {
      return;
    }
    Operation *def = inner->getNumOperands()
                         ? inner->getOperand(0).getDefiningOp()
                         : nullptr;
    int64_t before = def ? chainOf.lookup(def) : 0;
    int64_t held = std::max(before, payload);
    bytes += held - before;
    chainOf[inner] = held;
  });
  return bytes;
}

void SchedulePass::scheduleBlock(Block &block) {
  // Positions of the block's ops.
  llvm::DenseMap<Operation *, int64_t> position;
  SmallVector<Operation *> order;
  for (Operation &op : block) {
    position[&op] = order.size();
    order.push_back(&op);
  }
  auto positionInBlock = [&](Operation *op) -> int64_t {
    Operation *ancestor = block.findAncestorOpInBlock(*op);
    return ancestor ? position.lookup(ancestor) : -1;
  };

  // The transfers, with their pack and unpack.
  SmallVector<Transfer> transfers;
  llvm::DenseMap<Operation *, unsigned> transferOf;
  for (Operation *op : order) {
    if (!isSchedulable(op) || transferOf.count(op))
      continue;
    Transfer t;
    t.collective = op;
    auto pack = op->getOperand(0).getDefiningOp<PackOp>();
    if (pack && pack->getBlock() == &block && pack->hasOneUse())
      t.ops.push_back(pack);
    t.ops.push_back(op);
    t.collectives.push_back(op);
    t.bytes = getPayload(op);
    Operation *tail = op;
    while (tail->getResult(0).hasOneUse()) {
      Operation *user = *tail->getResult(0).user_begin();
      if (user->getBlock() != &block)
        break;
      if (isSchedulable(user) && !transferOf.count(user)) {
        t.ops.push_back(user);
        t.collectives.push_back(user);
        t.bytes = std::max(t.bytes, getPayload(user));
        tail = user;
        continue;
      }
      if (isa<UnpackOp>(user)) {
        t.ops.push_back(user);
        tail = user;
      }
      break;
    }
    llvm::append_range(t.outputs, tail->getResults());
    transfers.push_back(std::move(t));
    for (Operation *member : transfers.back().ops)
      transferOf[member] = transfers.size() - 1;
  }

  // Streams. A transfer is in flight only while the transfers issued
  // around it run on its own stream: one issued on another stream over the
  // same ranks while it flies may run before it on some ranks and after it
  // on others (comm-verify-schedule's "crossed collective order"). The
  // streams are those a person wrote in plans; without any, everything is
  // on the backend's own stream and nothing below applies.
  std::vector<SmallVector<int64_t, 1>> issued(order.size());
  SmallVector<int64_t, 2> streamsSeen;
  for (auto [p, op] : llvm::enumerate(order))
    op->walk([&](Operation *inner) {
      if (!isa<CollectiveOpInterface, PointToPointOpInterface>(inner))
        return;
      int64_t stream = getPlanStream(inner);
      if (!llvm::is_contained(issued[p], stream))
        issued[p].push_back(stream);
      if (!llvm::is_contained(streamsSeen, stream))
        streamsSeen.push_back(stream);
    });
  // For each stream: the last position before p (-1: none) and the first
  // at or after p (the block's size: none) that issues on another.
  llvm::DenseMap<int64_t, std::pair<std::vector<int64_t>, std::vector<int64_t>>>
      crossing;
  if (streamsSeen.size() > 1)
    for (int64_t stream : streamsSeen) {
      auto &[before, after] = crossing[stream];
      int64_t n = order.size();
      before.assign(n + 1, -1);
      after.assign(n + 1, n);
      auto crosses = [&](int64_t p) {
        return llvm::any_of(issued[p],
                            [&](int64_t other) { return other != stream; });
      };
      for (int64_t p = 0; p < n; ++p)
        before[p + 1] = crosses(p) ? p : before[p];
      for (int64_t p = n - 1; p >= 0; --p)
        after[p] = crosses(p) ? p : after[p + 1];
    }

  // As late as the first use allows, and before the next transfer issued
  // on another stream.
  for (Transfer &t : transfers) {
    int64_t last = position.lookup(t.ops.back());
    t.needed = position.lookup(block.getTerminator());
    for (Value output : t.outputs)
      for (Operation *user : output.getUsers())
        if (int64_t p = positionInBlock(user); p > last)
          t.needed = std::min(t.needed, p);
    if (auto it = crossing.find(getPlanStream(t.collective));
        it != crossing.end())
      t.needed = std::min(t.needed, it->second.second[last + 1]);
  }
  // As early as the operands and the last fence before it allow. An
  // operand another transfer produces is available after that transfer's
  // wait, in the gap before its first use.
  // The last fence before each position (-1: none), in one pass.
  std::vector<int64_t> fenceBefore(order.size() + 1, -1);
  for (size_t p = 0; p < order.size(); ++p)
    fenceBefore[p + 1] =
        isFence(order[p]) ? static_cast<int64_t>(p) : fenceBefore[p];
  for (auto [index, t] : llvm::enumerate(transfers)) {
    int64_t first = position.lookup(t.ops.front());
    t.earliest = fenceBefore[first];
    // After the last transfer issued on another stream before it, and
    // after that one's wait where it is a transfer that moves too.
    if (auto it = crossing.find(getPlanStream(t.collective));
        it != crossing.end()) {
      int64_t p = it->second.first[first];
      if (p >= 0) {
        auto other = transferOf.find(order[p]);
        if (other != transferOf.end())
          p = std::max(p, transfers[other->second].needed - 1);
      }
      t.earliest = std::max(t.earliest, p);
    }
    // (Its own ops are looked up by transferOf: a chain of 100,000
    // collectives is one transfer, and searching its ops for each operand
    // took a second.)
    for (Operation *op : t.ops)
      for (Value operand : op->getOperands()) {
        Operation *def = operand.getDefiningOp();
        auto producer = def ? transferOf.find(def) : transferOf.end();
        if (!def || (producer != transferOf.end() && producer->second == index))
          continue;
        int64_t p = positionInBlock(def);
        if (producer != transferOf.end())
          p = std::max(p, transfers[producer->second].needed - 1);
        t.earliest = std::max(t.earliest, p);
      }
    t.start = t.earliest;
  }

  // The bytes in flight may not exceed the budget. With a cost model, a
  // start that would exceed it first waits for the transfers started
  // before it that will have ended by then (waiting for them costs
  // nothing, while a transfer nobody reads until the end of the block
  // would hold its bytes all along), the oldest first; when those are not
  // enough, it starts once enough transfers are waited for where they are
  // needed (at the latest, right before it is needed itself).
  // When each transfer would end: the compute clock after each op of the
  // block, and one communication stream running the transfers in the
  // order they start.
  std::vector<double> clockAfter(order.size(), 0);
  std::vector<double> duration(transfers.size(), 0);
  if (model && memoryBudget > 0) {
    double clock = 0;
    for (auto [p, op] : llvm::enumerate(order)) {
      if (!transferOf.count(op))
        clock += getLocalTimeUs(op, model->getTopology()).value_or(0);
      clockAfter[p] = clock;
    }
    for (auto [i, t] : llvm::enumerate(transfers))
      for (Operation *collective : t.collectives) {
        std::optional<CollectiveRequest> request =
            getCollectiveRequest(collective);
        if (!request)
          continue;
        if (std::optional<double> us = predictTimeUs(
                *request, *model, backend,
                /*native=*/
                !cast<CollectiveOpInterface>(collective).getPlanAttr()))
          duration[i] += *us;
      }
  }
  // Transfers already started (by a person, or by an earlier run of the
  // pass) hold their bytes from their comm.start to their comm.wait in
  // this block (to its end where the wait is elsewhere); a transfer
  // started in between counts them too (they were left out, and planning
  // a planned FSDP step again put 7.9 GiB in flight under a 4 GiB budget).
  struct Started {
    int64_t start, wait, bytes;
  };
  SmallVector<Started> started;
  if (memoryBudget > 0)
    for (auto [p, op] : llvm::enumerate(order)) {
      auto begun = dyn_cast<StartOp>(op);
      if (!begun)
        continue;
      int64_t wait = order.size();
      for (Operation *user : begun.getToken().getUsers())
        if (int64_t q = positionInBlock(user); q >= 0)
          wait = std::min(wait, q);
      started.push_back({static_cast<int64_t>(p), wait, getHeldBytes(begun)});
    }
  // Their bytes in flight at each gap (gap g after the op at g, -1 the
  // block's beginning, stored at g + 1), and the most over a transfer's
  // flight: one started before them is in flight when they start.
  std::vector<int64_t> startedAt(order.size() + 2, 0);
  for (const Started &s : started) {
    startedAt[s.start + 1] += s.bytes;
    startedAt[s.wait + 1] -= s.bytes;
  }
  for (size_t g = 1; g < startedAt.size(); ++g)
    startedAt[g] += startedAt[g - 1];
  auto startedBytesOver = [&](int64_t from, int64_t to) {
    int64_t most = 0;
    for (int64_t g = std::max<int64_t>(from, -1); g <= to; ++g)
      most = std::max(most, startedAt[g + 1]);
    return most;
  };
  auto clockAt = [&](int64_t gap) { return gap < 0 ? 0.0 : clockAfter[gap]; };
  std::vector<double> endsAt(transfers.size(), 0);
  double streamFree = 0;
  if (memoryBudget > 0) {
    // Transfers in the order they start (a start moved later goes back
    // into the queue), so that the stream's clock follows them.
    using Key = std::tuple<int64_t, int64_t, unsigned>;
    std::priority_queue<Key, std::vector<Key>, std::greater<Key>> queue;
    for (auto [i, t] : llvm::enumerate(transfers))
      queue.push({t.start, t.needed, static_cast<unsigned>(i)});
    // The transfers in flight, in the order they started (which is the
    // order they end on the one stream: endsAt grows along it), with the
    // sum of their bytes; the same transfers by the gap of their wait,
    // soonest first, to drop them when the transfers weighed pass it. A
    // transfer waited early is dropped there and then; the heap and the
    // order skip it when they meet it (a list summed at every step made a
    // 100,000-transfer block take minutes).
    std::deque<unsigned> inFlight;
    using Expiry = std::pair<int64_t, unsigned>;
    std::priority_queue<Expiry, std::vector<Expiry>, std::greater<Expiry>>
        byWait;
    std::vector<bool> flying(transfers.size(), false);
    int64_t inFlightBytes = 0;
    auto land = [&](unsigned j) {
      if (flying[j]) {
        flying[j] = false;
        inFlightBytes -= transfers[j].bytes;
      }
    };
    while (!queue.empty()) {
      auto [queuedStart, queuedNeeded, i] = queue.top();
      queue.pop();
      Transfer &t = transfers[i];
      if (queuedStart != t.start)
        continue;
      // Transfers are taken in the order they start: one waited for by now
      // overlaps nothing that comes later.
      while (!byWait.empty() &&
             (!flying[byWait.top().second] || byWait.top().first <= t.start)) {
        land(byWait.top().second);
        byWait.pop();
      }
      // What the transfers started before held over this one's flight
      // (t.start and t.needed stay as they are while it is weighed here).
      int64_t heldByStarted =
          started.empty() ? 0 : startedBytesOver(t.start, t.needed - 1);
      // Wait early for what was started before and has ended, oldest
      // first.
      if (model)
        while (!inFlight.empty() &&
               heldByStarted + inFlightBytes + t.bytes > memoryBudget) {
          unsigned j = inFlight.front();
          if (!flying[j]) {
            inFlight.pop_front();
            continue;
          }
          if (transfers[j].start >= t.start || endsAt[j] > clockAt(t.start))
            break;
          transfers[j].needed = t.start + 1;
          land(j);
          inFlight.pop_front();
        }
      if (heldByStarted + inFlightBytes + t.bytes > memoryBudget) {
        // Move to the gap of the earliest wait still ahead (waits go
        // before starts in a gap) and try again there; at the latest,
        // start right where it is needed.
        int64_t next = t.needed - 1;
        while (!byWait.empty() && !flying[byWait.top().second])
          byWait.pop();
        if (!byWait.empty())
          next = std::min(next, byWait.top().first);
        for (const Started &s : started)
          if (s.start < t.needed - 1 && t.start < s.wait &&
              s.wait - 1 > t.start)
            next = std::min(next, s.wait - 1);
        t.start = next <= t.start ? t.needed - 1 : next;
        if (t.start < t.needed - 1) {
          queue.push({t.start, t.needed, i});
          continue;
        }
      }
      endsAt[i] = std::max(clockAt(t.start), streamFree) + duration[i];
      streamFree = endsAt[i];
      // One that starts where it is needed is waited for at once.
      if (t.needed - 1 > t.start) {
        inFlight.push_back(i);
        byWait.push({t.needed - 1, i});
        flying[i] = true;
        inFlightBytes += t.bytes;
      }
    }
  }

  // Rewrite: starts in the order they become possible, then needed.
  // Only what lies between a start and its wait and is no transfer itself
  // can hide a transfer.
  // Ops that are no transfer, before each position.
  std::vector<int64_t> othersBefore(order.size() + 1, 0);
  for (size_t p = 0; p < order.size(); ++p)
    othersBefore[p + 1] = othersBefore[p] + !transferOf.count(order[p]);
  auto countBetween = [&](const Transfer &t) {
    return t.needed > t.start + 1
               ? othersBefore[t.needed] - othersBefore[t.start + 1]
               : 0;
  };
  SmallVector<unsigned> chosen;
  for (unsigned i = 0; i < transfers.size(); ++i)
    if (countBetween(transfers[i]) > 0)
      chosen.push_back(i);
  llvm::stable_sort(chosen, [&](unsigned a, unsigned b) {
    return std::make_pair(transfers[a].start, transfers[a].needed) <
           std::make_pair(transfers[b].start, transfers[b].needed);
  });

  // Each start and wait goes into a gap between two of the block's ops,
  // before the next op that stays in the block: in a gap, the waits first
  // (a start there may read what they return), then the starts.
  llvm::DenseSet<Operation *> moved;
  for (unsigned i : chosen)
    for (Operation *op : transfers[i].ops)
      moved.insert(op);
  // A transfer's pack runs on the compute stream, right before the start,
  // where nothing between the start and the wait keeps that stream busy
  // (the block's tail: waits and the return): there it overlaps the
  // transfers already on the communication stream instead of queueing
  // behind them. Elsewhere it goes into the start, so that it does not
  // delay the compute that follows.
  auto takesComputeTime = [&](Operation *op) {
    if (model)
      return getLocalTimeUs(op, model->getTopology()).value_or(0) > 0;
    return !isa<WaitOp, StartOp>(op) && !op->hasTrait<OpTrait::IsTerminator>();
  };
  llvm::DenseSet<Operation *> packOnCompute;
  for (unsigned i : chosen) {
    Transfer &t = transfers[i];
    if (!isa<PackOp>(t.ops.front()))
      continue;
    bool idle = true;
    for (int64_t p = t.start + 1; p < t.needed && idle; ++p)
      idle = moved.contains(order[p]) || !takesComputeTime(order[p]);
    if (idle)
      packOnCompute.insert(t.ops.front());
  }
  auto anchor = [&](int64_t gap) {
    for (int64_t p = gap + 1;; ++p)
      if (!moved.contains(order[p]))
        return order[p];
  };
  MLIRContext *ctx = block.getParent()->getContext();
  llvm::DenseMap<unsigned, StartOp> startOf;
  unsigned streamIndex = 0;
  int64_t gaps = static_cast<int64_t>(order.size()) - 1;
  // The transfers waited for and started in each gap, in `chosen` order.
  llvm::DenseMap<int64_t, SmallVector<unsigned, 2>> waitsIn, startsIn;
  for (unsigned i : chosen) {
    waitsIn[transfers[i].needed - 1].push_back(i);
    startsIn[transfers[i].start].push_back(i);
  }
  for (int64_t gap = -1; gap < gaps; ++gap) {
    auto waiting = waitsIn.find(gap);
    auto starting = startsIn.find(gap);
    if (waiting == waitsIn.end() && starting == startsIn.end())
      continue;
    OpBuilder builder(anchor(gap));
    for (unsigned i : waiting != waitsIn.end() ? waiting->second
                                               : SmallVector<unsigned, 2>()) {
      Transfer &t = transfers[i];
      SmallVector<Type> types;
      for (Value output : t.outputs)
        types.push_back(output.getType());
      auto wait = WaitOp::create(builder, t.collective->getLoc(), types,
                                 startOf[i].getToken());
      StartOp start = startOf[i];
      for (auto [output, result] : llvm::zip(t.outputs, wait.getResults()))
        output.replaceUsesWithIf(result, [&](OpOperand &use) {
          return !start->isAncestor(use.getOwner());
        });
    }
    for (unsigned i : starting != startsIn.end() ? starting->second
                                                 : SmallVector<unsigned, 2>()) {
      Transfer &t = transfers[i];
      Location loc = t.collective->getLoc();
      auto start = StartOp::create(builder, loc, TokenType::get(ctx));
      startOf[i] = start;
      OpBuilder inside(ctx);
      Block *body = inside.createBlock(&start.getBody());
      for (Operation *op : t.ops) {
        if (packOnCompute.contains(op))
          op->moveBefore(start);
        else
          op->moveBefore(body, body->end());
      }
      inside.setInsertionPointToEnd(body);
      YieldOp::create(inside, loc, t.outputs);
      builder.setInsertionPointAfter(start);
      if (streams > 1) {
        // A chain's collectives share their stream.
        int64_t stream = static_cast<int64_t>(streamIndex++ % streams);
        for (Operation *op : t.collectives) {
          auto collective = cast<CollectiveOpInterface>(op);
          PlanAttr plan = collective.getPlanAttr();
          if (!plan || !plan.getStream())
            collective.setPlanAttr(
                getPlanWith(ctx, plan, [&](PlanFields &fields) {
                  fields.stream = stream;
                }));
        }
      }
      ++numOpsScheduled;
      if (explain)
        mlir::emitRemark(t.collective->getLoc())
            << "comm-schedule: started "
            << (t.start < 0 ? std::string("at the beginning of the block")
                            : "after " + describe(order[t.start]))
            << ", waited for before " << describe(order[t.needed]) << ", "
            << countBetween(t) << " op(s) in between";
    }
  }
}

void SchedulePass::runOnOperation() {
  if (memoryBudget < 0 || streams < 1 || streams > 64) {
    emitError(getOperation().getLoc())
        << "comm-schedule: memory-budget must be non-negative and streams in "
           "[1, 64], got memory-budget="
        << static_cast<int64_t>(memoryBudget)
        << " streams=" << static_cast<int64_t>(streams);
    return signalPassFailure();
  }
  std::shared_ptr<const Topology> topologyRef;
  std::unique_ptr<CostModel> ownedModel;
  if (!topology.empty() ||
      getOperation()->hasAttr(CommDialect::getTopologyAttrName())) {
    FailureOr<std::shared_ptr<const Topology>> loaded =
        getTopologyFor(getOperation(), topology);
    if (failed(loaded))
      return signalPassFailure();
    topologyRef = *loaded;
    FailureOr<CostParams> params = getCostParamsFor(getOperation(), costParams);
    if (failed(params))
      return signalPassFailure();
    ownedModel = std::make_unique<CostModel>(*topologyRef, *params);
  }
  model = ownedModel.get();
  // Blocks outside async regions, innermost last so that positions stay
  // valid while a block is rewritten.
  SmallVector<Block *> blocks;
  getOperation()->walk([&](Block *block) {
    Operation *parent = block->getParentOp();
    if (!parent || isa<StartOp>(parent) || parent->getParentOfType<StartOp>())
      return;
    if (block->empty() || !block->back().hasTrait<OpTrait::IsTerminator>())
      return;
    blocks.push_back(block);
  });
  for (Block *block : blocks)
    scheduleBlock(*block);
}
