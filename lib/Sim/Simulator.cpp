//===- Simulator.cpp - discrete-event simulation of comm programs -*- C++ -*-===//

#include "comm/Sim/Simulator.h"
#include "comm/Analysis/CollectiveCost.h"
#include "comm/Analysis/TopologyAnalysis.h"
#include "comm/Dialect/Comm/IR/CommOps.h"
#include "comm/InitAllDialects.h"
#include "comm/Sim/FlowNetwork.h"
#include "comm/Sim/Phases.h"
#include "comm/Sim/Releases.h"
#include "comm/Support/InputChecks.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <queue>
#include <unordered_map>

using namespace mlir;
using namespace mlir::comm;
using namespace mlir::comm::sim;

static constexpr double kInf = std::numeric_limits<double>::infinity();

//===----------------------------------------------------------------------===//
// The program, flattened
//===----------------------------------------------------------------------===//

namespace {
enum class InstrKind : uint8_t {
  Compute,
  Collective,
  Send,
  Recv,
  Start,
  Wait,
};

struct Instr {
  InstrKind kind;
  Operation *op = nullptr;
  double durationUs = 0;       ///< compute
  CollectiveRequest request;   ///< collectives, copies, p2p
  int64_t tag = 0;             ///< send/recv
  unsigned token = 0;          ///< start/wait
  std::vector<unsigned> body;  ///< start: instructions of the body
  /// The communication stream an op of a start body runs on: its plan's
  /// `stream`, or -1 for the backend's own.
  int64_t stream = kBackendStream;
  std::string name;
  /// Rank -> index of its group, for grouped collectives (-1: not in one).
  std::vector<int32_t> groupOfRank;
};

/// Flattens the entry function into instructions, unrolling scf.for loops
/// with constant bounds and inlining calls.
class Flattener {
public:
  Flattener(const Topology &topology, uint64_t worldSize)
      : topology(topology), worldSize(worldSize) {}

  LogicalResult flattenFunction(func::FuncOp function, unsigned depth,
                                std::vector<unsigned> &out);

  /// A deque: growing it moves no instruction (a vector copied them all
  /// at each growth, since a request's SmallVectors may throw on move; half
  /// of flattening 300,000 instructions).
  std::deque<Instr> instrs;
  unsigned numTokens = 0;

private:
  LogicalResult flattenBlock(Block &block, unsigned depth,
                             std::vector<unsigned> &out);
  LogicalResult flattenOp(Operation *op, unsigned depth,
                          std::vector<unsigned> &out);
  unsigned add(Instr instr) {
    instrs.push_back(std::move(instr));
    if (instrs.size() > kMaxInstrs)
      tooLarge = true;
    return instrs.size() - 1;
  }
  /// Records which group each rank of the world belongs to.
  void setGroups(Instr &instr) {
    instr.groupOfRank.assign(worldSize, -1);
    for (auto [index, group] : llvm::enumerate(instr.request.groups))
      for (int64_t rank : group)
        if (rank >= 0 && static_cast<uint64_t>(rank) < worldSize)
          instr.groupOfRank[rank] = static_cast<int32_t>(index);
  }

  /// The steps a rank may unroll to (comm/Support/InputChecks.h).
  static constexpr size_t kMaxInstrs = kMaxUnrolledSteps;
  const Topology &topology;
  uint64_t worldSize;
  bool tooLarge = false;
  llvm::DenseMap<Value, unsigned> tokens;
};
} // namespace

LogicalResult Flattener::flattenFunction(func::FuncOp function, unsigned depth,
                                         std::vector<unsigned> &out) {
  if (function.isExternal())
    return function.emitError()
           << "cannot simulate the external function @" << function.getName()
           << ": it has no body";
  return flattenBlock(function.getBody().front(), depth, out);
}

LogicalResult Flattener::flattenBlock(Block &block, unsigned depth,
                                      std::vector<unsigned> &out) {
  for (Operation &op : block) {
    if (failed(flattenOp(&op, depth, out)))
      return failure();
    if (tooLarge)
      return op.emitError() << "the program unrolls to more than "
                            << kMaxInstrs << " steps per rank";
  }
  return success();
}

LogicalResult Flattener::flattenOp(Operation *op, unsigned depth,
                                   std::vector<unsigned> &out) {
  Instr instr;
  instr.op = op;
  instr.name = op->getName().stripDialect().str();

  instr.stream = getPlanStream(op);
  if (std::optional<CollectiveRequest> request = getCollectiveRequest(op)) {
    instr.request = std::move(*request);
    if (isa<SendOp, RecvOp>(op)) {
      instr.kind = isa<SendOp>(op) ? InstrKind::Send : InstrKind::Recv;
      instr.tag =
          cast<PointToPointOpInterface>(op).getTransferTag().value_or(0);
    } else {
      instr.kind = InstrKind::Collective;
      setGroups(instr);
    }
    out.push_back(add(std::move(instr)));
    return success();
  }
  if (std::optional<double> time = getLocalTimeUs(op, topology)) {
    // Compute steps, and packs and unpacks (local kernels).
    instr.kind = InstrKind::Compute;
    if (auto compute = dyn_cast<ComputeOp>(op))
      instr.name = compute.getName().str();
    // Beyond this the clock loses the precision to advance by the
    // microseconds a transfer takes (doubles carry 15-16 digits).
    constexpr double kMaxStepUs = 1e12;
    if (!std::isfinite(*time) || *time < 0 || *time > kMaxStepUs)
      return op->emitError()
             << "takes " << *time
             << " us by its cost; the simulator accepts steps of at most "
                "1e12 us (11.6 days): check its flops, bytes and time_us";
    instr.durationUs = *time;
    out.push_back(add(std::move(instr)));
    return success();
  }
  if (auto start = dyn_cast<StartOp>(op)) {
    instr.kind = InstrKind::Start;
    instr.token = numTokens++;
    tokens[start.getToken()] = instr.token;
    std::vector<unsigned> body;
    for (Operation &inner : start.getBody().front())
      if (failed(flattenOp(&inner, depth, body)))
        return failure();
    for (unsigned index : body)
      if (instrs[index].kind == InstrKind::Start ||
          instrs[index].kind == InstrKind::Wait)
        return instrs[index].op->emitError()
               << "cannot simulate a comm.start or comm.wait inside "
                  "comm.start";
    instr.body = std::move(body);
    out.push_back(add(std::move(instr)));
    return success();
  }
  if (auto wait = dyn_cast<WaitOp>(op)) {
    auto it = tokens.find(wait.getToken());
    if (it == tokens.end())
      return wait.emitError()
             << "cannot simulate a wait on a token that does not come from a "
                "comm.start in the same function";
    instr.kind = InstrKind::Wait;
    instr.token = it->second;
    out.push_back(add(std::move(instr)));
    return success();
  }
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    auto lb = getConstantIntValue(loop.getLowerBound());
    auto ub = getConstantIntValue(loop.getUpperBound());
    auto step = getConstantIntValue(loop.getStep());
    if (!lb || !ub || !step || *step <= 0)
      return loop.emitError() << "cannot simulate a loop without constant "
                                 "bounds and a positive step";
    // The trip count up front (without overflow): a loop that would unroll
    // past the cap is refused before it takes time and memory.
    uint64_t trips =
        *ub > *lb ? static_cast<uint64_t>(
                        (static_cast<__int128>(*ub) - *lb + *step - 1) / *step)
                  : 0;
    for (uint64_t trip = 0; trip < trips; ++trip) {
      size_t before = instrs.size();
      if (failed(flattenBlock(*loop.getBody(), depth, out)) || tooLarge)
        return failure();
      size_t perTrip = instrs.size() - before;
      if (trip > 0)
        continue;
      if (perTrip == 0)
        break; // a body that moves nothing takes no time, however often
      if (trips - 1 > (kMaxInstrs - instrs.size()) / perTrip)
        return loop.emitError()
               << "the loop runs " << trips << " times, " << perTrip
               << " steps each: more than " << kMaxInstrs
               << " steps per rank; simulate fewer iterations (a step that "
                  "repeats gives the same time each time)";
    }
    return success();
  }
  if (auto call = dyn_cast<func::CallOp>(op)) {
    auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        op, call.getCalleeAttr());
    if (!callee)
      return call.emitError() << "cannot find @" << call.getCallee();
    if (depth > 32)
      return call.emitError() << "calls nest deeper than 32 levels";
    return flattenFunction(callee, depth + 1, out);
  }
  if (isa<scf::IfOp, scf::WhileOp>(op))
    return op->emitError()
           << "cannot simulate '" << op->getName()
           << "': only straight-line code, scf.for with constant bounds and "
              "calls are supported";
  // Everything else (constants, tensor reshapes, returns) takes no time.
  return success();
}

