//===- Yaml.cpp - comm's YAML topology format -------------------*- C++ -*-===//
//
// Reads and writes the format documented in docs/Topology.md with
// llvm::yaml::IO. Syntax and type errors, and integers out of their range,
// come from the YAML reader with file:line:col at the value; semantic
// errors (unknown kinds, dangling link ends, non-positive bandwidths) name
// the line of the offending entry.
//
//===----------------------------------------------------------------------===//

#include "comm/Support/InputChecks.h"
#include "comm/Support/YamlInput.h"
#include "comm/Topology/Topology.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLTraits.h"

#include <set>

#include <cmath>

using namespace mlir;
using namespace mlir::comm;

namespace {

/// A double printed with enough digits to read back the same value.
struct Real {
  double value = 0;
};

/// A string the export quotes wherever YAML would read it otherwise: ids,
/// names and models come from NCCL XML files and may hold ',', ':' or
/// brackets, which end a scalar in the flow mappings the export writes.
struct Text : std::string {
  Text() = default;
  Text(const std::string &text) : std::string(text) {}
  Text(const char *text) : std::string(text) {}
};

/// An integer key with the range its value must lie in (Topology.h).
struct IntKey {
  const char *name;
  const TopologyIntRange &range;
};
constexpr IntKey kIndexKey{"index", kDeviceIndexRange};
constexpr IntKey kNumaKey{"numa", kNumaRange};
constexpr IntKey kSmKey{"sm", kComputeCapabilityRange};
constexpr IntKey kFamilyKey{"family", kCpuFamilyRange};
constexpr IntKey kModelIdKey{"model_id", kCpuModelRange};
constexpr IntKey kChipsKey{"chips", kNVSwitchChipsRange};
constexpr IntKey kDeviceGenerationKey{"generation", kDeviceGenerationRange};
constexpr IntKey kCountKey{"count", kLaneCountRange};
constexpr IntKey kLinkGenerationKey{"generation", kLinkGenerationRange};
constexpr IntKey kWidthKey{"width", kPCIeWidthRange};
constexpr IntKey kNodesKey{"nodes", kNodesRange};
constexpr TopologyIntRange kNodesPerLeafRange{
    0, kNodesRange.max, "machines of a cluster; 0: the fabric's default"};
constexpr IntKey kNodesPerLeafKey{"nodes_per_leaf", kNodesPerLeafRange};

/// The value of an integer key. Its range is checked as it is read, so
/// that the error points at the value, as YAML's own "invalid number" does,
/// and no value reaches a narrower field to wrap there.
template <const IntKey &key> struct Bounded {
  Bounded(int64_t value = 0) : value(value) {}
  int64_t value;
};

struct YamlDevice {
  Text id;
  std::string kind;
  std::optional<Bounded<kIndexKey>> index;
  std::optional<Bounded<kNumaKey>> numa;
  std::optional<Bounded<kSmKey>> sm;
  std::optional<Bounded<kFamilyKey>> family;
  std::optional<Bounded<kModelIdKey>> modelId;
  std::optional<Bounded<kChipsKey>> chips;
  std::optional<Bounded<kDeviceGenerationKey>> generation;
  std::optional<Text> model, busId, vendor, arch, network, cores;
  std::optional<Real> memoryGB, memoryGBps, speedGbit, latencyUs;
  std::optional<bool> memoryKnown, gdr, described, nvls;
  unsigned line = 0;
};

struct YamlLink {
  Text a, b;
  std::string kind;
  std::optional<Real> bandwidth, latency;
  std::optional<Bounded<kCountKey>> count;
  std::optional<Bounded<kLinkGenerationKey>> generation;
  std::optional<Bounded<kWidthKey>> width;
  std::optional<bool> peer;
  unsigned line = 0;
};

struct YamlFabric {
  std::string kind;
  std::optional<std::string> network;
  std::optional<Real> linkGbit, oversubscription, switchLatencyUs,
      linkLatencyUs;
  std::optional<Bounded<kNodesPerLeafKey>> nodesPerLeaf;
  unsigned line = 0;
};

/// The format version, checked as it is read (the one place it is checked:
/// 'version' is required, and every import reads with a YamlParseContext) so
/// that an unsupported one is reported at its value.
struct FormatVersion {
  int64_t value = 0;
};

struct YamlTopology {
  std::string format;
  FormatVersion version;
  std::optional<Text> name;
  std::optional<Bounded<kNodesKey>> nodes;
  std::optional<YamlFabric> fabric;
  std::vector<YamlDevice> devices;
  std::vector<YamlLink> links;
  std::vector<std::string> notes;
};

} // namespace

