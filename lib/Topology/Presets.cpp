//===- Presets.cpp - built-in machine topologies ----------------*- C++ -*-===//
//
// The machines comm knows without a file. Every figure and its source is in
// docs/Topology.md; bandwidths follow the conventions of Topology.h (usable
// GB/s per direction, NCCL's per-lane figures).
//
//===----------------------------------------------------------------------===//

#include "comm/Topology/Topology.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::comm;

namespace {
/// Small helpers to describe a machine.
class MachineBuilder {
public:
  explicit MachineBuilder(NodeGraph &graph) : graph(graph) {}

  unsigned cpu(int numa, StringRef vendor, int family, int model,
               StringRef name) {
    Device d;
    d.kind = DeviceKind::CPU;
    d.name = llvm::formatv("cpu{0}", numa).str();
    d.index = d.numa = numa;
    d.vendor = vendor.str();
    d.arch = "x86_64";
    d.familyId = family;
    d.modelId = model;
    d.model = name.str();
    return graph.addDevice(std::move(d));
  }

  unsigned pcieSwitch(int numa, unsigned generation) {
    Device d;
    d.kind = DeviceKind::PCIeSwitch;
    d.index = numSwitches;
    d.name = llvm::formatv("pcie{0}", numSwitches++).str();
    d.numa = numa;
    d.generation = generation;
    return graph.addDevice(std::move(d));
  }

  unsigned gpu(int index, int numa, int cc, StringRef model, double memoryGB,
               double memoryGBps) {
    Device d;
    d.kind = DeviceKind::GPU;
    d.name = llvm::formatv("gpu{0}", index).str();
    d.index = index;
    d.numa = numa;
    d.computeCapability = cc;
    d.model = model.str();
    d.memoryGB = memoryGB;
    d.memoryGBps = memoryGBps;
    d.memoryKnown = true;
    d.gpuDirect = true;
    return graph.addDevice(std::move(d));
  }

  unsigned nic(int index, int numa, double gbit, NetworkKind network,
               StringRef model) {
    Device d;
    d.kind = DeviceKind::NIC;
    d.name = llvm::formatv("nic{0}", index).str();
    d.index = index;
    d.numa = numa;
    d.speedGbit = gbit;
    d.network = network;
    d.model = model.str();
    d.gpuDirect = true;
    return graph.addDevice(std::move(d));
  }

  unsigned nvswitch(int chips, unsigned generation, bool reduction) {
    Device d;
    d.kind = DeviceKind::NVSwitch;
    d.name = "nvswitch";
    d.index = 0;
    d.chips = chips;
    d.generation = generation;
    d.reductionCapable = reduction;
    return graph.addDevice(std::move(d));
  }

  void pcie(unsigned a, unsigned b, unsigned generation, unsigned width) {
    Link l;
    l.a = a;
    l.b = b;
    l.kind = LinkKind::PCIe;
    l.generation = generation;
    l.width = width;
    l.bandwidthGBps = getPCIeBandwidth(generation, width);
    l.latencyUs = kPCIeHopLatencyUs;
    graph.addLink(l);
  }

  void nvlink(unsigned a, unsigned b, unsigned lanes, int cc) {
    Link l;
    l.a = a;
    l.b = b;
    l.kind = LinkKind::NVLink;
    l.count = lanes;
    l.generation = getNVLinkGeneration(cc);
    l.bandwidthGBps = lanes * getNVLinkLaneBandwidth(cc);
    l.latencyUs = kNVLinkHopLatencyUs;
    graph.addLink(l);
  }

  void socketLink(unsigned a, unsigned b) {
    const Device &d = graph.getDevice(a);
    Link l;
    l.a = a;
    l.b = b;
    l.kind = LinkKind::CPUInterconnect;
    l.bandwidthGBps =
        getCPUInterconnectBandwidth(d.vendor, d.arch, d.familyId, d.modelId);
    l.latencyUs = kCPUInterconnectLatencyUs;
    graph.addLink(l);
  }

private:
  NodeGraph &graph;
  int numSwitches = 0;
};

struct GpuSpec {
  int cc;
  StringRef model;
  double memoryGB, memoryGBps;
};

struct HgxSpec {
  GpuSpec gpu;
  unsigned nvlinkLanes;
  int nvswitchChips;
  bool nvls;
  StringRef cpuVendor, cpuModel;
  int cpuFamily, cpuModelId;
  unsigned pcieGen;
  double nicGbit;
  StringRef nicModel;
};
} // namespace

