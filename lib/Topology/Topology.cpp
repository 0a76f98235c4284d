//===- Topology.cpp - hardware topology model ------------------*- C++ -*-===//

#include "comm/Topology/Topology.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>
#include <limits>
#include <queue>

using namespace mlir;
using namespace mlir::comm;

//===----------------------------------------------------------------------===//
// Kinds
//===----------------------------------------------------------------------===//

StringRef mlir::comm::stringifyDeviceKind(DeviceKind kind) {
  switch (kind) {
  case DeviceKind::GPU:
    return "gpu";
  case DeviceKind::CPU:
    return "cpu";
  case DeviceKind::PCIeSwitch:
    return "pcie_switch";
  case DeviceKind::NVSwitch:
    return "nvswitch";
  case DeviceKind::NIC:
    return "nic";
  case DeviceKind::NetSwitch:
    return "net_switch";
  case DeviceKind::Process:
    return "process";
  }
  llvm_unreachable("unknown device kind");
}

std::optional<DeviceKind> mlir::comm::symbolizeDeviceKind(StringRef name) {
  return llvm::StringSwitch<std::optional<DeviceKind>>(name)
      .Case("gpu", DeviceKind::GPU)
      .Case("cpu", DeviceKind::CPU)
      .Case("pcie_switch", DeviceKind::PCIeSwitch)
      .Case("nvswitch", DeviceKind::NVSwitch)
      .Case("nic", DeviceKind::NIC)
      .Case("net_switch", DeviceKind::NetSwitch)
      .Case("process", DeviceKind::Process)
      .Default(std::nullopt);
}

StringRef mlir::comm::stringifyLinkKind(LinkKind kind) {
  switch (kind) {
  case LinkKind::NVLink:
    return "nvlink";
  case LinkKind::PCIe:
    return "pcie";
  case LinkKind::CPUInterconnect:
    return "cpu_interconnect";
  case LinkKind::C2C:
    return "c2c";
  case LinkKind::Network:
    return "network";
  case LinkKind::SharedMemory:
    return "shm";
  }
  llvm_unreachable("unknown link kind");
}

std::optional<LinkKind> mlir::comm::symbolizeLinkKind(StringRef name) {
  return llvm::StringSwitch<std::optional<LinkKind>>(name)
      .Case("nvlink", LinkKind::NVLink)
      .Case("pcie", LinkKind::PCIe)
      .Case("cpu_interconnect", LinkKind::CPUInterconnect)
      .Case("c2c", LinkKind::C2C)
      .Case("network", LinkKind::Network)
      .Case("shm", LinkKind::SharedMemory)
      .Default(std::nullopt);
}

StringRef mlir::comm::stringifyNetworkKind(NetworkKind kind) {
  switch (kind) {
  case NetworkKind::InfiniBand:
    return "infiniband";
  case NetworkKind::RoCE:
    return "roce";
  case NetworkKind::EFA:
    return "efa";
  case NetworkKind::Ethernet:
    return "ethernet";
  }
  llvm_unreachable("unknown network kind");
}

std::optional<NetworkKind> mlir::comm::symbolizeNetworkKind(StringRef name) {
  return llvm::StringSwitch<std::optional<NetworkKind>>(name)
      .Case("infiniband", NetworkKind::InfiniBand)
      .Case("roce", NetworkKind::RoCE)
      .Case("efa", NetworkKind::EFA)
      .Case("ethernet", NetworkKind::Ethernet)
      .Default(std::nullopt);
}

StringRef mlir::comm::stringifyFabricKind(FabricKind kind) {
  switch (kind) {
  case FabricKind::None:
    return "none";
  case FabricKind::RailOptimized:
    return "rail_optimized";
  case FabricKind::FatTree:
    return "fat_tree";
  }
  llvm_unreachable("unknown fabric kind");
}

std::optional<FabricKind> mlir::comm::symbolizeFabricKind(StringRef name) {
  return llvm::StringSwitch<std::optional<FabricKind>>(name)
      .Case("none", FabricKind::None)
      .Case("rail_optimized", FabricKind::RailOptimized)
      .Case("fat_tree", FabricKind::FatTree)
      .Default(std::nullopt);
}

StringRef mlir::comm::stringifyPathKind(PathKind kind) {
  switch (kind) {
  case PathKind::Local:
    return "LOC";
  case PathKind::NVLink:
    return "NVL";
  case PathKind::NVSwitch:
    return "NVS";
  case PathKind::NVLinkBridge:
    return "NVB";
  case PathKind::C2C:
    return "C2C";
  case PathKind::PIX:
    return "PIX";
  case PathKind::PXB:
    return "PXB";
  case PathKind::PHB:
    return "PHB";
  case PathKind::SHM:
    return "SHM";
  case PathKind::SYS:
    return "SYS";
  case PathKind::Net:
    return "NET";
  case PathKind::Disconnected:
    return "DIS";
  }
  llvm_unreachable("unknown path kind");
}

StringRef mlir::comm::describePathKind(PathKind kind) {
  switch (kind) {
  case PathKind::Local:
    return "the same device";
  case PathKind::NVLink:
    return "direct NVLink";
  case PathKind::NVSwitch:
    return "NVLink through an NVSwitch";
  case PathKind::NVLinkBridge:
    return "NVLink through an intermediate GPU";
  case PathKind::C2C:
    return "chip-to-chip link to the CPU";
  case PathKind::PIX:
    return "PCIe through at most one PCIe switch";
  case PathKind::PXB:
    return "PCIe through several PCIe switches";
  case PathKind::PHB:
    return "PCIe through the CPU host bridge";
  case PathKind::SHM:
    return "between processes through shared host memory";
  case PathKind::SYS:
    return "PCIe across the inter-socket interconnect";
  case PathKind::Net:
    return "across the network";
  case PathKind::Disconnected:
    return "no path";
  }
  llvm_unreachable("unknown path kind");
}

//===----------------------------------------------------------------------===//
// Bandwidth figures (NCCL src/graph/topo.h and topo.cc; docs/Topology.md)
//===----------------------------------------------------------------------===//

double mlir::comm::getNVLinkLaneBandwidth(int cc) {
  if (cc >= 100)
    return 40.1;
  if (cc >= 90)
    return 20.6;
  if (cc == 86)
    return 12.0;
  if (cc >= 70)
    return 20.0;
  if (cc >= 60)
    return 18.0;
  return 20.0;
}

unsigned mlir::comm::getNVLinkGeneration(int cc) {
  if (cc >= 100)
    return 5;
  if (cc >= 90)
    return 4;
  if (cc >= 80)
    return 3;
  if (cc >= 70)
    return 2;
  return 1;
}

double mlir::comm::getNVLinkLaneBandwidthForGeneration(unsigned generation) {
  switch (generation) {
  case 1:
    return 18.0;
  case 2:
  case 3:
    return 20.0;
  case 4:
    return 20.6;
  default:
    return 40.1;
  }
}