//===----------------------------------------------------------------------===//
// The event loop
//===----------------------------------------------------------------------===//

namespace {
/// A rank taking part in a transfer, from its compute stream (it waits for
/// the transfer) or from one of its communication streams.
struct Participant {
  uint64_t rank;
  std::optional<int64_t> stream;
  /// A send from the compute stream: the rank went on when it posted it
  /// (the runtime's sends do not block), so its end wakes nobody.
  bool detached = false;
  /// A send of a comm.start body: posted, it does not hold its stream (the
  /// generated code starts a body's sends and receives in one group), and
  /// its end completes one transfer of `token`.
  bool posted = false;
  unsigned token = 0;
};

struct Instance {
  const Instr *instr = nullptr;
  std::vector<PhaseSpec> phases;
  unsigned phase = 0;
  unsigned pendingFlows = 0;
  double startUs = 0;
  double phaseStartUs = 0;
  double flowsStartUs = 0;
  std::string algorithm; ///< what ran, for the trace
  std::vector<Participant> participants;
  unsigned expected = 0;
  double arrivalUs = 0;
  std::string label;
  std::vector<uint64_t> traceLinks; ///< links used (tracing only)
  int64_t pairSrc = -1, pairDst = -1; ///< point-to-point transfers
  const Instr *recv = nullptr;        ///< the receiving end's op
};

/// An instruction of a comm.start body, queued on a stream when the start
/// was issued.
struct Queued {
  unsigned instr;
  unsigned token;
  double issuedUs;
  /// Started while the rank computed on a machine whose transfers progress
  /// only inside communication calls: not issued before the next one.
  bool deferred = false;
};

struct CommStream {
  std::deque<Queued> queue;
  double free = 0; ///< when the stream's last transfer ended
  bool busy = false;
};

struct RankState {
  unsigned pc = 0;
  double clock = 0;         ///< the compute stream
  double computeUs = 0;
  bool blocked = false;
  bool done = false;
  /// The communication streams, by plan `stream` (-1: the backend's own):
  /// each runs the instructions of comm.start bodies in order, while the
  /// compute stream and the other streams go on.
  std::map<int64_t, CommStream> streams;
  llvm::DenseMap<unsigned, unsigned> pendingPerToken;
  llvm::DenseMap<unsigned, double> tokenDone;
  int waitingToken = -1;
  llvm::DenseMap<uint64_t, unsigned> sendCount, recvCount;
  /// When the last send the compute stream posted ended (the runtime drains
  /// them before the step returns).
  double sendsDoneUs = 0;
  /// When the last send drawn on each of the trace's send lanes ends: sends
  /// in flight at once go on lanes of their own, so that the events of one
  /// trace thread nest.
  std::vector<double> sendLanes;
  /// Streams holding transfers started while the rank computed, on a
  /// machine whose transfers progress only inside communication calls.
  SmallVector<int64_t, 2> deferred;
  /// On such a machine a blocking call waits until the rank's transfers in
  /// flight have ended (one process progresses them one after another).
  bool draining = false;

  bool hasTransfersInFlight() const {
    return llvm::any_of(pendingPerToken,
                        [](const auto &entry) { return entry.second != 0; });
  }
};

/// What the flow network lets the flows on a link of each LinkKind use
/// together: a network link (a NIC's) the network's efficiency, which
/// the model gives every transfer between machines (its NIC's DMA and the
/// fabric's flow control set the pace); without it two channels through
/// one NIC together reached its raw speed. Links inside a machine keep
/// their raw capacity, each flow capped at its path's efficiency.
static std::vector<double> getLinkEfficiencies(const CostModel &model) {
  std::vector<double> efficiency(static_cast<unsigned>(LinkKind::Network) + 1,
                                 1.0);
  Link network;
  network.kind = LinkKind::Network;
  efficiency.back() = model.getLinkEfficiency(network);
  return efficiency;
}

/// Every field of `request` as bytes: equal keys, equal requests.
static std::string getRequestKey(const CollectiveRequest &request) {
  // A field added to CollectiveFields must be added here too.
  static_assert(sizeof(CollectiveFields) == 120,
                "getRequestKey: CollectiveFields changed");
  std::string key;
  auto add = [&](const auto &value) {
    key.append(reinterpret_cast<const char *>(&value), sizeof(value));
  };
  auto addOptional = [&](const auto &value) {
    add(value.has_value());
    if (value)
      add(*value);
  };
  add(request.kind);
  add(request.bytes);
  add(request.elementBytes);
  addOptional(request.reduction);
  add(request.floatElements);
  add(request.root);
  add(request.copySource);
  add(request.copyTarget);
  add(request.copyRank);
  addOptional(request.algorithm);
  addOptional(request.protocol);
  addOptional(request.route);
  addOptional(request.backend);
  add(request.native);
  addOptional(request.chunkBytes);
  add(request.channels);
  add(request.groups.size());
  for (const auto &group : request.groups) {
    add(group.size());
    for (int64_t rank : group)
      add(rank);
  }
  add(request.pairs.size());
  for (auto [source, target] : request.pairs) {
    add(source);
    add(target);
  }
  return key;
}

class Simulation {
public:
  Simulation(const Flattener &program, ArrayRef<unsigned> mainList,
             const Topology &topology, const CostModel &model, Backend backend,
             uint64_t worldSize, unsigned traceRanks)
      : program(program), mainList(mainList), topology(topology), model(model),
        backend(backend), network(topology, getLinkEfficiencies(model)),
        ranks(worldSize), traceRanks(traceRanks),
        progressInCallsOnly(topology.hasProcessRanks()),
        streamOrdered(backend == Backend::nccl && !progressInCallsOnly) {}

