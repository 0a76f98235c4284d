//===- VerifySchedule.cpp - every rank's schedule matches -------*- C++ -*-===//
//
// comm-verify-schedule: each public function runs once per rank as an
// abstract machine with the runtime's blocking rules (collectives wait for
// their group, receives for their send, waits for their start; sends do not
// block; each plan stream runs its transfers in order). Whatever cannot
// finish is a deadlock, explained as the chain of ranks waiting for each
// other; what is left over is a send nobody receives.
//
//===----------------------------------------------------------------------===//

#include "comm/Dialect/Comm/IR/CommOps.h"
#include "comm/Dialect/Comm/Transforms/Passes.h"
#include "comm/Support/InputChecks.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

#include <deque>
#include <map>

namespace mlir {
namespace comm {
#define GEN_PASS_DEF_COMMVERIFYSCHEDULE
#include "comm/Dialect/Comm/CommPasses.h.inc"
} // namespace comm
} // namespace mlir

using namespace mlir;
using namespace mlir::comm;

namespace {
enum class StepKind { Collective, Send, Recv, Permute, Start, Wait };

/// One transfer (or start, or wait) of the flattened program.
struct Step {
  Operation *op = nullptr;
  StepKind kind = StepKind::Collective;
  int64_t stream = kBackendStream; ///< plan stream
  unsigned token = 0;         ///< Start, Wait
  std::vector<unsigned> body; ///< Start: its transfers
  ReplicaGroupsAttr groups;   ///< Collective
  ArrayRef<int64_t> pairs;    ///< Send, Recv, Permute
  int64_t tag = 0;            ///< Send, Recv
};

/// The steps of one function, loops unrolled and calls followed.
class Flattener {
public:
  /// The steps a rank may unroll to (comm/Support/InputChecks.h).
  static constexpr size_t kMaxSteps = kMaxUnrolledSteps;

  LogicalResult flattenBlock(Block &block, unsigned depth,
                             std::vector<unsigned> &out,
                             DenseMap<Value, unsigned> &tokens);

  std::vector<Step> steps;
  unsigned numTokens = 0;

private:
  unsigned add(Step step) {
    steps.push_back(std::move(step));
    return steps.size() - 1;
  }
};

using ThreadId = int64_t; ///< kMain or a plan stream
constexpr ThreadId kMain = std::numeric_limits<int64_t>::min();

struct Queued {
  unsigned step;
  unsigned token;
};

struct RankState {
  unsigned pc = 0;
  std::map<int64_t, std::deque<Queued>> streams;
  llvm::DenseMap<unsigned, unsigned> pending; ///< token -> transfers left
  llvm::DenseSet<unsigned> started;           ///< tokens
  llvm::DenseSet<unsigned> posted;            ///< permute steps sent
  llvm::DenseSet<unsigned> joined;            ///< collective steps it waits in
};

/// The abstract machine of one function on every rank.
class Machine {
public:
  Machine(const Flattener &program, ArrayRef<unsigned> main, int64_t world)
      : program(program), main(main), ranks(world) {}

  /// Runs until nothing moves; fails (with an error) on a receive of the
  /// wrong type.
  LogicalResult run();
  /// After run(): reports a deadlock or an unreceived send, if any.
  LogicalResult check();

  uint64_t stepsDone = 0;

private:
  /// Whether `rank` gets past step `index` now.
  bool tryStep(int64_t rank, unsigned index);
  /// The step `rank`'s thread is blocked at, if it is.
  std::optional<unsigned> blockedAt(int64_t rank, ThreadId thread) const;
  /// The thread of `rank` to follow when another rank waits for it.
  std::optional<ThreadId> someBlockedThread(int64_t rank) const;
  /// The group of `step` that `rank` is in (-1: none): by a table built
  /// once per distinct groups attribute (a scan of the groups per rank and
  /// step made a group of 100,000 ranks quadratic).
  int64_t groupIndexOf(const Step &step, int64_t rank) const {
    if (!step.groups)
      return -1;
    auto [it, fresh] = groupIndexCache.try_emplace(step.groups);
    std::vector<int32_t> &table = it->second;
    if (fresh) {
      ArrayRef<int64_t> members = step.groups.getRanks();
      int64_t size = step.groups.getGroupSize();
      for (auto [i, member] : llvm::enumerate(members)) {
        if (member < 0)
          continue;
        if (static_cast<size_t>(member) >= table.size())
          table.resize(member + 1, -1);
        if (table[member] < 0)
          table[member] = static_cast<int32_t>(i / size);
      }
    }
    return rank >= 0 && static_cast<size_t>(rank) < table.size() ? table[rank]
                                                                  : -1;
  }
  mutable llvm::DenseMap<Attribute, std::vector<int32_t>> groupIndexCache;