double mlir::comm::getPCIeBandwidth(unsigned generation, unsigned width) {
  // Per lane in units of 100 Mbit/s after encoding, as NCCL's table.
  static const double perLane[] = {0, 15, 30, 60, 120, 240, 480};
  double lane = generation >= 1 && generation <= 6 ? perLane[generation] : 60;
  return width * lane / 80.0;
}

double mlir::comm::getCPUInterconnectBandwidth(StringRef vendor, StringRef arch,
                                               int familyId, int modelId) {
  if (arch.starts_with("ppc"))
    return 32.0;
  if (arch == "arm64" || arch == "aarch64")
    return 6.0;
  if (vendor == "AuthenticAMD") {
    // Older NCCL versions wrote cpuid's base family plus the extended family
    // shifted by 4 (Zen 3 as 175 = 15 + (10 << 4), NVIDIA/nccl#2441); later
    // versions the sum, as the CPU manuals define the family (25). Both are
    // in files in use (shared/topologies: ncv4 has 175, ndv4 23).
    if (familyId > 15 && (familyId & 0xf) == 0xf)
      familyId = 15 + (familyId >> 4);
    if (familyId == 26)
      return 32.0; // Zen 5
    if (familyId == 25)
      return 24.0; // Zen 3 / Zen 4
    return 16.0;   // Zen 1 / Zen 2 and unknown
  }
  if (vendor == "GenuineIntel") {
    if (modelId == 207)
      return 40.0; // Emerald Rapids
    if (modelId == 143)
      return 22.0; // Sapphire Rapids
    if (modelId >= 85)
      return 10.0; // Skylake and later
    return 6.0;    // Broadwell and earlier
  }
  return 6.0;
}

double mlir::comm::getDefaultLinkLatency(LinkKind kind) {
  switch (kind) {
  case LinkKind::NVLink:
    return kNVLinkHopLatencyUs;
  case LinkKind::PCIe:
    return kPCIeHopLatencyUs;
  case LinkKind::CPUInterconnect:
    return kCPUInterconnectLatencyUs;
  case LinkKind::C2C:
    return kC2CLatencyUs;
  case LinkKind::Network:
    return 0.5;
  case LinkKind::SharedMemory:
    return kSharedMemoryLatencyUs;
  }
  return 0;
}

//===----------------------------------------------------------------------===//
// NodeGraph
//===----------------------------------------------------------------------===//

unsigned NodeGraph::addDevice(Device device) {
  unsigned index = devices.size();
  byName.try_emplace(device.name, index);
  devices.push_back(std::move(device));
  adjacency.emplace_back();
  return index;
}

unsigned NodeGraph::addLink(Link link) {
  unsigned index = links.size();
  if (link.a < adjacency.size() && link.b < adjacency.size()) {
    adjacency[link.a].push_back({index, link.b});
    adjacency[link.b].push_back({index, link.a});
  }
  links.push_back(link);
  return index;
}

std::optional<unsigned> NodeGraph::lookup(StringRef name) const {
  auto it = byName.find(name);
  if (it == byName.end())
    return std::nullopt;
  return it->second;
}

SmallVector<unsigned> NodeGraph::getDevicesOfKind(DeviceKind kind) const {
  SmallVector<unsigned> result;
  for (auto [index, device] : llvm::enumerate(devices))
    if (device.kind == kind)
      result.push_back(index);
  llvm::stable_sort(result, [&](unsigned x, unsigned y) {
    return devices[x].index < devices[y].index;
  });
  return result;
}

unsigned NodeGraph::countDevices(DeviceKind kind) const {
  return llvm::count_if(devices,
                        [&](const Device &d) { return d.kind == kind; });
}

//===----------------------------------------------------------------------===//
// Local paths
//===----------------------------------------------------------------------===//

/// Arrival states of the search: how a device was entered.
static constexpr unsigned kNumArrivals = 7;
static constexpr unsigned kArrivedAtStart = 6;

static unsigned arrivalOf(LinkKind kind) { return static_cast<unsigned>(kind); }

/// Whether traffic that entered `device` over a link of kind `arrival` may
/// leave over a link of kind `next`: GPUs forward only NVLink to NVLink
/// (NVB), NICs only between PCIe and the network, switches only their own
/// kind of link.
static bool canForward(const Device &device, unsigned arrival, LinkKind next) {
  if (arrival == kArrivedAtStart)
    return true;
  auto in = static_cast<LinkKind>(arrival);
  switch (device.kind) {
  case DeviceKind::GPU:
  case DeviceKind::NVSwitch:
    return in == LinkKind::NVLink && next == LinkKind::NVLink;
  case DeviceKind::PCIeSwitch:
    return in == LinkKind::PCIe && next == LinkKind::PCIe;
  case DeviceKind::CPU:
    return in != LinkKind::Network && next != LinkKind::Network;
  case DeviceKind::NIC:
    return (in == LinkKind::PCIe && next == LinkKind::Network) ||
           (in == LinkKind::Network && next == LinkKind::PCIe);
  case DeviceKind::NetSwitch:
    return in == LinkKind::Network && next == LinkKind::Network;
  case DeviceKind::Process:
    return false; // a process forwards nothing
  }
  return false;
}

PathKind Topology::classify(unsigned src,
                            ArrayRef<std::pair<unsigned, bool>> hops) const {
  if (hops.empty())
    return PathKind::Local;
  PathKind worst = PathKind::Local;
  for (auto [index, hop] : llvm::enumerate(hops)) {
    const Link &link = node.getLink(hop.first);
    unsigned from = hop.second ? link.b : link.a;
    unsigned to = hop.second ? link.a : link.b;
    const Device &fromDev = node.getDevice(from), &toDev = node.getDevice(to);
    PathKind kind = PathKind::PIX;
    switch (link.kind) {
    case LinkKind::NVLink:
      kind = PathKind::NVLink;
      if (fromDev.kind == DeviceKind::NVSwitch ||
          toDev.kind == DeviceKind::NVSwitch)
        kind = PathKind::NVSwitch;
      if (index > 0 && fromDev.kind == DeviceKind::GPU)
        kind = PathKind::NVLinkBridge;
      break;
    case LinkKind::C2C:
      kind = PathKind::C2C;
      break;
    case LinkKind::PCIe:
      kind = PathKind::PIX;
      if (fromDev.kind == DeviceKind::PCIeSwitch &&
          toDev.kind == DeviceKind::PCIeSwitch)
        kind = PathKind::PXB;
      if (fromDev.kind == DeviceKind::CPU || toDev.kind == DeviceKind::CPU)
        kind = PathKind::PHB;
      break;
    case LinkKind::CPUInterconnect:
      kind = PathKind::SYS;
      break;
    case LinkKind::Network:
      kind = PathKind::Net;
      break;
    case LinkKind::SharedMemory:
      kind = PathKind::SHM;
      break;
    }
    worst = std::max(worst, kind);
  }
  return worst;
}

