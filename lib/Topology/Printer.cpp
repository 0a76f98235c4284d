//===- Printer.cpp - human-readable views of a topology ---------*- C++ -*-===//

#include "comm/Topology/TopologyPrinter.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>

#include <cmath>
#include <functional>
#include <optional>

using namespace mlir;
using namespace mlir::comm;

std::string mlir::comm::formatBandwidth(double gbps) {
  if (std::isinf(gbps))
    return "unbounded";
  return llvm::formatv("{0:F1} GB/s", gbps).str();
}

std::string mlir::comm::escapeXml(StringRef text) {
  std::string out;
  llvm::raw_string_ostream os(out);
  llvm::printHTMLEscaped(text, os);
  return out;
}

/// A number without trailing zeros: 80, 370.8, 0.1875.
static std::string num(double value) { return formatTopologyNumber(value); }

static std::string describeLink(const Link &link) {
  switch (link.kind) {
  case LinkKind::NVLink:
    return llvm::formatv("nvlink{0} x{1}", link.generation, link.count).str();
  case LinkKind::PCIe:
    return (link.generation
                ? llvm::formatv("pcie gen{0} x{1}", link.generation, link.width)
                      .str()
                : std::string("pcie")) +
           (link.peer ? " peer" : "");
  case LinkKind::CPUInterconnect:
    return "cpu interconnect";
  case LinkKind::C2C:
    return llvm::formatv("c2c x{0}", link.count).str();
  case LinkKind::Network:
    return "network";
  case LinkKind::SharedMemory:
    return "shared memory";
  }
  return "";
}

static std::string plural(unsigned count, StringRef noun) {
  StringRef suffix = count == 1 ? "" : noun.ends_with("s") ? "es" : "s";
  return llvm::formatv("{0} {1}{2}", count, noun, suffix).str();
}