/// An 8-GPU NVSwitch machine: two sockets, four PCIe switches each holding
/// two GPUs and two NICs, all GPUs on one NVSwitch fabric.
static void buildHgx(NodeGraph &graph, const HgxSpec &spec) {
  MachineBuilder b(graph);
  unsigned cpus[2];
  for (int s = 0; s < 2; ++s)
    cpus[s] = b.cpu(s, spec.cpuVendor, spec.cpuFamily, spec.cpuModelId,
                    spec.cpuModel);
  b.socketLink(cpus[0], cpus[1]);
  unsigned nvs = b.nvswitch(spec.nvswitchChips,
                            getNVLinkGeneration(spec.gpu.cc), spec.nvls);
  for (int sw = 0; sw < 4; ++sw) {
    int numa = sw / 2;
    unsigned pcie = b.pcieSwitch(numa, spec.pcieGen);
    b.pcie(pcie, cpus[numa], spec.pcieGen, 16);
    for (int k = 0; k < 2; ++k) {
      int index = sw * 2 + k;
      unsigned gpu = b.gpu(index, numa, spec.gpu.cc, spec.gpu.model,
                           spec.gpu.memoryGB, spec.gpu.memoryGBps);
      b.pcie(gpu, pcie, spec.pcieGen, 16);
      b.nvlink(gpu, nvs, spec.nvlinkLanes, spec.gpu.cc);
      unsigned nic = b.nic(index, numa, spec.nicGbit, NetworkKind::InfiniBand,
                           spec.nicModel);
      b.pcie(nic, pcie, spec.pcieGen, 16);
    }
  }
}

/// Four PCIe GPUs, two per PCIe switch, one switch per socket, no NVLink,
/// one 100 GbE RoCE NIC.
static void buildPcie4Gpu(NodeGraph &graph) {
  MachineBuilder b(graph);
  unsigned cpus[2];
  for (int s = 0; s < 2; ++s)
    cpus[s] = b.cpu(s, "GenuineIntel", 6, 106, "Xeon Gold 6338");
  b.socketLink(cpus[0], cpus[1]);
  for (int sw = 0; sw < 2; ++sw) {
    unsigned pcie = b.pcieSwitch(sw, 4);
    b.pcie(pcie, cpus[sw], 4, 16);
    for (int k = 0; k < 2; ++k) {
      unsigned gpu = b.gpu(sw * 2 + k, sw, 89, "L40S-48GB", 48, 864);
      b.pcie(gpu, pcie, 4, 16);
    }
    if (sw == 0) {
      unsigned nic =
          b.nic(0, 0, 100, NetworkKind::RoCE, "ConnectX-6 Dx 100GbE");
      b.pcie(nic, pcie, 4, 16);
    }
  }
}

/// The machine comm's CPU backend runs on: MPI ranks as processes of one
/// machine, each joined to the CPU's memory by a shared-memory link. The
/// link figures are the fastest rates and the smallest latency the runtime
/// reached on 4 ranks of a 2-core machine (bench/algorithms, docs/Topology.md),
/// so that the lower bound stays below every measured time; the collectives'
/// times come from the measured host profile (CostModel.h).
/// The ranks of `host`, the machine the demo and the tests run on.
constexpr unsigned kHostRanks = 4;

/// The rate at which a process copies memory, for its local kernels (a
/// pack or unpack costs 3 us + 2 x bytes / rate, getPackTimeUs): the packs
/// of the demo's 520 KiB buckets took 31 to 37 us inside its step on 4
/// ranks of the 2-core development machine (generated code timed around
/// each call, 2026-12-05), which that formula gives at 36 GB/s. (A warm
/// memcpy of 512 KiB alone runs at about 55 GB/s there, 14 GB/s from
/// 4 MiB on.)
constexpr double kHostCopyGBps = 36.0;

