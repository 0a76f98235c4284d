//===- CollectiveCost.cpp - from an op to a cost-model request --*- C++ -*-===//

#include "comm/Analysis/CollectiveCost.h"
#include "comm/Dialect/Comm/IR/CommOps.h"

#include <limits>

using namespace mlir;
using namespace mlir::comm;

/// Bytes of one element of a statically shaped tensor or buffer (sub-byte
/// elements take a byte each, as the runtime stores them).
static unsigned getElementBytes(Type type) {
  auto shaped = dyn_cast_or_null<ShapedType>(type);
  if (!shaped || !shaped.getElementType().isIntOrFloat())
    return 1;
  return getElementStorageBytes(shaped.getElementType());
}

static uint64_t getTotalBytes(Type type) {
  auto shaped = dyn_cast_or_null<ShapedType>(type);
  if (!shaped || !shaped.hasStaticShape() ||
      !shaped.getElementType().isIntOrFloat())
    return 0;
  // Saturates rather than wraps: the cost model rejects what is past its
  // limit, which a wrapped count could slip under.
  uint64_t bytes;
  if (__builtin_mul_overflow(static_cast<uint64_t>(shaped.getNumElements()),
                             static_cast<uint64_t>(getElementBytes(type)),
                             &bytes))
    return UINT64_MAX;
  return bytes;
}

/// Fixes in `request` what `plan` decides.
static void applyPlan(CollectiveRequest &request, PlanAttr plan) {
  if (!plan)
    return;
  request.algorithm = plan.getAlgorithm();
  request.protocol = plan.getProtocol();
  request.route = plan.getRoute();
  // A plan that names an algorithm without a chunk size runs one chunk per
  // channel; otherwise the model may pick the chunk.
  if (std::optional<int64_t> chunk = plan.getChunkBytes())
    request.chunkBytes = static_cast<uint64_t>(*chunk);
  else if (request.algorithm)
    request.chunkBytes = 0;
  if (std::optional<int64_t> channels = plan.getChannels())
    request.channels = static_cast<unsigned>(std::max<int64_t>(1, *channels));
  // A narrower wire precision moves proportionally fewer bytes.
  if (auto precision = dyn_cast_or_null<FloatType>(plan.getPrecision())) {
    unsigned wire = getElementStorageBytes(precision);
    if (request.elementBytes > wire) {
      request.bytes = request.bytes / request.elementBytes * wire;
      request.elementBytes = wire;
    }
  }
}

static void addPairs(CollectiveRequest &request, ArrayRef<int64_t> flat) {
  for (size_t i = 0; i + 1 < flat.size(); i += 2)
    request.pairs.push_back({flat[i], flat[i + 1]});
}

std::optional<CollectiveRequest>
mlir::comm::getCollectiveRequest(Operation *op) {
  std::optional<CollectiveKind> kind = getCollectiveKind(op);
  if (!kind)
    return std::nullopt;
  CollectiveRequest request;
  request.kind = *kind;
  PlanAttr plan;

  if (auto collective = dyn_cast<CollectiveOpInterface>(op)) {
    ReplicaGroupsAttr groups = collective.getReplicaGroups();
    for (int64_t g = 0, e = groups.getNumGroups(); g < e; ++g)
      request.groups.push_back(SmallVector<int64_t, 8>(groups.getGroup(g)));
    Type element = collective.getCommElementType();
    request.elementBytes =
        element && element.isIntOrFloat() ? getElementStorageBytes(element) : 1;
    request.reduction = collective.getReduction();
    request.floatElements = element && isa<FloatType>(element);
    // The size nccl-tests reports: the larger of what a rank hands in and
    // gets back (all_gather's output, reduce_scatter's input).
    request.bytes = std::max(collective.getBytesSentPerRank(),
                             collective.getBytesReceivedPerRank());
    if (std::optional<int64_t> root = collective.getRootPosition())
      request.root = *root;
    plan = collective.getPlanAttr();
  }
  if (auto p2p = dyn_cast<PointToPointOpInterface>(op)) {
    addPairs(request, p2p.getSourceTargetPairs());
    Type type = p2p.getTransferType();
    request.elementBytes = getElementBytes(type);
    request.bytes = getTotalBytes(type);
    plan = p2p.getPlanAttr();
  }
  if (auto copy = dyn_cast<CopyOp>(op)) {
    request.elementBytes = getElementBytes(copy.getType());
    request.bytes = getTotalBytes(copy.getType());
    request.copySource = copy.getSrc();
    request.copyTarget = copy.getDst();
    // The lowering moves a copy in its own type: no plan field applies.
    return request;
  }
  applyPlan(request, plan);
  return request;
}

std::optional<double> mlir::comm::predictTimeUs(CollectiveRequest request,
                                                const CostModel &model,
                                                Backend backend, bool native) {
  request.backend = backend;
  request.native = native;
  llvm::Expected<Prediction> prediction = model.predict(request);
  if (!prediction) {
    llvm::consumeError(prediction.takeError());
    return std::nullopt;
  }
  return prediction->timeUs;
}

std::optional<Prediction>
mlir::comm::getOwnCollectiveChoice(CollectiveRequest request,
                                   const CostModel &model, Backend backend,
                                   double fastestUs, bool *withinNoise) {
  if (withinNoise)
    *withinNoise = false;
  request.backend = backend;
  request.native = true;
  request.algorithm.reset();
  llvm::Expected<Prediction> own = model.predict(request);
  if (!own) {
    llvm::consumeError(own.takeError());
    return std::nullopt;
  }
  // The model marks the backend's own collective where it predicts it apart
  // from the schedules (MPI among a host's processes, from its profile);
  // on NCCL among GPUs its own collective competes where it is faster.
  if (backend == Backend::nccl && !model.getTopology().hasProcessRanks() &&
      own->timeUs < fastestUs)
    own->native = true;
  if (!own->native)
    return std::nullopt;
  double noise = own->measured ? HostProfile::kNoise : 0;
  bool close =
      fastestUs < own->timeUs && fastestUs >= own->timeUs * (1 - noise);
  if (withinNoise)
    *withinNoise = close;
  if (own->timeUs <= fastestUs || close)
    return *own;
  return std::nullopt;
}

