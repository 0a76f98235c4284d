//===- Printer.cpp - human-readable views of a topology ---------*- C++ -*-===//

#include "comm/Topology/TopologyPrinter.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>

#include <cmath>

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
    return link.generation
               ? llvm::formatv("pcie gen{0} x{1}", link.generation, link.width)
                     .str()
               : std::string("pcie");
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
          os << "  PCI slot only (architecture, memory, NVLink unknown)";
        } else {
          os << "  " << d.model << " sm" << d.computeCapability << "  "
             << num(d.memoryGB) << " GB at " << num(d.memoryGBps) << " GB/s"
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

/// nvidia-smi's name of a device: GPU0, NIC3 (CPU-process ranks: RANK0).
static std::string smiName(const Device &device, unsigned ordinal) {
  StringRef prefix = device.kind == DeviceKind::GPU   ? "GPU"
                     : device.kind == DeviceKind::NIC ? "NIC"
                                                      : "RANK";
  return (prefix + Twine(ordinal)).str();
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

void mlir::comm::printTopologyDot(const Topology &topology,
                                  llvm::raw_ostream &os) {
  // Laid out to be read at a glance: the machine as a box (one of N in a
  // cluster), CPUs on top, PCIe switches below them, then the GPUs and NICs
  // in device order, the NVSwitch at the bottom; links unlabeled (their
  // text is a tooltip) and told apart by a legend of their kinds.
  const NodeGraph &graph = topology.getNode();
  // A digraph drawn undirected: each link points down the hierarchy (CPU,
  // PCIe switch, GPU or NIC, NVSwitch), which is what ranks the rows.
  os << "digraph topology {\n"
        "  graph [rankdir=TB, fontname=\"Helvetica\", label=\""
     << dot(topology.getName()) << "\", labelloc=t, nodesep=0.25];\n"
     << "  node [fontname=\"Helvetica\", style=filled];\n"
        "  edge [fontname=\"Helvetica\", fontsize=9, dir=none];\n";
  auto level = [&](unsigned device) {
    switch (graph.getDevice(device).kind) {
    case DeviceKind::CPU:
      return 0;
    case DeviceKind::PCIeSwitch:
      return 1;
    case DeviceKind::NVSwitch:
      return 3;
    default:
      return 2;
    }
  };
  os << "  subgraph cluster_machine {\n    label=\"";
  if (topology.getNumNodes() > 1)
    os << "one machine of " << topology.getNumNodes();
  else
    os << "machine";
  os << "\";\n    style=rounded;\n";
  auto linkColor = [](const Link &link) -> StringRef {
    if (link.kind == LinkKind::NVLink)
      return "darkgreen";
    if (link.kind == LinkKind::CPUInterconnect)
      return "blue";
    if (link.kind == LinkKind::C2C)
      return "purple";
    return "black";
  };
  for (const Device &d : graph.getDevices()) {
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
    os << "    \"" << dot(d.name) << "\" [shape=" << shape
       << ", fillcolor=" << color << ", label=\"" << label << "\"];\n";
  }
  // One row per level, in device order (invisible edges keep the order).
  auto row = [&](ArrayRef<unsigned> devices) {
    if (devices.empty())
      return;
    os << "    { rank=same;";
    for (unsigned device : devices)
      os << " \"" << dot(graph.getDevice(device).name) << "\";";
    os << " }\n";
    for (size_t i = 1; i < devices.size(); ++i)
      os << "    \"" << dot(graph.getDevice(devices[i - 1]).name) << "\" -> \""
         << dot(graph.getDevice(devices[i]).name) << "\" [style=invis];\n";
  };
  auto ordered = [&](DeviceKind kind) {
    return getDevicesInOrder(graph, kind);
  };
  SmallVector<unsigned> switches = ordered(DeviceKind::PCIeSwitch);
  row(ordered(DeviceKind::CPU));
  row(switches);
  // GPUs and NICs under the switch they hang off, so that links do not
  // cross: gpu0 gpu1 nic0 nic1 | gpu2 gpu3 nic2 nic3 | ...
  llvm::DenseMap<unsigned, unsigned> switchOf;
  for (const Link &link : graph.getLinks())
    for (auto [end, other] : {std::pair(link.a, link.b), {link.b, link.a}})
      if (graph.getDevice(other).kind == DeviceKind::PCIeSwitch)
        switchOf.try_emplace(end,
                             llvm::find(switches, other) - switches.begin());
  SmallVector<unsigned> endpoints = ordered(DeviceKind::GPU);
  llvm::append_range(endpoints, ordered(DeviceKind::Process));
  llvm::append_range(endpoints, ordered(DeviceKind::NIC));
  llvm::stable_sort(endpoints, [&](unsigned a, unsigned b) {
    return switchOf.lookup_or(a, ~0u) < switchOf.lookup_or(b, ~0u);
  });
  row(endpoints);
  row(ordered(DeviceKind::NVSwitch));
  // Links: colour and width by kind and bandwidth; the text as a tooltip.
  std::map<std::string, std::pair<std::string, StringRef>> kinds;
  for (const Link &link : graph.getLinks()) {
    std::string text = (describeLink(link) + ", " +
                        llvm::formatv("{0:F1}", link.bandwidthGBps) + " GB/s")
                           .str();
    kinds.try_emplace(text, text, linkColor(link));
    unsigned upper = link.a, lower = link.b;
    if (level(upper) > level(lower))
      std::swap(upper, lower);
    os << "    \"" << dot(graph.getDevice(upper).name) << "\" -> \""
       << dot(graph.getDevice(lower).name) << "\" [color=" << linkColor(link)
       << (level(upper) == level(lower) ? ", constraint=false" : "")
       << ", penwidth="
       << llvm::formatv("{0:F1}",
                        1.0 + std::log2(1.0 + link.bandwidthGBps) / 3.0)
       << ", tooltip=\"" << dot(text) << "\"];\n";
  }
  os << "  }\n";
  if (topology.getNumNodes() > 1) {
    os << "  \"fabric\" [shape=box, style=\"filled,rounded\", "
          "fillcolor=lightgray, label=\""
       << stringifyFabricKind(topology.getFabric().kind) << " fabric\\n"
       << topology.getNumNodes() << " machines like this one\"];\n";
    for (unsigned nic : graph.getDevicesOfKind(DeviceKind::NIC))
      os << "  \"" << dot(graph.getDevice(nic).name)
         << "\" -> \"fabric\" [style=dashed, color=gray40];\n";
  }
  // The legend: each kind of link with its colour.
  if (!kinds.empty()) {
    os << "  \"legend\" [shape=plaintext, style=\"\", label=<<table "
          "border=\"0\" cellborder=\"0\" cellspacing=\"2\">"
          "<tr><td align=\"left\"><b>links</b></td></tr>";
    for (const auto &[text, entry] : kinds)
      os << "<tr><td align=\"left\"><font color=\"" << entry.second
         << "\">&#9473;&#9473;</font> " << escapeXml(entry.first)
         << "</td></tr>";
    os << "</table>>];\n";
  }
  os << "}\n";
}
