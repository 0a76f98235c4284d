//===- NcclXml.cpp - import NCCL topology XML -------------------*- C++ -*-===//
//
// Reads what NCCL reads from NCCL_TOPO_FILE and writes with
// NCCL_TOPO_DUMP_FILE (<system>, <cpu>, <pci>, <gpu>, <nvlink>, <c2c>,
// <nic>, <net>, <pcilink>), and NCCL graph files (NCCL_GRAPH_FILE:
// <graphs>, <graph>, <channel>), with libxml2. The mapping to comm's model
// follows NCCL's own (src/graph/topo.cc); docs/Topology.md lists each rule.
//
//===----------------------------------------------------------------------===//

#include "comm/Topology/Topology.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

#include "llvm/Support/Path.h"

#include <cmath>
#include <functional>
#include <limits>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include <map>
#include <set>

using namespace mlir;
using namespace mlir::comm;

namespace {

/// What comm knows about a GPU from its PCI device id (datasheet figures,
/// docs/Topology.md).
struct GpuModel {
  unsigned deviceId;
  StringRef name;
  double memoryGB, memoryGBps;
};

const GpuModel kGpuModels[] = {
    {0x1db1, "V100-SXM2-16GB", 16, 900},   {0x1db5, "V100-SXM2-32GB", 32, 900},
    {0x20b0, "A100-SXM4-40GB", 40, 1555},  {0x20b2, "A100-SXM4-80GB", 80, 2039},
    {0x20b5, "A100-PCIE-80GB", 80, 1935},  {0x20f1, "A100-PCIE-40GB", 40, 1555},
    {0x2204, "GeForce RTX 3090", 24, 936}, {0x26b9, "L40S", 48, 864},
    {0x2330, "H100-SXM5-80GB", 80, 3350},  {0x2331, "H100-PCIE-80GB", 80, 2000},
    {0x2335, "H200-SXM-141GB", 141, 4800}, {0x2901, "B200-180GB", 180, 8000},
};

/// What the XML reads that the YAML format does not have.
constexpr TopologyIntRange kXmlLinkWidthRange{0, kPCIeWidthRange.max,
                                              "PCIe lanes; 0: not reported"};
constexpr TopologyIntRange kPciClassRange{0, 0xffffff,
                                          "a PCI class code has 24 bits"};
constexpr TopologyIntRange kGraphIdRange{
    0, 63, "NCCL numbers a graph by its algorithm"};
constexpr TopologyIntRange kGraphChannelsRange{0, 64, "NCCL's MAXCHANNELS"};

struct PendingNVLink {
  unsigned gpu;
  std::string target;
  unsigned count;
  unsigned tclass;
  unsigned line;
};

struct PendingC2C {
  unsigned gpu;
  unsigned count;
  double bwMBps;
  unsigned line;
};

struct PendingPciLink {
  unsigned from;
  std::string target;
  unsigned line;
};

/// NCCL's flags (gdr): 0 or 1.
constexpr TopologyIntRange kFlagRange{0, 1, "a flag, 0 or 1"};

class NcclXmlImporter {
public:
  NcclXmlImporter(StringRef fileName, Topology &topology)
      : fileName(fileName), topology(topology), graph(topology.getNode()) {}

  llvm::Error importDocument(xmlNode *root);

private:
  // Diagnostics: the first error wins.
  llvm::Error fail(xmlNode *node, const Twine &problem) {
    return makeTopologyError(fileName, node ? xmlGetLineNo(node) : 0, problem);
  }

  static StringRef nameOf(xmlNode *node) {
    return reinterpret_cast<const char *>(node->name);
  }
  static SmallVector<xmlNode *> elements(xmlNode *node) {
    SmallVector<xmlNode *> result;
    for (xmlNode *child = node->children; child; child = child->next)
      if (child->type == XML_ELEMENT_NODE)
        result.push_back(child);
    return result;
  }
  static std::optional<std::string> attr(xmlNode *node, const char *name) {
    xmlChar *value = xmlGetProp(node, reinterpret_cast<const xmlChar *>(name));
    if (!value)
      return std::nullopt;
    std::string result(reinterpret_cast<const char *>(value));
    xmlFree(value);
    return result;
  }

  /// Reads an integer attribute (decimal or 0x hex). Missing: `fallback`,
  /// or an error when `required`.
  llvm::Error intAttr(xmlNode *node, const char *name, int64_t &out,
                      bool required, int64_t fallback = 0) {
    std::optional<std::string> text = attr(node, name);
    if (!text || StringRef(*text).trim().empty()) {
      if (required)
        return fail(node,
                    "<" + nameOf(node) + "> needs attribute '" + name + "'");
      out = fallback;
      return llvm::Error::success();
    }
    StringRef value = StringRef(*text).trim();
    if (value.getAsInteger(0, out))
      return fail(node, "attribute '" + Twine(name) + "' of <" + nameOf(node) +
                            "> must be an integer, got '" + value + "'");
    return llvm::Error::success();
  }

  /// Reads an integer attribute that must lie in `range`, which a missing
  /// one's `fallback` does.
  llvm::Error intAttr(xmlNode *node, const char *name,
                      const TopologyIntRange &range, int64_t &out,
                      bool required, int64_t fallback = 0) {
    if (llvm::Error e = intAttr(node, name, out, required, fallback))
      return e;
    if (range.contains(out))
      return llvm::Error::success();
    return fail(node,
                formatTopologyRangeError("attribute '" + Twine(name) +
                                             "' of <" + nameOf(node) + ">",
                                         out, range));
  }