void mlir::comm::printTopologySummary(const Topology &topology,
                                      llvm::raw_ostream &os) {
  const NodeGraph &graph = topology.getNode();
  os << "topology: "
     << (topology.getName().empty() ? "(unnamed)" : topology.getName()) << "\n";
  os << "source: " << topology.getSource() << "\n";
  for (const NcclGraph &g : topology.getNcclGraphs()) {
    static const char *const patterns[] = {
        "",     "balanced tree", "split tree",    "tree",
        "ring", "nvls",          "collnet direct"};
    os << "nccl graph " << g.id << ": " << patterns[g.pattern] << ", "
       << plural(g.numChannels, "channel") << ", intra " << g.typeIntra
       << " at " << num(g.speedIntra) << " GB/s, inter " << g.typeInter
       << " at " << num(g.speedInter) << " GB/s\n";
    for (auto [index, channel] : llvm::enumerate(g.channels))
      os << "  channel " << index << ": " << llvm::join(channel, " -> ")
         << "\n";
  }
  if (graph.getNumDevices() == 0) {
    os << "hardware: none described\n";
  } else {
    unsigned gpus = graph.countDevices(DeviceKind::GPU);
    unsigned processes = graph.countDevices(DeviceKind::Process);
    os << "machine: "
       << (processes ? plural(processes, "process") + " over shared memory"
                     : plural(gpus, "GPU"))
       << ", " << plural(graph.countDevices(DeviceKind::CPU), "CPU") << ", "
       << graph.countDevices(DeviceKind::PCIeSwitch) << " PCIe switch"
       << (graph.countDevices(DeviceKind::PCIeSwitch) == 1 ? "" : "es") << ", ";
    SmallVector<unsigned> nvswitches =
        graph.getDevicesOfKind(DeviceKind::NVSwitch);
    if (!nvswitches.empty())
      os << "NVSwitch (" << graph.getDevice(nvswitches.front()).chips
         << " chips), ";
    os << plural(graph.countDevices(DeviceKind::NIC), "NIC") << "; "
       << plural(graph.getNumLinks(), "link") << "\n";
    os << "nodes: " << topology.getNumNodes() << " ("
       << plural(topology.getNumGPUs(),
                 topology.hasProcessRanks() ? "rank" : "GPU")
       << ", " << topology.getNumDevices() << " devices, "
       << topology.getNumLinks() << " links)\n";
  }

  const Fabric &fabric = topology.getFabric();
  if (topology.getNumNodes() > 1) {
    os << "fabric: " << stringifyFabricKind(fabric.kind) << " "
       << stringifyNetworkKind(fabric.network) << ", "
       << plural(topology.getNICsPerNode(), "rail");
    if (fabric.oversubscription != 1)
      os << ", oversubscription " << num(fabric.oversubscription) << ":1";
    os << "\n";
    if (topology.getNumGPUs() >= 2) {
      Path across = topology.getGPUPath(0, topology.getGPUsPerNode());
      os << "  gpu path between nodes: "
         << formatBandwidth(across.bandwidthGBps) << ", " << across.switches
         << " switch(es), " << llvm::formatv("{0:F2} us", across.latencyUs)
         << (across.gpuDirect ? ", GPUDirect RDMA" : ", no GPUDirect RDMA")
         << "\n";
    }
  }

  auto section = [&](DeviceKind kind, StringRef title) {
    SmallVector<unsigned> devices = graph.getDevicesOfKind(kind);
    if (devices.empty())
      return;
    os << title << ":\n";
    for (unsigned index : devices) {
      const Device &d = graph.getDevice(index);
      os << "  " << d.name;
      switch (kind) {
      case DeviceKind::GPU:
        if (!d.described) {
          os << "  PCI slot only (architecture, memory, NVLink unknown; "
                "local work timed at "
             << num(getMemoryGBps(d)) << " GB/s, "
             << num(getPeakFlops(d) / 1e12) << " TFLOP/s)";
        } else {
          os << "  " << (d.model.empty() ? "unknown model" : d.model) << " sm"
             << d.computeCapability << "  " << num(d.memoryGB) << " GB at "
             << num(d.memoryGBps) << " GB/s"
             << (d.memoryKnown ? "" : " (estimated)");
          os << (d.gpuDirect ? "  gdr" : "");
        }
        break;
      case DeviceKind::NIC:
        if (!d.described)
          os << "  PCI slot only (speed unknown)";
        else
          os << "  " << num(d.speedGbit) << " Gbit/s "
             << stringifyNetworkKind(d.network)
             << (d.model.empty() ? "" : " " + d.model)
             << (d.gpuDirect ? "  gdr" : "");
        break;
      case DeviceKind::CPU:
        os << "  " << (d.vendor.empty() ? "unknown vendor" : d.vendor);
        if (d.familyId || d.modelId)
          os << " family " << d.familyId << " model " << d.modelId;
        if (!d.model.empty())
          os << " (" << d.model << ")";
        break;
      case DeviceKind::NVSwitch:
        os << "  " << d.chips << " chip(s), NVLink" << d.generation
           << ", NVLS reduction: " << (d.reductionCapable ? "yes" : "no");
        break;
      case DeviceKind::PCIeSwitch:
        if (d.generation)
          os << "  gen" << d.generation;
        break;
      case DeviceKind::NetSwitch:
        break;
      case DeviceKind::Process:
        os << "  rank " << d.index << " (a process)";
        break;
      }
      if (d.numa >= 0 && kind != DeviceKind::CPU)
        os << "  numa " << d.numa;
      if (!d.busId.empty())
        os << "  [" << d.busId << "]";
      if (kind == DeviceKind::GPU) {
        if (std::optional<unsigned> nic = topology.getNearestNIC(index)) {
          Path path = topology.getPath(topology.getDeviceId(0, index),
                                       topology.getDeviceId(0, *nic));
          os << "  nic " << graph.getDevice(*nic).name << " ("
             << stringifyPathKind(path.kind) << ", "
             << formatBandwidth(path.bandwidthGBps) << ")";
        }
      }
      os << "\n";
    }
  };
  section(DeviceKind::GPU, "gpus");
  section(DeviceKind::Process, "processes");
  section(DeviceKind::NIC, "nics");
  section(DeviceKind::CPU, "cpus");
  section(DeviceKind::NVSwitch, "nvswitch");
  section(DeviceKind::PCIeSwitch, "pcie switches");
  if (graph.getNumLinks()) {
    os << "links:\n";
    for (const Link &link : graph.getLinks())
      os << "  " << graph.getDevice(link.a).name << " - "
         << graph.getDevice(link.b).name << "  " << describeLink(link) << "  "
         << formatBandwidth(link.bandwidthGBps)
         << llvm::formatv("  {0:F2} us\n", link.latencyUs);
  }
  if (!topology.getNotes().empty()) {
    os << "notes:\n";
    for (const std::string &note : topology.getNotes())
      os << "  - " << note << "\n";
  }
}

