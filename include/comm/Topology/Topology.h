//===- Topology.h - hardware topology model ---------------------*- C++ -*-===//
//
// A topology is the graph of one machine type (GPUs, CPUs/NUMA domains, PCIe
// switches, NVSwitches, NICs and the links between them), optionally
// replicated `numNodes` times and joined by a network fabric. Paths between
// devices of one machine are precomputed once for the machine type; paths
// between machines are composed structurally (local path to a NIC, fabric
// route, local path from the remote NIC), so a cluster of thousands of
// machines is answered without materializing all pairs.
//
// Bandwidths are usable bandwidths per direction in GB/s (1e9 bytes/s), the
// figures NCCL plans with (see docs/Topology.md for every constant and its
// source); latencies are in microseconds.
//
//===----------------------------------------------------------------------===//

#ifndef COMM_TOPOLOGY_TOPOLOGY_H
#define COMM_TOPOLOGY_TOPOLOGY_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
namespace comm {

//===----------------------------------------------------------------------===//
// Kinds
//===----------------------------------------------------------------------===//

enum class DeviceKind : uint8_t {
  GPU,
  CPU,
  PCIeSwitch,
  NVSwitch,
  NIC,
  NetSwitch,
  /// A rank that is a process on the CPU (the `host` preset: MPI ranks of
  /// one machine over shared memory). A machine's ranks are its GPUs, or
  /// its processes when it has no GPU.
  Process
};
/// SharedMemory joins a process to the CPU whose memory it shares with the
/// other processes of the machine.
enum class LinkKind : uint8_t {
  NVLink,
  PCIe,
  CPUInterconnect,
  C2C,
  Network,
  SharedMemory
};
enum class NetworkKind : uint8_t { InfiniBand, RoCE, EFA, Ethernet };
enum class FabricKind : uint8_t { None, RailOptimized, FatTree };

/// How two devices talk, from closest to farthest (NCCL's path types, with
/// NVLink split by whether a switch or a bridge GPU sits in between).
enum class PathKind : uint8_t {
  Local,        ///< the same device
  NVLink,       ///< a direct NVLink connection
  NVSwitch,     ///< NVLink through an NVSwitch
  NVLinkBridge, ///< NVLink through an intermediate GPU
  C2C,          ///< chip-to-chip link between a GPU and its CPU
  PIX,          ///< through at most one PCIe switch
  PXB,          ///< through several PCIe switches, not the host bridge
  PHB,          ///< through the CPU's PCIe host bridge
  SHM,          ///< between processes through shared host memory
  SYS,          ///< across the inter-socket interconnect
  Net,          ///< across the network
  Disconnected, ///< no path
};

StringRef stringifyDeviceKind(DeviceKind kind);
std::optional<DeviceKind> symbolizeDeviceKind(StringRef name);
StringRef stringifyLinkKind(LinkKind kind);
std::optional<LinkKind> symbolizeLinkKind(StringRef name);
StringRef stringifyNetworkKind(NetworkKind kind);
std::optional<NetworkKind> symbolizeNetworkKind(StringRef name);
StringRef stringifyFabricKind(FabricKind kind);
std::optional<FabricKind> symbolizeFabricKind(StringRef name);
/// Short name of a path kind: LOC, NVL, NVS, NVB, C2C, PIX, PXB, PHB, SHM,
/// SYS, NET, DIS.
StringRef stringifyPathKind(PathKind kind);
/// One-line explanation of a path kind.
StringRef describePathKind(PathKind kind);

//===----------------------------------------------------------------------===//
// Bandwidth figures
//===----------------------------------------------------------------------===//

/// Usable bandwidth of one NVLink lane per direction for a GPU of compute
/// capability `cc` (NCCL's figures).
double getNVLinkLaneBandwidth(int computeCapability);
/// NVLink generation used by GPUs of compute capability `cc`.
unsigned getNVLinkGeneration(int computeCapability);
/// Usable bandwidth of one NVLink lane of generation `generation`.
double getNVLinkLaneBandwidthForGeneration(unsigned generation);
/// Usable PCIe bandwidth of `width` lanes of generation `generation`.
double getPCIeBandwidth(unsigned generation, unsigned width);
/// Bandwidth of the inter-socket link between two CPUs of this type.
double getCPUInterconnectBandwidth(StringRef vendor, StringRef arch,
                                   int familyId, int modelId);

/// Per-hop latencies comm assumes where a source gives none (estimates; the
/// cost model calibrates its own per-step latencies on measurements).
constexpr double kNVLinkHopLatencyUs = 0.15;
constexpr double kPCIeHopLatencyUs = 0.25;
constexpr double kCPUInterconnectLatencyUs = 0.3;
constexpr double kC2CLatencyUs = 0.1;
constexpr double kSharedMemoryLatencyUs = 1.0;
/// Plausibility limits: a topology beyond them describes no machine (a typo
/// or a corrupted file) and is rejected with the figure and the limit.
constexpr double kMaxLinkBandwidthGBps = 10000;
/// 10 MB/s: slower than a PCIe 1.0 lane (0.25 GB/s) or 100 Mbit Ethernet.
constexpr double kMinLinkBandwidthGBps = 0.01;
constexpr double kMaxLinkLatencyUs = 1000;
constexpr unsigned kMaxNVLinkLanes = 64;
constexpr double kMaxNICGbit = 10000;
/// 0.1 Gbit/s: Fast Ethernet, slower than any NIC a cluster uses.
constexpr double kMinNICGbit = 0.1;
constexpr double kMaxNICLatencyUs = 1000;
/// HBM faster than this is no GPU's (B200: 8000 GB/s).
constexpr double kMaxMemoryGBps = 100000;
/// No GPU has more HBM than this, in GB (B200: 192).
constexpr double kMaxMemoryGB = 100000;
/// Default latency of a link of `kind`.
double getDefaultLinkLatency(LinkKind kind);

/// The most devices one machine may have.
constexpr unsigned kMaxDevicesPerMachine = 4096;

/// The values an integer of a topology file may take. The readers reject a
/// value outside with the range and why, rather than let the narrower field
/// that holds it wrap (an index of 4000000000 became a negative GPU number,
/// sm 4294967387 became sm91).
struct TopologyIntRange {
  int64_t min, max;
  const char *why; ///< what sets the range, as the message gives it
  bool contains(int64_t value) const { return value >= min && value <= max; }
};
/// A device's ordinal among its kind (GPU and NIC dev, CPU index).
inline constexpr TopologyIntRange kDeviceIndexRange{
    0, kMaxDevicesPerMachine - 1, "a machine has at most 4096 devices"};
inline constexpr TopologyIntRange kNumaRange{
    0, 1023, "Linux numbers at most 1024 NUMA nodes"};
inline constexpr TopologyIntRange kComputeCapabilityRange{
    10, 200, "compute capability 1.0 to 20.0"};
/// What NCCL's XML writes: cpuid's family + (extended family << 4), model
/// + (extended model << 4).
inline constexpr TopologyIntRange kCpuFamilyRange{
    0, 4095, "cpuid's family plus extended family, as NCCL adds them"};
inline constexpr TopologyIntRange kCpuModelRange{
    0, 255, "cpuid's model plus extended model"};
inline constexpr TopologyIntRange kNVSwitchChipsRange{
    0, kMaxDevicesPerMachine, "a machine has at most 4096 devices"};
/// A link's bonded lanes (NVLink) or links (C2C).
inline constexpr TopologyIntRange kLaneCountRange{
    1, kMaxNVLinkLanes, "a GPU has at most 64 NVLink lanes"};
inline constexpr TopologyIntRange kLinkGenerationRange{
    1, 6, "PCIe and NVLink generations"};
/// A switch's generation, 0 where unknown.
inline constexpr TopologyIntRange kDeviceGenerationRange{
    0, 6, "PCIe and NVLink generations 1 to 6; 0: unknown"};
inline constexpr TopologyIntRange kPCIeWidthRange{1, 32, "PCIe lanes"};
inline constexpr TopologyIntRange kNodesRange{1, 1 << 20,
                                              "machines of a cluster"};

/// "<subject> must be between <min> and <max> (<why>), got <value>".
std::string formatTopologyRangeError(const Twine &subject, int64_t value,
                                     const TopologyIntRange &range);

//===----------------------------------------------------------------------===//
// Devices and links
//===----------------------------------------------------------------------===//

struct Device {
  DeviceKind kind = DeviceKind::GPU;
  /// Unique within its machine: gpu0, cpu1, pcie3, nvswitch, nic2.
  std::string name;
  /// Ordinal among the devices of its kind (GPU dev number, NIC dev number,
  /// CPU NUMA id); -1 when not applicable.
  int index = -1;
  /// NUMA domain (CPU index) the device hangs off; -1 when unknown.
  int numa = -1;
  /// Product name when known ("H100-SXM5-80GB", "ConnectX-7").
  std::string model;
  /// PCI bus id when known.
  std::string busId;
  /// CPU: its cores as a list ("0-55,112-167"), from NCCL's affinity mask;
  /// empty when unknown.
  std::string cpuAffinity;