  const Flattener &program;
  ArrayRef<unsigned> main;
  std::vector<RankState> ranks;
  /// (step, group) -> ranks that reached it, while it is not complete;
  /// and those completed.
  llvm::DenseMap<std::pair<unsigned, int64_t>, SmallVector<int64_t, 8>> arrived;
  llvm::DenseSet<std::pair<unsigned, int64_t>> completed;
  /// (source, target, tag) -> posted sends (their steps), in order.
  std::map<std::tuple<int64_t, int64_t, int64_t>, std::deque<unsigned>>
      messages;
  bool typeError = false;
};

struct VerifySchedulePass
    : public comm::impl::CommVerifyScheduleBase<VerifySchedulePass> {
  using CommVerifyScheduleBase::CommVerifyScheduleBase;
  void runOnOperation() override;

private:
  LogicalResult verifyFunction(func::FuncOp function, int64_t world);
  LogicalResult checkStreams(const Flattener &program, ArrayRef<unsigned> main);
};
} // namespace

//===----------------------------------------------------------------------===//
// Flattening
//===----------------------------------------------------------------------===//

/// Whether the regions of `op` hold a transfer, directly or in a function
/// they call.
static bool holdsTransfers(Operation *op) {
  DenseSet<Operation *> visited;
  SmallVector<Operation *> work{op};
  while (!work.empty()) {
    Operation *scope = work.pop_back_val();
    if (!visited.insert(scope).second)
      continue;
    WalkResult found = scope->walk([&](Operation *inner) {
      if (inner == scope)
        return WalkResult::advance();
      if (isa<CollectiveOpInterface, PointToPointOpInterface, StartOp, WaitOp>(
              inner))
        return WalkResult::interrupt();
      if (auto call = dyn_cast<func::CallOp>(inner))
        if (auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
                inner, call.getCalleeAttr());
            callee && !callee.isExternal())
          work.push_back(callee);
      return WalkResult::advance();
    });
    if (found.wasInterrupted())
      return true;
  }
  return false;
}

static Step makeStep(Operation *op, StepKind kind, int64_t stream) {
  Step step;
  step.op = op;
  step.kind = kind;
  step.stream = stream;
  return step;
}