LLVM_YAML_IS_SEQUENCE_VECTOR(YamlDevice)
LLVM_YAML_IS_SEQUENCE_VECTOR(YamlLink)

namespace llvm {
namespace yaml {

template <> struct ScalarTraits<Text> {
  static void output(const Text &text, void *context, raw_ostream &os) {
    ScalarTraits<std::string>::output(text, context, os);
  }
  static StringRef input(StringRef scalar, void *context, Text &text) {
    return ScalarTraits<std::string>::input(scalar, context, text);
  }
  static QuotingType mustQuote(StringRef text) {
    if (text.find_first_of(",[]{}#&*!|>'\"%@`:") != StringRef::npos ||
        text != text.trim())
      return QuotingType::Double;
    return needsQuotes(text);
  }
};

template <> struct ScalarTraits<Real> {
  static void output(const Real &real, void *, raw_ostream &os) {
    os << llvm::format("%.15g", real.value);
  }
  static StringRef input(StringRef text, void *, Real &real) {
    if (text.trim().getAsDouble(real.value))
      return "expected a number";
    return {};
  }
  static QuotingType mustQuote(StringRef) { return QuotingType::None; }
};

template <const IntKey &key> struct ScalarTraits<Bounded<key>> {
  static void output(const Bounded<key> &bounded, void *, raw_ostream &os) {
    os << bounded.value;
  }
  static StringRef input(StringRef text, void *context, Bounded<key> &out) {
    StringRef error = ScalarTraits<int64_t>::input(text, context, out.value);
    if (!error.empty() || key.range.contains(out.value))
      return error;
    return reportYamlValue(context,
                           formatTopologyRangeError("'" + Twine(key.name) + "'",
                                                    out.value, key.range),
                           "integer out of range");
  }
  static QuotingType mustQuote(StringRef) { return QuotingType::None; }
};

template <> struct ScalarTraits<FormatVersion> {
  static void output(const FormatVersion &version, void *, raw_ostream &os) {
    os << version.value;
  }
  static StringRef input(StringRef text, void *context, FormatVersion &out) {
    StringRef error = ScalarTraits<int64_t>::input(text, context, out.value);
    if (!error.empty() || out.value == 1)
      return error;
    return reportYamlValue(
        context,
        ("unsupported format version " + Twine(out.value) + "; expected 1")
            .str(),
        "unsupported format version; expected 1");
  }
  static QuotingType mustQuote(StringRef) { return QuotingType::None; }
};

template <> struct MappingTraits<YamlDevice> {
  static void mapping(IO &io, YamlDevice &d) {
    d.line = getYamlLine(io);
    io.mapRequired("id", d.id);
    io.mapRequired("kind", d.kind);
    io.mapOptional("index", d.index);
    io.mapOptional("numa", d.numa);
    io.mapOptional("model", d.model);
    io.mapOptional("bus_id", d.busId);
    io.mapOptional("sm", d.sm);
    io.mapOptional("memory_GB", d.memoryGB);
    io.mapOptional("memory_GBps", d.memoryGBps);
    io.mapOptional("memory_known", d.memoryKnown);
    io.mapOptional("gdr", d.gdr);
    io.mapOptional("described", d.described);
    io.mapOptional("speed_gbit", d.speedGbit);
    io.mapOptional("network", d.network);
    io.mapOptional("latency_us", d.latencyUs);
    io.mapOptional("vendor", d.vendor);
    io.mapOptional("arch", d.arch);
    io.mapOptional("family", d.family);
    io.mapOptional("model_id", d.modelId);
    io.mapOptional("cores", d.cores);
    io.mapOptional("chips", d.chips);
    io.mapOptional("generation", d.generation);
    io.mapOptional("nvls", d.nvls);
  }
  static const bool flow = true;
};

template <> struct MappingTraits<YamlLink> {
  static void mapping(IO &io, YamlLink &l) {
    l.line = getYamlLine(io);
    io.mapRequired("a", l.a);
    io.mapRequired("b", l.b);
    io.mapRequired("kind", l.kind);
    io.mapOptional("bw_GBps", l.bandwidth);
    io.mapOptional("latency_us", l.latency);
    io.mapOptional("count", l.count);
    io.mapOptional("generation", l.generation);
    io.mapOptional("width", l.width);
    io.mapOptional("peer", l.peer);
  }
  static const bool flow = true;
};

template <> struct MappingTraits<YamlFabric> {
  static void mapping(IO &io, YamlFabric &f) {
    f.line = getYamlLine(io);
    io.mapRequired("kind", f.kind);
    io.mapOptional("network", f.network);
    io.mapOptional("link_gbit", f.linkGbit);
    io.mapOptional("nodes_per_leaf", f.nodesPerLeaf);
    io.mapOptional("oversubscription", f.oversubscription);
    io.mapOptional("switch_latency_us", f.switchLatencyUs);
    io.mapOptional("link_latency_us", f.linkLatencyUs);
  }
};

template <> struct MappingTraits<YamlTopology> {
  static void mapping(IO &io, YamlTopology &t) {
    io.mapRequired("format", t.format);
    io.mapRequired("version", t.version);
    io.mapOptional("name", t.name);
    io.mapOptional("nodes", t.nodes);
    io.mapOptional("fabric", t.fabric);
    io.mapRequired("devices", t.devices);
    io.mapOptional("links", t.links);
    io.mapOptional("notes", t.notes);
  }
};

} // namespace yaml
} // namespace llvm