/// nvidia-smi's class of a path. NCCL calls every path through the CPU's
/// host bridge PHB; nvidia-smi says NODE when the two ends hang off
/// different PCIe switches under that CPU, PHB when one of them is on the
/// host bridge itself.
static std::string matrixCell(const Topology &topology, const Path &path) {
  if (path.kind == PathKind::Local)
    return "X";
  if (path.kind == PathKind::NVLink || path.kind == PathKind::NVSwitch)
    return "NV" + std::to_string(path.nvlinks);
  if (path.kind == PathKind::PHB && path.hops.size() >= 2) {
    auto end = [&](const PathHop &hop, bool first) {
      LinkRef link = topology.getLink(hop.link);
      DeviceId to = hop.reverse ? link.a : link.b;
      DeviceId from = hop.reverse ? link.b : link.a;
      return topology.getDevice(first ? to : from).kind;
    };
    if (end(path.hops.front(), true) == DeviceKind::PCIeSwitch &&
        end(path.hops.back(), false) == DeviceKind::PCIeSwitch)
      return "NODE";
  }
  return stringifyPathKind(path.kind).str();
}

/// The devices of `kind` in device-number order (NCCL's XML lists NICs as
/// PCIe finds them).
static SmallVector<unsigned> getDevicesInOrder(const NodeGraph &graph,
                                               DeviceKind kind) {
  SmallVector<unsigned> devices(graph.getDevicesOfKind(kind));
  llvm::stable_sort(devices, [&](unsigned a, unsigned b) {
    return graph.getDevice(a).index < graph.getDevice(b).index;
  });
  return devices;
}

/// nvidia-smi's name of a device: GPU0, NIC3 (CPU-process ranks: RANK0),
/// numbered as comm names it (a file's GPUs 4 to 7 are GPU4 to GPU7, as
/// `show` and `path` call them gpu4 to gpu7), else by `ordinal`.
static std::string smiName(const Device &device, unsigned ordinal) {
  StringRef prefix = device.kind == DeviceKind::GPU   ? "GPU"
                     : device.kind == DeviceKind::NIC ? "NIC"
                                                      : "RANK";
  return (prefix + Twine(device.index >= 0 ? device.index : ordinal)).str();
}