static void buildHost(NodeGraph &graph, unsigned ranks) {
  Device cpu;
  cpu.kind = DeviceKind::CPU;
  cpu.name = "cpu0";
  cpu.index = cpu.numa = 0;
  cpu.arch = "x86_64";
  cpu.model = "host CPU (2 cores, shared by the ranks)";
  unsigned socket = graph.addDevice(std::move(cpu));
  for (unsigned rank = 0; rank < ranks; ++rank) {
    Device process;
    process.kind = DeviceKind::Process;
    process.name = llvm::formatv("proc{0}", rank).str();
    process.index = rank;
    process.numa = 0;
    process.memoryGBps = kHostCopyGBps;
    unsigned id = graph.addDevice(std::move(process));
    Link link;
    link.a = id;
    link.b = socket;
    link.kind = LinkKind::SharedMemory;
    link.bandwidthGBps = 4.0;
    link.latencyUs = kSharedMemoryLatencyUs;
    graph.addLink(link);
  }
}

namespace {
struct PresetInfo {
  StringRef name;
  StringRef description;
};
} // namespace

static const PresetInfo kPresets[] = {
    {"dgx-a100", "NVIDIA DGX A100: 8x A100-SXM4-80GB, 6 NVSwitch, 12 NVLink3 "
                 "lanes per GPU, 8x 200G HDR InfiniBand, PCIe Gen4, 2x EPYC "
                 "7742"},
    {"dgx-h100", "NVIDIA DGX H100: 8x H100-SXM5-80GB, 4 NVSwitch, 18 NVLink4 "
                 "lanes per GPU, 8x 400G NDR InfiniBand, PCIe Gen5, 2x Xeon "
                 "8480C"},
    {"hgx-h200", "NVIDIA HGX H200 server: 8x H200-SXM-141GB, 4 NVSwitch, 18 "
                 "NVLink4 lanes per GPU, 8x 400G NDR InfiniBand, PCIe Gen5, 2x "
                 "Xeon 8480+"},
    {"dgx-b200", "NVIDIA DGX B200: 8x B200-180GB, 2 NVSwitch, 18 NVLink5 "
                 "lanes per GPU, 8x 400G NDR InfiniBand, PCIe Gen5, 2x Xeon "
                 "8570"},
    {"pcie-4gpu", "4x L40S-48GB on PCIe Gen4, two per PCIe switch, one switch "
                  "per socket, no NVLink, 1x 100GbE RoCE"},
    {"host", "4 MPI ranks as processes of this machine over shared memory "
             "(the cpu-mpi target; host<N> for N ranks), collectives timed "
             "from the runtime's measurements"},
};

ArrayRef<StringRef> mlir::comm::getTopologyPresetNames() {
  static const StringRef names[] = {"dgx-a100", "dgx-h100",  "hgx-h200",
                                    "dgx-b200", "pcie-4gpu", "host"};
  return names;
}

StringRef mlir::comm::describeTopologyPreset(StringRef name) {
  for (const PresetInfo &info : kPresets)
    if (info.name == name)
      return info.description;
  return {};
}

static bool buildMachine(StringRef name, NodeGraph &graph) {
  if (name == "dgx-a100") {
    buildHgx(graph, {{80, "A100-SXM4-80GB", 80, 2039},
                     12,
                     6,
                     false,
                     "AuthenticAMD",
                     "EPYC 7742",
                     23,
                     49,
                     4,
                     200,
                     "ConnectX-6 HDR"});
    return true;
  }
  if (name == "dgx-h100") {
    buildHgx(graph, {{90, "H100-SXM5-80GB", 80, 3350},
                     18,
                     4,
                     true,
                     "GenuineIntel",
                     "Xeon Platinum 8480C",
                     6,
                     143,
                     5,
                     400,
                     "ConnectX-7 NDR"});
    return true;
  }
  if (name == "hgx-h200") {
    buildHgx(graph, {{90, "H200-SXM-141GB", 141, 4800},
                     18,
                     4,
                     true,
                     "GenuineIntel",
                     "Xeon Platinum 8480+",
                     6,
                     143,
                     5,
                     400,
                     "ConnectX-7 NDR"});
    return true;
  }
  if (name == "dgx-b200") {
    buildHgx(graph, {{100, "B200-180GB", 180, 8000},
                     18,
                     2,
                     true,
                     "GenuineIntel",
                     "Xeon Platinum 8570",
                     6,
                     207,
                     5,
                     400,
                     "ConnectX-7 NDR"});
    return true;
  }
  if (name == "pcie-4gpu") {
    buildPcie4Gpu(graph);
    return true;
  }
  if (name == "host") {
    buildHost(graph, kHostRanks);
    return true;
  }
  return false;
}