//===----------------------------------------------------------------------===//
// Import
//===----------------------------------------------------------------------===//

template <typename EnumT>
static llvm::Error parseKind(StringRef file, unsigned line, StringRef what,
                             StringRef text,
                             std::optional<EnumT> (*symbolize)(StringRef),
                             ArrayRef<StringRef> valid, EnumT &out) {
  if (std::optional<EnumT> value = symbolize(text)) {
    out = *value;
    return llvm::Error::success();
  }
  return makeTopologyError(file, line,
                           "unknown " + what + " '" + text +
                               "'; expected one of " + llvm::join(valid, ", "));
}

template <const IntKey &key>
static int64_t valueOr(const std::optional<Bounded<key>> &bounded,
                       int64_t fallback) {
  return bounded ? bounded->value : fallback;
}

/// How a message names a device kind ("duplicate GPU 'index' 0").
static StringRef getKindTitle(DeviceKind kind) {
  switch (kind) {
  case DeviceKind::GPU:
    return "GPU";
  case DeviceKind::CPU:
    return "CPU";
  case DeviceKind::PCIeSwitch:
    return "PCIe switch";
  case DeviceKind::NVSwitch:
    return "NVSwitch";
  case DeviceKind::NIC:
    return "NIC";
  case DeviceKind::NetSwitch:
    return "network switch";
  case DeviceKind::Process:
    return "process";
  }
  return "device";
}

static llvm::Error checkNonNegative(StringRef file, unsigned line,
                                    StringRef what, double value) {
  if (value >= 0 && !std::isinf(value))
    return llvm::Error::success();
  return makeTopologyError(file, line,
                           what + " must be non-negative and finite, got " +
                               formatTopologyNumber(value));
}

