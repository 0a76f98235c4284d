//===- CostModel.cpp - predicted time of collectives -----------*- C++ -*-===//
//
// The formulas are in docs/CostModel.md. Each algorithm is a number of steps
// (each costing a per-step latency on the link class it crosses) and a
// number of bytes each rank moves at the bandwidth the algorithm sustains on
// the group's shape: the ring bandwidth inside a machine (shared links
// divided), the GPU's injection bandwidth into an NVSwitch, and the network
// bandwidth of a machine's NICs.
//
//===----------------------------------------------------------------------===//

#include "comm/CostModel/CostModel.h"
#include "comm/Topology/TopologyPrinter.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <limits>
#include <set>

using namespace mlir;
using namespace mlir::comm;

static constexpr double kInf = std::numeric_limits<double>::infinity();

double mlir::comm::getBusBandwidthFactor(CollectiveKind kind, uint64_t n) {
  if (n <= 1)
    return 1.0;
  switch (kind) {
  case CollectiveKind::AllReduce:
    return 2.0 * (n - 1) / n;
  case CollectiveKind::ReduceScatter:
  case CollectiveKind::AllGather:
  case CollectiveKind::AllToAll:
    return double(n - 1) / n;
  default:
    return 1.0;
  }
}

//===----------------------------------------------------------------------===//
// Group shapes
//===----------------------------------------------------------------------===//

CostModel::CostModel(const Topology &topology, const CostParams &params)
    : topology(topology), params(params) {}

double CostModel::getLinkEfficiency(const Link &link) const {
  switch (link.kind) {
  case LinkKind::NVLink:
    return params.nvlinkEfficiency;
  case LinkKind::PCIe:
  case LinkKind::CPUInterconnect:
    return params.pcieEfficiency;
  case LinkKind::C2C:
    return params.c2cEfficiency;
  case LinkKind::Network:
    return params
        .networkEfficiency[static_cast<unsigned>(topology.getFabric().network)];
  case LinkKind::SharedMemory:
    return 1.0; // its figure is a measured rate already
  }
  return 1.0;
}

double CostModel::getPathBandwidth(const Path &path) const {
  // Between machines every hop runs at the network's pace (the NIC's DMA
  // and the fabric's flow control set it), not at its own link's.
  bool network = path.kind == PathKind::Net;
  double netEff = params.networkEfficiency[static_cast<unsigned>(
      topology.getFabric().network)];
  double best = kInf;
  for (const PathHop &hop : path.hops) {
    const Link &link = *topology.getLink(hop.link).props;
    best = std::min(best, link.bandwidthGBps *
                              (network ? netEff : getLinkEfficiency(link)));
  }
  return best;
}

static LinkClass classOf(LinkKind kind) {
  switch (kind) {
  case LinkKind::NVLink:
    return LinkClass::NVLink;
  case LinkKind::Network:
    return LinkClass::Network;
  default:
    return LinkClass::PCIe;
  }
}

static std::string describeLinkRef(const Topology &topology, LinkId id) {
  LinkRef link = topology.getLink(id);
  return topology.getDeviceName(link.a) + " - " +
         topology.getDeviceName(link.b) + " (" +
         stringifyLinkKind(link.props->kind).str() + ", " +
         formatBandwidth(link.props->bandwidthGBps) + ")";
}

/// Adds each of `pairs`' flows to the directed links (2 x link + reverse)
/// its path crosses.
static void countFlows(const Topology &topology,
                       ArrayRef<std::pair<int64_t, int64_t>> pairs,
                       llvm::DenseMap<uint64_t, unsigned> &flowsOnLink) {
  for (auto [src, dst] : pairs)
    for (const PathHop &hop : topology.getGPUPath(src, dst).hops)
      ++flowsOnLink[2 * hop.link + hop.reverse];
}

double CostModel::getFlowRate(
    ArrayRef<std::pair<int64_t, int64_t>> pairs,
    const llvm::DenseMap<uint64_t, unsigned> *allFlows) const {
  double rate = kInf;
  for (auto [src, dst] : pairs) {
    Path path = topology.getGPUPath(src, dst);
    if (!path.isConnected())
      return 0;
    rate = std::min(rate, getPathBandwidth(path));
  }
  llvm::DenseMap<uint64_t, unsigned> flowsOnLink;
  countFlows(topology, pairs, flowsOnLink);
  for (auto [directed, flows] : flowsOnLink)
    rate = std::min(rate, topology.getLink(directed / 2).props->bandwidthGBps /
                              (allFlows ? allFlows->lookup(directed) : flows));
  return std::isinf(rate) ? 0 : rate;
}

std::pair<double, std::string>
CostModel::getDirectBandwidth(const GroupShape &shape,
                              double protocolFactor) const {
  // What a GPU sends in all: its own link, its share of the node's
  // network, and the n-1 flows it sends at the rate the busiest shared
  // link leaves each.
  double bw = shape.injectGBps;
  std::string bottleneck = "each GPU's own link";
  if (shape.nodes > 1 && shape.nodeNetworkGBps / shape.perNode < bw) {
    bw = shape.nodeNetworkGBps / shape.perNode;
    bottleneck = "each GPU's share of " + shape.networkBottleneck;
  }
  double pattern = (shape.ranks - 1) * shape.allPairsFlowGBps;
  if (pattern > 0 && pattern < bw) {
    bw = pattern;
    bottleneck = "the link the exchange's flows share most";
  }
  return {bw * protocolFactor, bottleneck};
}

/// The flows of the exchange algorithms over `ranks`, as the simulator's
/// phases lay them out: every ordered pair (direct), the root's (a direct
/// broadcast), and each level of recursive halving / doubling.
struct ExchangePatterns {
  using Pairs = SmallVector<std::pair<int64_t, int64_t>>;
  Pairs allPairs, fromRoot;
  SmallVector<Pairs> levels;
};

static ExchangePatterns getExchangePatterns(ArrayRef<int64_t> ranks) {
  ExchangePatterns patterns;
  size_t count = ranks.size();
  for (size_t i = 0; i < count; ++i)
    for (size_t j = 0; j < count; ++j)
      if (i != j)
        patterns.allPairs.push_back({ranks[i], ranks[j]});
  patterns.fromRoot.assign(patterns.allPairs.begin(),
                           patterns.allPairs.begin() + (count - 1));
  unsigned levels = 0;
  while ((size_t(1) << levels) < count)
    ++levels;
  for (unsigned level = 0; level < levels; ++level) {
    size_t distance = size_t(1) << (levels - 1 - level);
    ExchangePatterns::Pairs pairs;
    for (size_t i = 0; i < count; ++i)
      if ((i ^ distance) < count)
        pairs.push_back({ranks[i], ranks[i ^ distance]});
    patterns.levels.push_back(std::move(pairs));
  }
  return patterns;
}

/// The paths of a ring through `locals` (local GPU indices of `node`, in
/// index order), hop after hop.
static SmallVector<Path, 8> getRingHops(const Topology &topology, uint64_t node,
                                        ArrayRef<unsigned> locals) {
  unsigned perNodeGPUs = topology.getGPUsPerNode();
  SmallVector<Path, 8> hops;
  for (unsigned i = 0; i < locals.size(); ++i)
    hops.push_back(topology.getPath(
        topology.getGPU(node * perNodeGPUs + locals[i]),
        topology.getGPU(node * perNodeGPUs + locals[(i + 1) % locals.size()])));
  return hops;
}

/// Directed link (2 x link + reverse) -> how many hops of the group's
/// intra-node rings cross it.
static llvm::DenseMap<uint64_t, unsigned>
getRingLinkUses(const Topology &topology, ArrayRef<int64_t> ranks) {
  unsigned perNodeGPUs = topology.getGPUsPerNode();
  std::map<uint64_t, SmallVector<unsigned, 8>> byNode;
  for (int64_t rank : ranks)
    byNode[rank / perNodeGPUs].push_back(rank % perNodeGPUs);
  llvm::DenseMap<uint64_t, unsigned> uses;
  for (auto &[node, locals] : byNode) {
    llvm::sort(locals);
    if (locals.size() < 2)
      continue;
    for (const Path &hop : getRingHops(topology, node, locals))
      for (const PathHop &h : hop.hops)
        ++uses[2 * h.link + h.reverse];
  }
  return uses;
}

SmallVector<GroupShape, 2>
CostModel::getConcurrentShapes(ArrayRef<SmallVector<int64_t, 8>> groups) const {
  SmallVector<GroupShape, 2> shapes;
  for (const auto &group : groups) {
    shapes.push_back(getGroupShape(group));
    if (groups.size() > 64)
      return shapes; // replica groups of a cluster repeat the same few shapes
  }
  if (groups.size() < 2)
    return shapes;
  std::string key;
  {
    llvm::raw_string_ostream os(key);
    for (const auto &group : groups) {
      llvm::interleave(group, os, ",");
      os << ";";
    }
  }
  {
    std::lock_guard<std::mutex> lock(cacheMutex);
    auto it = concurrentCache.find(key);
    if (it != concurrentCache.end())
      return it->second;
  }
  SmallVector<llvm::DenseMap<uint64_t, unsigned>, 2> own;
  llvm::DenseMap<uint64_t, unsigned> all;
  for (const auto &group : groups) {
    own.push_back(getRingLinkUses(topology, group));
    for (auto [link, count] : own.back())
      all[link] += count;
  }
  // The exchanges (direct, halving_doubling): each pattern of every group
  // at once, each flow at its share of the busiest link it crosses.
  SmallVector<ExchangePatterns, 2> patterns;
  for (const auto &group : groups)
    if (group.size() >= 2 && group.size() <= 128)
      patterns.push_back(getExchangePatterns(group));
  if (patterns.size() == groups.size()) {
    auto shared = [&](auto pairsOf, auto update) {
      llvm::DenseMap<uint64_t, unsigned> flows;
      for (const ExchangePatterns &p : patterns)
        countFlows(topology, pairsOf(p), flows);
      for (size_t g = 0; g < groups.size(); ++g)
        update(shapes[g], getFlowRate(pairsOf(patterns[g]), &flows));
    };
    auto lower = [](double &rate, double shared) {
      if (shared < rate)
        rate = shared;
    };
    shared([](const ExchangePatterns &p) { return ArrayRef(p.allPairs); },
           [&](GroupShape &shape, double rate) {
             lower(shape.allPairsFlowGBps, rate);
           });
    shared([](const ExchangePatterns &p) { return ArrayRef(p.fromRoot); },
           [&](GroupShape &shape, double rate) {
             lower(shape.fromRootFlowGBps, rate);
           });
    for (size_t level = 0; level < patterns.front().levels.size(); ++level)
      shared(
          [&](const ExchangePatterns &p) {
            return level < p.levels.size()
                       ? ArrayRef(p.levels[level])
                       : ArrayRef<std::pair<int64_t, int64_t>>();
          },
          [&](GroupShape &shape, double rate) {
            if (level < shape.halvingLevelFlowGBps.size())
              lower(shape.halvingLevelFlowGBps[level], rate);
          });
  }
  for (size_t g = 0; g < groups.size(); ++g) {
    for (auto [key, count] : own[g]) {
      unsigned total = all.lookup(key);
      if (total == count)
        continue; // no other group crosses it
      LinkRef link = topology.getLink(key / 2);
      double raw = link.props->bandwidthGBps / total;
      double eff = raw * getLinkEfficiency(*link.props);
      GroupShape &shape = shapes[g];
      if (eff < shape.ringGBps) {
        shape.ringGBps = eff;
        shape.intraClass = classOf(link.props->kind);
        shape.ringBottleneck =
            describeLinkRef(topology, key / 2) +
            llvm::formatv(" shared by {0} ring hops of the op's {1} groups",
                          total, groups.size())
                .str();
      }
      shape.ringRawGBps = std::min(shape.ringRawGBps, raw);
    }
  }
  std::lock_guard<std::mutex> lock(cacheMutex);
  concurrentCache[key] = shapes;
  return shapes;
}