  // GPU.
  int computeCapability = 0;
  double memoryGB = 0;   ///< HBM capacity in GB, as datasheets give it
  double memoryGBps = 0; ///< HBM bandwidth (not an interconnect figure)
  /// Whether the figures above come from a datasheet of the exact model
  /// (false: estimated from the compute capability).
  bool memoryKnown = false;

  // GPU and NIC.
  bool gpuDirect = false; ///< GPUDirect RDMA capable
  /// False for a device only known from a PCI skeleton (class code, no
  /// <gpu>/<nic> element): its architecture and NVLinks are unknown.
  bool described = true;

  // NIC.
  double speedGbit = 0;
  NetworkKind network = NetworkKind::InfiniBand;
  double latencyUs = 0; ///< NIC latency as NCCL's XML reports it

  // CPU.
  std::string vendor; ///< "GenuineIntel", "AuthenticAMD", ...
  std::string arch;   ///< "x86_64", "arm64", "ppc64"
  int familyId = 0, modelId = 0;

  // NVSwitch.
  int chips = 0;                 ///< NVSwitch chips merged into this node
  unsigned generation = 0;       ///< NVLink generation of an NVSwitch
  bool reductionCapable = false; ///< NVLink SHARP (NVLS) in the switch

  // PCIe switch: `generation` holds the PCIe generation when known.