static llvm::Error convertDevice(StringRef file, const YamlDevice &y,
                                 Device &d) {
  static const StringRef kinds[] = {"gpu",      "cpu", "pcie_switch",
                                    "nvswitch", "nic", "process"};
  if (llvm::Error e = parseKind<DeviceKind>(file, y.line, "device kind", y.kind,
                                            symbolizeDeviceKind, kinds, d.kind))
    return e;
  if (d.kind == DeviceKind::NetSwitch)
    return makeTopologyError(file, y.line,
                             "network switches are described by 'fabric', "
                             "not listed as devices");
  if (y.id.empty())
    return makeTopologyError(file, y.line, "a device needs a non-empty 'id'");
  if (y.id.find_first_of("./ ") != std::string::npos)
    return makeTopologyError(file, y.line,
                             "device id '" + y.id +
                                 "' may not contain '.', '/' or spaces");
  d.name = y.id;
  d.index = valueOr(y.index, -1);
  d.numa = valueOr(y.numa, -1);
  d.model = y.model.value_or("");
  d.busId = y.busId.value_or("");
  d.computeCapability = valueOr(y.sm, 0);
  d.memoryGB = y.memoryGB ? y.memoryGB->value : 0;
  d.memoryGBps = y.memoryGBps ? y.memoryGBps->value : 0;
  d.memoryKnown = y.memoryKnown.value_or(y.memoryGBps.has_value());
  d.gpuDirect = y.gdr.value_or(false);
  d.described = y.described.value_or(true);
  d.speedGbit = y.speedGbit ? y.speedGbit->value : 0;
  d.latencyUs = y.latencyUs ? y.latencyUs->value : 0;
  d.vendor = y.vendor.value_or("");
  d.arch = y.arch.value_or("");
  d.familyId = valueOr(y.family, 0);
  d.modelId = valueOr(y.modelId, 0);
  // A CPU's cores as `comm-topo matrix` shows them (NCCL's affinity mask
  // as a list): numbers and ranges, comma-separated.
  d.cpuAffinity = y.cores.value_or("");
  if (d.cpuAffinity.find_first_not_of("0123456789,-") != std::string::npos)
    return makeTopologyError(file, y.line,
                             "'cores' lists core numbers and ranges such as "
                             "0-55,112-167, got '" +
                                 d.cpuAffinity + "'");
  d.chips = valueOr(y.chips, 0);
  d.generation = valueOr(y.generation, 0);
  d.reductionCapable = y.nvls.value_or(false);
  d.sourceLine = y.line;
  if (y.network) {
    static const StringRef networks[] = {"infiniband", "roce", "efa",
                                         "ethernet"};
    if (llvm::Error e =
            parseKind<NetworkKind>(file, y.line, "network", *y.network,
                                   symbolizeNetworkKind, networks, d.network))
      return e;
  }
  for (auto [what, value] :
       {std::pair<StringRef, double>{"memory_GB", d.memoryGB},
        {"memory_GBps", d.memoryGBps},
        {"speed_gbit", d.speedGbit},
        {"latency_us", d.latencyUs}})
    if (llvm::Error e = checkNonNegative(file, y.line, what, value))
      return e;
  if (d.kind == DeviceKind::GPU && d.described && d.computeCapability <= 0)
    return makeTopologyError(file, y.line,
                             "GPU '" + d.name +
                                 "' needs 'sm' (its compute capability, e.g. "
                                 "90), or 'described: false'");
  if (d.kind == DeviceKind::NIC && d.described && !(d.speedGbit > 0))
    return makeTopologyError(
        file, y.line, "NIC '" + d.name + "' needs a positive 'speed_gbit'");
  return llvm::Error::success();
}