  llvm::Error doubleAttr(xmlNode *node, const char *name, double &out,
                         double fallback) {
    std::optional<std::string> text = attr(node, name);
    if (!text || StringRef(*text).trim().empty()) {
      out = fallback;
      return llvm::Error::success();
    }
    StringRef value = StringRef(*text).trim();
    if (value.getAsDouble(out))
      return fail(node, "attribute '" + Twine(name) + "' of <" + nameOf(node) +
                            "> must be a number, got '" + value + "'");
    // strtod reads "inf" and "nan": no machine has either (an infinite NIC
    // latency exported as YAML did not read back).
    if (!std::isfinite(out))
      return fail(node, "attribute '" + Twine(name) + "' of <" + nameOf(node) +
                            "> must be a finite number, got '" + value + "'");
    return llvm::Error::success();
  }

  llvm::Error checkChildren(xmlNode *node, ArrayRef<StringRef> allowed) {
    for (xmlNode *child : elements(node))
      if (!llvm::is_contained(allowed, nameOf(child))) {
        std::string list;
        for (StringRef a : allowed)
          list += (list.empty() ? "<" : ", <") + a.str() + ">";
        return fail(child,
                    "unknown element <" + nameOf(child) + "> in <" +
                        nameOf(node) + ">; expected " +
                        (list.empty() ? std::string("no children") : list));
      }
    return llvm::Error::success();
  }

  llvm::Error importGraphs(xmlNode *root);
  llvm::Error importCpu(xmlNode *cpu);
  llvm::Error importPci(xmlNode *pci, unsigned parent, int numa,
                        double &upstreamGBps);
  llvm::Error importGpu(xmlNode *gpu, xmlNode *pci, unsigned parent, int numa,
                        unsigned &device);
  llvm::Error importNic(xmlNode *nic, xmlNode *pci, unsigned parent, int numa);
  llvm::Error pcieLinkOf(xmlNode *pci, unsigned &generation, unsigned &width);
  llvm::Error claimBusId(xmlNode *pci, std::string &busId);
  /// A PCIe link of `generation` and `width`, its bandwidth split
  /// `sharedBy` ways.
  unsigned addPcieLink(unsigned a, unsigned b, unsigned generation,
                       unsigned width, unsigned line, unsigned sharedBy = 1);
  llvm::Error resolve();

  StringRef fileName;
  Topology &topology;
  NodeGraph &graph;

  llvm::StringMap<std::pair<unsigned, unsigned>> busIds; ///< -> (device, line)
  std::map<int64_t, unsigned> cpuByNuma;
  /// The numaid every <cpu> of the file states.
  std::set<int64_t> numaIds;
  llvm::DenseMap<int64_t, unsigned> gpuLines, nicLines;
  std::vector<PendingNVLink> nvlinks;
  std::vector<PendingC2C> c2cs;
  std::vector<PendingPciLink> pciLinks;
  llvm::StringSet<> nvswitchBusIds;
  unsigned numSwitches = 0;
  unsigned numOtherPci = 0, numGuessedLinks = 0;
  /// Of the guessed links, those whose speed was given (only the width
  /// was assumed).
  unsigned numGuessedWidths = 0;
  /// GPU pairs whose two ends list different NVLink lane counts.
  SmallVector<std::string> asymmetricNVLinks;
  SmallVector<std::string> correctedBridges;
  SmallVector<unsigned> skeletonGpus, skeletonNics;
  int maxGpuDev = -1, maxNicDev = -1;
};

} // namespace

llvm::Error NcclXmlImporter::importDocument(xmlNode *root) {
  StringRef rootName = nameOf(root);
  if (rootName == "graphs")
    return importGraphs(root);
  if (rootName != "system")
    return fail(root, "expected <system> (an NCCL topology file) or <graphs> "
                      "(an NCCL graph file) as the root element, got <" +
                          rootName + ">");
  // NCCL reads version 1 only (NCCL_TOPO_XML_VERSION, src/graph/xml.cc:
  // "XML Topology has wrong version"); a file that says otherwise was not
  // written for it.
  if (std::optional<std::string> version = attr(root, "version"))
    if (*version != "1")
      return fail(root, "<system version=\"" + *version +
                            "\"> is not a version NCCL reads; NCCL topology "
                            "files are version 1");
  if (llvm::Error error = checkChildren(root, {"cpu"}))
    return error;
  SmallVector<xmlNode *> cpus = elements(root);
  if (cpus.empty())
    return fail(root, "<system> lists no <cpu>; there is no hardware to "
                      "import");
  for (xmlNode *cpu : cpus) {
    int64_t numa;
    if (std::optional<std::string> text = attr(cpu, "numaid"))
      if (!StringRef(*text).trim().getAsInteger(0, numa))
        numaIds.insert(numa);
  }
  // A PCI slot without <gpu> or <nic> is numbered after every described
  // one of its kind, wherever it lies in the file (numbered as it was
  // read, a slot before a described GPU took that GPU's number).
  std::function<void(xmlNode *)> scanDevs = [&](xmlNode *node) {
    for (xmlNode *child : elements(node)) {
      StringRef kind = nameOf(child);
      int64_t dev;
      if (kind == "gpu" || kind == "net") {
        int &highest = kind == "gpu" ? maxGpuDev : maxNicDev;
        if (std::optional<std::string> text = attr(child, "dev"))
          if (!StringRef(*text).trim().getAsInteger(0, dev) &&
              kDeviceIndexRange.contains(dev))
            highest = std::max<int>(highest, dev);
        continue;
      }
      scanDevs(child);
    }
  };
  scanDevs(root);
  for (xmlNode *cpu : cpus)
    if (llvm::Error error = importCpu(cpu))
      return error;
  return resolve();
}