void Topology::computeLocalPaths(unsigned src) {
  unsigned numDevices = node.getNumDevices();
  struct Label {
    double bandwidth = -1;
    unsigned hops = 0;
    double latency = 0;
    int prev = -1;
    unsigned link = 0;
    bool reverse = false;
  };
  auto better = [](double bw, unsigned hops, double lat, const Label &l) {
    if (l.bandwidth < 0)
      return true;
    if (bw != l.bandwidth)
      return bw > l.bandwidth;
    if (hops != l.hops)
      return hops < l.hops;
    return lat < l.latency;
  };
  std::vector<Label> labels(numDevices * kNumArrivals);
  std::vector<bool> settled(labels.size(), false);
  using Entry = std::tuple<double, int, double, unsigned>;
  // Max-heap on bandwidth, then fewest hops, then lowest latency.
  auto order = [](const Entry &x, const Entry &y) {
    if (std::get<0>(x) != std::get<0>(y))
      return std::get<0>(x) < std::get<0>(y);
    if (std::get<1>(x) != std::get<1>(y))
      return std::get<1>(x) > std::get<1>(y);
    if (std::get<2>(x) != std::get<2>(y))
      return std::get<2>(x) > std::get<2>(y);
    return std::get<3>(x) > std::get<3>(y);
  };
  std::priority_queue<Entry, std::vector<Entry>, decltype(order)> queue(order);
  unsigned start = src * kNumArrivals + kArrivedAtStart;
  labels[start].bandwidth = std::numeric_limits<double>::infinity();
  queue.emplace(labels[start].bandwidth, 0, 0.0, start);

  auto onPath = [&](unsigned state, unsigned device) {
    for (int s = state; s >= 0; s = labels[s].prev)
      if (static_cast<unsigned>(s) / kNumArrivals == device)
        return true;
    return false;
  };

  while (!queue.empty()) {
    unsigned state = std::get<3>(queue.top());
    queue.pop();
    if (settled[state])
      continue;
    settled[state] = true;
    unsigned at = state / kNumArrivals, arrival = state % kNumArrivals;
    const Label &here = labels[state];
    for (auto [linkIndex, next] : node.getNeighbors(at)) {
      const Link &link = node.getLink(linkIndex);
      if (!canForward(node.getDevice(at), arrival, link.kind) ||
          onPath(state, next))
        continue;
      double bw = std::min(here.bandwidth, link.bandwidthGBps);
      unsigned hops = here.hops + 1;
      double lat = here.latency + link.latencyUs;
      unsigned nextState = next * kNumArrivals + arrivalOf(link.kind);
      if (settled[nextState] || !better(bw, hops, lat, labels[nextState]))
        continue;
      labels[nextState] = {bw,
                           hops,
                           lat,
                           static_cast<int>(state),
                           linkIndex,
                           /*reverse=*/link.a != at};
      queue.emplace(bw, hops, lat, nextState);
    }
  }

  for (unsigned dst = 0; dst < numDevices; ++dst) {
    LocalPath &path = localPaths[src * numDevices + dst];
    if (dst == src) {
      path.kind = PathKind::Local;
      path.bandwidthGBps = std::numeric_limits<double>::infinity();
      continue;
    }
    int bestState = -1;
    for (unsigned a = 0; a < kNumArrivals; ++a) {
      unsigned s = dst * kNumArrivals + a;
      if (labels[s].bandwidth < 0)
        continue;
      if (bestState < 0 || better(labels[s].bandwidth, labels[s].hops,
                                  labels[s].latency, labels[bestState]))
        bestState = s;
    }
    if (bestState < 0)
      continue;
    const Label &best = labels[bestState];
    path.bandwidthGBps = best.bandwidth;
    path.latencyUs = best.latency;
    for (int s = bestState; labels[s].prev >= 0; s = labels[s].prev)
      path.hops.push_back({labels[s].link, labels[s].reverse});
    std::reverse(path.hops.begin(), path.hops.end());
    path.kind = classify(src, path.hops);
    bool foundBottleneck = false;
    for (auto [link, reverse] : path.hops) {
      const Link &props = node.getLink(link);
      if (!foundBottleneck && props.bandwidthGBps == path.bandwidthGBps) {
        path.bottleneck = link;
        foundBottleneck = true;
      }
      if (props.kind == LinkKind::NVLink)
        path.nvlinks =
            path.nvlinks ? std::min(path.nvlinks, props.count) : props.count;
    }
  }
}

//===----------------------------------------------------------------------===//
// Finalization
//===----------------------------------------------------------------------===//

std::string mlir::comm::formatTopologyNumber(double value) {
  return llvm::formatv("{0}", llvm::format("%g", value)).str();
}

std::string
mlir::comm::formatTopologyRangeError(const Twine &subject, int64_t value,
                                     const TopologyIntRange &range) {
  return (subject + " must be between " + Twine(range.min) + " and " +
          Twine(range.max) + " (" + range.why + "), got " + Twine(value))
      .str();
}

/// Where on `lineText` a caret points for `message`: at the first name the
/// message quotes ('tpu') that the line holds, else at the line's first
/// non-blank character.
static size_t getCaretColumn(StringRef lineText, StringRef message) {
  while (true) {
    size_t open = message.find('\'');
    size_t close =
        open == StringRef::npos ? open : message.find('\'', open + 1);
    if (close == StringRef::npos)
      break;
    StringRef token = message.slice(open + 1, close);
    // A whole word: 'tpu' is not the start of tpu0.
    auto isWord = [](char c) { return llvm::isAlnum(c) || c == '_'; };
    for (size_t at = token.empty() ? StringRef::npos : lineText.find(token);
         at != StringRef::npos; at = lineText.find(token, at + 1)) {
      size_t end = at + token.size();
      if ((at == 0 || !isWord(lineText[at - 1]) || !isWord(token.front())) &&
          (end == lineText.size() || !isWord(lineText[end]) ||
           !isWord(token.back())))
        return at;
    }
    message = message.drop_front(close + 1);
  }
  size_t first = lineText.find_first_not_of(" \t");
  return first == StringRef::npos ? 0 : first;
}

llvm::Error mlir::comm::makeTopologyError(StringRef file, unsigned line,
                                          const Twine &problem) {
  std::string message = problem.str();
  std::string text = file.empty() ? std::string("topology") : file.str();
  std::string excerpt;
  if (line) {
    text += ":" + std::to_string(line);
    // As MLIR and clang print a diagnostic: line:column, the line, a caret.
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
        file.empty() ? llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>>(
                           std::make_error_code(std::errc::invalid_argument))
                     : llvm::MemoryBuffer::getFile(file, /*IsText=*/true);
    if (buffer) {
      StringRef rest = (*buffer)->getBuffer();
      for (unsigned i = 1; i < line && !rest.empty(); ++i)
        rest = rest.split('\n').second;
      StringRef lineText = rest.split('\n').first.rtrim("\r");
      if (!lineText.trim().empty() && lineText.size() <= 400) {
        size_t column = getCaretColumn(lineText, message);
        text += ":" + std::to_string(column + 1);
        std::string indent;
        for (char c : lineText.take_front(column))
          indent += c == '\t' ? '\t' : ' ';
        excerpt = ("\n" + lineText + "\n" + indent + "^").str();
      }
    }
  }
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 text + ": error: " + message + excerpt);
}