  /// Where the device was defined in its source file (0 if unknown).
  unsigned sourceLine = 0;
};

/// What comm assumes of a GPU it knows only by its compute capability (0:
/// not known): its generation's usual memory and HBM bandwidth and its dense
/// bf16 tensor-core peak (datasheet figures, docs/Topology.md).
struct GpuEstimate {
  double memoryGB, memoryGBps, peakFlops;
};
GpuEstimate estimateGpu(int computeCapability);

/// The rates local work of a rank (a GPU, or a process on a machine without
/// GPUs) is timed with: its HBM bandwidth in GB/s and its peak in FLOP/s. A
/// GPU's come from its source or from `estimateGpu`; a process has neither
/// and takes those of an unknown GPU.
double getMemoryGBps(const Device &rank);
double getPeakFlops(const Device &rank);

struct Link {
  /// Endpoints: device indices within the machine for machine links.
  unsigned a = 0, b = 0;
  LinkKind kind = LinkKind::PCIe;
  double bandwidthGBps = 0; ///< usable, per direction
  double latencyUs = 0;
  unsigned count = 1;      ///< bonded NVLink lanes
  unsigned generation = 0; ///< NVLink or PCIe generation
  unsigned width = 0;      ///< PCIe lanes
  /// A PCIe link between two switches beside the PCIe tree (NCCL's
  /// <pcilink>: the peer ports of Broadcom switches), not a way up to a CPU.
  bool peer = false;
  unsigned sourceLine = 0;
};

/// One machine: its devices and the links between them.
class NodeGraph {
public:
  unsigned addDevice(Device device);
  unsigned addLink(Link link);
  ArrayRef<Device> getDevices() const { return devices; }
  ArrayRef<Link> getLinks() const { return links; }
  Device &getDevice(unsigned index) { return devices[index]; }
  const Device &getDevice(unsigned index) const { return devices[index]; }
  Link &getLink(unsigned index) { return links[index]; }
  const Link &getLink(unsigned index) const { return links[index]; }
  unsigned getNumDevices() const { return devices.size(); }
  unsigned getNumLinks() const { return links.size(); }
  std::optional<unsigned> lookup(StringRef name) const;
  /// (link index, neighbour index) pairs of `device`.
  ArrayRef<std::pair<unsigned, unsigned>> getNeighbors(unsigned device) const {
    return adjacency[device];
  }
  /// Indices of the devices of `kind`, in index order.
  SmallVector<unsigned> getDevicesOfKind(DeviceKind kind) const;
  unsigned countDevices(DeviceKind kind) const;

private:
  std::vector<Device> devices;
  std::vector<Link> links;
  std::vector<SmallVector<std::pair<unsigned, unsigned>, 4>> adjacency;
  llvm::StringMap<unsigned> byName;
};

/// The network joining the machines of a cluster.
struct Fabric {
  FabricKind kind = FabricKind::None;
  NetworkKind network = NetworkKind::InfiniBand;
  /// Port speed of the fabric's links; 0 means "as fast as the NICs".
  double linkGbit = 0;
  /// Machines under one leaf switch (one scalable unit per rail for a
  /// rail-optimized fabric); 0 chooses the default for the kind.
  unsigned nodesPerLeaf = 0;
  /// Downlink to uplink bandwidth ratio of a leaf (1: non-blocking).
  double oversubscription = 1.0;
  double switchLatencyUs = 0.2; ///< per switch traversed
  double linkLatencyUs = 0.5;   ///< NIC to leaf, including the NIC
};

//===----------------------------------------------------------------------===//
// Paths
//===----------------------------------------------------------------------===//

using DeviceId = uint64_t;
using LinkId = uint64_t;

/// One link of a path, traversed from `a` to `b` or, when `reverse`, from
/// `b` to `a`. Links are full duplex: the two directions are shared
/// separately.
struct PathHop {
  LinkId link;
  bool reverse;
  bool operator==(const PathHop &other) const {
    return link == other.link && reverse == other.reverse;
  }
};

struct Path {
  DeviceId src = 0, dst = 0;
  PathKind kind = PathKind::Disconnected;
  double bandwidthGBps = 0; ///< bottleneck bandwidth
  double latencyUs = 0;     ///< sum of link and switch latencies
  /// The link that sets the bandwidth (the first such); meaningless for
  /// Local and Disconnected paths.
  LinkId bottleneck = 0;
  /// Fewest bonded lanes on the NVLink hops (0 when the path has none).
  unsigned nvlinks = 0;
  /// Network paths: GPUDirect RDMA is possible at both ends.
  bool gpuDirect = false;
  /// Network switches traversed.
  unsigned switches = 0;
  SmallVector<PathHop, 8> hops;