/// The socket cuts of a group inside one machine (GroupShape::socketCuts).
static SmallVector<GroupShape::SocketCut, 2>
getSocketCuts(const Topology &topology, ArrayRef<int64_t> ranks) {
  std::map<DeviceId, SmallVector<int64_t, 8>> sides;
  for (int64_t rank : ranks) {
    std::optional<DeviceId> cpu = topology.getHostCPU(topology.getGPU(rank));
    if (!cpu)
      return {};
    sides[*cpu].push_back(rank);
  }
  SmallVector<GroupShape::SocketCut, 2> cuts;
  if (sides.size() < 2)
    return cuts;
  for (auto &[cpu, inside] : sides) {
    // The directed links every path from outside into the side crosses.
    std::optional<SmallVector<PathHop, 8>> common;
    for (int64_t src : ranks) {
      if (llvm::is_contained(inside, src))
        continue;
      for (int64_t dst : inside) {
        Path path = topology.getGPUPath(src, dst);
        if (!path.isConnected())
          return {};
        if (!common) {
          common = path.hops;
          continue;
        }
        llvm::erase_if(*common, [&](const PathHop &hop) {
          return !llvm::is_contained(path.hops, hop);
        });
      }
    }
    if (!common || common->empty())
      continue;
    const PathHop *slowest = nullptr;
    for (const PathHop &hop : *common)
      if (!slowest || topology.getLink(hop.link).props->bandwidthGBps <
                          topology.getLink(slowest->link).props->bandwidthGBps)
        slowest = &hop;
    GroupShape::SocketCut cut;
    cut.ranks = inside;
    cut.cpu = cpu;
    cut.rawGBps = topology.getLink(slowest->link).props->bandwidthGBps;
    cut.link = describeLinkRef(topology, slowest->link);
    cuts.push_back(std::move(cut));
  }
  return cuts;
}

SmallVector<SmallVector<int64_t, 8>, 2>
mlir::comm::getRanksBySocket(const Topology &topology,
                             ArrayRef<int64_t> group) {
  SmallVector<DeviceId, 2> cpus;
  SmallVector<SmallVector<int64_t, 8>, 2> sockets;
  for (int64_t rank : group) {
    std::optional<DeviceId> cpu = topology.getHostCPU(topology.getGPU(rank));
    if (!cpu)
      return {};
    auto *it = llvm::find(cpus, *cpu);
    if (it == cpus.end()) {
      cpus.push_back(*cpu);
      sockets.emplace_back();
      it = cpus.end() - 1;
    }
    sockets[it - cpus.begin()].push_back(rank);
  }
  return sockets;
}

SmallVector<SmallVector<int64_t, 8>, 8>
mlir::comm::getRingsAcrossSockets(ArrayRef<SmallVector<int64_t, 8>> sockets) {
  SmallVector<SmallVector<int64_t, 8>, 8> rings;
  for (const auto &members : sockets)
    for (auto [local, rank] : llvm::enumerate(members)) {
      if (local >= rings.size())
        rings.resize(local + 1);
      rings[local].push_back(rank);
    }
  return rings;
}

std::optional<GroupShape::SocketLevels>
CostModel::getSocketLevels(ArrayRef<int64_t> ranks) const {
  SmallVector<SmallVector<int64_t, 8>, 2> inside =
      getRanksBySocket(topology, ranks);
  if (inside.size() < 2 || inside.front().size() < 2 ||
      llvm::any_of(inside, [&](const auto &members) {
        return members.size() != inside.front().size();
      }))
    return std::nullopt;
  GroupShape::SocketLevels levels;
  levels.sockets = inside.size();
  levels.perSocket = inside.front().size();
  SmallVector<SmallVector<int64_t, 8>, 8> across =
      getRingsAcrossSockets(inside);
  auto slowest = [&](ArrayRef<SmallVector<int64_t, 8>> rings, double &gbps,
                     LinkClass &cls, std::string &bottleneck) {
    gbps = kInf;
    for (const GroupShape &ring : getConcurrentShapes(rings))
      if (ring.ringGBps < gbps) {
        gbps = ring.ringGBps;
        cls = ring.intraClass;
        bottleneck = ring.ringBottleneck;
      }
  };
  slowest(inside, levels.insideGBps, levels.insideClass,
          levels.insideBottleneck);
  slowest(across, levels.acrossGBps, levels.acrossClass,
          levels.acrossBottleneck);
  GroupShape alone = getGroupShape(across.front());
  levels.acrossAloneGBps = alone.ringGBps;
  levels.acrossAloneBottleneck = alone.ringBottleneck;
  if (std::isinf(levels.insideGBps) || std::isinf(levels.acrossGBps))
    return std::nullopt;
  return levels;
}

GroupShape CostModel::getGroupShape(ArrayRef<int64_t> ranks) const {
  std::string key;
  {
    llvm::raw_string_ostream os(key);
    llvm::interleave(ranks, os, ",");
  }
  {
    std::lock_guard<std::mutex> lock(cacheMutex);
    auto it = shapeCache.find(key);
    if (it != shapeCache.end())
      return it->second;
  }

  GroupShape shape;
  shape.ranks = ranks.size();
  const NodeGraph &machine = topology.getNode();
  unsigned perNodeGPUs = topology.getGPUsPerNode();
  // Local GPU indices of the group, per node.
  std::map<uint64_t, SmallVector<unsigned, 8>> byNode;
  for (int64_t rank : ranks)
    byNode[rank / perNodeGPUs].push_back(rank % perNodeGPUs);
  shape.nodes = byNode.size();
  for (auto &[node, locals] : byNode) {
    llvm::sort(locals);
    shape.perNode = std::max<unsigned>(shape.perNode, locals.size());
  }

  // Intra-node quantities depend only on the set of local GPUs: compute them
  // once per distinct set.
  std::map<SmallVector<unsigned, 8>, bool> seen;
  shape.ringGBps = shape.ringRawGBps = kInf;
  shape.injectGBps = shape.injectRawGBps = shape.gpuLinksRawGBps = kInf;
  shape.nvls = shape.perNode >= 2;
  for (auto &[node, locals] : byNode) {
    if (!seen.emplace(locals, true).second)
      continue;
    // Injection bandwidth and NVLS capability of each GPU.
    for (unsigned local : locals) {
      unsigned device = topology.getGPU(local) % machine.getNumDevices();
      // NVLinks to the switch or to peers add up; without NVLink the GPU
      // injects over its PCIe (or C2C) link.
      double nvlink = 0, nvlinkRaw = 0, other = 0, otherRaw = 0;
      bool onReducingSwitch = false;
      for (auto [linkIndex, peerIndex] : machine.getNeighbors(device)) {
        const Link &link = machine.getLink(linkIndex);
        const Device &peer = machine.getDevice(peerIndex);
        if (link.kind == LinkKind::NVLink) {
          if (peer.kind == DeviceKind::NVSwitch && peer.reductionCapable) {
            onReducingSwitch = true;
            // An NVSwitch of unknown generation has NVLS, so NVLink4 at
            // least.
            unsigned generation = std::max(peer.generation, 4u);
            shape.nvlsGeneration =
                shape.nvlsGeneration
                    ? std::min(shape.nvlsGeneration, generation)
                    : generation;
          }
          nvlinkRaw += link.bandwidthGBps;
          nvlink += link.bandwidthGBps * getLinkEfficiency(link);
        } else if (link.kind == LinkKind::PCIe || link.kind == LinkKind::C2C) {
          otherRaw = std::max(otherRaw, link.bandwidthGBps);
          other = std::max(other, link.bandwidthGBps * getLinkEfficiency(link));
        }
      }
      double bestRaw = nvlinkRaw > 0 ? nvlinkRaw : otherRaw;
      double best = nvlinkRaw > 0 ? nvlink : other;
      shape.nvls &= onReducingSwitch;
      if (bestRaw > 0) {
        shape.injectRawGBps = std::min(shape.injectRawGBps, bestRaw);
        shape.injectGBps = std::min(shape.injectGBps, best);
        shape.gpuLinksRawGBps =
            std::min(shape.gpuLinksRawGBps,
                     nvlinkRaw > 0 ? nvlinkRaw + otherRaw : bestRaw);
      }
    }
    if (locals.size() < 2)
      continue;
    // A ring through the local GPUs in index order.
    SmallVector<Path, 8> hops = getRingHops(topology, node, locals);
    llvm::DenseMap<uint64_t, unsigned> uses;
    for (const Path &hop : hops)
      for (const PathHop &h : hop.hops)
        ++uses[2 * h.link + h.reverse];
    for (const Path &hop : hops) {
      for (const PathHop &h : hop.hops) {
        LinkRef link = topology.getLink(h.link);
        unsigned count = uses[2 * h.link + h.reverse];
        double raw = link.props->bandwidthGBps / count;
        double eff = raw * getLinkEfficiency(*link.props);
        if (eff < shape.ringGBps) {
          shape.ringGBps = eff;
          shape.intraClass = classOf(link.props->kind);
          shape.ringBottleneck =
              describeLinkRef(topology, h.link) +
              (count > 1
                   ? llvm::formatv(" shared by {0} ring hops", count).str()
                   : std::string());
        }
        shape.ringRawGBps = std::min(shape.ringRawGBps, raw);
      }
      shape.intraHopLatencyUs =
          std::max(shape.intraHopLatencyUs, hop.latencyUs);
    }
  }
  if (shape.perNode < 2)
    shape.nvls = false;

  // Network: the NICs a node's group GPUs can use.
  shape.nodeNetworkGBps = shape.nodeNetworkRawGBps = kInf;
  if (shape.nodes > 1) {
    const Fabric &fabric = topology.getFabric();
    shape.network = fabric.network;
    double netEff =
        params.networkEfficiency[static_cast<unsigned>(fabric.network)];
    seen.clear();
    for (auto &[node, locals] : byNode) {
      if (!seen.emplace(locals, true).second)
        continue;
      double raw = 0;
      std::set<unsigned> usable;
      // NICs on a PCIe switch with one of the group's GPUs; otherwise each
      // GPU's own NIC.
      for (unsigned nic : machine.getDevicesOfKind(DeviceKind::NIC))
        for (unsigned local : locals) {
          DeviceId gpu = topology.getGPU(local);
          Path toNic = topology.getPath(gpu, topology.getDeviceId(0, nic));
          if (toNic.isConnected() && toNic.kind <= PathKind::PXB)
            usable.insert(nic);
        }
      if (usable.empty())
        for (unsigned local : locals)
          if (auto nic = topology.getNearestNIC(topology.getGPU(local) %
                                                machine.getNumDevices()))
            usable.insert(*nic);
      for (unsigned nic : usable) {
        double port = machine.getDevice(nic).speedGbit / 8.0;
        if (fabric.linkGbit > 0)
          port = std::min(port, fabric.linkGbit / 8.0);
        double pcie = 0;
        for (unsigned local : locals) {
          Path toNic = topology.getPath(topology.getGPU(local),
                                        topology.getDeviceId(0, nic));
          pcie = std::max(pcie, toNic.bandwidthGBps);
        }
        raw += std::min(port, pcie);
      }
      // Crossing leaves shares their uplinks.
      uint64_t first = byNode.begin()->first, last = byNode.rbegin()->first;
      if (fabric.kind != FabricKind::None &&
          topology.getPath(topology.getGPU(first * perNodeGPUs),
                           topology.getGPU(last * perNodeGPUs))
                  .switches > 1)
        raw /= fabric.oversubscription;
      shape.nodeNetworkRawGBps = std::min(shape.nodeNetworkRawGBps, raw);
      shape.nodeNetworkGBps = std::min(shape.nodeNetworkGBps, raw * netEff);
    }
    // Latency of a ring hop between machines, and of the farthest pair.
    uint64_t first = byNode.begin()->first;
    uint64_t second = std::next(byNode.begin())->first;
    uint64_t last = byNode.rbegin()->first;
    unsigned local = byNode.begin()->second.front();
    Path next = topology.getGPUPath(first * perNodeGPUs + local,
                                    second * perNodeGPUs + local);
    Path far = topology.getGPUPath(first * perNodeGPUs + local,
                                   last * perNodeGPUs + local);
    shape.networkHopLatencyUs = std::max(next.latencyUs, far.latencyUs);
    shape.networkBottleneck =
        llvm::formatv("the NICs of a node: {0} of {1}, {2} usable",
                      formatBandwidth(shape.nodeNetworkRawGBps),
                      stringifyNetworkKind(fabric.network),
                      formatBandwidth(shape.nodeNetworkGBps))
            .str();
    shape.diameterUs = far.latencyUs;
  } else {
    shape.diameterUs = shape.intraHopLatencyUs;
  }
  if (std::isinf(shape.injectGBps))
    shape.injectGBps = shape.injectRawGBps = shape.ringGBps;
  if (std::isinf(shape.gpuLinksRawGBps))
    shape.gpuLinksRawGBps = shape.injectRawGBps;
  if (shape.nodes == 1 && ranks.size() >= 2 && ranks.size() <= 128)
    shape.socketCuts = getSocketCuts(topology, ranks);
  if (shape.nodes == 1 && ranks.size() >= 4 && ranks.size() <= 128)
    shape.socketLevels = getSocketLevels(ranks);
  if (ranks.size() >= 2 && ranks.size() <= 128) {
    ExchangePatterns patterns = getExchangePatterns(ranks);
    shape.allPairsFlowGBps = getFlowRate(patterns.allPairs);
    shape.fromRootFlowGBps = getFlowRate(patterns.fromRoot);
    for (const auto &level : patterns.levels)
      shape.halvingLevelFlowGBps.push_back(getFlowRate(level));
  }

  std::lock_guard<std::mutex> lock(cacheMutex);
  if (!shape.nvls)
    shape.nvlsGeneration = 0;
  shapeCache[key] = shape;
  return shape;
}

