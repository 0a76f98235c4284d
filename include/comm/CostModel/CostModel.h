//===- CostModel.h - predicted time of collectives on a topology -*- C++
//-*-===//
//
// Predicts how long a collective takes on a group of GPUs of a topology, for
// every algorithm and protocol that applies, from the topology's path
// bandwidths and latencies, the sharing of links among the transfers of one
// algorithm, per-link-kind efficiencies and per-step latencies calibrated on
// measured nccl-tests figures (docs/CostModel.md). Every prediction carries
// its terms (latency part, bandwidth part, the bottleneck) and the physical
// lower bound for the same collective.
//
//===----------------------------------------------------------------------===//

#ifndef COMM_COSTMODEL_COSTMODEL_H
#define COMM_COSTMODEL_COSTMODEL_H

#include "comm/Dialect/Comm/IR/CommAlgorithms.h"
#include "comm/Topology/Topology.h"
#include "llvm/ADT/DenseMap.h"

#include <array>
#include <memory>
#include <mutex>

namespace mlir {
namespace comm {

/// nccl-tests' bus bandwidth factor: busbw = algbw x factor.
double getBusBandwidthFactor(CollectiveKind kind, uint64_t ranks);

/// Link classes the per-step latencies are given for.
enum class LinkClass : uint8_t { NVLink, PCIe, Network };
constexpr unsigned kNumLinkClasses = 3;
constexpr unsigned kNumProtocols = 3; // simple, ll, ll128 (dialect order)
constexpr unsigned kNumAlgorithms = 6;

struct HostProfile;

/// The free parameters of the model. `getDefaultCostParams()` holds the
/// values fitted on the calibration data (docs/CostModel.md).
struct CostParams {
  /// Fraction of a link's bandwidth a transfer sustains at large sizes.
  double nvlinkEfficiency = 0.97;
  double pcieEfficiency = 0.85;
  double c2cEfficiency = 0.9;
  std::array<double, 4> networkEfficiency = {0.95, 0.9, 0.7,
                                             0.8}; // by NetworkKind
  /// NVLink SHARP: fraction of the GPU's NVLink bandwidth per direction an
  /// in-switch all-reduce sustains, by the NVSwitch's NVLink generation:
  /// NVLink4 (H100, H200) and NVLink5 (B200 and later). The switch's
  /// reduction rate grew less than the links did, so NVLink5 reaches less of
  /// its links; NCCL models the same split (nvlsEfficiency by compute
  /// capability in src/graph/tuning.cc: 0.85 Hopper, 0.74 Blackwell).
  std::array<double, 2> nvlsEfficiency = {0.85, 0.74};
  /// Extra bandwidth loss of a tree (broadcast and reduce).
  double treeEfficiency = 0.9;
  /// The fraction of a machine's usable network bandwidth all_reduce's
  /// trees across machines (tree, and NVLS_TREE below NVLS) sustain, by
  /// NetworkKind: a tree node talks to a parent and two children, where a
  /// ring talks to one neighbour each way, and fabrics differ in how well
  /// they take that (EFA's SRD far less well than InfiniBand or RoCE).
  std::array<double, 4> treeNetworkEfficiency = {0.9, 0.9, 0.9, 0.9};
  /// Latency of one level of the tree across machines (reduce up and
  /// broadcast down: 2 ceil(log2 N) levels), in us, its pipeline fill
  /// included: what makes trees slow at mid sizes on many machines.
  double treeNetworkLevelUs = 14;
  /// Bandwidth of LL and LL128 as a fraction of Simple's.
  double llBandwidth = 0.15;
  double ll128Bandwidth = 0.6;
  /// Base latency of an operation (launch and synchronization), in us, by
  /// algorithm and protocol (dialect enum order).
  std::array<std::array<double, kNumProtocols>, kNumAlgorithms> baseLatencyUs{};
  /// Latency of one algorithm step over a link class, in us, by protocol.
  std::array<std::array<double, kNumProtocols>, kNumLinkClasses>
      stepLatencyUs{};
  /// NVLS: per-operation latency, and per level of the tree between
  /// machines (its pipeline fill included).
  double nvlsLatencyUs = 25;
  double nvlsNetworkStepUs = 10;
  /// Point-to-point and copies: per-operation latency.
  double p2pLatencyUs = 8;
  double copyLatencyUs = 5;
  /// Per-peer cost of a direct exchange (all_to_all, one-shot), in us.
  double perPeerLatencyUs = 0.3;
  /// Pageable host memory moves at this fraction of pinned bandwidth.
  double pageableEfficiency = 0.5;
  /// Measured collectives among the processes of one machine (the `host`
  /// preset); unset: getDefaultHostProfile(). A parameters file holds one
  /// as `host_profile` (comm-bench-algorithms --profile --write-params).
  std::shared_ptr<const HostProfile> hostProfile;