llvm::Error NcclXmlImporter::importGraphs(xmlNode *root) {
  if (llvm::Error error = checkChildren(root, {"graph"}))
    return error;
  for (xmlNode *graphNode : elements(root)) {
    if (llvm::Error error = checkChildren(graphNode, {"channel"}))
      return error;
    NcclGraph result;
    result.sourceLine = xmlGetLineNo(graphNode);
    int64_t id, pattern, channels, crossNic;
    double intra, inter;
    if (llvm::Error e =
            intAttr(graphNode, "id", kGraphIdRange, id, /*required=*/true))
      return e;
    if (llvm::Error e = intAttr(graphNode, "pattern", pattern, true))
      return e;
    if (llvm::Error e = intAttr(graphNode, "nchannels", kGraphChannelsRange,
                                channels, true))
      return e;
    if (llvm::Error e = intAttr(graphNode, "crossnic", crossNic, false))
      return e;
    if (llvm::Error e = doubleAttr(graphNode, "speedintra", intra, 0))
      return e;
    if (llvm::Error e = doubleAttr(graphNode, "speedinter", inter, 0))
      return e;
    if (pattern < 1 || pattern > 6)
      return fail(graphNode, "graph pattern " + Twine(pattern) +
                                 " is not one of NCCL's patterns (1-6)");
    result.id = id;
    result.pattern = pattern;
    result.numChannels = channels;
    result.crossNic = crossNic != 0;
    result.speedIntra = intra;
    result.speedInter = inter;
    result.typeIntra = attr(graphNode, "typeintra").value_or("");
    result.typeInter = attr(graphNode, "typeinter").value_or("");
    for (xmlNode *channel : elements(graphNode)) {
      if (llvm::Error error = checkChildren(channel, {"gpu", "net"}))
        return error;
      SmallVector<std::string, 8> order;
      for (xmlNode *member : elements(channel)) {
        int64_t dev;
        if (llvm::Error e =
                intAttr(member, "dev", kDeviceIndexRange, dev, true))
          return e;
        order.push_back((nameOf(member) + Twine(dev)).str());
      }
      result.channels.push_back(std::move(order));
    }
    if (static_cast<int64_t>(result.channels.size()) != channels)
      return fail(graphNode, "graph " + Twine(id) + " declares " +
                                 Twine(channels) + " channels but lists " +
                                 Twine(result.channels.size()));
    topology.getNcclGraphs().push_back(std::move(result));
  }
  if (topology.getNcclGraphs().empty())
    return fail(root, "<graphs> lists no <graph>");
  topology.addNote("an NCCL graph file (NCCL_GRAPH_FILE): it records the "
                   "rings and trees NCCL chose, not the hardware; give the "
                   "matching NCCL_TOPO_FILE to query paths");
  return llvm::Error::success();
}

/// NCCL's CPU affinity mask ("0000ffff,ffffffff": 32-bit words, most
/// significant first) as the core list nvidia-smi prints ("0-47"); empty
/// when the mask is absent or malformed.
static std::string formatCpuMask(StringRef mask) {
  SmallVector<StringRef> words;
  mask.split(words, ',');
  std::vector<bool> cores;
  for (StringRef word : llvm::reverse(words)) {
    uint64_t bits;
    if (word.trim().getAsInteger(16, bits))
      return "";
    for (unsigned bit = 0; bit < 32; ++bit)
      cores.push_back((bits >> bit) & 1);
  }
  std::string list;
  for (size_t core = 0; core < cores.size();) {
    if (!cores[core]) {
      ++core;
      continue;
    }
    size_t last = core;
    while (last + 1 < cores.size() && cores[last + 1])
      ++last;
    if (!list.empty())
      list += ",";
    list += std::to_string(core);
    if (last > core)
      list += "-" + std::to_string(last);
    core = last + 1;
  }
  return list;
}

llvm::Error NcclXmlImporter::importCpu(xmlNode *cpu) {
  if (llvm::Error error = checkChildren(cpu, {"pci", "nic"}))
    return error;
  int64_t numa, family, model;
  if (llvm::Error e = intAttr(cpu, "numaid", numa, /*required=*/true))
    return e;
  // NCCL writes -1 where sysfs knows no NUMA node (in many VMs): the CPU
  // takes the lowest number no <cpu> of the file has.
  if (numa == -1) {
    numa = 0;
    while (cpuByNuma.count(numa) || numaIds.count(numa))
      ++numa;
  } else if (!kNumaRange.contains(numa)) {
    return fail(cpu, formatTopologyRangeError("attribute 'numaid' of <cpu>",
                                              numa, kNumaRange) +
                         " (or -1: unknown)");
  }
  if (llvm::Error e = intAttr(cpu, "familyid", kCpuFamilyRange, family, false))
    return e;
  if (llvm::Error e = intAttr(cpu, "modelid", kCpuModelRange, model, false))
    return e;
  auto [it, inserted] = cpuByNuma.try_emplace(numa, graph.getNumDevices());
  if (!inserted)
    return fail(cpu, "duplicate <cpu numaid=\"" + Twine(numa) +
                         "\"> (also at line " +
                         Twine(graph.getDevice(it->second).sourceLine) + ")");
  Device device;
  device.kind = DeviceKind::CPU;
  device.name = ("cpu" + Twine(numa)).str();
  device.index = device.numa = numa;
  device.vendor = attr(cpu, "vendor").value_or("");
  device.arch = attr(cpu, "arch").value_or("");
  device.cpuAffinity = formatCpuMask(attr(cpu, "affinity").value_or(""));
  device.familyId = family;
  device.modelId = model;
  device.sourceLine = xmlGetLineNo(cpu);
  unsigned index = graph.addDevice(std::move(device));
  for (xmlNode *child : elements(cpu)) {
    if (nameOf(child) == "pci") {
      double upstream = 0;
      if (llvm::Error error = importPci(child, index, numa, upstream))
        return error;
    } else if (llvm::Error error = importNic(child, nullptr, index, numa)) {
      return error;
    }
  }
  return llvm::Error::success();
}