static llvm::Error convertLink(StringRef file, const YamlLink &y,
                               const NodeGraph &graph, Link &l) {
  static const StringRef kinds[] = {"nvlink", "pcie", "cpu_interconnect", "c2c",
                                    "shm"};
  if (llvm::Error e = parseKind<LinkKind>(file, y.line, "link kind", y.kind,
                                          symbolizeLinkKind, kinds, l.kind))
    return e;
  if (l.kind == LinkKind::Network)
    return makeTopologyError(file, y.line,
                             "network links are described by 'fabric', not "
                             "listed as links");
  std::optional<unsigned> a = graph.lookup(y.a), b = graph.lookup(y.b);
  if (!a)
    return makeTopologyError(file, y.line,
                             "link end '" + y.a + "' is not a device id");
  if (!b)
    return makeTopologyError(file, y.line,
                             "link end '" + y.b + "' is not a device id");
  l.a = *a;
  l.b = *b;
  l.sourceLine = y.line;
  // What each kind of link joins: the importers and the presets make no
  // other, and paths forward only over these (canForward).
  DeviceKind ka = graph.getDevice(l.a).kind, kb = graph.getDevice(l.b).kind;
  auto joins = [&](DeviceKind x, DeviceKind y) {
    return (ka == x && kb == y) || (ka == y && kb == x);
  };
  auto isAny = [](DeviceKind k, std::initializer_list<DeviceKind> kinds) {
    return llvm::is_contained(kinds, k);
  };
  const char *expected = nullptr;
  switch (l.kind) {
  case LinkKind::CPUInterconnect:
    if (!joins(DeviceKind::CPU, DeviceKind::CPU))
      expected = "two CPUs";
    break;
  case LinkKind::SharedMemory:
    if (!joins(DeviceKind::Process, DeviceKind::CPU))
      expected = "a process and its CPU";
    break;
  case LinkKind::C2C:
    if (!joins(DeviceKind::GPU, DeviceKind::CPU))
      expected = "a GPU and its CPU";
    break;
  case LinkKind::NVLink:
    if (!isAny(ka, {DeviceKind::GPU, DeviceKind::NVSwitch, DeviceKind::CPU}) ||
        !isAny(kb, {DeviceKind::GPU, DeviceKind::NVSwitch, DeviceKind::CPU}) ||
        (ka != DeviceKind::GPU && kb != DeviceKind::GPU))
      expected = "a GPU and a GPU, an NVSwitch or a CPU (POWER9)";
    break;
  case LinkKind::PCIe:
    if (isAny(ka, {DeviceKind::Process, DeviceKind::NVSwitch}) ||
        isAny(kb, {DeviceKind::Process, DeviceKind::NVSwitch}))
      expected = "GPUs, NICs, PCIe switches and CPUs";
    break;
  case LinkKind::Network:
    break;
  }
  if (expected)
    return makeTopologyError(
        file, y.line,
        "a " + stringifyLinkKind(l.kind) + " link joins " + expected +
            "; this one joins " + stringifyDeviceKind(ka) + " '" + y.a +
            "' and " + stringifyDeviceKind(kb) + " '" + y.b + "'");
  l.count = valueOr(y.count, 1);
  l.width = valueOr(y.width, 0);
  l.generation = valueOr(y.generation, 0);
  l.peer = y.peer.value_or(false);
  if (l.peer && (l.kind != LinkKind::PCIe ||
                 graph.getDevice(l.a).kind != DeviceKind::PCIeSwitch ||
                 graph.getDevice(l.b).kind != DeviceKind::PCIeSwitch))
    return makeTopologyError(file, y.line,
                             "'peer' marks a pcie link between two PCIe "
                             "switches beside the tree (NCCL's <pcilink>); "
                             "this link is " +
                                 stringifyLinkKind(l.kind) + " between '" +
                                 y.a + "' and '" + y.b + "'");
  l.latencyUs = y.latency ? y.latency->value : getDefaultLinkLatency(l.kind);
  if (y.bandwidth) {
    l.bandwidthGBps = y.bandwidth->value;
  } else {
    // Derive the bandwidth from what the link is.
    const Device &da = graph.getDevice(l.a), &db = graph.getDevice(l.b);
    switch (l.kind) {
    case LinkKind::PCIe:
      if (!l.generation)
        return makeTopologyError(file, y.line,
                                 "a pcie link needs 'bw_GBps' or 'generation'");
      if (!l.width)
        l.width = 16;
      l.bandwidthGBps = getPCIeBandwidth(l.generation, l.width);
      break;
    case LinkKind::NVLink: {
      int cc = std::max(da.kind == DeviceKind::GPU ? da.computeCapability : 0,
                        db.kind == DeviceKind::GPU ? db.computeCapability : 0);
      if (!l.generation && !cc)
        return makeTopologyError(file, y.line,
                                 "an nvlink link needs 'bw_GBps', "
                                 "'generation' or a GPU end with 'sm'");
      if (!l.generation)
        l.generation = getNVLinkGeneration(cc);
      // A GPU of the link's generation gives its own lane rate, as NCCL's
      // XML reader takes it (sm86's NVLink 3 lanes carry 12 GB/s, not 20).
      l.bandwidthGBps =
          l.count * (cc && getNVLinkGeneration(cc) == l.generation
                         ? getNVLinkLaneBandwidth(cc)
                         : getNVLinkLaneBandwidthForGeneration(l.generation));
      break;
    }
    case LinkKind::CPUInterconnect: {
      const Device &cpu = da.kind == DeviceKind::CPU ? da : db;
      l.bandwidthGBps = getCPUInterconnectBandwidth(cpu.vendor, cpu.arch,
                                                    cpu.familyId, cpu.modelId);
      break;
    }
    case LinkKind::C2C:
    case LinkKind::Network:
    case LinkKind::SharedMemory:
      return makeTopologyError(file, y.line,
                               "a " + stringifyLinkKind(l.kind) +
                                   " link needs 'bw_GBps'");
    }
  }
  if (!(l.bandwidthGBps > 0) || std::isinf(l.bandwidthGBps))
    return makeTopologyError(file, y.line,
                             "link " + y.a + " - " + y.b +
                                 ": bandwidth must be positive and finite, "
                                 "got " +
                                 formatTopologyNumber(l.bandwidthGBps) +
                                 " GB/s");
  return checkNonNegative(file, y.line, "latency_us", l.latencyUs);
}