  LogicalResult run();
  SimResult result;

private:
  void advanceRank(uint64_t rank);
  void runCommStream(uint64_t rank, int64_t stream);
  /// The rank enters a communication call: the transfers it started while
  /// computing begin to progress now.
  void flushDeferred(uint64_t rank);
  /// One transfer of `token` ended at `at`: wakes the compute stream if it
  /// waits for the token and that was the last.
  void completeOne(uint64_t rank, unsigned token, double at);
  /// `postedToken`: a comm.start body's send, which does not hold `stream`
  /// and completes a transfer of that token.
  LogicalResult arrive(uint64_t rank, unsigned instrIndex,
                       std::optional<int64_t> stream, double at,
                       bool detached = false,
                       std::optional<unsigned> postedToken = std::nullopt);
  LogicalResult launch(uint64_t key, Instance &instance);
  void startPhase(uint64_t key, Instance &instance, double now);
  void finish(uint64_t key, Instance &instance, double now);
  void
  traceEvent(uint64_t rank, uint64_t tid, StringRef name, StringRef category,
             double start, double end,
             std::vector<std::pair<std::string, llvm::json::Value>> args = {},
             uint64_t flowId = 0) {
    if (rank < traceRanks && end > start)
      result.events.push_back({name.str(), category.str(), rank, tid, start,
                               end - start, std::move(args), flowId});
  }
  /// The details of a transfer's trace events.
  std::vector<std::pair<std::string, llvm::json::Value>>
  describeInstance(const Instance &instance) const;
  uint64_t nextFlowId = 1;

  const Flattener &program;
  ArrayRef<unsigned> mainList;
  const Topology &topology;
  const CostModel &model;
  Backend backend;
  FlowNetwork network;
  std::vector<RankState> ranks;
  unsigned traceRanks;
  double now = 0;
  LogicalResult status = success();
  /// Instances by key; keys are (instr << 24 | group) for collectives and a
  /// hash of (src, dst, tag, sequence) for point-to-point transfers.
  std::map<uint64_t, Instance> instances;
  /// What the model made of each request an instance ran (by
  /// getRequestKey): a step of 100,000 collectives asks few distinct
  /// questions, and predicting each anew took most of comm-plan's
  /// comparison of plans.
  struct Predicted {
    std::vector<PhaseSpec> phases;
    std::string algorithm;
  };
  std::unordered_map<std::string, Predicted> predicted;
  /// Timed events: (time, sequence, instance key).
  std::priority_queue<std::tuple<double, uint64_t, uint64_t>,
                      std::vector<std::tuple<double, uint64_t, uint64_t>>,
                      std::greater<>>
      timers;
  uint64_t timerSequence = 0;
  uint64_t nextP2PKey = uint64_t(1) << 62;
  std::map<std::tuple<int64_t, int64_t, int64_t, unsigned>, uint64_t>
      p2pKeys;
  /// Processes on a CPU (the host preset) have no engine that moves data
  /// on its own: MPI progresses a nonblocking transfer only inside MPI
  /// calls (Open MPI without a progress thread), so a transfer started
  /// begins at the rank's next communication call or compute (whose
  /// stand-in polls while it waits, comm_compute_args.progress).
  bool progressInCallsOnly;
  /// NCCL puts a blocking collective or receive on the backend's own CUDA
  /// stream, the one that runs the comm.start bodies without a plan
  /// `stream`: it starts only when the transfers queued there before it
  /// have ended. (A send is still modelled as posted on its own, the
  /// runtime's contract; see docs/Simulator.md for where NCCL differs.)
  bool streamOrdered;
  /// The token of a blocking call queued on that stream, which the compute
  /// stream waits for: past the program's own.
  unsigned blockingToken() const { return program.numTokens; }
};
} // namespace

void Simulation::flushDeferred(uint64_t rank) {
  RankState &state = ranks[rank];
  if (state.deferred.empty())
    return;
  SmallVector<int64_t, 2> streams = std::move(state.deferred);
  state.deferred.clear();
  for (int64_t streamId : streams) {
    // Only what was started since the last call: a transfer an earlier
    // call issued keeps its time, though it may still wait in the queue
    // behind one in flight.
    for (Queued &queued : state.streams[streamId].queue)
      if (queued.deferred) {
        queued.issuedUs = std::max(queued.issuedUs, state.clock);
        queued.deferred = false;
      }
    runCommStream(rank, streamId);
  }
}

LogicalResult Simulation::arrive(uint64_t rank, unsigned instrIndex,
                                 std::optional<int64_t> stream, double at,
                                 bool detached,
                                 std::optional<unsigned> postedToken) {
  const Instr &instr = program.instrs[instrIndex];
  uint64_t key;
  unsigned expected;
  // (The request is not copied per arrival: a group of 100,000 ranks made
  // that quadratic.)
  if (instr.kind == InstrKind::Send || instr.kind == InstrKind::Recv) {
    // Find the pair this rank takes part in.
    std::optional<std::pair<int64_t, int64_t>> pair;
    for (auto p : instr.request.pairs)
      if ((instr.kind == InstrKind::Send && p.first == int64_t(rank)) ||
          (instr.kind == InstrKind::Recv && p.second == int64_t(rank)))
        pair = p;
    if (!pair)
      return failure(); // not a participant: caller skips
    RankState &state = ranks[rank];
    uint64_t pairKey = (uint64_t(pair->first) << 40) ^
                       (uint64_t(pair->second) << 16) ^ uint64_t(instr.tag);
    unsigned sequence = instr.kind == InstrKind::Send
                            ? state.sendCount[pairKey]++
                            : state.recvCount[pairKey]++;
    auto tupleKey = std::make_tuple(pair->first, pair->second, instr.tag,
                                    sequence);
    auto it = p2pKeys.find(tupleKey);
    if (it == p2pKeys.end())
      it = p2pKeys.emplace(tupleKey, nextP2PKey++).first;
    key = it->second;
    expected = pair->first == pair->second ? 1 : 2;
    Instance &instance = instances[key];
    if (!instance.instr) {
      instance.expected = expected;
      instance.pairSrc = pair->first;
      instance.pairDst = pair->second;
      instance.label = llvm::formatv("send/recv {0}->{1} tag {2}", pair->first,
                                     pair->second, instr.tag)
                           .str();
    }
    // The sender's op gives the size of the transfer.
    if (!instance.instr || instr.kind == InstrKind::Send)
      instance.instr = &instr;
    if (instr.kind == InstrKind::Recv)
      instance.recv = &instr;
    instance.participants.push_back({rank, stream, detached,
                                     postedToken.has_value(),
                                     postedToken.value_or(0)});
    instance.arrivalUs = std::max(instance.arrivalUs, at);
    if (instance.participants.size() < instance.expected)
      return success();
    // What comm-compile's check refuses (and the runtime would): a receive
    // of another type than was sent.
    if (instance.recv && instance.instr != instance.recv &&
        failed(checkTransferMatch(instance.instr->op, instance.recv->op,
                                  pair->second, pair->first, instr.tag))) {
      status = failure();
      return failure();
    }
    return launch(key, instance);
  }
  if (instr.request.kind == CollectiveKind::Copy) {
    key = (uint64_t(instrIndex) << 24) | (0xFFFFFF & rank) |
          (uint64_t(1) << 61);
    expected = 1;
  } else {
    int32_t group = instr.groupOfRank[rank];
    key = (uint64_t(instrIndex) << 24) | uint64_t(group);
    expected = instr.request.groups[group].size();
  }
  Instance &instance = instances[key];
  if (!instance.instr) {
    instance.instr = &instr;
    instance.expected = expected;
    instance.label = instr.name;
  }
  instance.participants.push_back({rank, stream});
  instance.arrivalUs = std::max(instance.arrivalUs, at);
  if (instance.participants.size() == instance.expected)
    return launch(key, instance);
  return success();
}