llvm::Error NcclXmlImporter::claimBusId(xmlNode *pci, std::string &busId) {
  std::optional<std::string> text = attr(pci, "busid");
  if (!text || text->empty())
    return fail(pci, "<pci> needs attribute 'busid'");
  busId = StringRef(*text).trim().lower();
  auto it = busIds.find(busId);
  if (it != busIds.end())
    return fail(pci, "duplicate PCI bus id " + busId + " (also at line " +
                         Twine(it->second.second) + ")");
  return llvm::Error::success();
}

llvm::Error NcclXmlImporter::pcieLinkOf(xmlNode *pci, unsigned &generation,
                                        unsigned &width) {
  int64_t w;
  if (llvm::Error e = intAttr(pci, "link_width", kXmlLinkWidthRange, w, false))
    return e;
  std::string speedText =
      StringRef(attr(pci, "link_speed").value_or("")).trim().str();
  // sysfs says "Unknown" or, on older kernels, "Unknown speed"; NCCL falls
  // back to 8 GT/s for any text it does not know.
  bool noSpeed =
      speedText.empty() || StringRef(speedText).starts_with("Unknown");
  if (w == 0 || noSpeed)
    ++numGuessedLinks;
  if (w == 0 && !noSpeed)
    ++numGuessedWidths;
  width = w ? w : 16; // NCCL's default for a width sysfs did not report
  generation = 3;     // NCCL's fallback speed (8 GT/s per lane)
  if (noSpeed)
    return llvm::Error::success();
  StringRef rate = StringRef(speedText).split(' ').first;
  double gts;
  if (rate.getAsDouble(gts))
    return fail(pci, "link_speed '" + speedText +
                         "' is not a PCIe rate such as '16.0 GT/s PCIe'");
  if (gts == 2.5)
    generation = 1;
  else if (gts == 5)
    generation = 2;
  else if (gts == 8)
    generation = 3;
  else if (gts == 16)
    generation = 4;
  else if (gts == 32)
    generation = 5;
  else if (gts == 64)
    generation = 6;
  else
    return fail(pci, "link_speed '" + speedText +
                         "' is not a PCIe rate (2.5, 5, 8, 16, 32 or 64 GT/s)");
  return llvm::Error::success();
}

unsigned NcclXmlImporter::addPcieLink(unsigned a, unsigned b,
                                      unsigned generation, unsigned width,
                                      unsigned line, unsigned sharedBy) {
  Link link;
  link.a = a;
  link.b = b;
  link.kind = LinkKind::PCIe;
  link.generation = generation;
  link.width = width;
  link.bandwidthGBps = getPCIeBandwidth(generation, width) / sharedBy;
  link.latencyUs = kPCIeHopLatencyUs;
  link.sourceLine = line;
  return graph.addLink(link);
}