  /// The NVLS efficiency of an NVSwitch of NVLink generation `generation`
  /// (generations before NVLink4 have no NVLS; they get NVLink4's).
  double getNvlsEfficiency(unsigned generation) const {
    return nvlsEfficiency[generation >= 5 ? 1 : 0];
  }

  /// The fraction of Simple's bandwidth `protocol` sustains.
  double getProtocolBandwidth(Protocol protocol) const {
    switch (protocol) {
    case Protocol::simple:
      return 1.0;
    case Protocol::ll:
      return llBandwidth;
    case Protocol::ll128:
      return ll128Bandwidth;
    }
    return 1.0;
  }
};

/// The fitted defaults.
const CostParams &getDefaultCostParams();
/// The values the fit starts from and is pulled toward (NCCL's tuning
/// constants and round figures).
const CostParams &getPriorCostParams();
/// Reads / writes parameters as YAML (the format `comm-sim calibrate`
/// writes).
llvm::Expected<CostParams> parseCostParams(StringRef yaml, StringRef fileName);
void printCostParams(const CostParams &params, llvm::raw_ostream &os);

/// The largest transfer the model predicts (1 PiB): far past any tensor,
/// far below where byte counts and times lose their precision.
constexpr uint64_t kMaxRequestBytes = uint64_t(1) << 50;

/// What a collective is and how it is planned: a CollectiveRequest apart
/// from the ranks it runs on.
struct CollectiveFields {
  CollectiveKind kind = CollectiveKind::AllReduce;
  /// The size nccl-tests reports: the tensor of all_reduce, broadcast,
  /// reduce, permute and send/recv; the gathered output of all_gather; the
  /// input of reduce_scatter and all_to_all.
  uint64_t bytes = 0;
  unsigned elementBytes = 4;
  /// What the collective reduces with, and whether its elements are
  /// floating point: what NVLink SHARP can reduce depends on both
  /// (nvlsReduces). Unset: a sum.
  std::optional<ReductionKind> reduction;
  bool floatElements = true;
  int64_t root = 0;
  MemorySpace copySource = MemorySpace::hbm, copyTarget = MemorySpace::host;
  int64_t copyRank = 0;
  /// Fixed decisions (from a #comm.plan); unset ones are searched.
  std::optional<Algorithm> algorithm;
  std::optional<Protocol> protocol;
  /// How point-to-point data moves (#comm.plan's route): host_staged data
  /// leaves from and arrives in the host memory of each GPU's CPU
  /// (getTransferEndpoint); the copies to and from it are ops of their own.
  std::optional<Route> route;
  /// The runtime backend the collective runs on. When set, the search
  /// covers what the backend realizes when a plan names the algorithm
  /// (getRealizedAlgorithms), or with `native`, what the backend's own
  /// collective chooses among when no plan names one (getNativeAlgorithms:
  /// NCCL's own choice, to compare with nccl-tests). Unset: every algorithm
  /// comm knows.
  std::optional<Backend> backend;
  bool native = false;
  /// The plan's chunk_bytes: a hierarchical schedule runs its chunks as a
  /// pipeline. 0: one chunk (what a plan that names an algorithm without a
  /// chunk size runs; the bridge passes 0 then); unset: the model picks
  /// the chunk (Prediction::chunkBytes).
  std::optional<uint64_t> chunkBytes;
  /// The plan's channels: the runtime's schedules cut the buffer into this
  /// many slices, each cut into chunks of chunkBytes (0 or 1: one slice).
  unsigned channels = 1;
};

/// One collective to predict.
struct CollectiveRequest : CollectiveFields {
  /// Replica groups in global ranks (GPU ranks of the topology). Groups run
  /// concurrently; the prediction is the slowest group's. Permute, send and
  /// recv use `pairs` instead; copies use `copyRank`.
  std::vector<SmallVector<int64_t, 8>> groups;
  /// The source and target of each transfer of a permute, send or recv.
  SmallVector<std::pair<int64_t, int64_t>> pairs;