  bool isConnected() const { return kind != PathKind::Disconnected; }
};

/// A directed link: (link, reverse).
using DirectedLink = std::pair<LinkId, bool>;

//===----------------------------------------------------------------------===//
// Topology
//===----------------------------------------------------------------------===//

/// One graph of an NCCL graph file (NCCL_GRAPH_FILE): a channel search
/// result, not hardware.
struct NcclGraph {
  int id = 0;
  int pattern = 0; ///< NCCL_TOPO_PATTERN_*: 1 balanced tree, 2 split tree,
                   ///< 3 tree, 4 ring, 5 NVLS, 6 CollNet direct
  int numChannels = 0;
  double speedIntra = 0, speedInter = 0; ///< GB/s per channel
  std::string typeIntra, typeInter;
  bool crossNic = false;
  /// Per channel: the devices in order ("gpu0", "net1").
  std::vector<SmallVector<std::string, 8>> channels;
  unsigned sourceLine = 0;
};

/// A view of one link of the topology, with global endpoints.
struct LinkRef {
  DeviceId a, b;
  const Link *props;
};

class Topology {
public:
  Topology() = default;
  Topology(const Topology &) = delete;
  Topology &operator=(const Topology &) = delete;

  // Construction ---------------------------------------------------------

  void setName(StringRef value) { name = value.str(); }
  StringRef getName() const { return name; }
  /// Where the topology came from (a file path or "preset dgx-h100").
  void setSource(StringRef value) { source = value.str(); }
  StringRef getSource() const { return source; }
  NodeGraph &getNode() { return node; }
  const NodeGraph &getNode() const { return node; }
  void setNumNodes(uint64_t count) { numNodes = count; }
  uint64_t getNumNodes() const { return numNodes; }
  void setFabric(const Fabric &value) { fabric = value; }
  const Fabric &getFabric() const { return fabric; }
  /// Records what the source did or did not describe.
  void addNote(const Twine &note) { notes.push_back(note.str()); }
  ArrayRef<std::string> getNotes() const { return notes; }
  /// NCCL graphs, when the source was an NCCL graph file. Such a topology
  /// describes no hardware.
  std::vector<NcclGraph> &getNcclGraphs() { return ncclGraphs; }
  ArrayRef<NcclGraph> getNcclGraphs() const { return ncclGraphs; }