LogicalResult Flattener::flattenBlock(Block &block, unsigned depth,
                                      std::vector<unsigned> &out,
                                      DenseMap<Value, unsigned> &tokens) {
  for (Operation &operation : block) {
    Operation *op = &operation;
    if (steps.size() > kMaxSteps)
      return op->emitError()
             << "comm-verify-schedule: the program unrolls to more than "
             << kMaxSteps << " transfers per rank";
    int64_t opStream = getPlanStream(op);
    if (auto start = dyn_cast<StartOp>(op)) {
      Step step = makeStep(op, StepKind::Start, opStream);
      step.token = numTokens++;
      if (failed(flattenBlock(start.getBody().front(), depth, step.body, tokens)))
        return failure();
      tokens[start.getToken()] = step.token;
      out.push_back(add(std::move(step)));
      continue;
    }
    if (auto wait = dyn_cast<WaitOp>(op)) {
      auto it = tokens.find(wait.getToken());
      if (it == tokens.end())
        return op->emitError() << "comm-verify-schedule: the token does not "
                                  "come from a comm.start of this function";
      Step step = makeStep(op, StepKind::Wait, opStream);
      step.token = it->second;
      out.push_back(add(std::move(step)));
      continue;
    }
    if (isa<PermuteOp, SendOp, RecvOp>(op)) {
      // Point to point: a permute matches itself, sends and receives their
      // tag.
      auto p2p = cast<PointToPointOpInterface>(op);
      Step step = makeStep(op,
                           isa<PermuteOp>(op) ? StepKind::Permute
                           : isa<SendOp>(op)  ? StepKind::Send
                                              : StepKind::Recv,
                           opStream);
      step.pairs = p2p.getSourceTargetPairs();
      step.tag = p2p.getTransferTag().value_or(0);
      out.push_back(add(std::move(step)));
      continue;
    }
    if (auto collective = dyn_cast<CollectiveOpInterface>(op)) {
      if (isa<CopyOp>(op))
        continue;
      Step step = makeStep(op, StepKind::Collective, opStream);
      step.groups = collective.getReplicaGroups();
      out.push_back(add(std::move(step)));
      continue;
    }
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      if (!holdsTransfers(op))
        continue;
      // A trip count known only at run time is the same on every rank
      // (the program is SPMD): one trip is checked, which covers any
      // count when each trip's transfers meet within the trip.
      int64_t trips = loop.getStaticTripCount()
                          ? loop.getStaticTripCount()->getSExtValue()
                          : 1;
      for (int64_t trip = 0; trip < trips; ++trip) {
        if (failed(flattenBlock(*loop.getBody(), depth, out, tokens)))
          return failure();
        if (steps.size() > kMaxSteps)
          return op->emitError()
                 << "comm-verify-schedule: the loop unrolls to more than "
                 << kMaxSteps << " transfers per rank";
      }
      continue;
    }
    if (auto call = dyn_cast<func::CallOp>(op)) {
      auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
          op, call.getCalleeAttr());
      if (!callee)
        return op->emitError()
               << "comm-verify-schedule: cannot find @" << call.getCallee();
      if (callee.isExternal())
        continue;
      if (depth >= 32)
        return op->emitError()
               << "comm-verify-schedule: calls nest deeper than 32 levels";
      DenseMap<Value, unsigned> calleeTokens;
      if (failed(flattenBlock(callee.getBody().front(), depth + 1, out,
                              calleeTokens)))
        return failure();
      continue;
    }
    // Anything else holding transfers in its regions (an scf.if, whose
    // branch may differ between ranks) is not followed.
    if (holdsTransfers(op))
      return op->emitError() << "comm-verify-schedule: cannot check "
                                "transfers inside '"
                             << op->getName() << "'";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// The abstract machine
//===----------------------------------------------------------------------===//

bool Machine::tryStep(int64_t rank, unsigned index) {
  const Step &step = program.steps[index];
  RankState &state = ranks[rank];
  auto pairs = [&]() {
    SmallVector<std::pair<int64_t, int64_t>> list;
    for (size_t i = 0; i + 1 < step.pairs.size(); i += 2)
      list.push_back({step.pairs[i], step.pairs[i + 1]});
    return list;
  };
  switch (step.kind) {
  case StepKind::Collective: {
    int64_t group = groupIndexOf(step, rank);
    if (group < 0)
      return true;
    auto key = std::make_pair(index, group);
    if (completed.count(key)) {
      state.joined.erase(index);
      return true;
    }
    SmallVector<int64_t, 8> &here = arrived[key];
    if (state.joined.insert(index).second)
      here.push_back(rank);
    if (static_cast<int64_t>(here.size()) < step.groups.getGroupSize())
      return false;
    state.joined.erase(index);
    arrived.erase(key);
    completed.insert(key);
    return true;
  }
  case StepKind::Send:
    for (auto [source, target] : pairs())
      if (source == rank)
        messages[{source, target, step.tag}].push_back(index);
    return true;
  case StepKind::Permute:
  case StepKind::Recv: {
    // A permute is a send to its target and a receive from its source,
    // matched by the op itself (tag -1 - step).
    int64_t tag = step.kind == StepKind::Permute
                      ? -1 - static_cast<int64_t>(index)
                      : step.tag;
    if (step.kind == StepKind::Permute && !state.posted.count(index)) {
      state.posted.insert(index);
      for (auto [source, target] : pairs())
        if (source == rank)
          messages[{source, target, tag}].push_back(index);
    }
    std::optional<int64_t> from;
    for (auto [source, target] : pairs())
      if (target == rank)
        from = source;
    if (!from)
      return true;
    auto it = messages.find({*from, rank, tag});
    if (it == messages.end() || it->second.empty())
      return false;
    unsigned sent = it->second.front();
    it->second.pop_front();
    const Step &send = program.steps[sent];
    if (step.kind == StepKind::Recv && !typeError &&
        failed(checkTransferMatch(send.op, step.op, rank, *from, tag)))
      typeError = true;
    return true;
  }
  case StepKind::Start:
    state.started.insert(step.token);
    for (unsigned body : step.body) {
      state.streams[program.steps[body].stream].push_back({body, step.token});
      ++state.pending[step.token];
    }
    return true;
  case StepKind::Wait:
    return state.started.count(step.token) &&
           state.pending.lookup(step.token) == 0;
  }
  return true;
}