LogicalResult Simulation::launch(uint64_t key, Instance &instance) {
  // This instance's ranks only (not every group's, copied per instance).
  const CollectiveRequest &op = instance.instr->request;
  CollectiveRequest request = op.withoutRanks();
  if (request.kind == CollectiveKind::SendRecv) {
    request.pairs = {{instance.pairSrc, instance.pairDst}};
  } else if (request.kind == CollectiveKind::Copy) {
    request.copyRank = instance.participants.front().rank;
  } else if (request.kind == CollectiveKind::Permute) {
    request.pairs = op.pairs;
  } else {
    int32_t group =
        instance.instr->groupOfRank[instance.participants.front().rank];
    request.groups = {op.groups[group]};
  }
  // What the lowering runs: the plan's algorithm, or the backend's own
  // choice when the plan names none.
  request.backend = backend;
  request.native = !request.algorithm;
  std::string requestKey = getRequestKey(request);
  auto it = predicted.find(requestKey);
  if (it == predicted.end()) {
    llvm::Expected<Prediction> prediction = model.predict(request);
    if (!prediction) {
      instance.instr->op->emitError()
          << "cannot simulate: " << llvm::toString(prediction.takeError());
      return status = failure();
    }
    llvm::Expected<std::vector<PhaseSpec>> phases =
        getCollectivePhases(model, request, *prediction);
    if (!phases) {
      instance.instr->op->emitError() << llvm::toString(phases.takeError());
      return status = failure();
    }
    it = predicted
             .emplace(
                 std::move(requestKey),
                 Predicted{std::move(*phases), describeAlgorithm(*prediction)})
             .first;
  }
  instance.phases = it->second.phases;
  instance.algorithm = it->second.algorithm;
  instance.startUs = instance.arrivalUs;
  if (request.kind != CollectiveKind::Copy)
    ++result.collectives;
  instance.label += " (" + it->second.algorithm + ")";
  startPhase(key, instance, instance.arrivalUs);
  return success();
}

void Simulation::startPhase(uint64_t key, Instance &instance, double at) {
  if (instance.phase >= instance.phases.size()) {
    finish(key, instance, at);
    return;
  }
  const PhaseSpec &phase = instance.phases[instance.phase];
  instance.phaseStartUs = at;
  // The phase's latency first; its flows start when it has passed (the
  // timer with a negative key marks that).
  timers.emplace(at + phase.latencyUs, timerSequence++, key);
}

/// The trace thread of a stream: 0 computes, 1 is the backend's own
/// communication stream, 2 + k the plan's stream k.
static uint64_t getTraceThread(std::optional<int64_t> stream) {
  if (!stream)
    return 0;
  return *stream < 0 ? 1 : static_cast<uint64_t>(*stream) + 2;
}

std::vector<std::pair<std::string, llvm::json::Value>>
Simulation::describeInstance(const Instance &instance) const {
  std::vector<std::pair<std::string, llvm::json::Value>> args;
  const CollectiveRequest &request = instance.instr->request;
  args.push_back({"bytes", static_cast<int64_t>(request.bytes)});
  std::string ranksText;
  if (instance.pairSrc >= 0) {
    ranksText = std::to_string(instance.pairSrc) + " -> " +
                std::to_string(instance.pairDst);
  } else {
    SmallVector<uint64_t> members;
    for (const Participant &p : instance.participants)
      members.push_back(p.rank);
    llvm::sort(members);
    ranksText = llvm::join(
        llvm::map_range(members, [](uint64_t r) { return std::to_string(r); }),
        ", ");
  }
  args.push_back({"ranks", ranksText});
  args.push_back({"algorithm", instance.algorithm});
  std::string where;
  llvm::raw_string_ostream os(where);
  Location loc = instance.instr->op->getLoc();
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    os << file.getFilename().getValue() << ":" << file.getLine() << ":"
       << file.getColumn();
  else
    loc.print(os);
  args.push_back({"source", where});
  return args;
}

void Simulation::finish(uint64_t key, Instance &instance, double at) {
  // Every rank's event of this transfer carries the same details and flow.
  std::vector<std::pair<std::string, llvm::json::Value>> args;
  uint64_t flowId = 0;
  if (llvm::any_of(instance.participants,
                   [&](const Participant &p) { return p.rank < traceRanks; })) {
    args = describeInstance(instance);
    flowId = nextFlowId++;
  }
  for (const Participant &p : instance.participants) {
    RankState &state = ranks[p.rank];
    if (p.detached || p.posted) {
      // Sends finish in the order they are drawn here, so a lane whose last
      // send ended by this one's start is free.
      size_t lane = 0;
      while (lane < state.sendLanes.size() &&
             state.sendLanes[lane] > instance.startUs)
        ++lane;
      if (lane == state.sendLanes.size())
        state.sendLanes.push_back(at);
      state.sendLanes[lane] = at;
      traceEvent(p.rank, kTraceSendThread + lane, instance.label,
                 "comm (async)", instance.startUs, at, args, flowId);
      state.sendsDoneUs = std::max(state.sendsDoneUs, at);
      if (p.posted)
        completeOne(p.rank, p.token, at);
      continue;
    }
    // A blocking call queued on the backend's stream holds the rank.
    bool async = p.stream && state.streams[*p.stream].queue.front().token !=
                                 blockingToken();
    traceEvent(p.rank, getTraceThread(p.stream), instance.label,
               async ? "comm (async)" : "comm", instance.startUs, at, args,
               flowId);
    if (p.stream) {
      CommStream &stream = state.streams[*p.stream];
      stream.free = at;
      stream.busy = false;
      unsigned token = stream.queue.front().token;
      stream.queue.pop_front();
      completeOne(p.rank, token, at);
      runCommStream(p.rank, *p.stream);
    } else {
      state.clock = at;
      state.blocked = false;
      ++state.pc;
      advanceRank(p.rank);
    }
  }
  instances.erase(key);
}