  /// This collective with no groups and no pairs, for a caller that sets
  /// the ones it predicts (one group's instance): copying the whole request
  /// for each of 50,000 groups made simulating one op quadratic.
  CollectiveRequest withoutRanks() const {
    CollectiveRequest copy;
    static_cast<CollectiveFields &>(copy) = *this;
    return copy;
  }
};

/// Whether NVLink SHARP (the nvls algorithm) can reduce what `request`
/// reduces, as NCCL decides it (ncclNvlsSupported in src/include/device.h):
/// sum, min and max of 32- and 64-bit integers and of 16-bit floats; only
/// sum of 32- and 64-bit floats; nothing of 8-bit types, and no product,
/// average or bitwise reduction. True for collectives that do not reduce.
bool nvlsReduces(const CollectiveRequest &request);

/// A named part of a predicted time.
struct CostTerm {
  std::string name;
  double us = 0;
  std::string detail;
};

struct Prediction {
  CollectiveKind kind = CollectiveKind::AllReduce;
  /// The schedule predicted; meaningless when `native`.
  Algorithm algorithm = Algorithm::ring;
  /// The backend's own collective (no plan names an algorithm), where the
  /// model predicts it apart from comm's schedules (MPI on a host).
  bool native = false;
  /// The time comes from measurements of this collective (the host
  /// profile), not from the links' figures: a simulator runs it as one
  /// phase of that length.
  bool measured = false;
  Protocol protocol = Protocol::simple;
  uint64_t bytes = 0;
  uint64_t ranks = 0;
  double timeUs = 0;
  double latencyUs = 0;   ///< the size-independent part
  double bandwidthUs = 0; ///< the size-proportional part
  /// The bus bandwidth the algorithm sustains at large sizes.
  double busBandwidthGBps = 0;
  /// What limits the bandwidth part.
  std::string bottleneck;
  /// A pipelined schedule (hierarchical): the chunks it runs, the chunk
  /// size (0 where the request fixed none and one chunk runs), and the
  /// part of bandwidthUs spent filling and draining the pipeline (the
  /// simulator runs the levels' flows at once and adds this).
  unsigned pipelineChunks = 1;
  uint64_t chunkBytes = 0;
  double pipelineFillUs = 0;
  SmallVector<CostTerm, 6> terms;
  /// The physical lower bound and the ratio bound / time.
  double boundUs = 0;
  double efficiency = 0;
  std::string boundDetail;