void mlir::comm::printTopologyMatrix(const Topology &topology, uint64_t node,
                                     llvm::raw_ostream &os) {
  // nvidia-smi topo -m's layout: tab-separated, upper-case names, the
  // affinity columns, the legend and the NIC legend; comm's bandwidth
  // matrix follows as a second table.
  const NodeGraph &graph = topology.getNode();
  SmallVector<unsigned> endpoints;
  SmallVector<std::string> names;
  for (DeviceKind kind :
       {DeviceKind::GPU, DeviceKind::Process, DeviceKind::NIC}) {
    unsigned ordinal = 0;
    for (unsigned device : getDevicesInOrder(graph, kind)) {
      endpoints.push_back(device);
      names.push_back(smiName(graph.getDevice(device), ordinal++));
    }
  }
  auto cpuOf = [&](const Device &device) -> const Device * {
    for (unsigned cpu : graph.getDevicesOfKind(DeviceKind::CPU))
      if (graph.getDevice(cpu).numa == device.numa)
        return &graph.getDevice(cpu);
    return nullptr;
  };
  auto path = [&](unsigned from, unsigned to) {
    return topology.getPath(topology.getDeviceId(node, from),
                            topology.getDeviceId(node, to));
  };
  if (topology.getNumNodes() > 1)
    os << "machine n" << node << "\n";
  for (const std::string &name : names)
    os << "\t" << name;
  os << "\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n";
  for (auto [row, from] : llvm::enumerate(endpoints)) {
    const Device &device = graph.getDevice(from);
    os << names[row];
    for (unsigned to : endpoints)
      os << "\t " << matrixCell(topology, path(from, to));
    if (device.kind == DeviceKind::NIC) {
      os << "\n";
      continue;
    }
    const Device *cpu = cpuOf(device);
    os << "\t" << (cpu && !cpu->cpuAffinity.empty() ? cpu->cpuAffinity : "N/A")
       << "\t" << (device.numa >= 0 ? std::to_string(device.numa) : "N/A")
       << "\t\tN/A\n";
  }
  os << "\nLegend:\n\n"
        "  X    = Self\n"
        "  SYS  = Connection traversing PCIe as well as the SMP interconnect "
        "between NUMA nodes (e.g., QPI/UPI)\n"
        "  NODE = Connection traversing PCIe as well as the interconnect "
        "between PCIe Host Bridges within a NUMA node\n"
        "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge "
        "(typically the CPU)\n"
        "  PXB  = Connection traversing multiple PCIe bridges (without "
        "traversing the PCIe Host Bridge)\n"
        "  PIX  = Connection traversing at most a single PCIe bridge\n"
        "  NV#  = Connection traversing a bonded set of # NVLinks\n"
        "  NVB  = (comm) NVLink through an intermediate GPU\n"
        "  C2C  = (comm) chip-to-chip link to the CPU\n"
        "  SHM  = (comm) between processes through shared host memory\n"
        "  DIS  = (comm) no path\n";
  bool nics = false;
  for (auto [index, device] : llvm::enumerate(endpoints))
    if (graph.getDevice(device).kind == DeviceKind::NIC) {
      if (!nics)
        os << "\nNIC Legend:\n\n";
      nics = true;
      const Device &nic = graph.getDevice(device);
      os << "  " << names[index] << ": "
         << (nic.model.empty() ? nic.name : nic.model) << "\n";
    }
  os << "\nbottleneck bandwidth (GB/s, per direction; comm):\n";
  for (const std::string &name : names)
    os << "\t" << name;
  os << "\n";
  for (auto [row, from] : llvm::enumerate(endpoints)) {
    os << names[row];
    for (unsigned to : endpoints) {
      Path p = path(from, to);
      os << "\t "
         << (p.kind == PathKind::Local ? std::string("-")
             : !p.isConnected()
                 ? std::string("none")
                 : llvm::formatv("{0:F1}", p.bandwidthGBps).str());
    }
    os << "\n";
  }
}

void mlir::comm::printTopologyPath(const Topology &topology, const Path &path,
                                   llvm::raw_ostream &os) {
  os << "path " << topology.getDeviceName(path.src) << " -> "
     << topology.getDeviceName(path.dst) << ": " << stringifyPathKind(path.kind)
     << " (" << describePathKind(path.kind) << ")";
  if (path.nvlinks)
    os << ", " << path.nvlinks << " NVLink lanes";
  os << "\n";
  if (!path.isConnected() || path.kind == PathKind::Local)
    return;
  LinkRef bottleneck = topology.getLink(path.bottleneck);
  os << "  bottleneck: " << formatBandwidth(path.bandwidthGBps) << " at "
     << topology.getDeviceName(bottleneck.a) << " - "
     << topology.getDeviceName(bottleneck.b) << " ("
     << describeLink(*bottleneck.props) << ")\n";
  os << llvm::formatv("  latency: {0:F2} us\n", path.latencyUs);
  if (path.kind == PathKind::Net)
    os << "  network switches: " << path.switches
       << "; GPUDirect RDMA: " << (path.gpuDirect ? "yes" : "no") << "\n";
  os << "  hops:\n";
  for (const PathHop &hop : path.hops) {
    LinkRef link = topology.getLink(hop.link);
    DeviceId from = hop.reverse ? link.b : link.a;
    DeviceId to = hop.reverse ? link.a : link.b;
    os << "    " << topology.getDeviceName(from) << " -> "
       << topology.getDeviceName(to) << "  " << describeLink(*link.props)
       << "  " << formatBandwidth(link.props->bandwidthGBps) << "  link #"
       << hop.link << "\n";
  }
}