void Simulation::completeOne(uint64_t rank, unsigned token, double at) {
  RankState &state = ranks[rank];
  if (--state.pendingPerToken[token] != 0)
    return;
  state.tokenDone[token] = at;
  if (state.draining && !state.hasTransfersInFlight()) {
    // A blocking call waited for the transfers in flight: it goes now.
    traceEvent(rank, 0, "progress", "wait", state.clock,
               std::max(state.clock, at));
    state.clock = std::max(state.clock, at);
    state.draining = false;
    state.blocked = false;
    advanceRank(rank);
    return;
  }
  if (state.waitingToken != int(token))
    return;
  // The compute stream waits for this token: it resumes when the last of
  // its transfers ends.
  double resume = std::max(state.clock, at);
  traceEvent(rank, 0, "wait", "wait", state.clock, resume);
  state.clock = resume;
  state.waitingToken = -1;
  state.blocked = false;
  ++state.pc;
  advanceRank(rank);
}

void Simulation::runCommStream(uint64_t rank, int64_t streamId) {
  RankState &state = ranks[rank];
  CommStream &stream = state.streams[streamId];
  while (!stream.busy && !stream.queue.empty() && succeeded(status)) {
    Queued next = stream.queue.front();
    const Instr &instr = program.instrs[next.instr];
    // A transfer is issued when its comm.start is and runs once the ones
    // before it on its stream have ended; the compute stream goes on.
    double at = std::max(stream.free, next.issuedUs);
    if (instr.kind == InstrKind::Compute) {
      // Compute inside a start body runs on the communication stream.
      stream.free = at + instr.durationUs;
      traceEvent(rank, getTraceThread(streamId), instr.name, "compute", at,
                 stream.free);
      stream.queue.pop_front();
      completeOne(rank, next.token, stream.free);
      continue;
    }
    bool participates = true;
    if (instr.kind == InstrKind::Collective &&
        instr.request.kind != CollectiveKind::Copy &&
        instr.groupOfRank[rank] < 0)
      participates = false;
    if (participates && instr.kind == InstrKind::Send) {
      // Posted: the stream goes on to what follows it in the body.
      stream.queue.pop_front();
      if (failed(arrive(rank, next.instr, streamId, at, /*detached=*/false,
                        next.token))) {
        if (failed(status))
          return;
        completeOne(rank, next.token, at); // not in any pair
      }
      continue;
    }
    if (participates) {
      stream.busy = true;
      LogicalResult arrived = arrive(rank, next.instr, streamId, at);
      if (failed(arrived)) {
        if (failed(status))
          return;
        if (instr.kind == InstrKind::Send || instr.kind == InstrKind::Recv) {
          stream.busy = false;
          participates = false; // not in any pair
        } else {
          status = failure();
          return;
        }
      }
    }
    if (!participates) {
      stream.queue.pop_front();
      completeOne(rank, next.token, at);
      continue;
    }
    return;
  }
}

void Simulation::advanceRank(uint64_t rank) {
  RankState &state = ranks[rank];
  while (!state.blocked && succeeded(status)) {
    if (state.pc >= mainList.size()) {
      flushDeferred(rank);
      state.done = true;
      return;
    }
    const Instr &instr = program.instrs[mainList[state.pc]];
    switch (instr.kind) {
    case InstrKind::Compute:
      // The runtime's compute stand-in drives the transfers started before
      // it while it waits (comm_compute_args.progress), so on a machine
      // whose transfers progress only inside communication calls they
      // begin now and overlap the compute.
      flushDeferred(rank);
      traceEvent(rank, 0, instr.name, "compute", state.clock,
                 state.clock + instr.durationUs);
      state.clock += instr.durationUs;
      state.computeUs += instr.durationUs;
      ++state.pc;
      break;
    case InstrKind::Start: {
      SmallVector<int64_t, 2> touched;
      for (unsigned body : instr.body) {
        int64_t streamId = program.instrs[body].stream;
        state.streams[streamId].queue.push_back(
            {body, instr.token, state.clock, progressInCallsOnly});
        ++state.pendingPerToken[instr.token];
        if (!llvm::is_contained(touched, streamId))
          touched.push_back(streamId);
      }
      if (instr.body.empty())
        state.tokenDone[instr.token] = state.clock;
      ++state.pc;
      for (int64_t streamId : touched) {
        if (!progressInCallsOnly)
          runCommStream(rank, streamId);
        else if (!llvm::is_contained(state.deferred, streamId))
          state.deferred.push_back(streamId);
      }
      break;
    }
    case InstrKind::Wait: {
      flushDeferred(rank);
      auto it = state.tokenDone.find(instr.token);
      if (it != state.tokenDone.end() &&
          state.pendingPerToken.lookup(instr.token) == 0) {
        traceEvent(rank, 0, "wait", "wait", state.clock,
                   std::max(state.clock, it->second));
        state.clock = std::max(state.clock, it->second);
        ++state.pc;
      } else {
        state.waitingToken = instr.token;
        state.blocked = true;
      }
      break;
    }
    case InstrKind::Collective:
    case InstrKind::Send:
    case InstrKind::Recv: {
      bool grouped = instr.kind == InstrKind::Collective &&
                     instr.request.kind != CollectiveKind::Copy;
      if (grouped && instr.groupOfRank[rank] < 0) {
        ++state.pc; // not a member of any group
        break;
      }
      flushDeferred(rank);
      if (progressInCallsOnly && state.hasTransfersInFlight()) {
        state.draining = true;
        state.blocked = true;
        break;
      }
      if (streamOrdered && instr.kind != InstrKind::Send) {
        auto own = state.streams.find(-1);
        if (own != state.streams.end() &&
            (own->second.busy || !own->second.queue.empty())) {
          // Behind the transfers on the backend's own stream; the compute
          // stream waits until it ends.
          own->second.queue.push_back(
              {mainList[state.pc], blockingToken(), state.clock});
          ++state.pendingPerToken[blockingToken()];
          state.waitingToken = blockingToken();
          state.blocked = true;
          runCommStream(rank, -1);
          break;
        }
      }
      if (instr.kind == InstrKind::Send) {
        // Sends do not block (the runtime posts them and drains them before
        // the step returns): the rank goes on, so that a ring of sends
        // followed by receives runs as it does on the machine.
        if (failed(arrive(rank, mainList[state.pc], std::nullopt, state.clock,
                          /*detached=*/true)) &&
            failed(status))
          return;
        ++state.pc;
        break;
      }
      state.blocked = true;
      if (failed(arrive(rank, mainList[state.pc], std::nullopt, state.clock))) {
        if (failed(status))
          return;
        if (instr.kind == InstrKind::Collective) {
          status = failure();
          return;
        }
        state.blocked = false; // not in any pair
        ++state.pc;
      }
      break;
    }
    }
  }
}