/// Splits "dgx-h100x16" into ("dgx-h100", 16); a plain preset gives 1.
static std::pair<StringRef, uint64_t> splitClusterName(StringRef name) {
  size_t x = name.find_last_of('x');
  if (x == StringRef::npos || x + 1 >= name.size())
    return {name, 1};
  uint64_t count;
  if (name.substr(x + 1).getAsInteger(10, count))
    return {name, 1};
  return {name.substr(0, x), count};
}

/// "host" is 4 processes, "host<N>" N of them (UINT64_MAX where N does not
/// fit; the caller checks the range); std::nullopt for other names.
static std::optional<uint64_t> getHostRanks(StringRef name) {
  if (!name.consume_front("host"))
    return std::nullopt;
  if (name.empty())
    return kHostRanks;
  if (!llvm::all_of(name, llvm::isDigit))
    return std::nullopt;
  uint64_t ranks;
  if (name.getAsInteger(10, ranks))
    return UINT64_MAX;
  return ranks;
}

llvm::Expected<std::unique_ptr<Topology>>
mlir::comm::buildTopologyPreset(StringRef name) {
  if (std::optional<uint64_t> ranks = getHostRanks(name)) {
    // The processes and their CPU are the machine's devices.
    constexpr uint64_t kMaxHostRanks = kMaxDevicesPerMachine - 1;
    if (*ranks == 0 || *ranks > kMaxHostRanks)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "preset '" + name +
                                         "' must have between 1 and " +
                                         Twine(kMaxHostRanks) + " processes");
    auto topology = std::make_unique<Topology>();
    topology->setName(name);
    topology->setSource(("preset " + name).str());
    buildHost(topology->getNode(), static_cast<unsigned>(*ranks));
    if (llvm::Error error = topology->finalize())
      return std::move(error);
    return topology;
  }
  auto [machine, count] = splitClusterName(name);
  auto unknown = [&]() {
    std::string known;
    // The closest preset, with the cluster size kept: dgx-h10x4 suggests
    // dgx-h100x4.
    StringRef suffix = name.substr(machine.size());
    StringRef closest;
    unsigned best = 3; // at most two edits away
    for (StringRef preset : getTopologyPresetNames()) {
      known += (known.empty() ? "" : ", ") + preset.str();
      unsigned distance = machine.edit_distance(preset, true, best);
      if (distance < best) {
        best = distance;
        closest = preset;
      }
    }
    std::string hint =
        closest.empty() ? ""
                        : "did you mean '" + (closest + suffix).str() + "'? ";
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "unknown topology preset '" + name + "'; " + hint + "expected one of " +
            known +
            ", a cluster <preset>x<N> (e.g. dgx-h100x4), host<N> (N processes "
            "of this machine), or a .xml/.yaml file");
  };
  if (!llvm::is_contained(getTopologyPresetNames(), machine))
    return unknown();
  if (count == 0 || count > (1u << 20))
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "cluster '" + name + "' must have between 1 and 1048576 nodes");
  auto topology = std::make_unique<Topology>();
  topology->setName(name);
  topology->setSource(("preset " + name).str());
  buildMachine(machine, topology->getNode());
  if (count > 1 || name != machine) {
    Fabric fabric;
    fabric.kind = FabricKind::RailOptimized;
    fabric.network =
        machine == "pcie-4gpu" ? NetworkKind::RoCE : NetworkKind::InfiniBand;
    topology->setNumNodes(count);
    topology->setFabric(fabric);
  }
  if (llvm::Error error = topology->finalize())
    return std::move(error);
  return topology;
}