GpuEstimate mlir::comm::estimateGpu(int cc) {
  if (cc >= 100)
    return {180, 8000, 2250e12};
  if (cc >= 90)
    return {80, 3350, 989e12};
  if (cc == 89)
    return {48, 864, 362e12};
  if (cc == 86)
    return {24, 936, 71e12};
  if (cc >= 80)
    return {80, 2039, 312e12};
  if (cc >= 70)
    return {32, 900, 125e12};
  if (cc > 0)
    return {16, 732, 100e12};
  // Not even the generation is known (a PCI slot in an NCCL XML, or a
  // process): round figures.
  return {0, 1000, 100e12};
}

double mlir::comm::getMemoryGBps(const Device &rank) {
  return rank.memoryGBps > 0 ? rank.memoryGBps
                             : estimateGpu(rank.computeCapability).memoryGBps;
}

double mlir::comm::getPeakFlops(const Device &rank) {
  return estimateGpu(rank.computeCapability).peakFlops;
}

/// Gives every GPU its memory figures, estimated from its compute
/// capability where its source has none, so that what comm-topo shows is
/// what the cost model times with; counts the described GPUs estimated.
static llvm::Expected<unsigned> completeGpuMemory(NodeGraph &node,
                                                  StringRef source) {
  unsigned estimated = 0;
  for (unsigned i = 0, e = node.getNumDevices(); i < e; ++i) {
    Device &d = node.getDevice(i);
    if (d.kind != DeviceKind::GPU)
      continue;
    if (d.memoryGBps > kMaxMemoryGBps)
      return makeTopologyError(
          source, d.sourceLine,
          "GPU '" + d.name + "' has HBM at " +
              formatTopologyNumber(d.memoryGBps) + " GB/s; no GPU's is above " +
              formatTopologyNumber(kMaxMemoryGBps) + " GB/s (B200: 8000)");
    if (d.memoryGB > kMaxMemoryGB)
      return makeTopologyError(
          source, d.sourceLine,
          "GPU '" + d.name + "' has " + formatTopologyNumber(d.memoryGB) +
              " GB of HBM; no GPU has more than " +
              formatTopologyNumber(kMaxMemoryGB) + " GB (B200: 192)");
    GpuEstimate guess = estimateGpu(d.computeCapability);
    bool guessed = false;
    if (!(d.memoryGBps > 0)) {
      d.memoryGBps = guess.memoryGBps;
      guessed = true;
    }
    if (!(d.memoryGB > 0) && d.described) {
      d.memoryGB = guess.memoryGB;
      guessed = true;
    }
    if (guessed && d.described) {
      d.memoryKnown = false;
      ++estimated;
    }
  }
  return estimated;
}