  /// Checks the graph and precomputes the machine's paths. Must be called
  /// once after construction and before any query. Errors name the problem
  /// and, when known, the line of the source that defines the device.
  llvm::Error finalize();
  bool isFinalized() const { return finalized; }

  // Global devices and links ---------------------------------------------

  uint64_t getNumDevices() const;
  uint64_t getNumLinks() const;
  DeviceId getDeviceId(uint64_t nodeIndex, unsigned local) const {
    return nodeIndex * node.getNumDevices() + local;
  }
  bool isFabricDevice(DeviceId id) const {
    return id >= numNodes * node.getNumDevices();
  }
  /// Machine holding `id` (fabric devices: numNodes).
  uint64_t getNodeIndex(DeviceId id) const;
  /// Index of `id` in the machine type (fabric devices: its fabric index).
  unsigned getLocalIndex(DeviceId id) const;
  const Device &getDevice(DeviceId id) const;
  /// "gpu3" on a single machine, "n12.gpu3" in a cluster, "leaf.r2.g0" or
  /// "core" for fabric switches.
  std::string getDeviceName(DeviceId id) const;
  /// Inverse of getDeviceName; also accepts "n12/gpu3" and plain local
  /// names (machine 0).
  std::optional<DeviceId> lookupDevice(StringRef name) const;
  LinkRef getLink(LinkId id) const;

  /// Ranks in order: machine after machine, by index; a machine's ranks
  /// are its GPUs, or its processes (DeviceKind::Process) when it has no
  /// GPU. The names below say GPU for both.
  uint64_t getNumGPUs() const { return numNodes * gpusPerNode.size(); }
  unsigned getGPUsPerNode() const { return gpusPerNode.size(); }
  DeviceId getGPU(uint64_t rank) const;
  /// Whether the ranks are processes on CPUs (a host machine).
  bool hasProcessRanks() const { return processRanks; }
  /// Rank of a GPU device, or std::nullopt for other devices.
  std::optional<uint64_t> getGPURank(DeviceId id) const;
  unsigned getNICsPerNode() const { return nicsPerNode.size(); }
  /// Index among the NICs of its machine of the NIC `local`, or -1.
  int getRail(unsigned local) const;

  // Paths ----------------------------------------------------------------

  /// The best path from `src` to `dst`: widest bottleneck, then fewest
  /// hops, then lowest latency.
  Path getPath(DeviceId src, DeviceId dst) const;
  /// A path between devices of different machines that leaves through NIC
  /// `srcRail` of the source's machine and enters through NIC `dstRail` of
  /// the destination's (NCCL spreads channels over NICs this way). Devices
  /// of one machine get their ordinary path.
  Path getPathThrough(DeviceId src, DeviceId dst, unsigned srcRail,
                      unsigned dstRail) const;
  /// Path between the GPUs of two ranks.
  Path getGPUPath(uint64_t srcRank, uint64_t dstRank) const {
    return getPath(getGPU(srcRank), getGPU(dstRank));
  }
  /// The NIC (local index) a device of the machine type uses to reach the
  /// network, or std::nullopt when none is reachable.
  std::optional<unsigned> getNearestNIC(unsigned local) const;
  /// Whether the NIC a device uses can read and write its memory directly
  /// (GPUDirect RDMA): the device is a GPU, both it and the NIC say they
  /// can, and at most PCIe switches lie between them (NCCL's default
  /// NCCL_NET_GDR_LEVEL, PXB).
  bool hasGPUDirect(DeviceId id) const;
  /// The CPU whose memory a device's host staging goes through: the one it
  /// reaches with the widest path, then the fewest hops (std::nullopt when
  /// the machine has no CPU).
  std::optional<DeviceId> getHostCPU(DeviceId id) const;

  /// For each directed link used by more than one of `paths`, how many use
  /// it, sorted by link.
  static SmallVector<std::pair<DirectedLink, unsigned>>
  getSharedLinks(ArrayRef<Path> paths);