llvm::Error NcclXmlImporter::importPci(xmlNode *pci, unsigned parent, int numa,
                                       double &upstreamGBps) {
  if (llvm::Error error = checkChildren(pci, {"pci", "gpu", "nic", "pcilink"}))
    return error;
  std::string busId;
  if (llvm::Error error = claimBusId(pci, busId))
    return error;
  std::optional<std::string> classText = attr(pci, "class");
  int64_t classCode;
  if (!classText || StringRef(*classText).getAsInteger(0, classCode) ||
      !kPciClassRange.contains(classCode))
    return fail(pci, "<pci busid=\"" + busId +
                         "\"> needs a 24-bit PCI class code such as "
                         "0x060400, got '" +
                         classText.value_or("") + "'");
  unsigned generation = 0, width = 0;
  if (llvm::Error error = pcieLinkOf(pci, generation, width))
    return error;
  unsigned line = xmlGetLineNo(pci);

  // A PCI device is a GPU, a NIC (one <nic>, its ports the <net>s), or a
  // bridge to the <pci>s below: NCCL keeps the first <gpu> or <nic> and
  // drops the rest, which would leave devices of the file out.
  xmlNode *gpuChild = nullptr, *nicChild = nullptr, *pciChild = nullptr;
  for (xmlNode *child : elements(pci)) {
    StringRef kind = nameOf(child);
    if (kind == "pcilink")
      continue;
    xmlNode *first = gpuChild ? gpuChild : nicChild ? nicChild : pciChild;
    if (first && (kind != "pci" || !pciChild))
      return fail(child, "<pci busid=\"" + busId + "\"> holds <" + kind +
                             "> after <" + nameOf(first) + "> (line " +
                             Twine(xmlGetLineNo(first)) +
                             "); a PCI device holds one <gpu>, one <nic> "
                             "(with a <net> per port) or the <pci> devices "
                             "behind a bridge");
    if (kind == "gpu")
      gpuChild = child;
    else if (kind == "nic")
      nicChild = child;
    else if (kind == "pci" && !pciChild)
      pciChild = child;
  }
  bool hasPciChildren = pciChild != nullptr;

  unsigned baseClass = (classCode >> 16) & 0xff;
  unsigned subClass = (classCode >> 8) & 0xff;
  bool isBridge = baseClass == 0x06 && subClass == 0x04;
  bool isNVSwitch = classCode == 0x068000;

  if (gpuChild) {
    unsigned device = 0;
    if (llvm::Error error = importGpu(gpuChild, pci, parent, numa, device))
      return error;
    graph.getDevice(device).busId = busId;
    busIds[busId] = {device, line};
    unsigned link = addPcieLink(device, parent, generation, width, line);
    upstreamGBps = graph.getLink(link).bandwidthGBps;
    return llvm::Error::success();
  }
  if (nicChild) {
    unsigned before = graph.getNumDevices();
    if (llvm::Error error = importNic(nicChild, pci, parent, numa))
      return error;
    // The ports of one card (NCCL merges them into one PCI device) share
    // its PCIe link: each gets an equal part of it. comm has no device
    // for the card, so one port alone is held to its part too.
    unsigned ports = graph.getNumDevices() - before;
    upstreamGBps = getPCIeBandwidth(generation, width);
    for (unsigned device = before; device < graph.getNumDevices(); ++device) {
      graph.getDevice(device).busId = busId;
      addPcieLink(device, parent, generation, width, line, ports);
    }
    busIds[busId] = {before, line};
    return llvm::Error::success();
  }
  if (isNVSwitch) {
    nvswitchBusIds.insert(busId);
    busIds[busId] = {~0u, line};
    return llvm::Error::success();
  }
  if (isBridge || hasPciChildren) {
    Device device;
    device.kind = DeviceKind::PCIeSwitch;
    device.index = numSwitches;
    device.name = ("pcie" + Twine(numSwitches++)).str();
    device.numa = numa;
    device.busId = busId;
    device.generation = generation;
    device.sourceLine = line;
    unsigned index = graph.addDevice(std::move(device));
    busIds[busId] = {index, line};
    double widestChild = 0;
    for (xmlNode *child : elements(pci)) {
      if (nameOf(child) == "pci") {
        double childGBps = 0;
        if (llvm::Error error = importPci(child, index, numa, childGBps))
          return error;
        widestChild = std::max(widestChild, childGBps);
      } else if (nameOf(child) == "pcilink") {
        std::optional<std::string> target = attr(child, "target");
        if (!target || StringRef(*target).trim().empty())
          return fail(child, "<pcilink> needs attribute 'target'");
        pciLinks.push_back({index, StringRef(*target).trim().lower(),
                            (unsigned)xmlGetLineNo(child)});
      }
    }
    unsigned link = addPcieLink(index, parent, generation, width, line);
    Link &up = graph.getLink(link);
    // Virtual machines often report placeholder speeds (2.5 GT/s x1) for
    // virtual bridges; a bridge cannot be an eighth as fast as what hangs
    // below it, so take the widest device below instead.
    if (up.bandwidthGBps * 8 < widestChild) {
      correctedBridges.push_back(llvm::formatv(
          "{0} (line {1}) reports {2:F2} GB/s, below it {3:F1} GB/s", busId,
          line, up.bandwidthGBps, widestChild));
      up.bandwidthGBps = widestChild;
    }
    upstreamGBps = up.bandwidthGBps;
    return llvm::Error::success();
  }
  if (baseClass == 0x03 || baseClass == 0x02) {
    // A PCI skeleton: the slot is known, the device is not (NCCL fills it
    // in at run time).
    Device device;
    bool isGpu = baseClass == 0x03;
    device.kind = isGpu ? DeviceKind::GPU : DeviceKind::NIC;
    device.index = isGpu ? ++maxGpuDev : ++maxNicDev;
    device.name = ((isGpu ? "gpu" : "nic") + Twine(device.index)).str();
    device.numa = numa;
    device.busId = busId;
    device.described = false;
    device.sourceLine = line;
    unsigned index = graph.addDevice(std::move(device));
    (isGpu ? skeletonGpus : skeletonNics).push_back(index);
    busIds[busId] = {index, line};
    unsigned link = addPcieLink(index, parent, generation, width, line);
    upstreamGBps = graph.getLink(link).bandwidthGBps;
    return llvm::Error::success();
  }
  // Storage controllers and the like: not part of the data path comm plans.
  ++numOtherPci;
  busIds[busId] = {~0u, line};
  return llvm::Error::success();
}

llvm::Error NcclXmlImporter::importGpu(xmlNode *gpu, xmlNode *pci,
                                       unsigned parent, int numa,
                                       unsigned &deviceIndex) {
  if (llvm::Error error = checkChildren(gpu, {"nvlink", "c2c"}))
    return error;
  int64_t dev, sm, gdr;
  if (llvm::Error e =
          intAttr(gpu, "dev", kDeviceIndexRange, dev, /*required=*/true))
    return e;
  if (llvm::Error e = intAttr(gpu, "sm", kComputeCapabilityRange, sm, true))
    return e;
  if (llvm::Error e = intAttr(gpu, "gdr", kFlagRange, gdr, false))
    return e;
  auto [it, inserted] = gpuLines.try_emplace(dev, xmlGetLineNo(gpu));
  if (!inserted)
    return fail(gpu, "duplicate GPU dev " + Twine(dev) + " (also at line " +
                         Twine(it->second) + ")");
  maxGpuDev = std::max<int>(maxGpuDev, dev);

  Device device;
  device.kind = DeviceKind::GPU;
  device.name = ("gpu" + Twine(dev)).str();
  device.index = dev;
  device.numa = numa;
  device.computeCapability = sm;
  device.gpuDirect = gdr != 0;
  device.sourceLine = xmlGetLineNo(gpu);
  int64_t pciDevice = 0;
  if (pci) {
    if (std::optional<std::string> id = attr(pci, "device"))
      (void)StringRef(*id).getAsInteger(0, pciDevice);
  }
  GpuEstimate guess = estimateGpu(sm);
  GpuModel model = {0, "", guess.memoryGB, guess.memoryGBps};
  for (const GpuModel &known : kGpuModels)
    if (known.deviceId == pciDevice) {
      model = known;
      device.memoryKnown = true;
    }
  device.model = model.name.str();
  device.memoryGB = model.memoryGB;
  device.memoryGBps = model.memoryGBps;
  deviceIndex = graph.addDevice(std::move(device));

  for (xmlNode *child : elements(gpu)) {
    unsigned line = xmlGetLineNo(child);
    int64_t count;
    if (llvm::Error e = intAttr(child, "count", kLaneCountRange, count, true))
      return e;
    if (nameOf(child) == "nvlink") {
      std::optional<std::string> target = attr(child, "target");
      int64_t tclass;
      if (!target || StringRef(*target).trim().empty())
        return fail(child, "<nvlink> needs attribute 'target'");
      if (llvm::Error e =
              intAttr(child, "tclass", kPciClassRange, tclass, true))
        return e;
      nvlinks.push_back({deviceIndex, StringRef(*target).trim().lower(),
                         static_cast<unsigned>(count),
                         static_cast<unsigned>(tclass), line});
      continue;
    }
    double bw;
    if (llvm::Error e = doubleAttr(child, "bw", bw, 0))
      return e;
    if (!(bw > 0))
      return fail(child, "<c2c> bw must be positive (MB/s per link), got " +
                             formatTopologyNumber(bw));
    c2cs.push_back({deviceIndex, static_cast<unsigned>(count), bw, line});
  }
  (void)parent;
  return llvm::Error::success();
}