llvm::Error Topology::finalize() {
  unsigned numDevices = node.getNumDevices();
  if (numDevices == 0 && !ncclGraphs.empty() && numNodes == 1) {
    // An NCCL graph file: nothing to compute.
    finalized = true;
    return llvm::Error::success();
  }
  if (numDevices == 0)
    return makeTopologyError(source, 0, "the topology describes no devices");
  if (numDevices > kMaxDevicesPerMachine)
    return makeTopologyError(source, 0,
                             "a machine of " + Twine(numDevices) +
                                 " devices is more than comm supports (" +
                                 Twine(kMaxDevicesPerMachine) + ")");
  if (numNodes == 0)
    return makeTopologyError(source, 0, "a cluster needs at least one node");

  llvm::StringMap<unsigned> names;
  for (auto [index, device] : llvm::enumerate(node.getDevices())) {
    if (device.name.empty())
      return makeTopologyError(source, device.sourceLine,
                               "a " + stringifyDeviceKind(device.kind) +
                                   " has no name");
    auto [it, inserted] = names.try_emplace(device.name, index);
    if (!inserted)
      return makeTopologyError(
          source, device.sourceLine,
          "duplicate device id '" + device.name + "' (first defined at line " +
              Twine(node.getDevice(it->second).sourceLine) + ")");
    if (device.kind == DeviceKind::NetSwitch)
      return makeTopologyError(
          source, device.sourceLine,
          "device '" + device.name +
              "': network switches belong to the fabric, not to a "
              "machine");
  }
  llvm::Expected<unsigned> estimatedGpus = completeGpuMemory(node, source);
  if (!estimatedGpus)
    return estimatedGpus.takeError();
  if (*estimatedGpus)
    addNote(Twine(*estimatedGpus) +
            " GPU(s) give no HBM capacity or bandwidth: estimated from the "
            "compute capability (comm-topo show marks them)");
  // One link per pair and kind: lanes are its `count`. A second one was
  // read as a second link, which the bounds counted and the paths did not.
  llvm::DenseMap<std::tuple<unsigned, unsigned, unsigned>, unsigned> firstLink;
  llvm::DenseMap<unsigned, unsigned> nvlinkLanes; // GPU -> its lanes so far
  for (const Link &link : node.getLinks()) {
    if (link.a >= numDevices || link.b >= numDevices)
      return makeTopologyError(source, link.sourceLine,
                               "link endpoint out of range");
    auto [first, inserted] = firstLink.try_emplace(
        std::make_tuple(std::min(link.a, link.b), std::max(link.a, link.b),
                        static_cast<unsigned>(link.kind)),
        link.sourceLine);
    if (!inserted && link.a != link.b)
      return makeTopologyError(
          source, link.sourceLine,
          "a second " + stringifyLinkKind(link.kind) + " link between '" +
              node.getDevice(link.a).name + "' and '" +
              node.getDevice(link.b).name + "' (the first is at line " +
              Twine(first->second) +
              "); give one link, with the lanes as its count");
    if (link.a == link.b)
      return makeTopologyError(source, link.sourceLine,
                               "link from '" + node.getDevice(link.a).name +
                                   "' to itself");
    std::string ends =
        node.getDevice(link.a).name + " - " + node.getDevice(link.b).name;
    auto linkError = [&](const Twine &problem) {
      return makeTopologyError(source, link.sourceLine,
                               "link " + ends + problem);
    };
    if (!(link.bandwidthGBps > 0) || std::isinf(link.bandwidthGBps))
      return linkError(" has bandwidth " +
                       formatTopologyNumber(link.bandwidthGBps) +
                       " GB/s; bandwidths must be positive and finite");
    if (!(link.latencyUs >= 0) || std::isinf(link.latencyUs))
      return linkError(" has latency " + formatTopologyNumber(link.latencyUs) +
                       " us; latencies must be non-negative and finite");
    if (link.count == 0)
      return linkError(" has a lane count of 0");
    // What no machine has: a typo or a corrupted file, not hardware.
    if (link.bandwidthGBps > kMaxLinkBandwidthGBps)
      return linkError(" has bandwidth " +
                       formatTopologyNumber(link.bandwidthGBps) +
                       " GB/s; no link of a machine carries more than " +
                       formatTopologyNumber(kMaxLinkBandwidthGBps) +
                       " GB/s per direction (18 NVLink5 lanes: 721.8)");
    if (link.bandwidthGBps < kMinLinkBandwidthGBps)
      return linkError(" has bandwidth " +
                       formatTopologyNumber(link.bandwidthGBps) +
                       " GB/s; no link of a machine carries less than " +
                       formatTopologyNumber(kMinLinkBandwidthGBps) +
                       " GB/s (a PCIe 1.0 lane: 0.25)");
    if (link.latencyUs > kMaxLinkLatencyUs)
      return linkError(" has latency " + formatTopologyNumber(link.latencyUs) +
                       " us; a link inside a machine takes at most " +
                       formatTopologyNumber(kMaxLinkLatencyUs) +
                       " us (PCIe and NVLink hops take well under 1)");
    if (link.kind == LinkKind::NVLink && link.count > kMaxNVLinkLanes)
      return makeTopologyError(source, link.sourceLine,
                               "NVLink " + ends + " has " + Twine(link.count) +
                                   " lanes; a GPU has at most " +
                                   Twine(kMaxNVLinkLanes) +
                                   " (18 on H100 and B200)");
    // And all of a GPU's NVLinks together (three links of 64 lanes each
    // were taken for 192 lanes, 1860 GB/s).
    if (link.kind == LinkKind::NVLink)
      for (unsigned end : {link.a, link.b}) {
        const Device &device = node.getDevice(end);
        if (device.kind != DeviceKind::GPU)
          continue;
        unsigned &total = nvlinkLanes[end];
        total += link.count;
        if (total > kMaxNVLinkLanes)
          return makeTopologyError(
              source, link.sourceLine,
              "GPU '" + device.name + "' has " + Twine(total) +
                  " NVLink lanes with this link; a GPU has at most " +
                  Twine(kMaxNVLinkLanes) + " (18 on H100 and B200)");
      }
  }
  // PCIe links form a tree: a cycle means a device with two upstream
  // ports, which the PCIe hierarchy does not have.
  {
    llvm::EquivalenceClasses<unsigned> connected;
    for (const Link &link : node.getLinks()) {
      if (link.kind != LinkKind::PCIe || link.peer)
        continue;
      if (connected.isEquivalent(link.a, link.b))
        return makeTopologyError(
            source, link.sourceLine,
            "PCIe link " + node.getDevice(link.a).name + " - " +
                node.getDevice(link.b).name +
                " closes a cycle; PCIe links form a tree (every device "
                "has one way up to its CPU)");
      connected.unionSets(link.a, link.b);
    }
  }
  for (const Device &device : node.getDevices()) {
    if (device.kind != DeviceKind::NIC)
      continue;
    if (device.described && device.speedGbit < kMinNICGbit)
      return makeTopologyError(source, device.sourceLine,
                               "NIC '" + device.name + "' runs at " +
                                   formatTopologyNumber(device.speedGbit) +
                                   " Gbit/s; no NIC is slower than " +
                                   formatTopologyNumber(kMinNICGbit) +
                                   " Gbit/s (Fast Ethernet)");
    if (device.speedGbit > kMaxNICGbit)
      return makeTopologyError(source, device.sourceLine,
                               "NIC '" + device.name + "' runs at " +
                                   formatTopologyNumber(device.speedGbit) +
                                   " Gbit/s; no NIC is faster than " +
                                   formatTopologyNumber(kMaxNICGbit) +
                                   " Gbit/s (800G is the "
                                   "fastest shipping)");
    if (!(device.latencyUs >= 0) || device.latencyUs > kMaxNICLatencyUs)
      return makeTopologyError(
          source, device.sourceLine,
          "NIC '" + device.name + "' has latency " +
              formatTopologyNumber(device.latencyUs) +
              " us; a NIC's latency is between 0 and " +
              formatTopologyNumber(kMaxNICLatencyUs) +
              " us (InfiniBand and RoCE ports take a few)");
  }

  gpusPerNode = node.getDevicesOfKind(DeviceKind::GPU);
  SmallVector<unsigned> processes = node.getDevicesOfKind(DeviceKind::Process);
  processRanks = gpusPerNode.empty() && !processes.empty();
  if (!gpusPerNode.empty() && !processes.empty())
    return makeTopologyError(
        source, node.getDevice(processes.front()).sourceLine,
        "process '" + node.getDevice(processes.front()).name +
            "' on a machine with GPUs; a machine's ranks are its GPUs or, "
            "on a machine without GPUs, its processes");
  if (processRanks)
    gpusPerNode = std::move(processes);
  nicsPerNode = node.getDevicesOfKind(DeviceKind::NIC);
  railOfLocal.assign(numDevices, -1);
  for (auto [rail, local] : llvm::enumerate(nicsPerNode))
    railOfLocal[local] = rail;
  gpuRankOfLocal.clear();
  for (auto [rank, local] : llvm::enumerate(gpusPerNode))
    gpuRankOfLocal[local] = rank;

  localPaths.assign(static_cast<size_t>(numDevices) * numDevices, {});
  for (unsigned src = 0; src < numDevices; ++src)
    computeLocalPaths(src);

  for (unsigned i = 0; i < gpusPerNode.size(); ++i)
    for (unsigned j = 0; j < gpusPerNode.size(); ++j) {
      if (i == j)
        continue;
      const Device &a = node.getDevice(gpusPerNode[i]);
      const Device &b = node.getDevice(gpusPerNode[j]);
      if (getLocalPath(gpusPerNode[i], gpusPerNode[j]).kind ==
          PathKind::Disconnected)
        return makeTopologyError(
            source, a.sourceLine,
            "GPU '" + a.name + "' has no path to GPU '" + b.name +
                "'; every GPU must reach every other GPU of its "
                "machine");
    }

  // Each device uses the NIC it reaches best (widest, then fewest hops,
  // then lowest latency); GPUs are served in index order and, among NICs
  // that are equally good, take one no earlier GPU took, so that GPU i and
  // NIC i share a rail where the machine allows it.
  nearestNIC.assign(numDevices, -1);
  auto rank = [&](unsigned local, unsigned rail) {
    const LocalPath &p = getLocalPath(local, nicsPerNode[rail]);
    return std::make_tuple(-p.bandwidthGBps, p.hops.size(), p.latencyUs);
  };
  SmallVector<unsigned> railUsers(nicsPerNode.size(), 0);
  SmallVector<unsigned> order(gpusPerNode);
  for (unsigned local = 0; local < numDevices; ++local)
    if (node.getDevice(local).kind != DeviceKind::GPU)
      order.push_back(local);
  for (unsigned local : order) {
    int best = -1;
    for (unsigned rail = 0; rail < nicsPerNode.size(); ++rail) {
      if (getLocalPath(local, nicsPerNode[rail]).kind == PathKind::Disconnected)
        continue;
      if (best < 0 || rank(local, rail) < rank(local, best) ||
          (rank(local, rail) == rank(local, best) &&
           railUsers[rail] < railUsers[best]))
        best = rail;
    }
    nearestNIC[local] = best;
    if (best >= 0 && node.getDevice(local).kind == DeviceKind::GPU)
      ++railUsers[best];
  }

  fabricDevices.clear();
  numLeaves = numGroups = 0;
  hasCore = false;
  if (numNodes > 1) {
    if (fabric.kind == FabricKind::None)
      return makeTopologyError(
          source, 0,
          "a cluster of " + Twine(numNodes) +
              " nodes needs a fabric (rail_optimized or fat_tree)");
    if (nicsPerNode.empty())
      return makeTopologyError(
          source, 0,
          "a cluster of " + Twine(numNodes) +
              " nodes needs NICs, but the node type has none");
    for (unsigned gpu : gpusPerNode)
      if (nearestNIC[gpu] < 0)
        return makeTopologyError(
            source, node.getDevice(gpu).sourceLine,
            "GPU '" + node.getDevice(gpu).name +
                "' reaches no NIC, so it cannot talk to other "
                "nodes of the cluster");
    for (unsigned nic : nicsPerNode)
      if (!(node.getDevice(nic).speedGbit > 0))
        return makeTopologyError(
            source, node.getDevice(nic).sourceLine,
            "NIC '" + node.getDevice(nic).name +
                "' has no speed; a cluster needs NIC speeds");
    if (!(fabric.oversubscription >= 1.0) ||
        std::isinf(fabric.oversubscription))
      return makeTopologyError(
          source, 0,
          "fabric oversubscription must be >= 1, got " +
              formatTopologyNumber(fabric.oversubscription));
    if (fabric.linkGbit < 0 || fabric.switchLatencyUs < 0 ||
        fabric.linkLatencyUs < 0)
      return makeTopologyError(
          source, 0, "fabric speeds and latencies must be non-negative");
    buildFabric();
  }
  finalized = true;
  return llvm::Error::success();
}