/// The line of the first line of `buffer` after line `after` that starts
/// with `key` (a top-level key, or '---'), or 0.
static unsigned getKeyLine(StringRef buffer, StringRef key,
                           unsigned after = 0) {
  unsigned number = 0;
  for (StringRef rest = buffer; !rest.empty();) {
    auto [line, tail] = rest.split('\n');
    ++number;
    if (number > after && line.starts_with(key))
      return number;
    rest = tail;
  }
  return 0;
}

llvm::Expected<std::unique_ptr<Topology>>
mlir::comm::importTopologyYaml(StringRef buffer, StringRef fileName) {
  std::string firstError;
  auto handler = [](const llvm::SMDiagnostic &diag, void *context) {
    auto *out = static_cast<std::string *>(context);
    if (!out->empty())
      return;
    *out = llvm::formatv("{0}:{1}:{2}: error: {3}", diag.getFilename(),
                         diag.getLineNo(), diag.getColumnNo() + 1,
                         diag.getMessage())
               .str();
    // The line and a caret, as MLIR prints its diagnostics.
    StringRef line = diag.getLineContents();
    if (!line.trim().empty() && line.size() <= 400 && diag.getColumnNo() >= 0 &&
        static_cast<size_t>(diag.getColumnNo()) <= line.size()) {
      std::string indent;
      for (char c : line.take_front(diag.getColumnNo()))
        indent += c == '\t' ? '\t' : ' ';
      *out += ("\n" + line + "\n" + indent + "^").str();
    }
  };
  if (llvm::Error error = checkYamlNesting(buffer, fileName))
    return std::move(error);
  YamlParseContext context{buffer.data()};
  YamlTopology document;
  {
    llvm::yaml::Input input(llvm::MemoryBufferRef(buffer, fileName), &context,
                            handler, &firstError);
    input >> document;
    if (input.error()) {
      if (firstError.empty())
        firstError = (fileName + ": error: malformed YAML").str();
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     firstError);
    }
    // A second document ('---') was read past without a word.
    if (input.nextDocument())
      return makeTopologyError(
          fileName, getKeyLine(buffer, "---", /*after=*/1),
          "a second YAML document; a topology file holds one (its machine, "
          "and 'nodes' copies of it for a cluster)");
  }
  if (document.format != "comm-topology")
    return makeTopologyError(fileName, 1,
                             "'format' must be 'comm-topology', got '" +
                                 document.format + "'");
  if (document.devices.empty())
    return makeTopologyError(fileName, getKeyLine(buffer, "devices:"),
                             "'devices' lists none; a topology needs its "
                             "GPUs (or processes) and what joins them");
  if (document.nodes && document.nodes->value > 1 &&
      (!document.fabric || document.fabric->kind == "none"))
    return makeTopologyError(
        fileName,
        document.fabric ? document.fabric->line : getKeyLine(buffer, "nodes:"),
        "a cluster of " + Twine(document.nodes->value) +
            " nodes needs a 'fabric' joining them (kind rail_optimized or "
            "fat_tree)");

  auto topology = std::make_unique<Topology>();
  topology->setSource(fileName);
  // Unnamed, it is named after its file, as an NCCL XML topology is: the
  // name is what reports print ("@f on <name>").
  topology->setName(document.name ? StringRef(*document.name)
                                  : llvm::sys::path::stem(fileName));
  NodeGraph &graph = topology->getNode();
  // The line of each (kind, index): one GPU per index, as NCCL's XML has
  // one per dev, since ranks are numbered in index order.
  llvm::DenseMap<std::pair<unsigned, int>, unsigned> indexLines;
  for (const YamlDevice &y : document.devices) {
    Device device;
    if (llvm::Error e = convertDevice(fileName, y, device))
      return std::move(e);
    if (std::optional<unsigned> other = graph.lookup(device.name))
      return makeTopologyError(
          fileName, y.line,
          "duplicate device id '" + device.name + "' (first at line " +
              Twine(graph.getDevice(*other).sourceLine) + ")");
    if (device.index >= 0) {
      auto [it, inserted] = indexLines.try_emplace(
          {static_cast<unsigned>(device.kind), device.index}, y.line);
      if (!inserted)
        return makeTopologyError(fileName, y.line,
                                 "duplicate " + getKindTitle(device.kind) +
                                     " 'index' " + Twine(device.index) +
                                     " (also at line " + Twine(it->second) +
                                     ")");
    }
    graph.addDevice(std::move(device));
  }
  // A device's numa names its CPU, where the file has CPUs (matrix showed
  // N/A for the affinity of a GPU whose CPU was missing).
  std::set<int> cpuNumas;
  for (unsigned cpu : graph.getDevicesOfKind(DeviceKind::CPU))
    cpuNumas.insert(graph.getDevice(cpu).numa);
  for (const Device &device : graph.getDevices())
    if (!cpuNumas.empty() && device.kind != DeviceKind::CPU &&
        device.numa >= 0 && !cpuNumas.count(device.numa)) {
      std::string list;
      for (int numa : cpuNumas)
        list += (list.empty() ? "" : ", ") + std::to_string(numa);
      return makeTopologyError(
          fileName, device.sourceLine,
          stringifyDeviceKind(device.kind) + " '" + device.name +
              "' has numa " + Twine(device.numa) +
              ", which no CPU has (the CPUs' numa: " + list + ")");
    }
  for (const YamlLink &y : document.links) {
    Link link;
    if (llvm::Error e = convertLink(fileName, y, graph, link))
      return std::move(e);
    graph.addLink(link);
  }
  if (document.nodes)
    topology->setNumNodes(document.nodes->value);
  if (document.fabric) {
    const YamlFabric &y = *document.fabric;
    Fabric fabric;
    static const StringRef kinds[] = {"none", "rail_optimized", "fat_tree"};
    if (llvm::Error e =
            parseKind<FabricKind>(fileName, y.line, "fabric kind", y.kind,
                                  symbolizeFabricKind, kinds, fabric.kind))
      return std::move(e);
    if (y.network) {
      static const StringRef networks[] = {"infiniband", "roce", "efa",
                                           "ethernet"};
      if (llvm::Error e = parseKind<NetworkKind>(
              fileName, y.line, "network", *y.network, symbolizeNetworkKind,
              networks, fabric.network))
        return std::move(e);
    }
    if (y.linkGbit)
      fabric.linkGbit = y.linkGbit->value;
    if (y.nodesPerLeaf)
      fabric.nodesPerLeaf = y.nodesPerLeaf->value;
    if (y.oversubscription)
      fabric.oversubscription = y.oversubscription->value;
    if (y.switchLatencyUs)
      fabric.switchLatencyUs = y.switchLatencyUs->value;
    if (y.linkLatencyUs)
      fabric.linkLatencyUs = y.linkLatencyUs->value;
    if (fabric.oversubscription < 1 || std::isinf(fabric.oversubscription))
      return makeTopologyError(fileName, y.line,
                               "'oversubscription' must be at least 1");
    for (auto [what, value] :
         {std::pair<StringRef, double>{"link_gbit", fabric.linkGbit},
          {"switch_latency_us", fabric.switchLatencyUs},
          {"link_latency_us", fabric.linkLatencyUs}})
      if (llvm::Error e = checkNonNegative(fileName, y.line, what, value))
        return std::move(e);
    topology->setFabric(fabric);
  }
  for (const std::string &note : document.notes)
    topology->addNote(note);
  // After the fabric's own figures, which are checked first.
  if (document.nodes && document.nodes->value > 1 &&
      llvm::none_of(document.devices,
                    [](const YamlDevice &d) { return d.kind == "nic"; }))
    return makeTopologyError(
        fileName, getKeyLine(buffer, "nodes:"),
        "a cluster of " + Twine(document.nodes->value) +
            " nodes needs NICs, but the node type has none (a device of "
            "kind nic)");
  if (llvm::Error error = topology->finalize())
    return std::move(error);
  return topology;
}