std::optional<double>
mlir::comm::predictPlannedTimeUs(const CollectiveRequest &request,
                                 const CostModel &model, Backend backend) {
  std::optional<double> schedule =
      predictTimeUs(request, model, backend, /*native=*/false);
  if (request.algorithm)
    return schedule;
  if (std::optional<Prediction> own = getOwnCollectiveChoice(
          request, model, backend,
          schedule.value_or(std::numeric_limits<double>::infinity())))
    return own->timeUs;
  return schedule;
}

std::optional<double> mlir::comm::getLocalTimeUs(Operation *op,
                                                 const Topology &topology) {
  if (!isa<ComputeOp, PackOp, UnpackOp, RotateOp>(op) && !getCombineKind(op))
    return std::nullopt;
  const Device &gpu = topology.getDevice(topology.getGPU(0));
  double hbm = getMemoryGBps(gpu);
  if (auto compute = dyn_cast<ComputeOp>(op)) {
    if (auto time = compute.getTimeUs())
      return time->convertToDouble();
    double flops =
        compute.getFlops() ? compute.getFlops()->convertToDouble() : 0;
    double bytes = compute.getBytesAttr() ? compute.getBytesAttr().getInt() : 0;
    return std::max(flops / getPeakFlops(gpu), bytes / (hbm * 1e9)) * 1e6;
  }
  double bytes = 0;
  for (Type type : op->getResultTypes())
    bytes += getTotalBytes(type);
  return getPackTimeUs(bytes, hbm);
}

double mlir::comm::getPackMemoryGBps(const Topology &topology) {
  return getMemoryGBps(topology.getDevice(topology.getGPU(0)));
}

double mlir::comm::getPackTimeUs(double bytes, const Topology &topology) {
  return getPackTimeUs(bytes, getPackMemoryGBps(topology));
}

FailureOr<ProgramRanks> mlir::comm::getProgramRanks(Operation *op,
                                                    const Topology &topology,
                                                    StringRef topologyName) {
  ProgramRanks ranks;
  ranks.gpus = topology.getNumGPUs();
  ranks.ranks = ranks.gpus;
  ranks.topologyName = topologyName.str();
  if (topology.hasProcessRanks())
    ranks.rankNoun = "rank";
  if (topology.getSource().starts_with("preset ")) {
    std::string machine = topologyName.str();
    if (topology.getNumNodes() > 1)
      machine = machine.substr(0, machine.find_last_of('x'));
    uint64_t perNode = topology.getGPUsPerNode();
    bool host = topology.hasProcessRanks();
    ranks.presetFor = [machine, perNode, host](uint64_t count) {
      if (host)
        return "host" + std::to_string(count);
      return machine + "x" + std::to_string((count + perNode - 1) / perNode);
    };
  }
  for (Operation *scope = op; scope; scope = scope->getParentOp()) {
    auto size =
        scope->getAttrOfType<IntegerAttr>(CommDialect::getWorldSizeAttrName());
    if (!size)
      continue;
    // Located at the attribute's holder, without printing it (a module).
    if (size.getInt() < 0 || static_cast<uint64_t>(size.getInt()) > ranks.gpus)
      return emitError(scope->getLoc())
             << "comm.world_size is " << size.getInt() << " but topology '"
             << topologyName << "' has " << ranks.gpus << " " << ranks.rankNoun
             << (ranks.gpus == 1 ? "" : "s")
             << (ranks.presetFor && size.getInt() > 0
                     ? "; for " + std::to_string(size.getInt()) +
                           " ranks use '" + ranks.presetFor(size.getInt()) + "'"
                     : std::string());
    ranks.ranks = size.getInt();
    ranks.declared = true;
    break;
  }
  return ranks;
}

LogicalResult mlir::comm::checkRanks(Operation *op,
                                     const CollectiveRequest &request,
                                     const ProgramRanks &ranks) {
  auto check = [&](int64_t rank) -> LogicalResult {
    if (rank >= 0 && static_cast<uint64_t>(rank) < ranks.ranks)
      return success();
    InFlightDiagnostic diag = op->emitError() << "rank " << rank;
    if (ranks.declared)
      diag << " is beyond comm.world_size " << ranks.ranks;
    else
      diag << " is not a " << ranks.rankNoun << " of topology '"
           << ranks.topologyName << "' (" << ranks.gpus << " " << ranks.rankNoun
           << "s";
    diag << (ranks.declared ? " (" : ", ") << "ranks 0-" << ranks.ranks - 1
         << ")";
    if (!ranks.declared && ranks.presetFor && rank >= 0) {
      int64_t needed = rank + 1;
      for (const auto &group : request.groups)
        for (int64_t r : group)
          needed = std::max(needed, r + 1);
      diag << "; for " << needed << " ranks use '" << ranks.presetFor(needed)
           << "'";
    }
    return diag;
  };
  for (const auto &group : request.groups)
    for (int64_t rank : group)
      if (failed(check(rank)))
        return failure();
  for (auto [source, target] : request.pairs)
    if (failed(check(source)) || failed(check(target)))
      return failure();
  return success();
}