void Topology::buildFabric() {
  unsigned rails = nicsPerNode.size();
  bool railOptimized = fabric.kind == FabricKind::RailOptimized;
  // A 64-port leaf with half its ports down: 32 NICs per leaf.
  unsigned defaultNodesPerLeaf = railOptimized ? 32 : std::max(1u, 32u / rails);
  effectiveNodesPerLeaf =
      fabric.nodesPerLeaf ? fabric.nodesPerLeaf : defaultNodesPerLeaf;
  numGroups = (numNodes + effectiveNodesPerLeaf - 1) / effectiveNodesPerLeaf;
  numLeaves = railOptimized ? rails * numGroups : numGroups;
  hasCore = numLeaves > 1;

  auto portGBps = [&](unsigned nic) {
    double gbit = node.getDevice(nic).speedGbit;
    if (fabric.linkGbit > 0)
      gbit = std::min(gbit, fabric.linkGbit);
    return gbit / 8.0;
  };
  double maxPort = 0, sumPorts = 0;
  for (unsigned nic : nicsPerNode) {
    maxPort = std::max(maxPort, portGBps(nic));
    sumPorts += portGBps(nic);
  }
  nicUplinkProps = Link();
  nicUplinkProps.kind = LinkKind::Network;
  nicUplinkProps.bandwidthGBps = maxPort;
  nicUplinkProps.latencyUs = fabric.linkLatencyUs;
  leafUplinkProps = Link();
  leafUplinkProps.kind = LinkKind::Network;
  double down = railOptimized ? effectiveNodesPerLeaf * maxPort
                              : effectiveNodesPerLeaf * sumPorts;
  leafUplinkProps.bandwidthGBps = down / fabric.oversubscription;
  leafUplinkProps.latencyUs = 0.1;

  for (uint64_t leaf = 0; leaf < numLeaves; ++leaf) {
    Device device;
    device.kind = DeviceKind::NetSwitch;
    device.network = fabric.network;
    device.index = leaf;
    device.name = railOptimized
                      ? llvm::formatv("leaf.r{0}.g{1}", leaf / numGroups,
                                      leaf % numGroups)
                            .str()
                      : llvm::formatv("leaf{0}", leaf).str();
    fabricDevices.push_back(std::move(device));
  }
  if (hasCore) {
    Device core;
    core.kind = DeviceKind::NetSwitch;
    core.network = fabric.network;
    core.name = "core";
    core.index = numLeaves;
    fabricDevices.push_back(std::move(core));
  }
}

//===----------------------------------------------------------------------===//
// Global view
//===----------------------------------------------------------------------===//

uint64_t Topology::getNumDevices() const {
  return numNodes * node.getNumDevices() + fabricDevices.size();
}

uint64_t Topology::getNumLinks() const {
  uint64_t count = numNodes * node.getNumLinks();
  if (!fabricDevices.empty())
    count += numNodes * nicsPerNode.size() + (hasCore ? numLeaves : 0);
  return count;
}

uint64_t Topology::getNodeIndex(DeviceId id) const {
  if (isFabricDevice(id))
    return numNodes;
  return id / node.getNumDevices();
}

unsigned Topology::getLocalIndex(DeviceId id) const {
  if (isFabricDevice(id))
    return id - numNodes * node.getNumDevices();
  return id % node.getNumDevices();
}

const Device &Topology::getDevice(DeviceId id) const {
  if (isFabricDevice(id))
    return fabricDevices[getLocalIndex(id)];
  return node.getDevice(getLocalIndex(id));
}

std::string Topology::getDeviceName(DeviceId id) const {
  if (isFabricDevice(id) || numNodes == 1)
    return getDevice(id).name;
  return "n" + std::to_string(getNodeIndex(id)) + "." + getDevice(id).name;
}

std::optional<DeviceId> Topology::lookupDevice(StringRef text) const {
  for (auto [index, device] : llvm::enumerate(fabricDevices))
    if (device.name == text)
      return numNodes * node.getNumDevices() + index;
  uint64_t nodeIndex = 0;
  StringRef local = text;
  if (text.starts_with("n")) {
    size_t sep = text.find_first_of("./");
    uint64_t parsed;
    if (sep != StringRef::npos &&
        !text.substr(1, sep - 1).getAsInteger(10, parsed)) {
      nodeIndex = parsed;
      local = text.substr(sep + 1);
    }
  }
  if (nodeIndex >= numNodes)
    return std::nullopt;
  std::optional<unsigned> index = node.lookup(local);
  if (!index)
    return std::nullopt;
  return getDeviceId(nodeIndex, *index);
}

uint64_t Topology::getLeafOf(uint64_t nodeIndex, unsigned rail) const {
  uint64_t group = nodeIndex / effectiveNodesPerLeaf;
  if (fabric.kind == FabricKind::RailOptimized)
    return rail * numGroups + group;
  return group;
}