LogicalResult Simulation::run() {
  result.ranks = ranks.size();
  for (uint64_t rank = 0; rank < ranks.size(); ++rank)
    advanceRank(rank);
  if (failed(status))
    return failure();
  unsigned stalls = 0;
  while (true) {
    network.recomputeRates();
    double nextFlow = now + network.timeToNextCompletion();
    double nextTimer = timers.empty() ? kInf : std::get<0>(timers.top());
    double next = std::min(nextFlow, nextTimer);
    if (!std::isfinite(next))
      break;
    // Late in a long program the clock's steps are coarse (at 4e7 us, 7.5e-9
    // us): next - now then falls short of a flow's time by a residue the
    // next step cannot add to the clock, and the flow would never end. Such
    // a residue ends the flow while the clock still resolves a nanosecond;
    // past that (from about 8e12 us) ending flows early would shorten them
    // visibly, and the stall below is reported instead.
    double ulp = std::nextafter(next, kInf) - next;
    double resolution = ulp <= 1e-3 ? 4 * ulp : 0;
    std::vector<uint64_t> completed = network.advance(next - now, resolution);
    // A clock so large that adding a transfer's time leaves it unchanged
    // would spin here forever.
    bool timerDue = !timers.empty() && std::get<0>(timers.top()) <= next;
    if (next <= now && completed.empty() && !timerDue) {
      if (++stalls > 64) {
        Operation *anchor = nullptr;
        for (const Instr &instr : program.instrs)
          if ((anchor = instr.op))
            break;
        (anchor ? anchor->emitError() : emitError(UnknownLoc()))
            << "the simulated clock (" << now
            << " us) is too large to advance by the transfers in flight; "
               "a step of the program takes far longer than any real one";
        return failure();
      }
    } else {
      stalls = 0;
    }
    now = next;
    for (uint64_t key : completed) {
      auto it = instances.find(key);
      if (it == instances.end())
        continue;
      Instance &instance = it->second;
      if (--instance.pendingFlows == 0) {
        if (traceRanks) {
          llvm::sort(instance.traceLinks);
          instance.traceLinks.erase(llvm::unique(instance.traceLinks),
                                    instance.traceLinks.end());
          for (uint64_t link : instance.traceLinks)
            result.linkIntervals.push_back(
                {link, instance.flowsStartUs, now,
                 instance.label + " " +
                     instance.phases[instance.phase].name});
          instance.traceLinks.clear();
        }
        ++instance.phase;
        startPhase(key, instance, now);
      }
    }
    while (!timers.empty() && std::get<0>(timers.top()) <= now) {
      uint64_t key = std::get<2>(timers.top());
      timers.pop();
      auto it = instances.find(key);
      if (it == instances.end())
        continue;
      Instance &instance = it->second;
      const PhaseSpec &phase = instance.phases[instance.phase];
      instance.flowsStartUs = now;
      unsigned added = 0;
      for (const FlowSpec &flow : phase.flows) {
        Path path = flow.srcRail >= 0
                        ? topology.getPathThrough(flow.src, flow.dst,
                                                  flow.srcRail, flow.dstRail)
                        : topology.getPath(flow.src, flow.dst);
        if (!path.isConnected() || path.hops.empty())
          continue;
        // A protocol that carries less than its wire bytes (LL's flags,
        // LL128's) puts 1/factor of the payload on every link it crosses,
        // so flows that share a link feel it too.
        double bytes = flow.bytes, cap = flow.fixedCapGBps;
        if (cap <= 0) {
          cap = model.getPathBandwidth(path);
          bytes /= flow.protocolFactor;
        }
        network.addFlow(path, bytes, cap, key);
        if (traceRanks)
          for (const PathHop &hop : path.hops)
            instance.traceLinks.push_back(2 * hop.link + hop.reverse);
        ++added;
      }
      result.flows += added;
      instance.pendingFlows = added;
      if (added == 0) {
        ++instance.phase;
        startPhase(key, instance, now);
      }
    }
    if (failed(status))
      return failure();
  }
  // A send nobody receives is lost data, named at the send.
  auto lostSend = [&](const Instance &instance, const Participant &p) {
    instance.instr->op->emitError()
        << "rank " << p.rank << "'s comm.send to rank " << instance.pairDst
        << " (tag " << instance.instr->tag << ") is never received: rank "
        << instance.pairDst << " has no matching comm.recv";
    return failure();
  };
  // A comm.start's send whose receiver ended: its sender waits for it at
  // the comm.wait, but the send is what is wrong.
  for (auto &[key, instance] : instances)
    for (const Participant &p : instance.participants)
      if (p.posted && instance.pairDst >= 0 && ranks[instance.pairDst].done)
        return lostSend(instance, p);
  // Everything should have finished; a rank still blocked is a deadlock.
  for (uint64_t rank = 0; rank < ranks.size(); ++rank) {
    RankState &state = ranks[rank];
    const Instr *instr = nullptr;
    for (auto &[id, stream] : state.streams)
      if (!stream.queue.empty()) {
        instr = &program.instrs[stream.queue.front().instr];
        break;
      }
    if (state.done && !instr)
      continue;
    if (!instr && state.pc < mainList.size())
      instr = &program.instrs[mainList[state.pc]];
    InFlightDiagnostic diag =
        (instr && instr->op ? instr->op->emitError() : emitError(UnknownLoc()))
        << "deadlock: rank " << rank << " waits forever";
    if (instr && (instr->kind == InstrKind::Send ||
                  instr->kind == InstrKind::Recv))
      diag << " for the matching "
           << (instr->kind == InstrKind::Send ? "comm.recv" : "comm.send")
           << " (tag " << instr->tag << ")";
    else if (instr && instr->kind == InstrKind::Wait)
      diag << " on a token whose transfers never complete";
    else
      diag << " for the other ranks of its group";
    return failure();
  }
  // Every rank ended, but a send was never received.
  for (auto &[key, instance] : instances)
    for (const Participant &p : instance.participants)
      if (p.detached || p.posted)
        return lostSend(instance, p);
  for (const RankState &state : ranks) {
    double finish = std::max(state.clock, state.sendsDoneUs);
    for (auto &[id, stream] : state.streams)
      finish = std::max(finish, stream.free);
    if (finish > result.stepTimeUs) {
      result.stepTimeUs = finish;
      result.computeUs = state.computeUs;
    }
  }
  result.exposedCommUs = std::max(0.0, result.stepTimeUs - result.computeUs);
  result.commBytes = network.getTotalBytes();
  for (auto &[link, bytes] : network.getLinkBytes()) {
    double capacity = network.getCapacity(link) * 1e3; // bytes/us
    double utilization =
        result.stepTimeUs > 0 ? bytes / (capacity * result.stepTimeUs) : 0;
    result.links.push_back({link, bytes, utilization});
  }
  llvm::sort(result.links, [](const LinkUse &a, const LinkUse &b) {
    return a.utilization > b.utilization ||
           (a.utilization == b.utilization && a.directedLink < b.directedLink);
  });
  return success();
}