//===----------------------------------------------------------------------===//
// Export
//===----------------------------------------------------------------------===//

void mlir::comm::exportTopologyYaml(const Topology &topology,
                                    llvm::raw_ostream &os) {
  YamlTopology document;
  document.format = "comm-topology";
  document.version.value = 1;
  if (!topology.getName().empty())
    document.name = topology.getName().str();
  if (topology.getNumNodes() != 1)
    document.nodes = topology.getNumNodes();
  const Fabric &fabric = topology.getFabric();
  if (fabric.kind != FabricKind::None) {
    YamlFabric y;
    y.kind = stringifyFabricKind(fabric.kind).str();
    y.network = stringifyNetworkKind(fabric.network).str();
    y.linkGbit = Real{fabric.linkGbit};
    y.nodesPerLeaf = fabric.nodesPerLeaf;
    y.oversubscription = Real{fabric.oversubscription};
    y.switchLatencyUs = Real{fabric.switchLatencyUs};
    y.linkLatencyUs = Real{fabric.linkLatencyUs};
    document.fabric = y;
  }
  const NodeGraph &graph = topology.getNode();
  for (const Device &d : graph.getDevices()) {
    YamlDevice y;
    y.id = d.name;
    y.kind = stringifyDeviceKind(d.kind).str();
    if (d.index >= 0)
      y.index = d.index;
    if (d.numa >= 0)
      y.numa = d.numa;
    if (!d.model.empty())
      y.model = d.model;
    if (!d.busId.empty())
      y.busId = d.busId;
    if (!d.described)
      y.described = false;
    switch (d.kind) {
    case DeviceKind::GPU:
      if (d.computeCapability)
        y.sm = d.computeCapability;
      if (d.memoryGB || d.memoryGBps) {
        y.memoryGB = Real{d.memoryGB};
        y.memoryGBps = Real{d.memoryGBps};
        y.memoryKnown = d.memoryKnown;
      }
      y.gdr = d.gpuDirect;
      break;
    case DeviceKind::NIC:
      y.speedGbit = Real{d.speedGbit};
      y.network = stringifyNetworkKind(d.network).str();
      y.gdr = d.gpuDirect;
      if (d.latencyUs)
        y.latencyUs = Real{d.latencyUs};
      break;
    case DeviceKind::CPU:
      if (!d.vendor.empty())
        y.vendor = d.vendor;
      if (!d.arch.empty())
        y.arch = d.arch;
      y.family = d.familyId;
      y.modelId = d.modelId;
      if (!d.cpuAffinity.empty())
        y.cores = d.cpuAffinity;
      break;
    case DeviceKind::NVSwitch:
      y.chips = d.chips;
      y.generation = d.generation;
      y.nvls = d.reductionCapable;
      break;
    case DeviceKind::PCIeSwitch:
      if (d.generation)
        y.generation = d.generation;
      break;
    case DeviceKind::Process:
      // The rate its pack and unpack kernels copy at.
      if (d.memoryGBps) {
        y.memoryGBps = Real{d.memoryGBps};
        y.memoryKnown = d.memoryKnown;
      }
      break;
    case DeviceKind::NetSwitch:
      break;
    }
    document.devices.push_back(std::move(y));
  }
  for (const Link &l : graph.getLinks()) {
    YamlLink y;
    y.a = graph.getDevice(l.a).name;
    y.b = graph.getDevice(l.b).name;
    y.kind = stringifyLinkKind(l.kind).str();
    y.bandwidth = Real{l.bandwidthGBps};
    y.latency = Real{l.latencyUs};
    if (l.count != 1 || l.kind == LinkKind::NVLink)
      y.count = l.count;
    if (l.generation)
      y.generation = l.generation;
    if (l.width)
      y.width = l.width;
    if (l.peer)
      y.peer = true;
    document.links.push_back(std::move(y));
  }
  for (const std::string &note : topology.getNotes())
    document.notes.push_back(note);
  os << "# comm topology (docs/Topology.md). Bandwidths: usable GB/s per "
        "direction.\n";
  llvm::yaml::Output output(os, nullptr, /*WrapColumn=*/0);
  output << document;
}