//===----------------------------------------------------------------------===//
// Validation
//===----------------------------------------------------------------------===//

bool mlir::comm::nvlsReduces(const CollectiveRequest &request) {
  if (request.kind != CollectiveKind::AllReduce &&
      request.kind != CollectiveKind::ReduceScatter &&
      request.kind != CollectiveKind::Reduce)
    return true;
  ReductionKind op = request.reduction.value_or(ReductionKind::sum);
  bool sum = op == ReductionKind::sum;
  bool minMax = op == ReductionKind::min || op == ReductionKind::max;
  switch (request.elementBytes) {
  case 2: // f16, bf16 (NCCL has no 16-bit integers)
    return request.floatElements && (sum || minMax);
  case 4:
  case 8:
    return request.floatElements ? sum : sum || minMax;
  default:
    return false;
  }
}

static llvm::Error requestError(const Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Error CostModel::validate(const CollectiveRequest &request) const {
  uint64_t gpus = topology.getNumGPUs();
  auto checkRank = [&](int64_t rank) -> llvm::Error {
    if (rank < 0 || static_cast<uint64_t>(rank) >= gpus)
      return requestError("rank " + Twine(rank) + " is beyond the " +
                          Twine(gpus) + " GPUs of topology '" +
                          topology.getName() + "' (ranks 0-" + Twine(gpus - 1) +
                          ")");
    return llvm::Error::success();
  };
  StringRef name = stringifyCollectiveKind(request.kind);
  if (request.bytes > kMaxRequestBytes)
    return requestError(name + " of " +
                        (request.bytes == UINT64_MAX
                             ? std::string("more than 2^64")
                             : std::to_string(request.bytes)) +
                        " bytes: comm models transfers of up to 2^50 bytes "
                        "(1 PiB)");
  if (request.elementBytes == 0 ||
      (request.bytes && request.bytes % request.elementBytes))
    return requestError(name + " of " + Twine(request.bytes) +
                        " bytes is not a whole number of " +
                        Twine(request.elementBytes) + "-byte elements");
  if (request.backend) {
    std::string message;
    llvm::raw_string_ostream os(message);
    if (!isCarriedBy(request.kind, *request.backend))
      describeNotCarried(name, *request.backend, os);
    else if (request.algorithm &&
             !isRealized(request.kind, *request.algorithm, *request.backend))
      describeUnrealized(request.kind, name, *request.algorithm,
                         *request.backend, os);
    if (!message.empty())
      return requestError(message);
  }
  switch (request.kind) {
  case CollectiveKind::Copy: {
    if (llvm::Error e = checkRank(request.copyRank))
      return e;
    // Between HBM and host memory the data crosses the GPU's link to a
    // CPU: a GPU that reaches none has no host memory to copy to.
    bool toHost = request.copySource != MemorySpace::hbm ||
                  request.copyTarget != MemorySpace::hbm;
    bool fromGPU = request.copySource == MemorySpace::hbm ||
                   request.copyTarget == MemorySpace::hbm;
    DeviceId gpu = topology.getGPU(request.copyRank);
    if (toHost && fromGPU && !topology.getHostCPU(gpu))
      return requestError("copy between HBM and host memory on rank " +
                          Twine(request.copyRank) + ": its GPU " +
                          topology.getDeviceName(gpu) +
                          " reaches no CPU on topology '" +
                          topology.getName() +
                          "' (link it to one, e.g. by PCIe)");
    return llvm::Error::success();
  }
  case CollectiveKind::Permute:
  case CollectiveKind::SendRecv:
    if (request.pairs.empty())
      return requestError(name + " needs at least one [source, target] pair");
    for (auto [src, dst] : request.pairs) {
      if (llvm::Error e = checkRank(src))
        return e;
      if (llvm::Error e = checkRank(dst))
        return e;
    }
    return llvm::Error::success();
  default:
    break;
  }
  if (request.groups.empty())
    return requestError(name + " needs at least one group of ranks");
  size_t size = request.groups.front().size();
  for (const auto &group : request.groups) {
    if (group.empty())
      return requestError(name + " has an empty group");
    if (group.size() != size)
      return requestError(name + " has groups of different sizes");
    std::set<int64_t> unique(group.begin(), group.end());
    if (unique.size() != group.size())
      return requestError(name + " names a rank twice in a group");
    for (int64_t rank : group)
      if (llvm::Error e = checkRank(rank))
        return e;
  }
  bool mustDivide = request.kind == CollectiveKind::AllGather ||
                    request.kind == CollectiveKind::ReduceScatter ||
                    request.kind == CollectiveKind::AllToAll;
  uint64_t elements = request.bytes / request.elementBytes;
  if (mustDivide && elements % size != 0)
    return requestError(name + " of " + Twine(elements) +
                        " elements does not divide among " + Twine(size) +
                        " ranks");
  if ((request.kind == CollectiveKind::Broadcast ||
       request.kind == CollectiveKind::Reduce) &&
      (request.root < 0 || static_cast<size_t>(request.root) >= size))
    return requestError(name + " root " + Twine(request.root) +
                        " is not a position in groups of " + Twine(size));
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Predictions
//===----------------------------------------------------------------------===//

ArrayRef<Algorithm>
CostModel::getSearchedAlgorithms(const CollectiveRequest &request) {
  if (!request.backend)
    return getApplicableAlgorithms(request.kind);
  if (request.native)
    return getNativeAlgorithms(request.kind, *request.backend);
  ArrayRef<Algorithm> realized =
      getRealizedAlgorithms(request.kind, *request.backend);
  // What takes no algorithm (a barrier) runs as the backend's own.
  return realized.empty() ? getNativeAlgorithms(request.kind, *request.backend)
                          : realized;
}

static unsigned ceilLog2(uint64_t n) {
  unsigned bits = 0;
  while ((uint64_t(1) << bits) < n)
    ++bits;
  return bits;
}

namespace {
/// Accumulates the terms of a prediction.
struct TermBuilder {
  Prediction &p;
  void latency(StringRef name, double us, const Twine &detail = "") {
    if (us <= 0)
      return;
    p.latencyUs += us;
    p.terms.push_back({name.str(), us, detail.str()});
  }
  /// Size-proportional time that is not one transfer's (a pipeline's fill).
  void time(StringRef name, double us, const Twine &detail = "") {
    if (us <= 0)
      return;
    p.bandwidthUs += us;
    p.terms.push_back({name.str(), us, detail.str()});
  }
  /// Moving `bytes` per rank at `gbps`.
  void bandwidth(StringRef name, double bytes, double gbps,
                 const Twine &detail = "") {
    if (bytes <= 0)
      return;
    double us = gbps > 0 ? bytes / (gbps * 1e3) : kInf;
    p.bandwidthUs += us;
    p.terms.push_back({name.str(), us, detail.str()});
  }
};
} // namespace

/// The chunks a plan's chunk_bytes cuts a runtime schedule into
/// (runtime/lib/Schedule.cpp): of each channel's slice of the buffer
/// (reduce_scatter, all_gather: of every block) when `perChannel`, else of
/// the whole; and the size of the call one chunk is on nccl-tests' axis (a
/// chunk of one block is a call of n blocks). {1, 0} where the plan fixes
/// no chunk or the collective is not cut into chunks.
static std::pair<double, uint64_t>
getPlanChunks(const CollectiveRequest &request, double n, bool perChannel) {
  bool blocks = request.kind == CollectiveKind::ReduceScatter ||
                request.kind == CollectiveKind::AllGather;
  bool chunked = blocks || request.kind == CollectiveKind::AllReduce ||
                 request.kind == CollectiveKind::Broadcast ||
                 request.kind == CollectiveKind::Reduce;
  if (!chunked || !request.chunkBytes || *request.chunkBytes == 0)
    return {1, 0};
  double elementBytes = std::max(1u, request.elementBytes);
  double S = static_cast<double>(request.bytes);
  double elements =
      std::max(1.0, std::floor((blocks ? S / n : S) / elementBytes));
  if (perChannel)
    elements = std::ceil(elements / std::max(1u, request.channels));
  double perChunk =
      std::max(1.0, std::floor(double(*request.chunkBytes) / elementBytes));
  double m = std::min(std::ceil(elements / perChunk), 1e9);
  return {m,
          static_cast<uint64_t>(perChunk * elementBytes * (blocks ? n : 1.0))};
}

std::optional<Prediction>
CostModel::predictWith(const CollectiveRequest &request,
                       const GroupShape &shape, Algorithm algorithm,
                       Protocol protocol) const {
  const CostParams &P = params;
  const double n = shape.ranks, N = shape.nodes, g = shape.perNode;
  const double S = request.bytes;
  unsigned a = static_cast<unsigned>(algorithm);
  unsigned pr = static_cast<unsigned>(protocol);
  double protocolFactor = P.getProtocolBandwidth(protocol);
  auto step = [&](LinkClass cls) {
    return P.stepLatencyUs[static_cast<unsigned>(cls)][pr];
  };
  const bool multiNode = N > 1;
  const LinkClass intra = shape.intraClass;
  // The bus bandwidth of a ring over the whole group: the slower of the
  // intra-node ring and the nodes' NICs.
  double ringBus = shape.ringGBps;
  std::string ringBottleneck = shape.ringBottleneck;
  if (multiNode && shape.nodeNetworkGBps < ringBus) {
    ringBus = shape.nodeNetworkGBps;
    ringBottleneck = shape.networkBottleneck;
  }
  if (shape.perNode < 2 && !multiNode)
    ringBus = shape.injectGBps;

  Prediction p;
  p.kind = request.kind;
  p.algorithm = algorithm;
  p.protocol = protocol;
  p.bytes = request.bytes;
  p.ranks = shape.ranks;
  TermBuilder b{p};
  // Recursive halving / doubling level by level, at the rates the
  // group's links leave each level's pairs: `rounds` passes (2 for
  // all_reduce, broadcast and reduce). False where the levels were not
  // computed.
  auto halvingLevels = [&](double rounds) {
    ArrayRef<double> rates = shape.halvingLevelFlowGBps;
    if (rates.empty() || llvm::is_contained(rates, 0.0))
      return false;
    double us = 0, bytes = 0, slowest = kInf;
    size_t slowestLevel = 0;
    for (auto [level, rate] : llvm::enumerate(rates)) {
      double part = rounds * S / double(uint64_t(2) << level);
      us += part / (rate * protocolFactor * 1e3);
      bytes += part;
      if (rate < slowest) {
        slowest = rate;
        slowestLevel = level;
      }
    }
    b.bandwidth("halving/doubling levels", bytes, bytes / (us * 1e3),
                llvm::formatv("slowest: ranks {0} apart at {1} per pair",
                              uint64_t(1) << (rates.size() - 1 - slowestLevel),
                              formatBandwidth(slowest)));
    return true;
  };
  // A plan's `tree` runs the runtime's binomial tree (runtime/lib/
  // Schedule.cpp, treeReduce and treeBroadcast), not NCCL's: at every level
  // the whole buffer goes to a rank 1, 2, 4, ... apart, `rounds` times (2
  // for all_reduce: up, then down), at the rate the group's links leave the
  // pairs of that distance (the halving levels'), else the ring's.
  const bool binomialTree =
      algorithm == Algorithm::tree && request.backend && !request.native &&
      isRuntimeSchedule(request.kind, algorithm, *request.backend);
  auto binomialLevels = [&](double rounds) {
    double levels = ceilLog2(static_cast<uint64_t>(n));
    double netLevels = multiNode ? ceilLog2(static_cast<uint64_t>(N)) : 0;
    ArrayRef<double> rates = shape.halvingLevelFlowGBps;
    double bytes = rounds * levels * S;
    if (rates.size() == static_cast<size_t>(levels) &&
        !llvm::is_contained(rates, 0.0)) {
      double us = 0;
      for (double rate : rates)
        us += rounds * S / (rate * protocolFactor * 1e3);
      b.bandwidth("binomial tree levels", bytes, bytes / (us * 1e3),
                  llvm::formatv("the whole buffer at each of {0} levels, {1} "
                                "time(s)",
                                int64_t(levels), int64_t(rounds)));
    } else {
      double bw = (std::isinf(ringBus) ? shape.injectGBps : ringBus) *
                  protocolFactor;
      b.bandwidth("binomial tree levels", bytes, bw,
                  llvm::formatv("the whole buffer at each of {0} levels, {1} "
                                "time(s), at {2}",
                                int64_t(levels), int64_t(rounds),
                                formatBandwidth(bw)));
    }
    return std::make_pair(rounds * (levels - netLevels), rounds * netLevels);
  };
  auto base = [&](StringRef what) {
    b.latency("base latency", P.baseLatencyUs[a][pr],
              stringifyAlgorithm(algorithm) + "/" +
                  stringifyProtocol(protocol) + " " + what);
  };
  auto steps = [&](double count, LinkClass cls, StringRef what) {
    static const char *const classes[] = {"NVLink", "PCIe", "network"};
    b.latency("step latency", count * step(cls),
              llvm::formatv("{0} {1} steps x {2:F2} us over {3}",
                            formatTopologyNumber(count), what, step(cls),
                            classes[static_cast<unsigned>(cls)]));
  };

  // A hierarchical all_reduce, reduce_scatter or all_gather: rings inside
  // each machine and across the machines, or, for a group inside one
  // machine, inside each CPU socket and across the sockets
  // (runtime/lib/Schedule.cpp). The schedule runs its chunks as a pipeline
  // (chunk j enters one step after chunk j - 1): m chunks take the busiest
  // link's time for all of the levels' bytes (inside one machine each GPU's
  // own link, which both levels cross, among them; across machines the
  // NICs' bytes leave the GPU over PCIe, beside its NVLink), plus (the
  // phases one after the other - that) / m to fill and drain, plus a step
  // per chunk after the first; the model picks m where the plan gives no
  // chunk size. False where the group has no two levels.
  auto twoLevels = [&]() -> bool {
    double D, l, insideBw, acrossBw, ownBw = 0;
    LinkClass insideClass, acrossClass;
    std::string insideWhy, acrossWhy;
    StringRef unit;
    if (multiNode) {
      if (shape.perNode < 2)
        return false;
      D = N;
      l = g;
      insideBw = shape.ringGBps;
      acrossBw = shape.nodeNetworkGBps / g;
      insideClass = intra;
      acrossClass = LinkClass::Network;
      insideWhy = shape.ringBottleneck;
      acrossWhy = "each GPU's share of " + shape.networkBottleneck;
      // The NICs' bytes leave the GPU over PCIe, beside its NVLink; a GPU
      // without NVLink sends both levels over its one PCIe link.
      if (intra == LinkClass::PCIe)
        ownBw = shape.injectGBps;
      unit = "node";
    } else if (shape.socketLevels) {
      const GroupShape::SocketLevels &levels = *shape.socketLevels;
      D = levels.sockets;
      l = levels.perSocket;
      insideBw = levels.insideGBps;
      acrossBw = levels.acrossGBps;
      ownBw = shape.injectGBps;
      insideClass = levels.insideClass;
      acrossClass = levels.acrossClass;
      insideWhy = levels.insideBottleneck;
      acrossWhy = levels.acrossBottleneck;
      unit = "socket";
    } else {
      return false;
    }
    insideBw *= protocolFactor;
    acrossBw *= protocolFactor;
    struct Phase {
      std::string name;
      double bytes;
      bool inside;
      double steps;
    };
    std::string in = ("in the " + unit).str(),
                across = ("across " + unit + "s").str();
    SmallVector<Phase, 3> phases;
    double insideBytes = (l - 1) / l * S;
    switch (request.kind) {
    case CollectiveKind::AllReduce:
      phases = {
          {"reduce_scatter " + in, insideBytes, true, l - 1},
          {"all_reduce " + across, 2 * (D - 1) / D * S / l, false, 2 * (D - 1)},
          {"all_gather " + in, insideBytes, true, l - 1}};
      break;
    case CollectiveKind::ReduceScatter:
      phases = {{"inside the " + unit.str(), insideBytes, true, l - 1},
                {across, (D - 1) / D * S / l, false, D - 1}};
      break;
    case CollectiveKind::AllGather:
      phases = {{across, (D - 1) / D * S / l, false, D - 1},
                {"inside the " + unit.str(), insideBytes, true, l - 1}};
      break;
    default:
      return false;
    }
    double insideUs = 0, acrossUs = 0, sumUs = 0, allBytes = 0;
    double insideSteps = 0, acrossSteps = 0;
    for (const Phase &phase : phases) {
      double us = phase.bytes / ((phase.inside ? insideBw : acrossBw) * 1e3);
      (phase.inside ? insideUs : acrossUs) += us;
      (phase.inside ? insideSteps : acrossSteps) += phase.steps;
      sumUs += us;
      allBytes += phase.bytes;
    }
    double ownUs = ownBw > 0 ? allBytes / (ownBw * protocolFactor * 1e3) : 0;
    double busyUs = std::max({insideUs, acrossUs, ownUs});
    // What pipelining can hide: the levels one after the other beyond the
    // busiest link (none where each GPU's own link is the whole story).
    double hideableUs = std::max(0.0, sumUs - busyUs);
    // The runtime cuts the buffer (all_reduce) or every block into chunks.
    double chunked = request.kind == CollectiveKind::AllReduce ? S : S / n;
    double elementBytes = std::max(1u, request.elementBytes);
    double elements = std::max(1.0, std::floor(chunked / elementBytes));
    double stepUs = step(acrossClass);
    double m = 1;
    if (request.chunkBytes && *request.chunkBytes > 0) {
      double perChunk = std::max<double>(
          1, std::floor(double(*request.chunkBytes) / elementBytes));
      m = std::min(std::ceil(elements / perChunk), 1e9);
    } else if (!request.chunkBytes && stepUs > 0) {
      m = std::round(std::sqrt(hideableUs / stepUs));
      m = std::clamp(m, 1.0, std::min(64.0, elements));
    }
    base("");
    steps(insideSteps, insideClass, "ring " + in);
    steps(acrossSteps, acrossClass, "ring " + across);
    p.pipelineChunks = static_cast<unsigned>(m);
    if (m > 1)
      p.chunkBytes = static_cast<uint64_t>(std::ceil(elements / m)) *
                     static_cast<uint64_t>(elementBytes);
    std::string busiest = busyUs == acrossUs ? acrossWhy
                          : busyUs == ownUs
                              ? "each GPU's own link, which both levels cross"
                              : insideWhy;
    if (m <= 1) {
      for (const Phase &phase : phases)
        b.bandwidth(phase.name, phase.bytes, phase.inside ? insideBw : acrossBw,
                    phase.inside ? insideWhy : acrossWhy);
      p.bottleneck = acrossUs >= insideUs ? acrossWhy : insideWhy;
    } else {
      steps(m - 1, acrossClass, "pipeline");
      b.bandwidth("bandwidth", allBytes, allBytes / (busyUs * 1e3),
                  llvm::formatv("every level's bytes at once, pipelined in "
                                "{0} chunks: {1}",
                                formatTopologyNumber(m), busiest));
      p.pipelineFillUs = hideableUs / m;
      b.time("pipeline fill", p.pipelineFillUs,
             llvm::formatv("the levels one after the other take "
                           "{0:F2} us; 1/{1} of what the busiest "
                           "link does not cover",
                           sumUs, formatTopologyNumber(m)));
      p.bottleneck = busiest;
    }
    return true;
  };

  if (shape.ranks == 1) {
    // A local copy of the buffer at HBM speed, launched as a copy is (NCCL
    // runs a one-rank collective as a copy kernel; it was charged the
    // algorithm's base latency, up to 53 us for nvls/ll128).
    const Device &gpu = topology.getDevice(topology.getGPU(
        request.groups.empty() ? 0 : request.groups.front().front()));
    b.latency("base latency", params.copyLatencyUs,
              "copy launch (a group of one rank)");
    double bw = getMemoryGBps(gpu) / 2;
    b.bandwidth("bandwidth", S, bw, "copy in HBM");
    p.busBandwidthGBps = bw;
    p.bottleneck = "HBM of " + gpu.name;
    p.timeUs = p.latencyUs + p.bandwidthUs;
    return p;
  }

  switch (request.kind) {
  case CollectiveKind::AllReduce:
    switch (algorithm) {
    case Algorithm::ring: {
      double bus = ringBus * protocolFactor;
      base("");
      steps(2 * (n - 1), multiNode ? LinkClass::Network : intra, "ring");
      b.bandwidth("bandwidth", 2 * (n - 1) / n * S, bus,
                  "2(n-1)/n of the buffer at the ring's " +
                      formatBandwidth(bus) + " (" + ringBottleneck + ")");
      p.busBandwidthGBps = bus;
      p.bottleneck = ringBottleneck;
      break;
    }
    case Algorithm::tree: {
      if (binomialTree) {
        base("binomial");
        auto [inside, across] = binomialLevels(2);
        steps(inside, intra, "binomial tree");
        if (across > 0)
          steps(across, LinkClass::Network, "binomial tree");
        p.busBandwidthGBps = 2 * (n - 1) / n * S / (p.bandwidthUs * 1e3);
        p.bottleneck = multiNode ? shape.networkBottleneck : ringBottleneck;
        break;
      }
      // A chain inside each machine and a double binary tree across them.
      // Latency: NCCL src/graph/tuning.cc, 2 ((n/N - 1) intra + log2 N
      // inter) step latencies, each level across machines costing a chunk's
      // pipeline fill (treeNetworkLevelUs). Bandwidth: NCCL models the tree's
      // bus bandwidth as a fraction of the ring's (tuning.cc: x .92, and
      // "trees are not perfectly sticking to the model for medium sizes");
      // across machines, the tree's share of the NICs.
      double bus = shape.ringGBps;
      std::string why = shape.ringBottleneck;
      double netGBps = multiNode
                           ? shape.nodeNetworkGBps *
                                 P.treeNetworkEfficiency[static_cast<unsigned>(
                                     shape.network)]
                           : kInf;
      if (netGBps < bus) {
        bus = netGBps;
        why = shape.networkBottleneck;
      }
      if (shape.perNode < 2 && !multiNode)
        bus = shape.injectGBps;
      bus *= protocolFactor;
      base("");
      steps(2 * (g - 1), intra, "chain");
      if (multiNode)
        b.latency("tree levels", 2 * ceilLog2(N) * P.treeNetworkLevelUs,
                  llvm::formatv("{0} levels across machines x {1:F2} us",
                                2 * ceilLog2(N), P.treeNetworkLevelUs));
      b.bandwidth("bandwidth", 2 * (n - 1) / n * S, bus,
                  "reduce up and broadcast down at " + formatBandwidth(bus) +
                      " (" + why + ")");
      p.busBandwidthGBps = bus;
      p.bottleneck = why;
      break;
    }
    case Algorithm::nvls: {
      if (!shape.nvls || protocol != Protocol::simple || !nvlsReduces(request))
        return std::nullopt;
      double nvlsBw =
          shape.injectRawGBps * P.getNvlsEfficiency(shape.nvlsGeneration);
      b.latency("base latency", P.nvlsLatencyUs, "NVLink SHARP launch");
      double intraUs = S / (nvlsBw * 1e3);
      double netUs = 0;
      // Across machines NVLS_TREE: each machine sends and receives 2(N-1)/N
      // of the buffer (S on two machines, where nccl-tests' bus bandwidth
      // exceeds the NICs': NVIDIA/nccl-tests#22), at the trees' share of
      // its NICs.
      double netGBps = multiNode
                           ? shape.nodeNetworkGBps *
                                 P.treeNetworkEfficiency[static_cast<unsigned>(
                                     shape.network)]
                           : kInf;
      if (multiNode) {
        b.latency("step latency", 2 * ceilLog2(N) * P.nvlsNetworkStepUs,
                  llvm::formatv("{0} tree levels x {1:F2} us across nodes",
                                2 * ceilLog2(N), P.nvlsNetworkStepUs));
        netUs = 2 * (N - 1) / N * S / (netGBps * 1e3);
      }
      // The in-switch reduction and the network phase are pipelined.
      if (netUs > intraUs) {
        b.bandwidth("bandwidth", 2 * (N - 1) / N * S, netGBps,
                    "2(N-1)/N of the buffer per node at the NVLS tree's " +
                        formatBandwidth(netGBps) + " of " +
                        shape.networkBottleneck +
                        ", overlapping the in-switch reduction");
        p.bottleneck = shape.networkBottleneck;
      } else {
        b.bandwidth("bandwidth", S, nvlsBw,
                    "each GPU pushes and pulls the buffer once through the "
                    "NVSwitch at " +
                        formatBandwidth(nvlsBw));
        p.bottleneck = "the GPU's NVLink into the reducing NVSwitch";
      }
      p.busBandwidthGBps =
          2 * (n - 1) / n * S / (std::max(intraUs, netUs) * 1e3);
      break;
    }
    case Algorithm::hierarchical: {
      if (!twoLevels())
        return std::nullopt;
      p.busBandwidthGBps = 2 * (n - 1) / n * S / (p.bandwidthUs * 1e3);
      break;
    }
    case Algorithm::direct: {
      if (protocol == Protocol::ll128)
        return std::nullopt;
      auto [bw, bottleneck] = getDirectBandwidth(shape, protocolFactor);
      base("");
      steps(1, multiNode ? LinkClass::Network : intra, "exchange");
      b.latency("per-peer latency", (n - 1) * P.perPeerLatencyUs,
                llvm::formatv("{0} peers", n - 1));
      b.bandwidth("bandwidth", (n - 1) * S, bw,
                  "every rank reads every other rank's buffer");
      p.busBandwidthGBps = 2 * (n - 1) / n * S / (p.bandwidthUs * 1e3);
      p.bottleneck = bottleneck;
      break;
    }
    case Algorithm::halving_doubling: {
      double levels = ceilLog2(static_cast<uint64_t>(n));
      double netLevels = multiNode ? ceilLog2(static_cast<uint64_t>(N)) : 0;
      double intraBw = shape.ringGBps * protocolFactor;
      double perGpuNet =
          multiNode ? shape.nodeNetworkGBps / g * protocolFactor : kInf;
      base("");
      steps(2 * (levels - netLevels), intra, "halving/doubling");
      if (multiNode)
        steps(2 * netLevels, LinkClass::Network, "halving/doubling");
      // The first levels (largest distance) cross nodes.
      double crossing = multiNode ? 2 * (N - 1) / N * S : 0;
      double local = 2 * (n - 1) / n * S - (multiNode ? crossing / g : 0);
      if (!halvingLevels(2)) {
        if (multiNode)
          b.bandwidth("levels across nodes", crossing, perGpuNet);
        b.bandwidth("levels inside nodes", std::max(local, 0.0),
                    std::isinf(intraBw) ? shape.injectGBps : intraBw);
      }
      p.busBandwidthGBps = 2 * (n - 1) / n * S / (p.bandwidthUs * 1e3);
      p.bottleneck = multiNode ? shape.networkBottleneck : shape.ringBottleneck;
      break;
    }
    }
    break;

  case CollectiveKind::ReduceScatter:
  case CollectiveKind::AllGather:
    switch (algorithm) {
    case Algorithm::ring: {
      double bus = ringBus * protocolFactor;
      base("");
      steps(n - 1, multiNode ? LinkClass::Network : intra, "ring");
      b.bandwidth("bandwidth", (n - 1) / n * S, bus,
                  "(n-1)/n of the buffer at " + formatBandwidth(bus) + " (" +
                      ringBottleneck + ")");
      p.busBandwidthGBps = bus;
      p.bottleneck = ringBottleneck;
      break;
    }
    case Algorithm::nvls: {
      if (!shape.nvls || multiNode || protocol != Protocol::simple ||
          !nvlsReduces(request))
        return std::nullopt;
      double bw =
          shape.injectRawGBps * P.getNvlsEfficiency(shape.nvlsGeneration);
      b.latency("base latency", P.nvlsLatencyUs, "NVLink SHARP launch");
      b.bandwidth("bandwidth", (n - 1) / n * S, bw,
                  "multicast / in-switch reduction at " + formatBandwidth(bw));
      p.busBandwidthGBps = bw;
      p.bottleneck = "the GPU's NVLink into the NVSwitch";
      break;
    }
    case Algorithm::hierarchical: {
      if (!twoLevels())
        return std::nullopt;
      p.busBandwidthGBps = (n - 1) / n * S / (p.bandwidthUs * 1e3);
      break;
    }
    case Algorithm::direct: {
      if (protocol == Protocol::ll128)
        return std::nullopt;
      auto [bw, bottleneck] = getDirectBandwidth(shape, protocolFactor);
      base("");
      steps(1, multiNode ? LinkClass::Network : intra, "exchange");
      b.latency("per-peer latency", (n - 1) * P.perPeerLatencyUs);
      b.bandwidth("bandwidth", (n - 1) / n * S, bw);
      p.busBandwidthGBps = bw;
      p.bottleneck = bottleneck;
      break;
    }
    case Algorithm::halving_doubling: {
      // Recursive halving (reduce_scatter) or doubling (all_gather): the
      // exchange at distance d moves d/n of the buffer, so the levels
      // between nodes (d >= g) move (N-1)/N of it, each GPU through its
      // share of the node's network, and the levels inside a node the rest.
      double levels = ceilLog2(static_cast<uint64_t>(n));
      double netLevels = multiNode ? ceilLog2(static_cast<uint64_t>(N)) : 0;
      base("");
      steps(levels - netLevels, intra, "halving/doubling");
      if (multiNode)
        steps(netLevels, LinkClass::Network, "halving/doubling");
      if (halvingLevels(1)) {
        p.busBandwidthGBps = (n - 1) / n * S / (p.bandwidthUs * 1e3);
        p.bottleneck = multiNode ? shape.networkBottleneck : ringBottleneck;
        break;
      }
      if (!multiNode) {
        double bus = ringBus * protocolFactor;
        b.bandwidth("bandwidth", (n - 1) / n * S, bus, ringBottleneck);
        p.busBandwidthGBps = bus;
        p.bottleneck = ringBottleneck;
        break;
      }
      double intraBw = shape.ringGBps * protocolFactor;
      double perGpuNet = shape.nodeNetworkGBps / g * protocolFactor;
      double crossing = (N - 1) / N * S;
      b.bandwidth("levels across nodes", crossing, perGpuNet,
                  "each GPU's share of " + shape.networkBottleneck);
      b.bandwidth("levels inside nodes",
                  std::max((n - 1) / n * S - crossing, 0.0),
                  std::isinf(intraBw) ? shape.injectGBps : intraBw);
      p.busBandwidthGBps = (n - 1) / n * S / (p.bandwidthUs * 1e3);
      p.bottleneck = shape.networkBottleneck;
      break;
    }
    default:
      return std::nullopt;
    }
    break;

  case CollectiveKind::AllToAll: {
    if (protocol == Protocol::ll128)
      return std::nullopt;
    double intraBw = shape.injectGBps * protocolFactor;
    double netBw = multiNode ? shape.nodeNetworkGBps * protocolFactor : kInf;
    double offNode = (n - g) / n * S; // per GPU
    double onNode = (g - 1) / n * S;  // per GPU
    base("");
    if (algorithm == Algorithm::direct) {
      steps(1, multiNode ? LinkClass::Network : intra, "exchange");
      b.latency("per-peer latency", (n - 1) * P.perPeerLatencyUs,
                llvm::formatv("{0} peers", n - 1));
      double intraUs = onNode / (intraBw * 1e3);
      double netUs = multiNode ? g * offNode / (netBw * 1e3) : 0;
      // Every pair's block at the rate the busiest shared link leaves it.
      double pairGBps = shape.allPairsFlowGBps * protocolFactor;
      double pairUs = pairGBps > 0 ? S / n / (pairGBps * 1e3) : 0;
      if (pairUs > std::max(intraUs, netUs)) {
        b.bandwidth("bandwidth", S / n, pairGBps,
                    "one pair's block on the link its flows share most");
        p.bottleneck = "the link the exchange's flows share most";
      } else if (netUs > intraUs) {
        b.bandwidth("bandwidth", g * offNode, netBw,
                    "the node's traffic to other nodes over " +
                        shape.networkBottleneck);
        p.bottleneck = shape.networkBottleneck;
      } else {
        b.bandwidth("bandwidth", onNode, intraBw,
                    "each GPU's share for its node's peers");
        p.bottleneck = "each GPU's own link";
      }
    } else if (algorithm == Algorithm::hierarchical) {
      if (!multiNode || shape.perNode < 2)
        return std::nullopt;
      steps(2, intra, "gather/scatter");
      steps(1, LinkClass::Network, "exchange");
      b.latency("per-peer latency", (N - 1) * P.perPeerLatencyUs);
      b.bandwidth("gather in the node", (g - 1) / g * S, intraBw);
      b.bandwidth("exchange across nodes", g * offNode, netBw,
                  shape.networkBottleneck);
      b.bandwidth("scatter in the node", (g - 1) / g * S, intraBw);
      p.bottleneck = shape.networkBottleneck;
    } else {
      return std::nullopt;
    }
    p.busBandwidthGBps = (n - 1) / n * S / (p.bandwidthUs * 1e3);
    break;
  }

  case CollectiveKind::Broadcast:
  case CollectiveKind::Reduce: {
    double bus = ringBus * protocolFactor;
    base("");
    if (algorithm == Algorithm::ring) {
      steps(n - 1, multiNode ? LinkClass::Network : intra, "pipeline");
      b.bandwidth("bandwidth", S, bus,
                  "a pipelined chain at " + formatBandwidth(bus));
      p.bottleneck = ringBottleneck;
    } else if (binomialTree) {
      auto [inside, across] = binomialLevels(1);
      steps(inside, intra, "binomial tree");
      if (across > 0)
        steps(across, LinkClass::Network, "binomial tree");
      p.bottleneck = multiNode ? shape.networkBottleneck : ringBottleneck;
    } else if (algorithm == Algorithm::tree) {
      steps(g - 1, intra, "chain");
      if (multiNode)
        steps(ceilLog2(static_cast<uint64_t>(N)), LinkClass::Network, "tree");
      b.bandwidth("bandwidth", S, bus * P.treeEfficiency);
      p.bottleneck = ringBottleneck;
    } else if (algorithm == Algorithm::direct) {
      if (protocol == Protocol::ll128)
        return std::nullopt;
      steps(1, multiNode ? LinkClass::Network : intra, "exchange");
      b.latency("per-peer latency", (n - 1) * P.perPeerLatencyUs);
      double bw = shape.injectGBps;
      std::string bottleneck = "the root's own link";
      if (shape.fromRootFlowGBps > 0 && (n - 1) * shape.fromRootFlowGBps < bw) {
        bw = (n - 1) * shape.fromRootFlowGBps;
        bottleneck = "the link the root's flows share most";
      }
      b.bandwidth("bandwidth", (n - 1) * S, bw * protocolFactor,
                  "the root exchanges the buffer with every rank");
      p.bottleneck = bottleneck;
    } else if (algorithm == Algorithm::halving_doubling) {
      // Van de Geijn: a binomial scatter and a recursive-doubling all_gather
      // (for reduce, a recursive-halving reduce_scatter and a binomial
      // gather), each moving (n-1)/n of the buffer per rank.
      steps(2 * ceilLog2(static_cast<uint64_t>(n)),
            multiNode ? LinkClass::Network : intra,
            request.kind == CollectiveKind::Broadcast
                ? "scatter/all_gather"
                : "reduce_scatter/gather");
      if (halvingLevels(2)) {
        p.bottleneck = ringBottleneck;
      } else if (multiNode) {
        // As for all_gather: the levels between nodes move (N-1)/N of the
        // buffer per round through each GPU's share of the node's network.
        double perGpuNet = shape.nodeNetworkGBps / g * protocolFactor;
        double intraBw = shape.ringGBps * protocolFactor;
        double crossing = 2 * (N - 1) / N * S;
        b.bandwidth("levels across nodes", crossing, perGpuNet,
                    "each GPU's share of " + shape.networkBottleneck);
        b.bandwidth("levels inside nodes",
                    std::max(2 * (n - 1) / n * S - crossing, 0.0),
                    std::isinf(intraBw) ? shape.injectGBps : intraBw);
        p.bottleneck = shape.networkBottleneck;
      } else {
        b.bandwidth("bandwidth", 2 * (n - 1) / n * S, bus,
                    "2(n-1)/n of the buffer at " + formatBandwidth(bus) + " (" +
                        ringBottleneck + ")");
        p.bottleneck = ringBottleneck;
      }
    } else if (algorithm == Algorithm::hierarchical && !multiNode &&
               shape.socketLevels) {
      // Inside one machine the same by CPU socket: a tree across the
      // sockets among the GPUs at the root's index within its socket, then
      // a tree inside every socket (the reverse for reduce).
      const GroupShape::SocketLevels &levels = *shape.socketLevels;
      double across = levels.acrossAloneGBps * protocolFactor;
      double inside = levels.insideGBps * protocolFactor * P.treeEfficiency;
      steps(ceilLog2(levels.sockets), levels.acrossClass,
            "tree across sockets");
      steps(ceilLog2(levels.perSocket), levels.insideClass,
            "tree in the socket");
      b.bandwidth("across sockets", S, across, levels.acrossAloneBottleneck);
      b.bandwidth("inside the socket", S, inside, levels.insideBottleneck);
      p.bottleneck = across < inside ? levels.acrossAloneBottleneck
                                     : levels.insideBottleneck;
    } else if (algorithm == Algorithm::hierarchical) {
      // A tree across nodes among the GPUs at the root's local index, then
      // a tree inside every node (the reverse for reduce).
      if (!multiNode || shape.perNode < 2)
        return std::nullopt;
      double perGpuNet = shape.nodeNetworkGBps / g * protocolFactor;
      double intraBw = shape.ringGBps * protocolFactor * P.treeEfficiency;
      steps(ceilLog2(static_cast<uint64_t>(N)), LinkClass::Network,
            "inter-node tree");
      steps(ceilLog2(static_cast<uint64_t>(g)), intra, "intra-node tree");
      b.bandwidth("across nodes", S, perGpuNet,
                  "one GPU's share of " + shape.networkBottleneck);
      b.bandwidth("inside the node", S, intraBw);
      p.bottleneck =
          perGpuNet < intraBw ? shape.networkBottleneck : shape.ringBottleneck;
    } else {
      return std::nullopt;
    }
    p.busBandwidthGBps = S / (p.bandwidthUs * 1e3);
    break;
  }

  case CollectiveKind::Barrier: {
    if (protocol != Protocol::ll)
      return std::nullopt;
    double levels = ceilLog2(static_cast<uint64_t>(n));
    base("");
    if (algorithm == Algorithm::halving_doubling)
      steps(levels, multiNode ? LinkClass::Network : intra, "dissemination");
    else if (algorithm == Algorithm::ring)
      steps(2 * (n - 1), multiNode ? LinkClass::Network : intra, "ring");
    else if (algorithm == Algorithm::tree)
      steps(2 * levels, multiNode ? LinkClass::Network : intra, "tree");
    else
      steps(1, multiNode ? LinkClass::Network : intra, "all-to-all"),
          b.latency("per-peer latency", (n - 1) * P.perPeerLatencyUs);
    p.bottleneck = "latency";
    break;
  }

  default:
    return std::nullopt;
  }
  // A plan's chunk size on a flat schedule: the runtime cuts each channel's
  // slice of the buffer (reduce_scatter, all_gather: of every block) into
  // chunks that run the schedule one behind the other (runtime/lib/
  // Schedule.cpp), each after the first a step later, as the hierarchical
  // schedule's pipeline above. Tiny chunks cost a step each: 4-byte chunks
  // of a 1 MiB buffer are 262144 steps, not the one call the plan reads as.
  if (algorithm == Algorithm::ring || algorithm == Algorithm::tree ||
      algorithm == Algorithm::direct ||
      algorithm == Algorithm::halving_doubling) {
    double m = getPlanChunks(request, n, /*perChannel=*/true).first;
    if (m > 1) {
      steps(m - 1, multiNode ? LinkClass::Network : intra,
            "pipeline (the plan's chunks after the first)");
      p.pipelineChunks = static_cast<unsigned>(m);
      p.chunkBytes = *request.chunkBytes;
    }
  }
  p.timeUs = p.latencyUs + p.bandwidthUs;
  if (!std::isfinite(p.timeUs))
    return std::nullopt;
  return p;
}

Route mlir::comm::getNcclRoute(const Path &path) {
  switch (path.kind) {
  // No path between two GPUs of a machine: Topology::finalize refuses that.
  case PathKind::Disconnected:
  case PathKind::Local:
  case PathKind::NVLink:
  case PathKind::NVSwitch:
  case PathKind::NVLinkBridge:
    return Route::nvlink;
  case PathKind::PIX:
  case PathKind::PXB:
    return Route::pcie;
  case PathKind::C2C:
  case PathKind::PHB:
  case PathKind::SHM:
  case PathKind::SYS:
    return Route::host_staged;
  case PathKind::Net:
    return path.gpuDirect ? Route::gdr : Route::host_staged;
  }
  llvm_unreachable("unknown path kind");
}

SmallVector<std::pair<DeviceId, DeviceId>, 3>
mlir::comm::getTransferLegs(const Topology &topology,
                            const CollectiveRequest &request, int64_t source,
                            int64_t target) {
  DeviceId from = topology.getGPU(source), to = topology.getGPU(target);
  std::optional<Route> route = request.route;
  bool ncclStages = false;
  if (request.backend == Backend::nccl && !topology.hasProcessRanks() &&
      source != target) {
    route = getNcclRoute(topology.getPath(from, to));
    ncclStages = route == Route::host_staged;
  }
  if (route != Route::host_staged)
    return {{from, to}};
  DeviceId fromHost = topology.getHostCPU(from).value_or(from);
  DeviceId toHost = topology.getHostCPU(to).value_or(to);
  // NCCL stages GPU memory through pinned host buffers itself: the data
  // crosses each GPU's PCIe link too, chunk by chunk with the leg between
  // the CPUs. A route a plan names host_staged has its copies as ops of
  // their own (comm-route), which cross those links.
  SmallVector<std::pair<DeviceId, DeviceId>, 3> legs;
  if (ncclStages && fromHost != from)
    legs.push_back({from, fromHost});
  legs.push_back({fromHost, toHost});
  if (ncclStages && toHost != to)
    legs.push_back({toHost, to});
  return legs;
}

Prediction CostModel::predictPointToPoint(const CollectiveRequest &request,
                                          Protocol protocol) const {
  Prediction p;
  p.kind = request.kind;
  p.algorithm = Algorithm::direct;
  p.protocol = protocol;
  p.bytes = request.bytes;
  p.ranks = 2;
  TermBuilder b{p};
  double protocolFactor = params.getProtocolBandwidth(protocol);
  // Every leg of every pair; a pair's legs run at once (staged chunk by
  // chunk), so it takes its slowest leg's time and all their latencies.
  SmallVector<Path> paths;
  double worstLatency = 0;
  bool sharedHost = false; // a host-staged pair whose ranks share a CPU
  for (auto [src, dst] : request.pairs) {
    double latency = 0;
    for (auto [from, to] : getTransferLegs(topology, request, src, dst)) {
      paths.push_back(topology.getPath(from, to));
      sharedHost |= src != dst && paths.back().kind == PathKind::Local;
      latency += paths.back().latencyUs;
    }
    worstLatency = std::max(worstLatency, latency);
  }
  llvm::DenseMap<uint64_t, unsigned> uses;
  for (const Path &path : paths)
    for (const PathHop &hop : path.hops)
      ++uses[2 * hop.link + hop.reverse];
  double worstUs = 0;
  std::string why;
  for (const Path &path : paths) {
    if (path.kind == PathKind::Local)
      continue;
    double bw = kInf;
    std::string limit;
    for (const PathHop &hop : path.hops) {
      LinkRef link = topology.getLink(hop.link);
      unsigned count = uses[2 * hop.link + hop.reverse];
      double share =
          link.props->bandwidthGBps * getLinkEfficiency(*link.props) / count;
      if (share < bw) {
        bw = share;
        limit = describeLinkRef(topology, hop.link) +
                (count > 1 ? llvm::formatv(" shared by {0} pairs", count).str()
                           : std::string());
      }
    }
    bw *= protocolFactor;
    double us = request.bytes / (bw * 1e3);
    if (us > worstUs) {
      worstUs = us;
      why = limit;
      p.busBandwidthGBps = bw;
    }
  }
  if (sharedHost) {
    // Staged through the memory of one CPU: a memcpy between processes.
    double us = request.bytes / (kHostMemcpyGBps * 1e3);
    if (us > worstUs) {
      worstUs = us;
      why = "host memcpy (both ranks stage through one CPU's memory)";
      p.busBandwidthGBps = kHostMemcpyGBps;
    }
  }
  unsigned pr = static_cast<unsigned>(protocol);
  if (topology.hasProcessRanks()) {
    // Between processes a message costs its path (MPI's shared memory
    // transport); there is no kernel to launch.
    b.latency("path latency", worstLatency, "one message along the path");
  } else {
    b.latency(
        "base latency",
        params.p2pLatencyUs +
            params.baseLatencyUs[static_cast<unsigned>(Algorithm::direct)][pr],
        "point-to-point launch");
    LinkClass cls = LinkClass::NVLink;
    for (const Path &path : paths)
      if (path.kind == PathKind::Net)
        cls = LinkClass::Network;
      else if (path.kind >= PathKind::PIX && cls == LinkClass::NVLink)
        cls = LinkClass::PCIe;
    b.latency("step latency",
              params.stepLatencyUs[static_cast<unsigned>(cls)][pr] +
                  worstLatency,
              "one transfer along the path");
  }
  if (worstUs > 0) {
    p.bandwidthUs += worstUs;
    p.terms.push_back({"bandwidth", worstUs,
                       "the buffer at " + formatBandwidth(p.busBandwidthGBps) +
                           " (" + why + ")"});
  }
  p.bottleneck = why;
  p.timeUs = p.latencyUs + p.bandwidthUs;
  return p;
}

Prediction CostModel::predictCopy(const CollectiveRequest &request) const {
  Prediction p;
  p.kind = CollectiveKind::Copy;
  p.algorithm = Algorithm::direct;
  p.protocol = Protocol::simple;
  p.bytes = request.bytes;
  p.ranks = 1;
  TermBuilder b{p};
  DeviceId gpu = topology.getGPU(request.copyRank);
  const Device &device = topology.getDevice(gpu);
  b.latency("base latency", params.copyLatencyUs, "copy launch");
  bool hostSide = request.copySource != MemorySpace::hbm ||
                  request.copyTarget != MemorySpace::hbm;
  if (!hostSide) {
    double bw = getMemoryGBps(device) / 2;
    b.bandwidth("bandwidth", request.bytes, bw,
                "read and write in HBM (" + formatBandwidth(2 * bw) + " of " +
                    device.name + ")");
    p.busBandwidthGBps = bw;
    p.bottleneck = "HBM of " + device.name;
  } else if (request.copySource != MemorySpace::hbm &&
             request.copyTarget != MemorySpace::hbm) {
    // Host to host: a memcpy on the CPU.
    double bw = kHostMemcpyGBps;
    b.bandwidth("bandwidth", request.bytes, bw, "host memcpy");
    p.busBandwidthGBps = bw;
    p.bottleneck = "host memory";
  } else {
    // Through the GPU's PCIe (or C2C) link to its CPU.
    const NodeGraph &machine = topology.getNode();
    unsigned local = topology.getLocalIndex(gpu);
    double bw = 0;
    std::string why;
    for (unsigned cpu : machine.getDevicesOfKind(DeviceKind::CPU)) {
      Path path = topology.getPath(
          gpu, topology.getDeviceId(topology.getNodeIndex(gpu), cpu));
      if (!path.isConnected() || path.hops.empty())
        continue;
      double eff = kInf;
      for (const PathHop &hop : path.hops) {
        LinkRef link = topology.getLink(hop.link);
        eff = std::min(eff, link.props->bandwidthGBps *
                                getLinkEfficiency(*link.props));
      }
      if (eff > bw) {
        bw = eff;
        why = describeLinkRef(topology, path.bottleneck);
      }
    }
    (void)local;
    bool pageable = request.copySource == MemorySpace::host ||
                    request.copyTarget == MemorySpace::host;
    if (pageable)
      bw *= params.pageableEfficiency;
    b.bandwidth("bandwidth", request.bytes, bw,
                (pageable ? "pageable host memory over " : "DMA over ") + why);
    p.busBandwidthGBps = bw;
    p.bottleneck = why;
  }
  p.timeUs = p.latencyUs + p.bandwidthUs;
  return p;
}

/// `results` fastest first, or, when empty, an error naming what was asked
/// ("<lead><kind> with algorithm 'x' and protocol 'y'<where>").
static llvm::Expected<SmallVector<Prediction, 4>>
fastestFirst(SmallVector<Prediction, 4> results,
             const CollectiveRequest &request, StringRef lead,
             const Twine &where) {
  llvm::stable_sort(results, [](const Prediction &x, const Prediction &y) {
    return x.timeUs < y.timeUs;
  });
  if (!results.empty())
    return std::move(results);
  return requestError(
      lead + stringifyCollectiveKind(request.kind) +
      (request.algorithm
           ? " with algorithm '" + stringifyAlgorithm(*request.algorithm) + "'"
           : std::string()) +
      (request.protocol
           ? " and protocol '" + stringifyProtocol(*request.protocol) + "'"
           : std::string()) +
      where);
}

std::optional<llvm::Expected<SmallVector<Prediction, 4>>>
CostModel::predictOnHost(const CollectiveRequest &request) const {
  // A profile loaded with the parameters that did not measure this
  // collective leaves it to the built-in one (its source says so).
  const HostProfile *loaded = &getHostProfile(params);
  if (!loaded->lookup(request.kind, std::nullopt))
    loaded = &getDefaultHostProfile();
  const HostProfile &profile = *loaded;
  if (!profile.lookup(request.kind, std::nullopt))
    return std::nullopt;
  if (request.backend && *request.backend != Backend::mpi)
    return requestError("the ranks of '" + topology.getName() +
                        "' are processes on the CPU, which the mpi backend "
                        "runs; the " +
                        stringifyBackend(*request.backend) +
                        " backend cannot run them (plan and simulate with "
                        "the mpi backend: comm-plan's backend=mpi, "
                        "comm-sim's --backend mpi)");
  // MPI's own collective (no algorithm) and the runtime's schedules, as the
  // request's backend and native flag select them.
  SmallVector<std::optional<Algorithm>, 6> candidates;
  if (request.algorithm) {
    candidates.push_back(request.algorithm);
  } else {
    if (!request.backend || request.native)
      candidates.push_back(std::nullopt);
    if (!request.native)
      for (Algorithm algorithm :
           getRealizedAlgorithms(request.kind, Backend::mpi))
        candidates.push_back(algorithm);
  }
  if (request.protocol && *request.protocol != Protocol::simple)
    candidates.clear(); // MPI has no LL protocols
  uint64_t n = 0;
  for (const auto &group : request.groups)
    n = std::max<uint64_t>(n, group.size());
  GroupShape shape = getGroupShape(request.groups.front());
  auto [bound, boundWhy] = getLowerBound(request, shape);
  SmallVector<Prediction, 4> results;
  for (std::optional<Algorithm> candidate : candidates) {
    const HostProfile::Row *row = profile.lookup(request.kind, candidate);
    if (!row)
      continue;
    Prediction p;
    p.kind = request.kind;
    p.algorithm = candidate.value_or(Algorithm::ring);
    p.native = !candidate;
    p.measured = true;
    p.protocol = Protocol::simple;
    p.bytes = request.bytes;
    p.ranks = n;
    if (n >= 2) {
      auto [latency, bandwidth] = profile.interpolate(*row, request.bytes, n);
      TermBuilder b{p};
      std::string what =
          candidate ? "the runtime's " + stringifyAlgorithm(*candidate).str()
                    : std::string("MPI's own collective");
      b.latency(
          "measured latency", latency,
          what + ", " + profile.source +
              (n == profile.ranks ? std::string() : ", scaled by its steps"));
      p.bandwidthUs += bandwidth;
      p.terms.push_back(
          {"measured bandwidth", bandwidth,
           what + ", interpolated between the measured sizes" +
               (n == profile.ranks ? std::string()
                                   : ", scaled by the bytes a rank moves")});
      p.timeUs = p.latencyUs + p.bandwidthUs;
      // A plan's chunks: every chunk runs the whole schedule, and the
      // host's cores run them about one after the other (4 ranks on 2
      // cores, 1 MiB ring all_reduce: 16 chunks of 64 KiB took 2.6x one
      // call, 256 of 4 KiB 15.8x; docs/CostModel.md, "Host"), so m chunks
      // take m calls of a chunk's size where that is longer than one call.
      if (candidate) {
        auto [m, callBytes] =
            getPlanChunks(request, double(n), /*perChannel=*/false);
        if (m > 1) {
          auto [chunkLatency, chunkBandwidth] =
              profile.interpolate(*row, callBytes, n);
          double extra = m * (chunkLatency + chunkBandwidth) - p.timeUs;
          if (extra > 0) {
            p.latencyUs += extra;
            p.terms.push_back(
                {"measured per chunk", extra,
                 llvm::formatv("{0} chunks of {1} bytes, each a call of "
                               "{2:F2} us, one after the other",
                               formatTopologyNumber(m), callBytes,
                               chunkLatency + chunkBandwidth)
                     .str()});
            p.timeUs = p.latencyUs + p.bandwidthUs;
          }
          p.pipelineChunks = static_cast<unsigned>(m);
          p.chunkBytes = *request.chunkBytes;
        }
      }
      p.busBandwidthGBps = p.bandwidthUs > 0
                               ? getBusBandwidthFactor(request.kind, n) *
                                     request.bytes / (p.bandwidthUs * 1e3)
                               : 0;
    }
    p.bottleneck = "the host's shared memory and cores (measured)";
    p.boundUs = bound;
    p.boundDetail = boundWhy;
    p.efficiency = p.timeUs > 0 ? std::min(1.0, bound / p.timeUs) : 1.0;
    results.push_back(std::move(p));
  }
  return fastestFirst(std::move(results), request, "no measured schedule of ",
                      " among the processes of '" + topology.getName() + "'");
}

llvm::Expected<SmallVector<Prediction, 4>>
CostModel::predictAll(const CollectiveRequest &request) const {
  if (llvm::Error error = validate(request))
    return std::move(error);
  // An empty tensor (a shard of nothing) moves nothing: no time, whatever
  // the algorithm. A barrier's 0 bytes are its nature, not emptiness.
  if (request.bytes == 0 && request.kind != CollectiveKind::Barrier) {
    Prediction p;
    p.kind = request.kind;
    p.algorithm = request.algorithm.value_or(Algorithm::ring);
    p.protocol = request.protocol.value_or(Protocol::simple);
    p.ranks = request.groups.empty() ? request.pairs.size() * 2
                                     : request.groups.front().size();
    p.bottleneck = "nothing to move (0 bytes)";
    return SmallVector<Prediction, 4>{p};
  }
  if (topology.hasProcessRanks() && !request.groups.empty())
    if (auto onHost = predictOnHost(request))
      return std::move(*onHost);
  SmallVector<Prediction, 4> results;
  static const Protocol protocols[] = {Protocol::simple, Protocol::ll128,
                                       Protocol::ll};
  // LL and LL128 are NCCL's: the search leaves them out where neither MPI
  // nor a verbs schedule has them (a protocol a plan names is timed as
  // named), and the processes of a host never have them.
  bool llProtocols = !topology.hasProcessRanks() &&
                     (!request.backend || *request.backend == Backend::nccl);
  auto searched = [&](Protocol protocol) {
    // A barrier's prediction is the backend's own, whatever the protocol.
    if (request.kind == CollectiveKind::Barrier)
      return !request.protocol || *request.protocol == protocol;
    if (protocol != Protocol::simple && topology.hasProcessRanks())
      return false;
    if (request.protocol)
      return *request.protocol == protocol;
    return protocol == Protocol::simple || llProtocols;
  };
  // NCCL's point-to-point transfers (send, recv, permute, and every step of
  // the runtime's own schedules when a plan names one) take the protocol
  // NCCL picks by size, whatever a plan says: neither ncclSend nor
  // ncclRecv takes one, and the runtime passes none. A schedule is timed
  // with the protocol of its largest message, the buffer or the plan's
  // chunk: LL where that is under NCCL's threshold, Simple otherwise (the
  // smaller steps of a larger buffer may go LL in NCCL: slower than they
  // run).
  std::optional<Protocol> pointToPoint;
  if (llProtocols) {
    uint64_t largest = request.bytes;
    if (request.chunkBytes && *request.chunkBytes > 0)
      largest = std::min(largest, *request.chunkBytes);
    pointToPoint = getPointToPointProtocol(largest);
  }
  // NCCL's all_to_all is a send and a receive per peer (ncclSend and
  // ncclRecv in a group): each message takes the point-to-point protocol of
  // its own size, one peer's share of the buffer (LL was chosen for 1 MiB
  // over 8 ranks, 128 KiB per peer, where NCCL sends Simple).
  std::optional<Protocol> perPeer;
  if (llProtocols && request.kind == CollectiveKind::AllToAll &&
      !request.groups.empty()) {
    size_t peers = 1;
    for (const auto &group : request.groups)
      peers = std::max(peers, group.size());
    perPeer = getPointToPointProtocol(request.bytes / peers);
  }
  auto scheduleProtocol = [&](Algorithm algorithm) -> std::optional<Protocol> {
    if (perPeer && !request.protocol)
      return perPeer;
    if (!request.backend || request.native ||
        !isRuntimeSchedule(request.kind, algorithm, *request.backend))
      return std::nullopt;
    return pointToPoint;
  };
  if (request.kind == CollectiveKind::Copy) {
    results.push_back(predictCopy(request));
  } else if (request.kind == CollectiveKind::Permute ||
             request.kind == CollectiveKind::SendRecv) {
    for (Protocol protocol : protocols)
      if (pointToPoint ? protocol == *pointToPoint : searched(protocol))
        results.push_back(predictPointToPoint(request, protocol));
  } else {
    // Groups run concurrently; the slowest decides. Groups of the same shape
    // are computed once (the shape cache).
    SmallVector<Algorithm> algorithms =
        request.algorithm
            ? SmallVector<Algorithm>{*request.algorithm}
            : SmallVector<Algorithm>(getSearchedAlgorithms(request));
    SmallVector<GroupShape, 2> shapes = getConcurrentShapes(request.groups);
    for (Algorithm algorithm : algorithms)
      for (Protocol protocol : protocols) {
        std::optional<Protocol> only = scheduleProtocol(algorithm);
        if (only ? protocol != *only : !searched(protocol))
          continue;
        std::optional<Prediction> worst;
        for (const GroupShape &shape : shapes) {
          std::optional<Prediction> p =
              predictWith(request, shape, algorithm, protocol);
          if (!p) {
            worst.reset();
            break;
          }
          if (!worst || p->timeUs > worst->timeUs) {
            auto [bound, why] = getLowerBound(request, shape);
            p->boundUs = bound;
            p->boundDetail = why;
            worst = *p;
          }
        }
        if (worst)
          results.push_back(*worst);
      }
  }
  for (Prediction &p : results) {
    if (p.boundUs == 0 && request.kind != CollectiveKind::Barrier) {
      GroupShape shape;
      if (!request.groups.empty())
        shape = getGroupShape(request.groups.front());
      auto [bound, why] = getLowerBound(request, shape);
      p.boundUs = bound;
      p.boundDetail = why;
    }
    p.efficiency = p.timeUs > 0 ? std::min(1.0, p.boundUs / p.timeUs) : 1.0;
  }
  return fastestFirst(std::move(results), request, "no algorithm applies to ",
                      " on this group");
}

llvm::Expected<Prediction>
CostModel::predict(const CollectiveRequest &request) const {
  llvm::Expected<SmallVector<Prediction, 4>> all = predictAll(request);
  if (!all)
    return all.takeError();
  return all->front();
}

void CostModel::explain(const Prediction &p, llvm::raw_ostream &os) {
  os << llvm::formatv("{0} of {1} bytes on {2} ranks: {3}, {4:F2} us\n",
                      stringifyCollectiveKind(p.kind), p.bytes, p.ranks,
                      describeAlgorithm(p), p.timeUs);
  os << llvm::formatv("  latency part   {0,10:F2} us\n", p.latencyUs);
  os << llvm::formatv("  bandwidth part {0,10:F2} us\n", p.bandwidthUs);
  for (const CostTerm &term : p.terms)
    os << llvm::formatv("    {0,-28} {1,10:F2} us  {2}\n", term.name, term.us,
                        term.detail);
  if (!p.bottleneck.empty())
    os << "  bottleneck: " << p.bottleneck << "\n";
  os << llvm::formatv("  bound {0:F2} us ({1}), efficiency {2:P1}\n", p.boundUs,
                      p.boundDetail, p.efficiency);
}