LogicalResult Machine::run() {
  bool progress = true;
  while (progress && !typeError) {
    progress = false;
    for (int64_t rank = 0; rank < static_cast<int64_t>(ranks.size()); ++rank) {
      RankState &state = ranks[rank];
      while (state.pc < main.size() && tryStep(rank, main[state.pc])) {
        ++state.pc;
        ++stepsDone;
        progress = true;
      }
      for (auto &[stream, queue] : state.streams)
        while (!queue.empty() && tryStep(rank, queue.front().step)) {
          --state.pending[queue.front().token];
          queue.pop_front();
          ++stepsDone;
          progress = true;
        }
    }
  }
  return failure(typeError);
}

std::optional<unsigned> Machine::blockedAt(int64_t rank,
                                           ThreadId thread) const {
  const RankState &state = ranks[rank];
  if (thread == kMain)
    return state.pc < main.size() ? std::optional<unsigned>(main[state.pc])
                                  : std::nullopt;
  auto it = state.streams.find(thread);
  if (it == state.streams.end() || it->second.empty())
    return std::nullopt;
  return it->second.front().step;
}

std::optional<ThreadId> Machine::someBlockedThread(int64_t rank) const {
  if (blockedAt(rank, kMain))
    return kMain;
  for (auto &[stream, queue] : ranks[rank].streams)
    if (!queue.empty())
      return stream;
  return std::nullopt;
}

/// "rank 3", for messages.
static std::string rankName(int64_t rank) {
  return "rank " + std::to_string(rank);
}