  double algBandwidthGBps() const {
    return timeUs > 0 ? bytes / (timeUs * 1e3) : 0;
  }
  double busBandwidthAchievedGBps() const {
    return algBandwidthGBps() * getBusBandwidthFactor(kind, ranks);
  }
};

/// "ring/simple", or "native" for the backend's own collective.
std::string describeAlgorithm(const Prediction &prediction);

/// The route NCCL's transports take between two GPUs joined by `path`:
/// NVLink; PCIe peer to peer within its default NCCL_P2P_LEVEL (PXB);
/// beyond it (PHB, SYS, C2C) through host memory; over the network by
/// GPUDirect RDMA where both ends have it, else through host memory.
Route getNcclRoute(const Path &path);

/// The legs the point-to-point data of the pair `source` -> `target` of
/// `request` crosses: GPU to GPU; for a host_staged route, the CPUs whose
/// pinned memory stages it (a memcpy when they are one); and where NCCL
/// stages it itself, also the source GPU to its CPU and the target's CPU
/// to the target GPU (a plan's host_staged route has its copies as ops of
/// their own). The legs run at once, chunk by chunk. On NCCL each pair
/// takes the route NCCL's
/// transports give it (getNcclRoute), whatever the plan's route, which
/// names only the farthest pair's: two GPUs behind one PCIe switch stay
/// peer to peer though another pair of the op is staged.
SmallVector<std::pair<DeviceId, DeviceId>, 3>
getTransferLegs(const Topology &topology, const CollectiveRequest &request,
                int64_t source, int64_t target);

/// The ranks of `group` by the CPU their GPU hangs off, as a hierarchical
/// schedule inside one machine splits them (runtime/lib/Schedule.cpp): the
/// CPUs in the order of their first rank in the group, each with its ranks
/// in group order. Empty when a GPU has no CPU in the topology.
SmallVector<SmallVector<int64_t, 8>, 2>
getRanksBySocket(const Topology &topology, ArrayRef<int64_t> group);
/// The rings across those sockets: ring l holds each socket's l-th rank
/// (a socket with fewer ranks has none in it).
SmallVector<SmallVector<int64_t, 8>, 8>
getRingsAcrossSockets(ArrayRef<SmallVector<int64_t, 8>> sockets);

/// Rate of a copy between two buffers of one CPU's memory (a memcpy),
/// GB/s: copies between host memories and host-staged transfers between
/// ranks that share a CPU.
constexpr double kHostMemcpyGBps = 10.0;

/// Measured times of the runtime's collectives among the processes of one
/// machine (the mpi backend over shared memory): the runtime's schedules and
/// MPI's own collective, at a few sizes, on `ranks` ranks. A topology whose
/// ranks are processes (the `host` preset) is predicted from it: shared
/// memory, caches and a CPU that also reduces make these times what no link
/// figure gives (docs/CostModel.md, "Host").
struct HostProfile {
  /// Where and how it was measured (printed by explanations).
  std::string source;
  unsigned ranks = 4;
  /// The sizes measured, ascending (CollectiveRequest::bytes' convention).
  SmallVector<uint64_t, 4> bytes;
  struct Row {
    CollectiveKind kind;
    std::optional<Algorithm> algorithm; ///< unset: MPI's own collective
    SmallVector<double, 4> us;          ///< one per size
  };
  std::vector<Row> rows;
  /// How far apart two runs of the profile put one call's time, as a
  /// fraction of it (ratios between schedules at one size moved by up to
  /// 10-15% between runs here, the machine being shared): a runtime
  /// schedule replaces MPI's own collective only where it is predicted
  /// faster by more than this, since a smaller predicted gain is as likely
  /// a loss where the program runs.
  static constexpr double kNoise = 0.1;