LinkId Topology::getNICUplink(uint64_t nodeIndex, unsigned rail) const {
  return numNodes * node.getNumLinks() + nodeIndex * nicsPerNode.size() + rail;
}

LinkId Topology::getLeafUplink(uint64_t leaf) const {
  return numNodes * node.getNumLinks() + numNodes * nicsPerNode.size() + leaf;
}

LinkRef Topology::getLink(LinkId id) const {
  uint64_t machineLinks = numNodes * node.getNumLinks();
  uint64_t fabricBase = numNodes * node.getNumDevices();
  if (id < machineLinks) {
    uint64_t nodeIndex = id / node.getNumLinks();
    const Link &link = node.getLink(id % node.getNumLinks());
    return {getDeviceId(nodeIndex, link.a), getDeviceId(nodeIndex, link.b),
            &link};
  }
  id -= machineLinks;
  uint64_t nicLinks = numNodes * nicsPerNode.size();
  if (id < nicLinks) {
    uint64_t nodeIndex = id / nicsPerNode.size();
    unsigned rail = id % nicsPerNode.size();
    return {getDeviceId(nodeIndex, nicsPerNode[rail]),
            fabricBase + getLeafOf(nodeIndex, rail), &nicUplinkProps};
  }
  id -= nicLinks;
  return {fabricBase + id, fabricBase + numLeaves, &leafUplinkProps};
}

DeviceId Topology::getGPU(uint64_t rank) const {
  unsigned perNode = gpusPerNode.size();
  return getDeviceId(rank / perNode, gpusPerNode[rank % perNode]);
}

std::optional<uint64_t> Topology::getGPURank(DeviceId id) const {
  if (isFabricDevice(id))
    return std::nullopt;
  auto it = gpuRankOfLocal.find(getLocalIndex(id));
  if (it == gpuRankOfLocal.end())
    return std::nullopt;
  return getNodeIndex(id) * gpusPerNode.size() + it->second;
}

int Topology::getRail(unsigned local) const {
  return local < railOfLocal.size() ? railOfLocal[local] : -1;
}

std::optional<unsigned> Topology::getNearestNIC(unsigned local) const {
  if (local >= nearestNIC.size() || nearestNIC[local] < 0)
    return std::nullopt;
  return nicsPerNode[nearestNIC[local]];
}

bool Topology::hasGPUDirect(DeviceId id) const {
  if (isFabricDevice(id))
    return false;
  unsigned local = getLocalIndex(id);
  if (local >= nearestNIC.size() || nearestNIC[local] < 0)
    return false;
  unsigned nic = nicsPerNode[nearestNIC[local]];
  const Device &device = node.getDevice(local);
  return device.kind == DeviceKind::GPU && device.gpuDirect &&
         node.getDevice(nic).gpuDirect &&
         getLocalPath(local, nic).kind <= PathKind::PXB;
}

std::optional<DeviceId> Topology::getHostCPU(DeviceId id) const {
  if (isFabricDevice(id))
    return std::nullopt;
  unsigned local = getLocalIndex(id);
  std::optional<unsigned> best;
  for (unsigned cpu : node.getDevicesOfKind(DeviceKind::CPU)) {
    const LocalPath &p = getLocalPath(local, cpu);
    if (p.kind == PathKind::Disconnected)
      continue;
    if (!best) {
      best = cpu;
      continue;
    }
    const LocalPath &b = getLocalPath(local, *best);
    if (std::make_tuple(-p.bandwidthGBps, p.hops.size()) <
        std::make_tuple(-b.bandwidthGBps, b.hops.size()))
      best = cpu;
  }
  if (!best)
    return std::nullopt;
  return getDeviceId(getNodeIndex(id), *best);
}

//===----------------------------------------------------------------------===//
// Path composition
//===----------------------------------------------------------------------===//

static void addHop(Path &path, LinkId link, bool reverse, const Link &props) {
  path.hops.push_back({link, reverse});
  if (props.bandwidthGBps < path.bandwidthGBps) {
    path.bandwidthGBps = props.bandwidthGBps;
    path.bottleneck = link;
  }
  path.latencyUs += props.latencyUs;
  if (props.kind == LinkKind::NVLink)
    path.nvlinks =
        path.nvlinks ? std::min(path.nvlinks, props.count) : props.count;
}

void Topology::appendLocal(Path &path, uint64_t nodeIndex,
                           const LocalPath &local) const {
  for (auto [link, reverse] : local.hops)
    addHop(path, nodeIndex * node.getNumLinks() + link, reverse,
           node.getLink(link));
}

void Topology::appendFabric(Path &path, uint64_t nodeA, unsigned railA,
                            uint64_t nodeB, unsigned railB) const {
  uint64_t leafA = getLeafOf(nodeA, railA), leafB = getLeafOf(nodeB, railB);
  addHop(path, getNICUplink(nodeA, railA), false, nicUplinkProps);
  path.switches += 1;
  if (leafA != leafB) {
    addHop(path, getLeafUplink(leafA), false, leafUplinkProps);
    addHop(path, getLeafUplink(leafB), true, leafUplinkProps);
    path.switches += 2;
  }
  addHop(path, getNICUplink(nodeB, railB), true, nicUplinkProps);
}

Path Topology::getPath(DeviceId src, DeviceId dst) const {
  assert(finalized && "query of a topology that was not finalized");
  Path path;
  path.src = src;
  path.dst = dst;
  path.bandwidthGBps = std::numeric_limits<double>::infinity();
  if (src == dst) {
    path.kind = PathKind::Local;
    return path;
  }
  uint64_t fabricBase = numNodes * node.getNumDevices();

  // Fabric switches as endpoints: route through the fabric tree.
  if (isFabricDevice(src) || isFabricDevice(dst)) {
    // Express a machine endpoint as (node, rail, local path to its NIC).
    auto leafPath = [&](uint64_t leafFrom, uint64_t leafTo, Path &p) {
      if (leafFrom == leafTo)
        return;
      if (leafFrom < numLeaves) {
        addHop(p, getLeafUplink(leafFrom), false, leafUplinkProps);
        p.switches += 1;
      }
      if (leafTo < numLeaves) {
        addHop(p, getLeafUplink(leafTo), true, leafUplinkProps);
        p.switches += 1;
      }
    };
    if (isFabricDevice(src) && isFabricDevice(dst)) {
      leafPath(src - fabricBase, dst - fabricBase, path);
      path.switches = path.switches ? path.switches - 1 : 0;
    } else if (isFabricDevice(dst)) {
      unsigned local = getLocalIndex(src);
      if (nearestNIC[local] < 0)
        return path;
      uint64_t nodeIndex = getNodeIndex(src);
      unsigned rail = nearestNIC[local];
      appendLocal(path, nodeIndex, getLocalPath(local, nicsPerNode[rail]));
      addHop(path, getNICUplink(nodeIndex, rail), false, nicUplinkProps);
      leafPath(getLeafOf(nodeIndex, rail), dst - fabricBase, path);
    } else {
      Path reversed = getPath(dst, src);
      if (!reversed.isConnected())
        return path;
      path = reversed;
      std::swap(path.src, path.dst);
      std::reverse(path.hops.begin(), path.hops.end());
      for (PathHop &hop : path.hops)
        hop.reverse = !hop.reverse;
      return path;
    }
    path.kind = PathKind::Net;
    path.latencyUs += path.switches * fabric.switchLatencyUs;
    return path;
  }

  uint64_t nodeA = getNodeIndex(src), nodeB = getNodeIndex(dst);
  unsigned localA = getLocalIndex(src), localB = getLocalIndex(dst);
  if (nodeA == nodeB) {
    const LocalPath &local = getLocalPath(localA, localB);
    if (local.kind == PathKind::Disconnected)
      return path;
    appendLocal(path, nodeA, local);
    path.kind = local.kind;
    return path;
  }
  if (nearestNIC[localA] < 0 || nearestNIC[localB] < 0)
    return path;
  unsigned railA = nearestNIC[localA], railB = nearestNIC[localB];
  const LocalPath &toNIC = getLocalPath(localA, nicsPerNode[railA]);
  const LocalPath &fromNIC = getLocalPath(nicsPerNode[railB], localB);
  appendLocal(path, nodeA, toNIC);
  appendFabric(path, nodeA, railA, nodeB, railB);
  appendLocal(path, nodeB, fromNIC);
  path.kind = PathKind::Net;
  path.latencyUs += path.switches * fabric.switchLatencyUs;
  path.gpuDirect = hasGPUDirect(src) && hasGPUDirect(dst);
  return path;
}