LogicalResult Machine::check() {
  // The first blocked thread, by rank.
  std::optional<std::pair<int64_t, ThreadId>> first;
  for (int64_t rank = 0; rank < static_cast<int64_t>(ranks.size()) && !first;
       ++rank)
    if (std::optional<ThreadId> thread = someBlockedThread(rank))
      first = {rank, *thread};
  if (!first) {
    // Everything ran; a send left over was never received.
    for (auto &[key, queue] : messages) {
      if (queue.empty())
        continue;
      auto [source, target, tag] = key;
      const Step &send = program.steps[queue.front()];
      send.op->emitError() << rankName(source) << "'s "
                           << (send.kind == StepKind::Permute ? "comm.permute"
                                                              : "comm.send")
                           << " to " << rankName(target) << " (tag " << tag
                           << ") is never received: a send without its receive";
      return failure();
    }
    return success();
  }

  // Follow who waits for whom until a rank repeats (a cycle) or the chain
  // ends at a rank that finished.
  struct Link {
    int64_t rank;
    ThreadId thread;
    unsigned step;
    int64_t waitsFor; ///< -1: its own transfers (a comm.wait)
  };
  std::vector<Link> chain;
  std::string ending;
  std::pair<int64_t, ThreadId> node = *first;
  while (true) {
    auto repeated = llvm::find_if(chain, [&](const Link &link) {
      return link.rank == node.first && link.thread == node.second;
    });
    if (repeated != chain.end()) {
      chain.erase(chain.begin(), repeated); // keep the cycle
      break;
    }
    unsigned index = *blockedAt(node.first, node.second);
    const Step &step = program.steps[index];
    Link link{node.first, node.second, index, -1};
    std::optional<std::pair<int64_t, ThreadId>> next;
    if (step.kind == StepKind::Wait) {
      // The transfers of its start: the stream holding the first of them.
      for (auto &[stream, queue] : ranks[node.first].streams)
        if (llvm::any_of(queue, [&](const Queued &queued) {
              return queued.token == step.token;
            })) {
          next = {node.first, stream};
          break;
        }
    } else if (step.kind == StepKind::Collective) {
      int64_t group = groupIndexOf(step, node.first);
      auto found = arrived.find({index, group});
      ArrayRef<int64_t> here;
      if (found != arrived.end())
        here = found->second;
      for (int64_t member : step.groups.getGroup(group))
        if (!llvm::is_contained(here, member)) {
          link.waitsFor = member;
          break;
        }
    } else {
      for (size_t i = 0; i + 1 < step.pairs.size(); i += 2)
        if (step.pairs[i + 1] == node.first)
          link.waitsFor = step.pairs[i];
    }
    chain.push_back(link);
    if (link.waitsFor >= 0) {
      if (std::optional<ThreadId> thread = someBlockedThread(link.waitsFor))
        next = {link.waitsFor, *thread};
      else
        ending = rankName(link.waitsFor) + " finished without " +
                 (step.kind == StepKind::Recv
                      ? "sending it (tag " + std::to_string(step.tag) + ")"
                      : std::string("reaching it"));
    }
    if (!next)
      break;
    node = *next;
  }

  const Link &head = chain.front();
  const Step &headStep = program.steps[head.step];
  auto describe = [&](const Link &link) {
    const Step &step = program.steps[link.step];
    std::string text = rankName(link.rank) + " waits here ";
    switch (step.kind) {
    case StepKind::Collective:
      return text + "for " + rankName(link.waitsFor) +
             " to join the collective";
    case StepKind::Wait:
      return text + "for the transfers of its comm.start";
    case StepKind::Permute:
      return text + "for " + rankName(link.waitsFor) + "'s part of the permute";
    default:
      return text + "to receive from " + rankName(link.waitsFor) + " (tag " +
             std::to_string(step.tag) + ")";
    }
  };
  InFlightDiagnostic diag = headStep.op->emitError();
  if (!ending.empty()) {
    if (chain.size() == 1 && headStep.kind == StepKind::Recv)
      diag << describe(head) << ", but " << ending
           << ": a receive without its send";
    else
      diag << "deadlock: " << describe(head) << ", but the chain of waits "
           << "ends at a rank that cannot come: " << ending;
  } else {
    bool collectivesOnly = llvm::all_of(chain, [&](const Link &link) {
      return program.steps[link.step].kind == StepKind::Collective;
    });
    diag << (collectivesOnly ? "crossed collective order: "
                             : "deadlock, a cycle of waits: ")
         << describe(head);
    if (collectivesOnly)
      diag << ", which runs another collective first";
  }
  for (const Link &link : ArrayRef(chain).drop_front())
    diag.attachNote(program.steps[link.step].op->getLoc()) << describe(link);
  return failure();
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// Whether two groupings put two or more ranks together somewhere.
static bool shareTwoRanks(ReplicaGroupsAttr a, ReplicaGroupsAttr b) {
  for (int64_t i = 0; i < a.getNumGroups(); ++i)
    for (int64_t j = 0; j < b.getNumGroups(); ++j) {
      int64_t shared = 0;
      for (int64_t rank : a.getGroup(i))
        if (llvm::is_contained(b.getGroup(j), rank) && ++shared >= 2)
          return true;
    }
  return false;
}

/// "stream 2", or what a collective without a plan stream runs on.
static std::string describeStream(int64_t stream) {
  return stream < 0 ? "the backend's own stream"
                    : "stream " + std::to_string(stream);
}

LogicalResult VerifySchedulePass::checkStreams(const Flattener &program,
                                               ArrayRef<unsigned> main) {
  // The main-list interval in which each start's transfers are in flight.
  struct Flight {
    unsigned begin, end;
    /// The start's body, or the one blocking collective (in flight from
    /// its issue to its end, at one position of the main list).
    ArrayRef<unsigned> ops;
    /// The one stream its collectives are on; kNone without collectives,
    /// kMixed when on several.
    int64_t stream;
  };
  constexpr int64_t kNone = INT64_MIN, kMixed = INT64_MIN + 1;
  std::vector<Flight> flights;
  // A start's flight ends at the first wait on its token after it: one
  // pass keeps the open flights of each token (whatever the distance).
  DenseMap<unsigned, SmallVector<size_t, 1>> flying;
  for (unsigned i = 0; i < main.size(); ++i) {
    const Step &step = program.steps[main[i]];
    if (step.kind == StepKind::Wait) {
      auto it = flying.find(step.token);
      if (it != flying.end()) {
        for (size_t flight : it->second)
          flights[flight].end = i;
        flying.erase(it);
      }
      continue;
    }
    if (step.kind == StepKind::Collective) {
      // A blocking collective on another stream than one in flight
      // crosses it as a started one would (the lowering issues it on its
      // plan's stream, then waits).
      flights.push_back({i, i, ArrayRef<unsigned>(main[i]), step.stream});
      continue;
    }
    if (step.kind != StepKind::Start)
      continue;
    int64_t stream = kNone;
    for (unsigned body : step.body) {
      const Step &inner = program.steps[body];
      if (inner.kind != StepKind::Collective)
        continue;
      stream =
          stream == kNone || stream == inner.stream ? inner.stream : kMixed;
    }
    flying[step.token].push_back(flights.size());
    flights.push_back(
        {i, static_cast<unsigned>(main.size()), step.body, stream});
  }
  // Collectives on one stream only (the default) cannot cross: skip the
  // pairs, of which a program whose waits come late has many.
  SmallVector<int64_t, 4> streams;
  for (const Flight &flight : flights)
    if (flight.stream != kNone && !llvm::is_contained(streams, flight.stream))
      streams.push_back(flight.stream);
  if (streams.size() < 2 && !llvm::is_contained(streams, kMixed))
    return success();
  // Flights are in the order they begin: those that begin after a's end
  // close the scan (linear in the flights and the pairs in flight at once).
  for (size_t a = 0; a < flights.size(); ++a)
    for (size_t b = a; b < flights.size(); ++b) {
      if (flights[b].begin > flights[a].end)
        break;
      if (flights[a].stream == kNone || flights[b].stream == kNone ||
          (flights[a].stream == flights[b].stream &&
           flights[a].stream != kMixed))
        continue;
      for (unsigned x : flights[a].ops)
        for (unsigned y : flights[b].ops) {
          const Step &first = program.steps[x], &second = program.steps[y];
          if (x >= y || first.kind != StepKind::Collective ||
              second.kind != StepKind::Collective ||
              first.stream == second.stream ||
              !shareTwoRanks(first.groups, second.groups))
            continue;
          InFlightDiagnostic diag =
              second.op->emitError()
              << "crossed collective order: this collective ("
              << describeStream(second.stream)
              << ") and another one over shared ranks ("
              << describeStream(first.stream)
              << ") are in flight at once, so the ranks may run them in "
                 "different orders; NCCL documents that communicators used "
                 "concurrently can deadlock (\"Using multiple NCCL "
                 "communicators concurrently\"): put them on one stream";
          diag.attachNote(first.op->getLoc()) << "the other collective";
          return failure();
        }
    }
  return success();
}

LogicalResult VerifySchedulePass::verifyFunction(func::FuncOp function,
                                                 int64_t world) {
  Flattener program;
  std::vector<unsigned> main;
  DenseMap<Value, unsigned> tokens;
  if (failed(program.flattenBlock(function.getBody().front(), 0, main, tokens)))
    return failure();
  ++numFunctions;
  if (backend == Backend::nccl && failed(checkStreams(program, main)))
    return failure();
  Machine machine(program, main, world);
  LogicalResult result = machine.run();
  numSteps += machine.stepsDone;
  if (failed(result))
    return failure();
  return machine.check();
}

void VerifySchedulePass::runOnOperation() {
  ModuleOp module = getOperation();
  bool failedAny = false;
  for (auto function : module.getOps<func::FuncOp>()) {
    if (function.isExternal() || function.isPrivate())
      continue;
    // The world: comm.world_size, or every rank the function names.
    int64_t world = getWorldSize(function).value_or(0);
    if (!getWorldSize(function))
      function.walk([&](Operation *op) {
        if (auto collective = dyn_cast<CollectiveOpInterface>(op))
          if (ReplicaGroupsAttr groups = collective.getReplicaGroups())
            world = std::max(world, groups.getMaxRank() + 1);
        if (auto p2p = dyn_cast<PointToPointOpInterface>(op))
          for (int64_t rank : p2p.getSourceTargetPairs())
            world = std::max(world, rank + 1);
      });
    if (failed(verifyFunction(function, world)))
      failedAny = true;
  }
  if (failedAny)
    signalPassFailure();
  // It only reads the module: the pass manager need not verify it again.
  markAllAnalysesPreserved();
}