  const Row *lookup(CollectiveKind kind,
                    std::optional<Algorithm> algorithm) const;
  /// The time of `row` for `bytes` on `ranks` ranks: linear between the
  /// measured sizes, the smallest size's time below them, the last
  /// segment's slope beyond them; other group sizes scale the
  /// size-independent part by the schedule's steps and the rest by the
  /// bytes each rank moves. Returns (latency part, bandwidth part).
  std::pair<double, double> interpolate(const Row &row, uint64_t bytes,
                                        uint64_t ranks) const;
};
/// The profile measured on comm's development machine (bench/algorithms).
const HostProfile &getDefaultHostProfile();
/// The profile `params` plans with: its own, else the default.
const HostProfile &getHostProfile(const CostParams &params);

/// The shape of one group on the topology, which the formulas use.
struct GroupShape {
  uint64_t ranks = 0;
  uint64_t nodes = 0;
  unsigned perNode = 0; ///< largest number of the group's GPUs in a node
  /// Per-GPU bandwidth of a ring through the group's GPUs of one node, with
  /// the links the ring's hops share divided among them (the slowest node).
  double ringGBps = 0;
  double ringRawGBps = 0; ///< the same without link efficiencies
  LinkClass intraClass = LinkClass::NVLink;
  double intraHopLatencyUs = 0;
  std::string ringBottleneck;
  /// Bandwidth a GPU pushes into the machine's interconnect (its NVLink to
  /// the NVSwitch, or its PCIe link).
  double injectGBps = 0;
  double injectRawGBps = 0;
  /// Raw bandwidth of all of a GPU's links together (its NVLink and its
  /// PCIe or C2C link; the group's slowest GPU): across machines the bytes
  /// to and from the NICs leave and enter the GPU over PCIe, beside its
  /// NVLink traffic.
  double gpuLinksRawGBps = 0;
  /// Whether every node's GPUs of the group share a reduction-capable
  /// NVSwitch.
  bool nvls = false;
  /// The lowest NVLink generation of those NVSwitches (what NVLS's
  /// efficiency depends on); 0 without NVLS.
  unsigned nvlsGeneration = 0;
  /// Network bandwidth a node can use for the group (its NICs within
  /// reach of the group's GPUs), capped by fabric oversubscription.
  double nodeNetworkGBps = 0;
  double nodeNetworkRawGBps = 0;
  NetworkKind network = NetworkKind::InfiniBand;
  double networkHopLatencyUs = 0;
  std::string networkBottleneck;
  /// Longest one-way path latency between two ranks of the group.
  double diameterUs = 0;
  /// Rate of one flow when every rank of the group sends to every other at
  /// once (direct algorithms), and when the group's first rank sends to
  /// every other (a direct broadcast): each flow at most its path's
  /// bandwidth, each link's raw bandwidth split among the flows crossing
  /// it, as the simulator shares links. 0 where not computed (groups of
  /// more than 128 ranks): the injection bandwidth is used instead.
  double allPairsFlowGBps = 0;
  double fromRootFlowGBps = 0;
  /// Rate of one flow at each level of recursive halving / doubling, as
  /// the simulator orders them: level k pairs ranks 2^(L-1-k) apart (L
  /// levels) and moves 1/2^(k+1) of the buffer. Empty where not computed.
  SmallVector<double, 8> halvingLevelFlowGBps;
  /// Groups inside one machine whose GPUs hang off different CPUs: for the
  /// group's GPUs of each CPU (a side), the slowest link that every path
  /// from the group's other GPUs into the side crosses (on a PCIe machine
  /// the CPUs' interconnect). Whatever must reach the side crosses it, on
  /// any stream and by any algorithm. Empty where the paths into a side
  /// share no link (NVLink through an NVSwitch) or the group is on one CPU.
  struct SocketCut {
    SmallVector<int64_t, 8> ranks; ///< the side's ranks, in group order
    DeviceId cpu = 0;
    double rawGBps = 0;
    std::string link; ///< the link, described
  };
  SmallVector<SocketCut, 2> socketCuts;
  /// The two levels of a hierarchical schedule for a group inside one
  /// machine whose GPUs hang off several CPUs, equally many on each
  /// (runtime/lib/Schedule.cpp splits such a group by CPU socket): the
  /// rings inside each socket and the rings across the sockets (one per
  /// index within a socket), each set running at once. Unset otherwise.
  struct SocketLevels {
    unsigned sockets = 0, perSocket = 0;
    /// Per-GPU bandwidth of the rings, each set's shared links divided
    /// among its rings, and what limits it.
    double insideGBps = 0, acrossGBps = 0;
    LinkClass insideClass = LinkClass::PCIe, acrossClass = LinkClass::PCIe;
    std::string insideBottleneck, acrossBottleneck;
    /// One ring across the sockets running alone (a broadcast's or a
    /// reduce's tree across them), and what limits it.
    double acrossAloneGBps = 0;
    std::string acrossAloneBottleneck;
  };
  std::optional<SocketLevels> socketLevels;
};

/// One cut of a collective's lower bound: the time the bytes that must
/// cross it take at its raw bandwidth. `resource` names what the cut is,
/// so that the terms of several transfers through one cut add up: "gpu"
/// (a rank's own link), "node" (its machine's NICs), "cpu<id>" (the
/// socket cut into that CPU's GPUs), "path<src>><dst>" (a point-to-point
/// path), "hbm", "to-host" and "from-host" (a rank's copies).
struct BoundTerm {
  std::string resource;
  double us = 0;
  std::string why;
};

class CostModel {
public:
  explicit CostModel(const Topology &topology,
                     const CostParams &params = getDefaultCostParams());

  const Topology &getTopology() const { return topology; }
  const CostParams &getParams() const { return params; }