  /// Whether two topologies describe the same hardware (same devices with
  /// the same attributes, same links, same replication and fabric); used to
  /// check that export then import round-trips. On a difference, `why`
  /// says what differs.
  bool isEquivalentTo(const Topology &other, std::string *why = nullptr) const;

private:
  struct LocalPath {
    PathKind kind = PathKind::Disconnected;
    double bandwidthGBps = 0;
    double latencyUs = 0;
    unsigned bottleneck = 0;
    unsigned nvlinks = 0;
    SmallVector<std::pair<unsigned, bool>, 6> hops; ///< (local link, reverse)
  };
  void computeLocalPaths(unsigned src);
  PathKind classify(unsigned src,
                    ArrayRef<std::pair<unsigned, bool>> hops) const;
  const LocalPath &getLocalPath(unsigned src, unsigned dst) const {
    return localPaths[src * node.getNumDevices() + dst];
  }
  void buildFabric();
  /// Leaf switch (fabric index) serving NIC `rail` of machine `nodeIndex`.
  uint64_t getLeafOf(uint64_t nodeIndex, unsigned rail) const;
  LinkId getNICUplink(uint64_t nodeIndex, unsigned rail) const;
  LinkId getLeafUplink(uint64_t leaf) const;
  void appendLocal(Path &path, uint64_t nodeIndex,
                   const LocalPath &local) const;
  void appendFabric(Path &path, uint64_t nodeA, unsigned railA, uint64_t nodeB,
                    unsigned railB) const;

  std::string name, source;
  NodeGraph node;
  uint64_t numNodes = 1;
  Fabric fabric;
  std::vector<std::string> notes;
  std::vector<NcclGraph> ncclGraphs;
  bool finalized = false;

  // Derived by finalize().
  std::vector<LocalPath> localPaths;
  SmallVector<unsigned> gpusPerNode; ///< local indices of the ranks' devices
  bool processRanks = false;
  SmallVector<unsigned> nicsPerNode; ///< local indices of the NICs
  SmallVector<int> railOfLocal;      ///< NIC rail of each local device
  SmallVector<int> nearestNIC;       ///< rail each local device uses
  llvm::DenseMap<unsigned, unsigned> gpuRankOfLocal;
  // Fabric: leaves then (when needed) the core; and their link templates.
  std::vector<Device> fabricDevices;
  uint64_t numLeaves = 0, numGroups = 0;
  bool hasCore = false;
  unsigned effectiveNodesPerLeaf = 0;
  Link nicUplinkProps, leafUplinkProps;
};

//===----------------------------------------------------------------------===//
// Sources
//===----------------------------------------------------------------------===//

/// A number as messages print it: 80, 370.8, 0.1875.
std::string formatTopologyNumber(double value);

/// An error about a topology source: "file:line: error: problem" (the line
/// is left out when 0).
llvm::Error makeTopologyError(StringRef file, unsigned line,
                              const Twine &problem);

/// Names of the built-in presets (clusters are `<preset>x<N>`).
ArrayRef<StringRef> getTopologyPresetNames();
/// One line describing a preset.
StringRef describeTopologyPreset(StringRef name);
/// Builds a preset, or a cluster `<preset>x<N>` of it joined by a
/// rail-optimized fabric. The result is finalized.
llvm::Expected<std::unique_ptr<Topology>> buildTopologyPreset(StringRef name);

/// Imports NCCL's topology XML (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE) or an
/// NCCL graph file (NCCL_GRAPH_FILE, which describes no hardware). Errors
/// are `file:line: ...`. The result is finalized.
llvm::Expected<std::unique_ptr<Topology>>
importNcclTopologyXml(StringRef buffer, StringRef fileName);

/// Imports comm's YAML topology format (docs/Topology.md). The result is
/// finalized.
llvm::Expected<std::unique_ptr<Topology>>
importTopologyYaml(StringRef buffer, StringRef fileName);

/// Writes `topology` in comm's YAML format; importing the output gives an
/// equivalent topology.
void exportTopologyYaml(const Topology &topology, llvm::raw_ostream &os);

/// Loads a topology named by `spec`: a preset name, a cluster
/// `<preset>x<N>`, or a path to a .xml (NCCL) or .yaml/.yml (comm) file.
llvm::Expected<std::unique_ptr<Topology>> loadTopology(StringRef spec);

} // namespace comm
} // namespace mlir

#endif // COMM_TOPOLOGY_TOPOLOGY_H