/// The step's lower bound (SimResult::lowerBoundUs) on the flattened
/// program: per rank, the compute ops' time, and the transfers it takes
/// part in, summed per (kind, group or pairs, memory spaces) and each such
/// class bounded by the cost model's physical bound of its total bytes.
/// Transfers on one stream run one after another, and a class bounded as
/// one buffer pays its bandwidth term once and its latency once, which no
/// fusion of its members beats.
static void boundStep(func::FuncOp function, const Flattener &program,
                      uint64_t worldSize, const CostModel &model,
                      SimResult &result) {
  // A transfer's class is named by a key (its kind, element size and group,
  // pairs or memory spaces). Keys are interned once (a group of 16,384
  // ranks is not copied per rank, and a key of a grouped collective is
  // written once, not once per rank), a rank's classes are visited in the
  // keys' order, and a class's bound is computed once for all its ranks.
  std::map<std::string, unsigned> keyIds;
  std::vector<const std::string *> keyNames;
  auto intern = [&](std::string key) {
    auto [it, inserted] = keyIds.try_emplace(std::move(key), keyNames.size());
    if (inserted)
      keyNames.push_back(&it->first);
    return it->second;
  };
  auto keyPrefix = [](const CollectiveRequest &request) {
    return std::to_string(static_cast<int>(request.kind)) + ":" +
           std::to_string(request.elementBytes) + ":";
  };
  std::map<std::vector<int64_t>, unsigned> groupIds;
  // Per instruction: the key of each of its groups (a collective), or of
  // its copy.
  std::vector<SmallVector<unsigned, 1>> keysOf(program.instrs.size());
  for (auto [index, instr] : llvm::enumerate(program.instrs)) {
    const CollectiveRequest &request = instr.request;
    if (instr.kind == InstrKind::Collective &&
        request.kind == CollectiveKind::Copy) {
      keysOf[index].push_back(
          intern(keyPrefix(request) + "copy" +
                 std::to_string(static_cast<int>(request.copySource)) + "->" +
                 std::to_string(static_cast<int>(request.copyTarget))));
    } else if (instr.kind == InstrKind::Collective && request.pairs.empty()) {
      for (const auto &group : request.groups) {
        unsigned groupId =
            groupIds
                .try_emplace(std::vector<int64_t>(group.begin(), group.end()),
                             groupIds.size())
                .first->second;
        keysOf[index].push_back(
            intern(keyPrefix(request) + "g" + std::to_string(groupId)));
      }
    }
  }
  struct Class {
    const CollectiveRequest *request = nullptr;
    /// The rank's group, in the request (not copied per rank: a group of
    /// 100,000 ranks made that quadratic).
    ArrayRef<int64_t> group;
    SmallVector<std::pair<int64_t, int64_t>> pairs;
    uint64_t bytes = 0;
    SmallVector<unsigned> members; ///< instruction indices
    /// Only sends: they do not hold the stream (the rank goes on).
    bool sendsOnly = true;
  };
  struct Bound {
    double us = 0;
    std::string why;
    SmallVector<BoundTerm, 4> terms;
  };
  std::map<std::pair<unsigned, uint64_t>, Bound> bounds;
  // Every rank runs the same compute ops, back to back on its compute
  // stream: their total, and the ops that run once with when each ends on
  // a stream that never waits, from which follow when each transfer can
  // start and how much compute must follow it.
  double compute = 0;
  llvm::DenseMap<Operation *, ComputeSpan> spans;
  {
    llvm::DenseMap<Operation *, unsigned> runs;
    for (const Instr &instr : program.instrs)
      if (instr.kind == InstrKind::Compute && isa<ComputeOp>(instr.op)) {
        compute += instr.durationUs;
        ++runs[instr.op];
        spans[instr.op] = {compute, instr.durationUs}; // fromUs: below
      }
    for (auto &[op, count] : runs)
      if (count > 1)
        spans.erase(op);
    for (auto &[op, span] : spans)
      span.fromUs += compute - span.endUs;
  }
  // Without comm.start, every transfer but a send stops its rank's
  // compute stream.
  bool blocking = true;
  function.walk([&](StartOp) { blocking = false; });
  llvm::DenseMap<Operation *, unsigned> transferRuns;
  for (const Instr &instr : program.instrs)
    if (instr.kind == InstrKind::Collective || instr.kind == InstrKind::Send ||
        instr.kind == InstrKind::Recv)
      ++transferRuns[instr.op];
  llvm::DenseMap<Operation *, OpTiming> timings = getOpTimings(function, spans);
  auto timingOf = [&](const Instr &instr) {
    auto it = timings.find(instr.op);
    return it == timings.end() || transferRuns.lookup(instr.op) != 1
               ? OpTiming()
               : it->second;
  };
  for (uint64_t rank = 0; rank < worldSize; ++rank) {
    // The rank's classes, and where each key's class is in them.
    std::vector<std::pair<unsigned, Class>> classes;
    llvm::DenseMap<unsigned, unsigned> classOfKey;
    for (auto [index, instr] : llvm::enumerate(program.instrs)) {
      if (instr.kind != InstrKind::Collective &&
          instr.kind != InstrKind::Send && instr.kind != InstrKind::Recv)
        continue;
      const CollectiveRequest &request = instr.request;
      SmallVector<std::pair<int64_t, int64_t>> pairs;
      int32_t groupIndex = -1;
      unsigned key;
      if (request.kind == CollectiveKind::Copy) {
        if (request.copyRank != static_cast<int64_t>(rank))
          continue;
        key = keysOf[index].front();
      } else if (!request.pairs.empty()) {
        // A rank's own pairs: a send from it, a receive into it.
        for (auto pair : request.pairs)
          if ((instr.kind != InstrKind::Recv &&
               pair.first == static_cast<int64_t>(rank)) ||
              (instr.kind != InstrKind::Send &&
               pair.second == static_cast<int64_t>(rank)))
            pairs.push_back(pair);
        if (pairs.empty())
          continue;
        std::string text = keyPrefix(request);
        llvm::raw_string_ostream os(text);
        for (auto [src, dst] : pairs)
          os << src << ">" << dst << ",";
        key = intern(std::move(text));
      } else {
        groupIndex = instr.groupOfRank[rank];
        if (groupIndex < 0)
          continue;
        key = keysOf[index][groupIndex];
      }
      auto [slot, inserted] = classOfKey.try_emplace(key, classes.size());
      if (inserted)
        classes.emplace_back(key, Class());
      Class &entry = classes[slot->second].second;
      if (inserted) {
        entry.request = &request;
        entry.pairs = pairs;
        if (groupIndex >= 0)
          entry.group = request.groups[groupIndex];
      }
      entry.bytes += request.bytes;
      entry.members.push_back(index);
      entry.sendsOnly &= instr.kind == InstrKind::Send;
    }
    double transfers = 0;
    std::string why;
    double largest = 0;
    // Each cut's terms over the rank's transfers: they cross it whatever
    // the streams.
    std::map<std::string, std::pair<double, std::string>> throughCut;
    // The same terms per transfer (a term is the bytes at raw bandwidth,
    // so it divides among the members by their bytes), each with when it
    // can start and what compute must follow it.
    struct Crossing {
      double releaseUs, us, tailUs;
    };
    std::map<std::string, std::vector<Crossing>> crossings;
    llvm::sort(classes, [&](const auto &a, const auto &b) {
      return *keyNames[a.first] < *keyNames[b.first];
    });
    for (auto &[key, entry] : classes) {
      if (entry.group.size() < 2 &&
          entry.request->kind != CollectiveKind::Copy && entry.pairs.empty())
        continue; // a group of one moves nothing
      // Point-to-point classes name the rank; grouped ones are the same
      // for every rank of the group.
      auto [cached, fresh] = bounds.try_emplace({key, entry.bytes});
      if (fresh) {
        CollectiveRequest request = entry.request->withoutRanks();
        request.bytes = entry.bytes;
        request.pairs.assign(entry.pairs.begin(), entry.pairs.end());
        GroupShape shape;
        if (!entry.group.empty()) {
          request.groups.emplace_back(entry.group.begin(), entry.group.end());
          shape = model.getGroupShape(entry.group);
        }
        std::tie(cached->second.us, cached->second.why) =
            model.getLowerBound(request, shape, &cached->second.terms);
      }
      double us = cached->second.us;
      const std::string &what = cached->second.why;
      // A send is posted and the rank goes on: it runs beside what
      // follows, not after it on the stream (its bytes still count in the
      // cuts below).
      if (!entry.sendsOnly)
        transfers += us;
      for (const BoundTerm &term : cached->second.terms) {
        auto &[sum, example] = throughCut[term.resource];
        sum += term.us;
        if (example.empty())
          example = term.why;
        std::vector<Crossing> &list = crossings[term.resource];
        for (unsigned member : entry.members) {
          const Instr &instr = program.instrs[member];
          OpTiming timing = timingOf(instr);
          list.push_back({timing.releaseUs,
                          entry.bytes ? term.us * instr.request.bytes /
                                            static_cast<double>(entry.bytes)
                                      : 0.0,
                          timing.tailUs});
        }
      }
      if (us > largest && !entry.sendsOnly) {
        largest = us;
        why = what;
      }
    }
    if (transfers > result.transferBoundUs)
      result.transferBoundUs = transfers;
    if (blocking)
      result.blockingBoundUs =
          std::max(result.blockingBoundUs, compute + transfers);
    // A cut's transfers released at or after time r cross it after r, and
    // the last of them to finish is followed by its compute: the step takes
    // at least r + their time + the least compute after one of them.
    for (auto &[resource, entry] : throughCut) {
      std::vector<Crossing> &list = crossings[resource];
      llvm::sort(list, [](const Crossing &a, const Crossing &b) {
        return a.releaseUs > b.releaseUs;
      });
      double sum = 0, tail = kInf, best = 0, bestRelease = 0, bestTail = 0;
      for (const Crossing &c : list) {
        sum += c.us;
        tail = std::min(tail, c.tailUs);
        if (c.releaseUs + sum + tail > best) {
          best = c.releaseUs + sum + tail;
          bestRelease = c.releaseUs;
          bestTail = tail;
        }
      }
      if (best > result.cutBoundUs) {
        result.cutBoundUs = best;
        result.cutBoundWhy = "rank " + std::to_string(rank) + "'s transfers (" +
                             entry.second + ")";
        if (bestRelease > 0 || bestTail > 0)
          result.cutBoundWhy += llvm::formatv(
              ", the first of them ready at {0:F2} us, {1:F2} us of compute "
              "after the last",
              bestRelease, bestTail);
      }
    }
    double bound = std::max(compute, transfers);
    if (bound > result.lowerBoundUs) {
      result.lowerBoundUs = bound;
      result.lowerBoundWhy = compute >= transfers
                                 ? "compute of rank " + std::to_string(rank)
                                 : "transfers of rank " + std::to_string(rank) +
                                       " on one stream (largest: " + why + ")";
    }
  }
  // What binds any streams binds one.
  if (result.cutBoundUs > result.lowerBoundUs) {
    result.lowerBoundUs = result.cutBoundUs;
    result.lowerBoundWhy = "the busiest cut: " + result.cutBoundWhy;
  }
  // Local kernels (packs, unpacks, combines) are left out: a plan adds or
  // removes them.
  if (result.lowerBoundUs <= 0)
    result.lowerBoundWhy =
        "nothing bounds the step: no comm.compute and no transfer";
}