  /// The best prediction over the algorithms and protocols that apply (or
  /// the fixed ones). Fails with a message for invalid requests: unknown
  /// ranks, empty groups, sizes that do not divide, ranks beyond the
  /// topology.
  llvm::Expected<Prediction> predict(const CollectiveRequest &request) const;
  /// Every applicable (algorithm, protocol), fastest first.
  llvm::Expected<SmallVector<Prediction, 4>>
  predictAll(const CollectiveRequest &request) const;
  /// The algorithms the search covers for `request` (see
  /// CollectiveRequest::backend), from the one algorithm table.
  static ArrayRef<Algorithm>
  getSearchedAlgorithms(const CollectiveRequest &request);

  /// Fraction of a link's bandwidth a transfer sustains at large sizes.
  double getLinkEfficiency(const Link &link) const;
  /// Bandwidth a transfer sustains along `path`: its slowest link at that
  /// link's efficiency (a path between machines at the network's).
  double getPathBandwidth(const Path &path) const;

  /// The physical lower bound of `request` (time in us) and what sets it:
  /// its largest cut term plus the latency of its longest path. `terms`,
  /// when given, receives every cut term (getBoundTerms).
  std::pair<double, std::string>
  getLowerBound(const CollectiveRequest &request, const GroupShape &shape,
                SmallVectorImpl<BoundTerm> *terms = nullptr) const;
  /// Every cut term of that bound (no latency), in no particular order.
  SmallVector<BoundTerm, 4> getBoundTerms(const CollectiveRequest &request,
                                          const GroupShape &shape) const;

  /// The shape of a group (cached).
  GroupShape getGroupShape(ArrayRef<int64_t> ranks) const;

  /// The shapes of groups that run at once (the replica groups of one op):
  /// each group's, with the intra-node links that several groups' rings
  /// cross divided among all of them (a group's own shape assumes it runs
  /// alone).
  SmallVector<GroupShape, 2>
  getConcurrentShapes(ArrayRef<SmallVector<int64_t, 8>> groups) const;

  /// Multi-line explanation of a prediction.
  static void explain(const Prediction &prediction, llvm::raw_ostream &os);

  /// Checks a request without predicting: a message naming the problem.
  llvm::Error validate(const CollectiveRequest &request) const;

private:
  /// GroupShape::socketLevels of a group inside one machine.
  std::optional<GroupShape::SocketLevels>
  getSocketLevels(ArrayRef<int64_t> ranks) const;
  /// Per-GPU bandwidth of a direct exchange among the group, and what
  /// limits it.
  std::pair<double, std::string>
  getDirectBandwidth(const GroupShape &shape, double protocolFactor) const;
  /// The rate of each of `pairs`' flows running at once: at most its
  /// path's bandwidth, each link's raw bandwidth split among the flows
  /// that cross it (0 if a pair is not connected). With `allFlows` (flows
  /// per directed link, `pairs`' own among them), a link is split among
  /// those instead: flows of other groups running at the same time.
  double getFlowRate(
      ArrayRef<std::pair<int64_t, int64_t>> pairs,
      const llvm::DenseMap<uint64_t, unsigned> *allFlows = nullptr) const;
  std::optional<Prediction> predictWith(const CollectiveRequest &request,
                                        const GroupShape &shape,
                                        Algorithm algorithm,
                                        Protocol protocol) const;
  Prediction predictPointToPoint(const CollectiveRequest &request,
                                 Protocol protocol) const;
  Prediction predictCopy(const CollectiveRequest &request) const;
  /// Predictions from the host profile for a collective among processes,
  /// or std::nullopt when the profile does not cover the request's kind.
  std::optional<llvm::Expected<SmallVector<Prediction, 4>>>
  predictOnHost(const CollectiveRequest &request) const;

  const Topology &topology;
  CostParams params;
  mutable std::mutex cacheMutex;
  mutable llvm::StringMap<GroupShape> shapeCache;
  /// getConcurrentShapes by the groups (an op repeated per layer shares).
  mutable llvm::StringMap<SmallVector<GroupShape, 2>> concurrentCache;
};

} // namespace comm
} // namespace mlir

#endif // COMM_COSTMODEL_COSTMODEL_H