/// Whether `port` is named like a kernel network interface (eth0, ens1f0,
/// enp3s0, bond0, ib0): NCCL's socket transport names its ports so, its IB
/// transport by their verbs device (mlx5_0, bnxt_re0, irdma0, rdmap16s27).
static bool isInterfaceName(StringRef port) {
  return port.starts_with("eth") || port.starts_with("en") ||
         port.starts_with("bond") || port.starts_with("ib") ||
         port.starts_with("em") || port.starts_with("wl") || port == "lo";
}

/// What a port runs on. A device of Amazon's PCI vendor (0x1d0f) is EFA.
/// The PCI class of its device says InfiniBand (0x0207) or Ethernet
/// (0x0200); an Ethernet port of an RDMA device (named by its verbs
/// device, or with GPUDirect RDMA, which sockets have not) runs RoCE,
/// whoever made it. A port without a PCI device is InfiniBand unless it is
/// named as a kernel interface (NCCL's socket transport).
static NetworkKind getNetworkKind(std::optional<std::string> classText,
                                  std::optional<std::string> vendorText,
                                  StringRef portName, bool gpuDirect) {
  int64_t vendor = 0;
  if (vendorText && !StringRef(*vendorText).trim().getAsInteger(0, vendor) &&
      vendor == 0x1d0f)
    return NetworkKind::EFA;
  int64_t classCode = 0;
  if (classText && !StringRef(*classText).getAsInteger(0, classCode)) {
    if ((classCode >> 8) == 0x0207)
      return NetworkKind::InfiniBand;
    if ((classCode >> 8) == 0x0200)
      return gpuDirect || !isInterfaceName(portName) ? NetworkKind::RoCE
                                                     : NetworkKind::Ethernet;
  }
  if (isInterfaceName(portName))
    return NetworkKind::Ethernet;
  return NetworkKind::InfiniBand;
}

llvm::Error NcclXmlImporter::importNic(xmlNode *nic, xmlNode *pci,
                                       unsigned parent, int numa) {
  if (llvm::Error error = checkChildren(nic, {"net"}))
    return error;
  SmallVector<xmlNode *> nets = elements(nic);
  if (nets.empty())
    return fail(nic, "<nic> lists no <net> port");
  for (xmlNode *net : nets) {
    int64_t dev, speed, gdr;
    double latency;
    if (llvm::Error e =
            intAttr(net, "dev", kDeviceIndexRange, dev, /*required=*/true))
      return e;
    if (llvm::Error e = intAttr(net, "speed", speed, true))
      return e;
    if (llvm::Error e = intAttr(net, "gdr", kFlagRange, gdr, false))
      return e;
    if (llvm::Error e = doubleAttr(net, "latency", latency, 0))
      return e;
    if (speed <= 0)
      return fail(net,
                  "NIC speed must be positive (Mbit/s), got " + Twine(speed));
    auto [it, inserted] = nicLines.try_emplace(dev, xmlGetLineNo(net));
    if (!inserted)
      return fail(net, "duplicate NIC dev " + Twine(dev) + " (also at line " +
                           Twine(it->second) + ")");
    maxNicDev = std::max<int>(maxNicDev, dev);
    Device device;
    device.kind = DeviceKind::NIC;
    device.name = ("nic" + Twine(dev)).str();
    device.index = dev;
    device.numa = numa;
    device.speedGbit = speed / 1000.0;
    device.latencyUs = latency;
    device.gpuDirect = gdr != 0;
    device.model = attr(net, "name").value_or("");
    device.network = getNetworkKind(pci ? attr(pci, "class") : std::nullopt,
                                    pci ? attr(pci, "vendor") : std::nullopt,
                                    device.model, gdr != 0);
    device.sourceLine = xmlGetLineNo(net);
    unsigned index = graph.addDevice(std::move(device));
    if (!pci) {
      // A NIC directly under a CPU: its PCIe link is not described.
      addPcieLink(index, parent, 3, 16, xmlGetLineNo(net));
      ++numGuessedLinks;
    }
  }
  return llvm::Error::success();
}