namespace {
/// A function flattened for one rank's view of the program, every rank it
/// names checked to exist.
struct Flattened {
  uint64_t ranks = 0;
  std::unique_ptr<Flattener> program;
  std::vector<unsigned> mainList;
};
} // namespace

static FailureOr<Flattened> flatten(func::FuncOp function,
                                    const Topology &topology) {
  FailureOr<ProgramRanks> world =
      getProgramRanks(function, topology, topology.getName());
  if (failed(world))
    return failure();
  Flattened flat;
  flat.ranks = world->ranks;
  flat.program = std::make_unique<Flattener>(topology, world->ranks);
  if (failed(flat.program->flattenFunction(function, 0, flat.mainList)))
    return failure();
  // Every rank named must exist.
  for (const Instr &instr : flat.program->instrs)
    if (instr.kind != InstrKind::Compute && instr.kind != InstrKind::Start &&
        instr.kind != InstrKind::Wait &&
        failed(checkRanks(instr.op, instr.request, *world)))
      return failure();
  return flat;
}

FailureOr<SimResult> mlir::comm::sim::boundFunction(func::FuncOp function,
                                                    const Topology &topology,
                                                    const CostModel &model) {
  FailureOr<Flattened> flat = flatten(function, topology);
  if (failed(flat))
    return failure();
  SimResult result;
  result.ranks = flat->ranks;
  boundStep(function, *flat->program, flat->ranks, model, result);
  return result;
}

FailureOr<SimResult> mlir::comm::sim::simulateFunction(
    func::FuncOp function, const Topology &topology, const CostModel &model,
    Backend backend, unsigned traceRanks, bool withBounds) {
  FailureOr<Flattened> flat = flatten(function, topology);
  if (failed(flat))
    return failure();
  Simulation simulation(*flat->program, flat->mainList, topology, model,
                        backend, flat->ranks, traceRanks);
  if (failed(simulation.run()))
    return failure();
  if (withBounds)
    boundStep(function, *flat->program, flat->ranks, model, simulation.result);
  return std::move(simulation.result);
}