Path Topology::getPathThrough(DeviceId src, DeviceId dst, unsigned srcRail,
                              unsigned dstRail) const {
  if (isFabricDevice(src) || isFabricDevice(dst) ||
      getNodeIndex(src) == getNodeIndex(dst) || srcRail >= nicsPerNode.size() ||
      dstRail >= nicsPerNode.size())
    return getPath(src, dst);
  Path path;
  path.src = src;
  path.dst = dst;
  path.bandwidthGBps = std::numeric_limits<double>::infinity();
  uint64_t nodeA = getNodeIndex(src), nodeB = getNodeIndex(dst);
  unsigned localA = getLocalIndex(src), localB = getLocalIndex(dst);
  const LocalPath &toNIC = getLocalPath(localA, nicsPerNode[srcRail]);
  const LocalPath &fromNIC = getLocalPath(nicsPerNode[dstRail], localB);
  if (toNIC.kind == PathKind::Disconnected ||
      fromNIC.kind == PathKind::Disconnected)
    return path;
  appendLocal(path, nodeA, toNIC);
  appendFabric(path, nodeA, srcRail, nodeB, dstRail);
  appendLocal(path, nodeB, fromNIC);
  path.kind = PathKind::Net;
  path.latencyUs += path.switches * fabric.switchLatencyUs;
  return path;
}

SmallVector<std::pair<DirectedLink, unsigned>>
Topology::getSharedLinks(ArrayRef<Path> paths) {
  // Directed links are keyed as 2 * link + reverse.
  llvm::DenseMap<uint64_t, unsigned> uses;
  for (const Path &path : paths) {
    // A path uses each directed link once.
    llvm::SmallDenseSet<uint64_t, 16> seen;
    for (const PathHop &hop : path.hops) {
      uint64_t key = 2 * hop.link + hop.reverse;
      if (seen.insert(key).second)
        ++uses[key];
    }
  }
  SmallVector<std::pair<DirectedLink, unsigned>> shared;
  for (auto &[key, count] : uses)
    if (count > 1)
      shared.push_back({{key / 2, (key & 1) != 0}, count});
  llvm::sort(shared);
  return shared;
}

//===----------------------------------------------------------------------===//
// Equivalence
//===----------------------------------------------------------------------===//

static bool sameNumber(double a, double b) {
  return a == b ||
         std::fabs(a - b) <= 1e-9 * std::max(std::fabs(a), std::fabs(b));
}

bool Topology::isEquivalentTo(const Topology &other, std::string *why) const {
  auto differ = [&](const Twine &what) {
    if (why)
      *why = what.str();
    return false;
  };
  if (numNodes != other.numNodes)
    return differ("node counts differ: " + Twine(numNodes) + " vs " +
                  Twine(other.numNodes));
  const Fabric &f = fabric, &g = other.fabric;
  if (f.kind != g.kind || f.network != g.network ||
      !sameNumber(f.linkGbit, g.linkGbit) || f.nodesPerLeaf != g.nodesPerLeaf ||
      !sameNumber(f.oversubscription, g.oversubscription) ||
      !sameNumber(f.switchLatencyUs, g.switchLatencyUs) ||
      !sameNumber(f.linkLatencyUs, g.linkLatencyUs))
    return differ("fabrics differ");
  if (node.getNumDevices() != other.node.getNumDevices())
    return differ("device counts differ: " + Twine(node.getNumDevices()) +
                  " vs " + Twine(other.node.getNumDevices()));
  for (unsigned i = 0, e = node.getNumDevices(); i < e; ++i) {
    const Device &a = node.getDevice(i), &b = other.node.getDevice(i);
    bool same =
        a.kind == b.kind && a.name == b.name && a.index == b.index &&
        a.numa == b.numa && a.model == b.model && a.busId == b.busId &&
        a.computeCapability == b.computeCapability &&
        sameNumber(a.memoryGB, b.memoryGB) &&
        sameNumber(a.memoryGBps, b.memoryGBps) &&
        a.memoryKnown == b.memoryKnown && a.gpuDirect == b.gpuDirect &&
        a.described == b.described && sameNumber(a.speedGbit, b.speedGbit) &&
        a.network == b.network && sameNumber(a.latencyUs, b.latencyUs) &&
        a.vendor == b.vendor && a.arch == b.arch && a.familyId == b.familyId &&
        a.modelId == b.modelId && a.cpuAffinity == b.cpuAffinity &&
        a.chips == b.chips && a.generation == b.generation &&
        a.reductionCapable == b.reductionCapable;
    if (!same)
      return differ("device '" + a.name + "' differs");
  }
  if (node.getNumLinks() != other.node.getNumLinks())
    return differ("link counts differ: " + Twine(node.getNumLinks()) + " vs " +
                  Twine(other.node.getNumLinks()));
  for (unsigned i = 0, e = node.getNumLinks(); i < e; ++i) {
    const Link &a = node.getLink(i), &b = other.node.getLink(i);
    bool same = a.a == b.a && a.b == b.b && a.kind == b.kind &&
                sameNumber(a.bandwidthGBps, b.bandwidthGBps) &&
                sameNumber(a.latencyUs, b.latencyUs) && a.count == b.count &&
                a.generation == b.generation && a.width == b.width &&
                a.peer == b.peer;
    if (!same)
      return differ("link #" + Twine(i) + " (" + node.getDevice(a.a).name +
                    " - " + node.getDevice(a.b).name + ") differs");
  }
  return true;
}