void mlir::comm::printSharedLinks(const Topology &topology,
                                  ArrayRef<Path> paths, llvm::raw_ostream &os) {
  auto shared = Topology::getSharedLinks(paths);
  if (shared.empty()) {
    os << "shared links: none\n";
    return;
  }
  os << "shared links:\n";
  for (auto &[directed, count] : shared) {
    LinkRef link = topology.getLink(directed.first);
    DeviceId from = directed.second ? link.b : link.a;
    DeviceId to = directed.second ? link.a : link.b;
    os << "  " << topology.getDeviceName(from) << " -> "
       << topology.getDeviceName(to) << "  " << describeLink(*link.props)
       << "  " << formatBandwidth(link.props->bandwidthGBps) << "  used by "
       << count << " paths\n";
  }
}

/// A name inside a DOT quoted string: quotes and backslashes escaped (a
/// GPU model or a file's device id may hold either).
static std::string dot(StringRef text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

namespace {
/// Where each device of one machine's drawing goes: rows down the hierarchy
/// (CPUs, PCIe switches by depth, GPUs and NICs, NVSwitch), GPUs and NICs in
/// device order under the switch they hang off, each parent centred over
/// what hangs off it. Graphviz's own layouts reorder nodes within a row to
/// reduce crossings, so comm computes the positions and pins them.
struct DotLayout {
  SmallVector<double> x, y;
  SmallVector<unsigned> row;
  double width = 0, height = 0, step = 0;
  /// Per link: the point a link between two devices of one row with others
  /// between them bends through (off the row: above the CPUs, below the
  /// rest; the farther apart, the deeper), so that it does not run through
  /// the devices between.
  SmallVector<std::optional<double>> bend;
  /// The lowest and highest y of anything drawn (bends included).
  double bottom = 0, top = 0;

  /// Whether a device of the row of `a` and `b` sits between them.
  bool hasBetween(unsigned a, unsigned b) const {
    double lo = std::min(x[a], x[b]), hi = std::max(x[a], x[b]);
    for (unsigned device = 0; device < x.size(); ++device)
      if (row[device] == row[a] && x[device] > lo && x[device] < hi)
        return true;
    return false;
  }
};
} // namespace

static DotLayout layOutMachine(const NodeGraph &graph) {
  unsigned numDevices = graph.getDevices().size();
  SmallVector<SmallVector<unsigned>> neighbours(numDevices);
  for (const Link &link : graph.getLinks()) {
    neighbours[link.a].push_back(link.b);
    neighbours[link.b].push_back(link.a);
  }
  auto kindOf = [&](unsigned device) { return graph.getDevice(device).kind; };
  // PCIe switch depth: 0 under a CPU (or unattached), one more per switch
  // above it.
  constexpr unsigned unset = ~0u;
  SmallVector<unsigned> depth(numDevices, unset);
  SmallVector<unsigned> queue;
  SmallVector<unsigned> switches =
      getDevicesInOrder(graph, DeviceKind::PCIeSwitch);
  for (unsigned sw : switches)
    if (llvm::any_of(neighbours[sw], [&](unsigned other) {
          return kindOf(other) == DeviceKind::CPU;
        }))
      depth[sw] = 0, queue.push_back(sw);
  for (size_t i = 0; i < queue.size(); ++i)
    for (unsigned other : neighbours[queue[i]])
      if (kindOf(other) == DeviceKind::PCIeSwitch && depth[other] == unset)
        depth[other] = depth[queue[i]] + 1, queue.push_back(other);
  unsigned maxDepth = 0;
  for (unsigned sw : switches) {
    if (depth[sw] == unset)
      depth[sw] = 0;
    maxDepth = std::max(maxDepth, depth[sw]);
  }
  unsigned endpointRow = switches.empty() ? 1 : maxDepth + 2;
  DotLayout layout;
  layout.row.assign(numDevices, endpointRow);
  for (unsigned device = 0; device < numDevices; ++device) {
    switch (kindOf(device)) {
    case DeviceKind::CPU:
      layout.row[device] = 0;
      break;
    case DeviceKind::PCIeSwitch:
      layout.row[device] = 1 + depth[device];
      break;
    case DeviceKind::NVSwitch:
    case DeviceKind::NetSwitch:
      layout.row[device] = endpointRow + 1;
      break;
    default:
      break;
    }
  }
  // The lowest switch (or else the CPU) each endpoint hangs off orders the
  // endpoint row: CPUs and switches in a depth-first walk, so that a nested
  // switch's devices sit beside its siblings'.
  SmallVector<unsigned> walk;
  llvm::SmallDenseSet<unsigned> seen;
  std::function<void(unsigned)> visit = [&](unsigned parent) {
    if (!seen.insert(parent).second)
      return;
    walk.push_back(parent);
    for (unsigned other : neighbours[parent])
      if (kindOf(other) == DeviceKind::PCIeSwitch &&
          layout.row[other] == layout.row[parent] + 1)
        visit(other);
  };
  for (unsigned cpu : getDevicesInOrder(graph, DeviceKind::CPU))
    visit(cpu);
  for (unsigned sw : switches)
    visit(sw);
  llvm::DenseMap<unsigned, unsigned> group;
  for (auto [position, parent] : llvm::enumerate(walk))
    for (unsigned other : neighbours[parent])
      if (layout.row[other] == endpointRow &&
          kindOf(other) != DeviceKind::CPU) {
        auto [it, inserted] = group.try_emplace(other, position);
        if (!inserted && layout.row[walk[it->second]] < layout.row[parent])
          it->second = position;
      }
  SmallVector<unsigned> endpoints = getDevicesInOrder(graph, DeviceKind::GPU);
  llvm::append_range(endpoints, getDevicesInOrder(graph, DeviceKind::Process));
  llvm::append_range(endpoints, getDevicesInOrder(graph, DeviceKind::NIC));
  llvm::stable_sort(endpoints, [&](unsigned a, unsigned b) {
    return group.lookup_or(a, unset) < group.lookup_or(b, unset);
  });
  // Spacing in inches: the widest label of the row (Helvetica 14 pt is
  // about 0.1 in per character) and a gap.
  size_t widest = 0;
  for (unsigned device : endpoints) {
    const Device &d = graph.getDevice(device);
    size_t second = d.kind == DeviceKind::GPU && d.described ? d.model.size()
                    : d.kind == DeviceKind::NIC              ? 10
                                                             : 0;
    widest = std::max({widest, d.name.size(), second});
  }
  double step = std::max(1.2, 0.115 * widest + 0.6);
  constexpr double groupGap = 0.4, rowStep = 1.4;
  layout.x.assign(numDevices, 0);
  layout.y.assign(numDevices, 0);
  double next = 0;
  for (auto [i, device] : llvm::enumerate(endpoints)) {
    if (i && group.lookup_or(device, unset) !=
                 group.lookup_or(endpoints[i - 1], unset))
      next += groupGap;
    layout.x[device] = next;
    next += step;
  }
  // Every other row from the bottom up (NVSwitch over everything it links)
  // then top down: a parent over the mean of its children, then pushed
  // apart in its row where two would overlap.
  unsigned numRows = endpointRow + 2;
  SmallVector<SmallVector<unsigned>> rows(numRows);
  for (unsigned device = 0; device < numDevices; ++device)
    rows[layout.row[device]].push_back(device);
  auto placeRow = [&](unsigned r, bool below) {
    SmallVector<std::pair<double, unsigned>> wanted;
    for (unsigned device : rows[r]) {
      double sum = 0;
      unsigned count = 0;
      for (unsigned other : neighbours[device])
        if (below ? layout.row[other] > r : layout.row[other] == endpointRow)
          sum += layout.x[other], ++count;
      wanted.push_back({count ? sum / count : next, device});
      if (!count)
        next += step;
    }
    llvm::stable_sort(wanted,
                      [](auto &a, auto &b) { return a.first < b.first; });
    double left = -1e9;
    for (auto [want, device] : wanted) {
      layout.x[device] = std::max(want, left + step);
      left = layout.x[device];
    }
  };
  for (unsigned r = endpointRow + 1; r < numRows; ++r)
    placeRow(r, /*below=*/false);
  for (unsigned r = endpointRow; r-- > 0;)
    placeRow(r, /*below=*/true);
  double minX = 0, maxX = 0;
  unsigned maxRow = 0;
  for (unsigned device = 0; device < numDevices; ++device) {
    minX = std::min(minX, layout.x[device]);
    maxX = std::max(maxX, layout.x[device]);
    maxRow = std::max(maxRow, layout.row[device]);
  }
  // Rows from the top; the NVSwitch row sits deep enough that its links,
  // fanning out to a wide row of GPUs, clear the GPUs beside the one they
  // leave.
  auto top = [&](unsigned r) {
    if (r <= endpointRow)
      return r * rowStep;
    double drop = rowStep;
    for (unsigned device : rows[r])
      for (unsigned other : neighbours[device])
        drop =
            std::max(drop, 0.25 * std::abs(layout.x[other] - layout.x[device]));
    return endpointRow * rowStep + drop;
  };
  layout.height = top(maxRow);
  for (unsigned device = 0; device < numDevices; ++device) {
    layout.x[device] -= minX;
    layout.y[device] = layout.height - top(layout.row[device]);
  }
  layout.step = step;
  layout.width = maxX - minX;
  layout.top = layout.height;
  for (const Link &link : graph.getLinks()) {
    std::optional<double> &bend = layout.bend.emplace_back();
    if (layout.row[link.a] != layout.row[link.b] ||
        !layout.hasBetween(link.a, link.b))
      continue;
    double span = std::abs(layout.x[link.a] - layout.x[link.b]) / step;
    double y = layout.y[link.a];
    if (layout.row[link.a] == 0) {
      bend = y + std::min(0.45, 0.25 + 0.05 * span);
      layout.top = std::max(layout.top, *bend);
    } else {
      bend = y - std::min(2.0, 0.45 + 0.15 * span);
      layout.bottom = std::min(layout.bottom, *bend);
    }
  }
  return layout;
}

void mlir::comm::printTopologyDot(const Topology &topology,
                                  llvm::raw_ostream &os) {
  // Laid out to be read at a glance: the machine as a box (one of N in a
  // cluster), CPUs on top, PCIe switches below them, then the GPUs and NICs
  // in device order, the NVSwitch at the bottom; links unlabeled (their
  // text is a tooltip) and told apart by a legend of their kinds. The
  // positions are comm's (pinned, drawn by neato whatever the command).
  const NodeGraph &graph = topology.getNode();
  DotLayout layout = layOutMachine(graph);
  auto pos = [](double x, double y) {
    return llvm::formatv("\"{0:F2},{1:F2}!\"", x, y).str();
  };
  os << "digraph topology {\n"
        "  graph [layout=neato, splines=line, fontname=\"Helvetica\", "
        "label=\""
     << dot(topology.getName()) << "\", labelloc=t];\n"
     << "  node [fontname=\"Helvetica\", style=filled, margin=\"0.08,0.04\"];\n"
        "  edge [fontname=\"Helvetica\", fontsize=9, dir=none];\n";
  // The machine: a box behind its devices (drawn first).
  constexpr double margin = 0.9;
  os << "  \"comm:machine\" [shape=box, style=rounded, color=gray50, label=\"";
  if (topology.getNumNodes() > 1)
    os << "one machine of " << topology.getNumNodes();
  else
    os << "machine";
  os << "\", labelloc=t, fixedsize=true, width="
     << llvm::formatv("{0:F2}, height={1:F2}", layout.width + 2 * margin,
                      layout.top - layout.bottom + 2 * margin)
     << ", pos=" << pos(layout.width / 2, (layout.top + layout.bottom) / 2)
     << "];\n";
  auto linkColor = [](const Link &link) -> StringRef {
    if (link.kind == LinkKind::NVLink)
      return "darkgreen";
    if (link.kind == LinkKind::CPUInterconnect)
      return "blue";
    if (link.kind == LinkKind::C2C)
      return "purple";
    return "black";
  };
  for (auto [id, d] : llvm::enumerate(graph.getDevices())) {
    StringRef shape = "box", color = "white";
    std::string label = dot(d.name);
    switch (d.kind) {
    case DeviceKind::GPU:
      color = d.described ? "palegreen" : "gray90";
      if (d.described)
        label += "\\n" + dot(d.model);
      break;
    case DeviceKind::CPU:
      color = "lightskyblue";
      shape = "box3d";
      break;
    case DeviceKind::PCIeSwitch:
      color = "khaki";
      shape = "ellipse";
      break;
    case DeviceKind::NVSwitch:
      color = "orange";
      shape = "hexagon";
      label += llvm::formatv("\\n{0} chips", d.chips).str();
      break;
    case DeviceKind::NIC:
      color = "plum";
      if (d.speedGbit)
        label += "\\n" + num(d.speedGbit) + " Gbit/s";
      break;
    case DeviceKind::NetSwitch:
      break;
    case DeviceKind::Process:
      color = "palegreen";
      shape = "ellipse";
      break;
    }
    os << "  \"" << dot(d.name) << "\" [shape=" << shape
       << ", fillcolor=" << color << ", label=\"" << label
       << "\", pos=" << pos(layout.x[id], layout.y[id]) << "];\n";
  }
  // Links: colour and width by kind and bandwidth; the text as a tooltip.
  std::map<std::string, std::pair<std::string, StringRef>> kinds;
  unsigned bends = 0, linkIndex = 0;
  for (const Link &link : graph.getLinks()) {
    std::string text = (describeLink(link) + ", " +
                        llvm::formatv("{0:F1}", link.bandwidthGBps) + " GB/s")
                           .str();
    kinds.try_emplace(text, text, linkColor(link));
    unsigned upper = link.a, lower = link.b;
    if (layout.row[upper] > layout.row[lower])
      std::swap(upper, lower);
    std::string style =
        llvm::formatv(
            "color={0}, penwidth={1:F1}, tooltip=\"{2}\"", linkColor(link),
            1.0 + std::log2(1.0 + link.bandwidthGBps) / 3.0, dot(text))
            .str();
    std::string from = dot(graph.getDevice(upper).name);
    std::string to = dot(graph.getDevice(lower).name);
    if (std::optional<double> y = layout.bend[linkIndex++]) {
      std::string bend = llvm::formatv("comm:bend{0}", bends++).str();
      os << "  \"" << bend << "\" [shape=point, width=0, label=\"\", pos="
         << pos((layout.x[upper] + layout.x[lower]) / 2, *y) << "];\n";
      os << "  \"" << from << "\" -> \"" << bend << "\" [" << style << "];\n";
      os << "  \"" << bend << "\" -> \"" << to << "\" [" << style << "];\n";
      continue;
    }
    os << "  \"" << from << "\" -> \"" << to << "\" [" << style << "];\n";
  }
  double below = layout.bottom - margin - 1.0;
  if (topology.getNumNodes() > 1) {
    os << "  \"comm:fabric\" [shape=box, style=\"filled,rounded\", "
          "fillcolor=lightgray, label=\""
       << stringifyFabricKind(topology.getFabric().kind) << " fabric\\n"
       << topology.getNumNodes()
       << " machines like this one\", pos=" << pos(layout.width / 2, below)
       << "];\n";
    // One line from the machine (each NIC's would cross the drawing).
    SmallVector<unsigned> nics = getDevicesInOrder(graph, DeviceKind::NIC);
    if (!nics.empty()) {
      double speed = graph.getDevice(nics.front()).speedGbit;
      bool same = llvm::all_of(nics, [&](unsigned nic) {
        return graph.getDevice(nic).speedGbit == speed;
      });
      os << "  \"comm:machine\" -> \"comm:fabric\" [style=dashed, "
            "color=gray40, label=\""
         << plural(nics.size(), "NIC");
      if (same && speed)
        os << ", " << num(speed) << " Gbit/s"
           << (nics.size() > 1 ? " each" : "");
      os << "\"];\n";
    }
  }
  // The legend: each kind of link with its colour, right of the machine.
  if (!kinds.empty()) {
    os << "  \"comm:legend\" [shape=plaintext, style=\"\", label=<<table "
          "border=\"0\" cellborder=\"0\" cellspacing=\"2\">"
          "<tr><td align=\"left\"><b>links</b></td></tr>";
    for (const auto &[text, entry] : kinds)
      os << "<tr><td align=\"left\"><font color=\"" << entry.second
         << "\">&#9473;&#9473;</font> " << escapeXml(entry.first)
         << "</td></tr>";
    os << "</table>>, pos=" << pos(layout.width + margin + 1.8, layout.top)
       << "];\n";
  }
  os << "}\n";
}