llvm::Error NcclXmlImporter::resolve() {
  // NVSwitches: NCCL merges every switch chip into one node.
  std::optional<unsigned> nvswitch;
  llvm::StringSet<> switchTargets = nvswitchBusIds;
  for (const PendingNVLink &link : nvlinks)
    if (link.tclass == 0x068000)
      switchTargets.insert(link.target);
  if (!switchTargets.empty()) {
    Device device;
    device.kind = DeviceKind::NVSwitch;
    device.name = "nvswitch";
    device.index = 0;
    device.chips = switchTargets.size();
    int cc = 0;
    for (const PendingNVLink &link : nvlinks)
      if (link.tclass == 0x068000)
        cc = std::max(cc, graph.getDevice(link.gpu).computeCapability);
    device.generation = getNVLinkGeneration(cc);
    // NVLink SHARP arrived with the third-generation NVSwitch (Hopper).
    device.reductionCapable = cc >= 90;
    nvswitch = graph.addDevice(std::move(device));
  }

  // Merge NVLinks per (GPU, peer): a GPU lists one <nvlink> per switch chip,
  // and a GPU-GPU link appears in both GPUs' lists.
  std::map<std::pair<unsigned, unsigned>, std::pair<unsigned, unsigned>>
      lanes; // -> (count, line)
  // GPU-GPU lanes as each GPU lists them: (GPU, peer) -> (count, line).
  std::map<std::pair<unsigned, unsigned>, std::pair<unsigned, unsigned>> listed;
  unsigned selfLinks = 0;
  for (const PendingNVLink &link : nvlinks) {
    unsigned peer;
    if (link.tclass == 0x068000) {
      peer = *nvswitch;
    } else if (link.tclass == 0x068001) {
      peer = cpuByNuma.count(graph.getDevice(link.gpu).numa)
                 ? cpuByNuma[graph.getDevice(link.gpu).numa]
                 : cpuByNuma.begin()->second;
    } else if ((link.tclass >> 16) == 0x03) {
      auto it = busIds.find(link.target);
      if (it == busIds.end() || it->second.first == ~0u)
        return makeTopologyError(fileName, link.line,
                                 "<nvlink> target " + link.target +
                                     " is not a GPU of this file");
      peer = it->second.first;
      if (graph.getDevice(peer).kind != DeviceKind::GPU)
        return makeTopologyError(
            fileName, link.line,
            "<nvlink> target " + link.target + " is a " +
                stringifyDeviceKind(graph.getDevice(peer).kind) +
                ", not a GPU");
      if (peer == link.gpu) {
        ++selfLinks;
        continue;
      }
    } else {
      return makeTopologyError(
          fileName, link.line,
          llvm::formatv("<nvlink> target class {0:x} is not a GPU (0x03xxxx), "
                        "an NVSwitch (0x068000) or a CPU (0x068001)",
                        link.tclass)
              .str());
    }
    if (nvswitch && peer == *nvswitch) {
      auto &entry = lanes[{link.gpu, peer}];
      entry.first += link.count;
      entry.second = entry.second ? entry.second : link.line;
      continue;
    }
    // One GPU's elements to one peer add up, as NCCL adds their bandwidth
    // (ncclTopoConnectNodes); a second one was dropped.
    auto &listedEntry = listed[{link.gpu, peer}];
    listedEntry.first += link.count;
    listedEntry.second = listedEntry.second ? listedEntry.second : link.line;
  }
  for (auto &[ends, info] : listed) {
    auto [count, line] = info;
    auto key = std::minmax(ends.first, ends.second);
    auto &entry = lanes[{key.first, key.second}];
    // Listed from both ends: keep one link of the larger count, and say
    // so where the ends disagree (NCCL would time each direction by its
    // own end's count).
    if (entry.first && entry.first != count)
      asymmetricNVLinks.push_back(llvm::formatv(
          "the NVLink between {0} and {1} has {2} lane(s) at line {3} and "
          "{4} at line {5}; using {6}",
          graph.getDevice(key.first).name, graph.getDevice(key.second).name,
          entry.first, entry.second, count, line,
          std::max(entry.first, count)));
    entry.first = std::max(entry.first, count);
    entry.second = entry.second ? std::min(entry.second, line) : line;
  }
  for (auto &[ends, info] : lanes) {
    auto [a, b] = ends;
    const Device &gpu = graph.getDevice(a).kind == DeviceKind::GPU
                            ? graph.getDevice(a)
                            : graph.getDevice(b);
    Link link;
    link.a = a;
    link.b = b;
    link.kind = LinkKind::NVLink;
    link.count = info.first;
    link.generation = getNVLinkGeneration(gpu.computeCapability);
    link.bandwidthGBps =
        info.first * getNVLinkLaneBandwidth(gpu.computeCapability);
    link.latencyUs = kNVLinkHopLatencyUs;
    link.sourceLine = info.second;
    graph.addLink(link);
  }

  for (const PendingC2C &c2c : c2cs) {
    int numa = graph.getDevice(c2c.gpu).numa;
    auto it = cpuByNuma.find(numa);
    if (it == cpuByNuma.end())
      return makeTopologyError(fileName, c2c.line,
                               "<c2c> of a GPU outside any <cpu>");
    Link link;
    link.a = c2c.gpu;
    link.b = it->second;
    link.kind = LinkKind::C2C;
    link.count = c2c.count;
    link.bandwidthGBps = c2c.count * c2c.bwMBps / 1000.0;
    link.latencyUs = kC2CLatencyUs;
    link.sourceLine = c2c.line;
    graph.addLink(link);
  }

  // NCCL lists a peer link at both switches: one link per pair.
  std::set<std::pair<unsigned, unsigned>> peerPairs;
  for (const PendingPciLink &pciLink : pciLinks) {
    auto it = busIds.find(pciLink.target);
    if (it == busIds.end() || it->second.first == ~0u ||
        graph.getDevice(it->second.first).kind != DeviceKind::PCIeSwitch)
      return makeTopologyError(fileName, pciLink.line,
                               "<pcilink> target " + pciLink.target +
                                   " is not a PCIe switch of this file");
    unsigned peer = it->second.first;
    if (peer == pciLink.from ||
        !peerPairs.insert(std::minmax(pciLink.from, peer)).second)
      continue;
    // Peer-to-peer links between switches of one vendor: as fast as the
    // slower switch's upstream link.
    double bw = std::numeric_limits<double>::infinity();
    unsigned generation = 0, width = 0;
    for (unsigned sw : {pciLink.from, peer})
      for (auto [linkIndex, other] : graph.getNeighbors(sw)) {
        const Link &up = graph.getLink(linkIndex);
        if (up.a == sw && graph.getDevice(other).kind != DeviceKind::GPU &&
            graph.getDevice(other).kind != DeviceKind::NIC &&
            up.bandwidthGBps < bw) {
          bw = up.bandwidthGBps;
          generation = up.generation;
          width = up.width;
        }
      }
    unsigned link = addPcieLink(pciLink.from, peer, generation ? generation : 3,
                                width ? width : 16, pciLink.line);
    graph.getLink(link).peer = true;
    if (!std::isinf(bw))
      graph.getLink(link).bandwidthGBps = bw;
  }

  // Every pair of sockets talks over the inter-socket interconnect.
  SmallVector<unsigned> cpus;
  for (auto &[numa, index] : cpuByNuma)
    cpus.push_back(index);
  for (unsigned i = 0; i < cpus.size(); ++i)
    for (unsigned j = i + 1; j < cpus.size(); ++j) {
      const Device &cpu = graph.getDevice(cpus[i]);
      Link link;
      link.a = cpus[i];
      link.b = cpus[j];
      link.kind = LinkKind::CPUInterconnect;
      link.bandwidthGBps = getCPUInterconnectBandwidth(
          cpu.vendor, cpu.arch, cpu.familyId, cpu.modelId);
      link.latencyUs = kCPUInterconnectLatencyUs;
      link.sourceLine = cpu.sourceLine;
      graph.addLink(link);
    }

  // Say plainly what the file does and does not describe.
  unsigned gpus = graph.countDevices(DeviceKind::GPU);
  unsigned nics = graph.countDevices(DeviceKind::NIC);
  if (gpus == 0)
    topology.addNote("the file describes no GPU: it cannot be planned for");
  if (!skeletonGpus.empty() || !skeletonNics.empty())
    topology.addNote(llvm::formatv(
        "a PCI skeleton: {0} GPU(s) and {1} NIC(s) appear only as PCI "
        "devices without <gpu>/<nic> elements (NCCL discovers them at run "
        "time). Known: their PCIe placement, so PIX/PXB/PHB/SYS paths are "
        "exact. Unknown: GPU architecture, memory and NVLinks (GPU pairs are "
        "shown over PCIe even where NVLink may join them), NIC speeds",
        skeletonGpus.size(), skeletonNics.size()));
  if (selfLinks)
    topology.addNote(llvm::formatv(
        "ignored {0} <nvlink> element(s) whose target is the GPU itself",
        selfLinks));
  if (numGuessedLinks > numGuessedWidths)
    topology.addNote(llvm::formatv(
        "{0} PCIe link(s) give no speed; assumed 8 GT/s, and x16 where the "
        "width is missing too (NCCL's defaults)",
        numGuessedLinks - numGuessedWidths));
  if (numGuessedWidths)
    topology.addNote(llvm::formatv(
        "{0} PCIe link(s) give their speed but no width; assumed x16 "
        "(NCCL's default)",
        numGuessedWidths));
  for (const std::string &note : asymmetricNVLinks)
    topology.addNote(note);
  for (const std::string &bridge : correctedBridges)
    topology.addNote("PCI bridge " + bridge +
                     "; using the latter (virtual bridges report placeholder "
                     "speeds)");
  if (numOtherPci)
    topology.addNote(llvm::formatv(
        "ignored {0} PCI device(s) that are neither bridges, GPUs, NICs nor "
        "NVSwitches",
        numOtherPci));
  unsigned estimated = 0;
  for (const Device &device : graph.getDevices())
    if (device.kind == DeviceKind::GPU && device.described &&
        !device.memoryKnown)
      ++estimated;
  if (estimated)
    topology.addNote(llvm::formatv(
        "{0} GPU(s) have a PCI device id comm does not know: memory figures "
        "estimated from the compute capability",
        estimated));
  (void)nics;
  return llvm::Error::success();
}

namespace {
/// The first error libxml2 reports, which names the cause; later ones are
/// consequences ("Premature end of data").
struct FirstXmlError {
  bool seen = false;
  int line = 0;
  std::string message;
};
} // namespace

static void recordXmlError(void *userData, xmlErrorPtr error) {
  auto *context = static_cast<xmlParserCtxtPtr>(userData);
  auto *first = static_cast<FirstXmlError *>(context->_private);
  if (!first || first->seen || !error || error->level < XML_ERR_ERROR)
    return;
  first->seen = true;
  first->line = error->line;
  first->message = error->message ? StringRef(error->message).trim().str()
                                  : std::string("malformed XML");
}

llvm::Expected<std::unique_ptr<Topology>>
mlir::comm::importNcclTopologyXml(StringRef buffer, StringRef fileName) {
  xmlParserCtxtPtr context = xmlNewParserCtxt();
  if (!context)
    return makeTopologyError(fileName, 0, "cannot create an XML parser");
  FirstXmlError firstError;
  context->_private = &firstError;
  context->sax->serror = recordXmlError;
  xmlDocPtr doc = xmlCtxtReadMemory(context, buffer.data(), buffer.size(),
                                    fileName.str().c_str(), nullptr,
                                    XML_PARSE_NONET | XML_PARSE_NOWARNING);
  if (!doc || firstError.seen) {
    if (doc)
      xmlFreeDoc(doc);
    xmlFreeParserCtxt(context);
    return makeTopologyError(
        fileName, firstError.line,
        "malformed XML: " +
            (firstError.seen ? firstError.message : std::string("unreadable")));
  }
  auto topology = std::make_unique<Topology>();
  topology->setSource(fileName);
  topology->setName(llvm::sys::path::stem(fileName));
  NcclXmlImporter importer(fileName, *topology);
  xmlNode *root = xmlDocGetRootElement(doc);
  llvm::Error error =
      root ? importer.importDocument(root)
           : makeTopologyError(fileName, 0, "the XML document is empty");
  xmlFreeDoc(doc);
  xmlFreeParserCtxt(context);
  if (error)
    return std::move(error);
  if (llvm::Error error = topology->finalize())
    return std::move(error);
  return topology;
}
