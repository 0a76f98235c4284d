//===- Phases.cpp - collectives as phases of flows --------------*- C++ -*-===//
//
// The simulator runs each collective as the algorithm the cost model chose:
// a sequence of phases, each a fixed latency (its steps) followed by flows
// that share the links with everything else in flight. The byte counts are
// those of the cost model's formulas, so a collective simulated alone takes
// about the time the cost model predicts.
//
//===----------------------------------------------------------------------===//

#include "comm/Sim/Phases.h"
#include "comm/Dialect/Comm/IR/CommAlgorithms.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <map>
#include <set>

using namespace mlir;
using namespace mlir::comm;
using namespace mlir::comm::sim;

namespace {
/// Ranks of a group arranged by machine.
struct GroupLayout {
  std::map<uint64_t, SmallVector<int64_t, 8>> byNode; ///< node -> ranks
  uint64_t nodes() const { return byNode.size(); }
};
} // namespace

static GroupLayout layoutOf(const Topology &topology, ArrayRef<int64_t> group) {
  GroupLayout layout;
  unsigned perNode = topology.getGPUsPerNode();
  for (int64_t rank : group)
    layout.byNode[rank / perNode].push_back(rank);
  return layout;
}

/// The rails (NIC indices) a GPU of the machine type may use: NICs on its
/// PCIe switch, else its nearest NIC.
static SmallVector<unsigned, 4> railsOf(const Topology &topology,
                                        unsigned localGpu) {
  SmallVector<unsigned, 4> rails;
  DeviceId gpu = topology.getGPU(localGpu);
  for (unsigned nic : topology.getNode().getDevicesOfKind(DeviceKind::NIC)) {
    Path path = topology.getPath(gpu, topology.getDeviceId(0, nic));
    if (path.isConnected() && path.kind <= PathKind::PXB)
      rails.push_back(topology.getRail(nic));
  }
  if (rails.empty())
    if (auto nic = topology.getNearestNIC(topology.getLocalIndex(gpu)))
      rails.push_back(topology.getRail(*nic));
  return rails;
}

/// Ring flows over `order` (cyclic), each carrying `bytes`.
static void addRing(const Topology &topology, ArrayRef<int64_t> order,
                    double bytes, double factor, std::vector<FlowSpec> &out,
                    int rail = -1) {
  if (order.size() < 2)
    return;
  for (size_t i = 0; i < order.size(); ++i) {
    FlowSpec flow;
    flow.src = topology.getGPU(order[i]);
    flow.dst = topology.getGPU(order[(i + 1) % order.size()]);
    flow.bytes = bytes;
    flow.protocolFactor = factor;
    flow.srcRail = flow.dstRail = rail;
    out.push_back(flow);
  }
}

/// A ring through the whole group split into channels: inside a machine a
/// single ring is as fast as several (every GPU link carries one hop per
/// direction); across machines, one channel per usable NIC, each leaving
/// and entering every machine through its own NIC.
static void addGroupRing(const Topology &topology, ArrayRef<int64_t> group,
                         double bytes, double factor,
                         std::vector<FlowSpec> &out) {
  GroupLayout layout = layoutOf(topology, group);
  if (layout.nodes() <= 1) {
    addRing(topology, group, bytes, factor, out);
    return;
  }
  unsigned perNode = topology.getGPUsPerNode();
  // The rails the group can use, from its first machine.
  const SmallVector<int64_t, 8> &locals = layout.byNode.begin()->second;
  SmallVector<std::pair<unsigned, unsigned>> channels; // (exit local, rail)
  for (int64_t rank : locals)
    for (unsigned rail : railsOf(topology, rank % perNode))
      channels.push_back({static_cast<unsigned>(rank % perNode), rail});
  if (channels.empty())
    channels.push_back({static_cast<unsigned>(locals.front() % perNode), 0});
  double perChannel = bytes / channels.size();
  for (size_t c = 0; c < channels.size(); ++c) {
    // Named copies: a lambda below reads the exit GPU (a structured
    // binding cannot be captured before C++20).
    unsigned exitLocal = channels[c].first, exitRail = channels[c].second;
    SmallVector<int64_t, 64> order;
    unsigned entryLocal = exitLocal;
    for (auto &[node, ranks] : layout.byNode) {
      // Rotate so that the channel's exit GPU is the last of its machine;
      // the first is where the channel enters.
      SmallVector<int64_t, 8> rotated(ranks);
      auto it = llvm::find_if(rotated, [&](int64_t r) {
        return static_cast<unsigned>(r % perNode) == exitLocal;
      });
      if (it != rotated.end())
        std::rotate(rotated.begin(), std::next(it), rotated.end());
      entryLocal = rotated.front() % perNode;
      llvm::append_range(order, rotated);
    }
    // The channel enters each machine through a NIC of its entry GPU, so
    // that no hop crosses the host bridge.
    SmallVector<unsigned, 4> entryRails = railsOf(topology, entryLocal);
    unsigned entryRail =
        entryRails.empty() ? exitRail : entryRails[c % entryRails.size()];
    for (size_t i = 0; i < order.size(); ++i) {
      FlowSpec flow;
      flow.src = topology.getGPU(order[i]);
      flow.dst = topology.getGPU(order[(i + 1) % order.size()]);
      flow.bytes = perChannel;
      flow.protocolFactor = factor;
      if (topology.getNodeIndex(flow.src) != topology.getNodeIndex(flow.dst)) {
        flow.srcRail = exitRail;
        flow.dstRail = entryRail;
      }
      out.push_back(flow);
    }
  }
}

/// Rings across machines, one per local GPU (and per rail it can use), each
/// carrying `bytes` split over its rails: the inter-node phase of the
/// hierarchical and NVLS algorithms.
static void addRailRings(const Topology &topology, ArrayRef<int64_t> group,
                         double bytes, double factor,
                         std::vector<FlowSpec> &out) {
  GroupLayout layout = layoutOf(topology, group);
  unsigned perNode = topology.getGPUsPerNode();
  std::map<unsigned, SmallVector<int64_t, 64>> byLocal;
  for (auto &[node, ranks] : layout.byNode)
    for (int64_t rank : ranks)
      byLocal[rank % perNode].push_back(rank);
  for (auto &[local, ranks] : byLocal) {
    SmallVector<unsigned, 4> rails = railsOf(topology, local);
    if (rails.empty())
      rails.push_back(0);
    for (unsigned rail : rails)
      addRing(topology, ranks, bytes / rails.size(), factor, out, rail);
  }
}

/// Caps the flows from `from` on at `gbps`: a level's rings inside one
/// machine at the rate the model gives them (their share of the links they
/// share, at the links' efficiency), so that the collective alone takes
/// the predicted time; other traffic still shares the links.
static void capFlowsFrom(std::vector<FlowSpec> &flows, size_t from,
                         double gbps) {
  for (size_t i = from; i < flows.size(); ++i)
    flows[i].fixedCapGBps = gbps;
}

static double stepLatency(const CostParams &p, LinkClass cls,
                          Protocol protocol) {
  return p.stepLatencyUs[static_cast<unsigned>(cls)]
                        [static_cast<unsigned>(protocol)];
}

llvm::Expected<std::vector<PhaseSpec>>
mlir::comm::sim::getCollectivePhases(const CostModel &model,
                                     const CollectiveRequest &request,
                                     const Prediction &prediction) {
  const Topology &topology = model.getTopology();
  const CostParams &P = model.getParams();
  const double S = request.bytes;
  Protocol protocol = prediction.protocol;
  double factor = P.getProtocolBandwidth(protocol);
  std::vector<PhaseSpec> phases;
  auto unsupported = [&](StringRef why) {
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "cannot simulate " + stringifyCollectiveKind(request.kind) +
            " with algorithm '" + stringifyAlgorithm(prediction.algorithm) +
            "': " + why);
  };

  // An empty tensor moves nothing: the transfer ends where it starts.
  if (S == 0 && request.kind != CollectiveKind::Barrier)
    return phases;

  if (request.kind == CollectiveKind::Copy) {
    PhaseSpec phase{"copy", prediction.latencyUs, {}};
    bool hbmOnly = request.copySource == MemorySpace::hbm &&
                   request.copyTarget == MemorySpace::hbm;
    if (!hbmOnly) {
      DeviceId gpu = topology.getGPU(request.copyRank);
      const Device &device = topology.getDevice(gpu);
      int numa = std::max(device.numa, 0);
      SmallVector<unsigned> cpus =
          topology.getNode().getDevicesOfKind(DeviceKind::CPU);
      if (!cpus.empty()) {
        unsigned cpu = cpus.front();
        for (unsigned c : cpus)
          if (topology.getNode().getDevice(c).numa == numa)
            cpu = c;
        DeviceId host = topology.getDeviceId(topology.getNodeIndex(gpu), cpu);
        bool toHost = request.copyTarget != MemorySpace::hbm;
        FlowSpec flow{toHost ? gpu : host, toHost ? host : gpu, S};
        bool pageable = request.copySource == MemorySpace::host ||
                        request.copyTarget == MemorySpace::host;
        flow.protocolFactor = pageable ? P.pageableEfficiency : 1.0;
        phase.flows.push_back(flow);
      }
    } else {
      phase.latencyUs = prediction.timeUs; // HBM is not a modelled link
    }
    phases.push_back(std::move(phase));
    return phases;
  }

  if (request.kind == CollectiveKind::Permute ||
      request.kind == CollectiveKind::SendRecv) {
    PhaseSpec phase{"transfer", prediction.latencyUs, {}};
    for (auto [src, dst] : request.pairs)
      for (auto [from, to] : getTransferLegs(topology, request, src, dst)) {
        if (from != to)
          phase.flows.push_back({from, to, S, factor});
        else if (src != dst) // staged through one CPU's memory: a memcpy
          phase.latencyUs += S / (kHostMemcpyGBps * 1e3);
      }
    phases.push_back(std::move(phase));
    return phases;
  }

  // A time measured as a whole (the host profile) runs as one phase: its
  // links' sharing is in the measurement, not in flows.
  if (prediction.measured) {
    phases.push_back({describeAlgorithm(prediction), prediction.timeUs, {}});
    return phases;
  }

  if (request.kind == CollectiveKind::Barrier) {
    phases.push_back({"barrier", prediction.timeUs, {}});
    return phases;
  }

  GroupShape shape = model.getGroupShape(request.groups.front());
  const double n = shape.ranks, N = shape.nodes, g = shape.perNode;
  if (n <= 1) {
    phases.push_back({"local", prediction.timeUs, {}});
    return phases;
  }
  LinkClass intra = shape.intraClass;
  auto perGroup = [&](auto add) {
    for (const auto &group : request.groups)
      add(ArrayRef<int64_t>(group));
  };

  // A plan's tree is the runtime's binomial tree (the cost model's
  // binomialLevels): the whole buffer to a rank 1, 2, 4, ... members apart,
  // members in group order from the root; all_reduce reduces up, then
  // broadcasts down.
  if (prediction.algorithm == Algorithm::tree && request.backend &&
      !request.native &&
      isRuntimeSchedule(request.kind, Algorithm::tree, *request.backend)) {
    bool up = request.kind != CollectiveKind::Broadcast;
    bool down = request.kind != CollectiveKind::Reduce;
    uint64_t top = 1;
    while (top < static_cast<uint64_t>(n))
      top <<= 1;
    SmallVector<std::pair<uint64_t, bool>> levels; // (distance, up)
    if (up)
      for (uint64_t mask = 1; mask < top; mask <<= 1)
        levels.push_back({mask, true});
    if (down)
      for (uint64_t mask = top >> 1; mask >= 1; mask >>= 1)
        levels.push_back({mask, false});
    double perLevelLatency = prediction.latencyUs / levels.size();
    for (auto [mask, isUp] : levels) {
      PhaseSpec phase{llvm::formatv("binomial {0} {1}",
                                    isUp ? "reduce" : "broadcast", mask)
                          .str(),
                      perLevelLatency,
                      {}};
      perGroup([&](ArrayRef<int64_t> group) {
        size_t size = group.size();
        // Member i is the group's rank at position (root + i) mod size.
        size_t rootAt = 0;
        if (request.kind == CollectiveKind::Broadcast ||
            request.kind == CollectiveKind::Reduce)
          rootAt = static_cast<size_t>(request.root) % size;
        auto member = [&](uint64_t i) {
          return topology.getGPU(group[(rootAt + i) % size]);
        };
        for (uint64_t i = 0; i + mask < size; i += 2 * mask)
          phase.flows.push_back(isUp ? FlowSpec{member(i + mask), member(i),
                                                S, factor}
                                     : FlowSpec{member(i), member(i + mask),
                                                S, factor});
      });
      phases.push_back(std::move(phase));
    }
    return phases;
  }

  switch (prediction.algorithm) {
  case Algorithm::ring:
  case Algorithm::tree: {
    double bytes;
    switch (request.kind) {
    case CollectiveKind::AllReduce:
      bytes = 2 * (n - 1) / n * S;
      break;
    case CollectiveKind::ReduceScatter:
    case CollectiveKind::AllGather:
      bytes = (n - 1) / n * S;
      break;
    case CollectiveKind::Broadcast:
    case CollectiveKind::Reduce:
      bytes = S;
      break;
    default:
      return unsupported("not a ring collective");
    }
    // The cost model's tree across machines: all_reduce's at its share of
    // the fabric (treeNetworkEfficiency), broadcast's and reduce's at
    // treeEfficiency.
    if (prediction.algorithm == Algorithm::tree && N > 1)
      factor *= request.kind == CollectiveKind::AllReduce
                    ? P.treeNetworkEfficiency[static_cast<unsigned>(
                          topology.getFabric().network)]
                    : P.treeEfficiency;
    PhaseSpec phase{stringifyAlgorithm(prediction.algorithm).str(),
                    prediction.latencyUs,
                    {}};
    bool chain = request.kind == CollectiveKind::Broadcast ||
                 request.kind == CollectiveKind::Reduce;
    perGroup([&](ArrayRef<int64_t> group) {
      if (chain) {
        // A pipelined chain: the same bytes on every hop but the last.
        std::vector<FlowSpec> ring;
        addGroupRing(topology, group, bytes, factor, ring);
        for (FlowSpec &flow : ring)
          phase.flows.push_back(flow);
      } else {
        addGroupRing(topology, group, bytes, factor, phase.flows);
      }
    });
    phases.push_back(std::move(phase));
    break;
  }
  case Algorithm::nvls: {
    double nvlsBw =
        shape.injectRawGBps * P.getNvlsEfficiency(shape.nvlsGeneration);
    PhaseSpec phase{"nvls", prediction.latencyUs, {}};
    double toSwitch =
        request.kind == CollectiveKind::AllReduce ? S : (n - 1) / n * S;
    perGroup([&](ArrayRef<int64_t> group) {
      for (int64_t rank : group) {
        DeviceId gpu = topology.getGPU(rank);
        // The machine's NVSwitch.
        for (unsigned nvs :
             topology.getNode().getDevicesOfKind(DeviceKind::NVSwitch)) {
          DeviceId sw = topology.getDeviceId(topology.getNodeIndex(gpu), nvs);
          FlowSpec up{gpu, sw, toSwitch};
          up.fixedCapGBps = nvlsBw;
          FlowSpec down{sw, gpu, toSwitch};
          down.fixedCapGBps = nvlsBw;
          phase.flows.push_back(up);
          phase.flows.push_back(down);
          break;
        }
      }
      if (N > 1 && request.kind == CollectiveKind::AllReduce)
        addRailRings(topology, group, 2 * (N - 1) / N * S / g,
                     P.treeNetworkEfficiency[static_cast<unsigned>(
                         topology.getFabric().network)],
                     phase.flows);
    });
    phases.push_back(std::move(phase));
    break;
  }
  case Algorithm::hierarchical: {
    if (request.kind == CollectiveKind::AllToAll) {
      PhaseSpec gather{"gather", stepLatency(P, intra, protocol) * 2, {}};
      PhaseSpec exchange{"exchange",
                         prediction.latencyUs -
                             2 * stepLatency(P, intra, protocol),
                         {}};
      perGroup([&](ArrayRef<int64_t> group) {
        GroupLayout layout = layoutOf(topology, group);
        for (auto &[node, ranks] : layout.byNode)
          addRing(topology, ranks, (g - 1) / g * S, factor, gather.flows);
        addRailRings(topology, group, (n - g) / n * S * g / g, factor,
                     exchange.flows);
      });
      phases.push_back(std::move(gather));
      phases.push_back(std::move(exchange));
      break;
    }
    if (request.kind == CollectiveKind::Broadcast ||
        request.kind == CollectiveKind::Reduce) {
      // A tree across nodes among the GPUs at the root's local index and a
      // tree inside every node, each carrying the whole buffer (pipelined:
      // as flows, chains; as latency, log2 levels); reduce runs them in the
      // other order.
      unsigned perNode = topology.getGPUsPerNode();
      auto levels = [](double count) {
        return count > 1 ? std::ceil(std::log2(count)) : 0.0;
      };
      if (N <= 1) {
        // Inside one machine, by CPU socket: each tree at the rate the
        // model gives it.
        if (!shape.socketLevels)
          return unsupported("the group is inside one machine and its GPUs "
                             "are not spread evenly over several CPUs");
        const GroupShape::SocketLevels &sockets = *shape.socketLevels;
        PhaseSpec across{
            "across sockets",
            P.baseLatencyUs[static_cast<unsigned>(Algorithm::hierarchical)]
                           [static_cast<unsigned>(protocol)] +
                stepLatency(P, sockets.acrossClass, protocol) *
                    levels(sockets.sockets),
            {}};
        PhaseSpec inside{"inside the socket",
                         stepLatency(P, sockets.insideClass, protocol) *
                             levels(sockets.perSocket),
                         {}};
        perGroup([&](ArrayRef<int64_t> group) {
          int64_t root = group[std::clamp<int64_t>(
              request.root, 0, static_cast<int64_t>(group.size()) - 1)];
          SmallVector<SmallVector<int64_t, 8>, 2> members =
              getRanksBySocket(topology, group);
          // The tree across runs among the ranks of the root's index.
          for (const auto &leaders : getRingsAcrossSockets(members))
            if (llvm::is_contained(leaders, root)) {
              size_t from = across.flows.size();
              addRing(topology, leaders, S, factor, across.flows);
              capFlowsFrom(across.flows, from,
                           sockets.acrossAloneGBps * factor);
            }
          size_t from = inside.flows.size();
          for (const auto &ranks : members)
            addRing(topology, ranks, S, factor, inside.flows);
          capFlowsFrom(inside.flows, from,
                       sockets.insideGBps * factor * P.treeEfficiency);
        });
        if (request.kind == CollectiveKind::Reduce)
          std::swap(across, inside);
        phases.push_back(std::move(across));
        phases.push_back(std::move(inside));
        break;
      }
      PhaseSpec across{
          "across nodes",
          P.baseLatencyUs[static_cast<unsigned>(Algorithm::hierarchical)]
                         [static_cast<unsigned>(protocol)] +
              stepLatency(P, LinkClass::Network, protocol) * levels(N),
          {}};
      PhaseSpec inside{
          "inside the node", stepLatency(P, intra, protocol) * levels(g), {}};
      perGroup([&](ArrayRef<int64_t> group) {
        int64_t root = group[std::clamp<int64_t>(
            request.root, 0, static_cast<int64_t>(group.size()) - 1)];
        SmallVector<int64_t, 16> leaders;
        for (int64_t rank : group)
          if (rank % perNode == root % perNode)
            leaders.push_back(rank);
        addRing(topology, leaders, S, factor, across.flows);
        GroupLayout layout = layoutOf(topology, group);
        for (auto &[node, ranks] : layout.byNode)
          addRing(topology, ranks, S, factor, inside.flows);
      });
      if (request.kind == CollectiveKind::Reduce)
        std::swap(across, inside);
      phases.push_back(std::move(across));
      phases.push_back(std::move(inside));
      break;
    }
    // Two levels, as the cost model times them: machines, or the CPU
    // sockets of a group inside one machine.
    bool reduce = request.kind == CollectiveKind::AllReduce;
    bool bySocket = N <= 1;
    if (bySocket && !shape.socketLevels)
      return unsupported("the group is inside one machine and its GPUs are "
                         "not spread evenly over several CPUs");
    double D = bySocket ? shape.socketLevels->sockets : N;
    double l = bySocket ? shape.socketLevels->perSocket : g;
    LinkClass insideClass = bySocket ? shape.socketLevels->insideClass : intra;
    LinkClass acrossClass =
        bySocket ? shape.socketLevels->acrossClass : LinkClass::Network;
    StringRef unit = bySocket ? "socket" : "node";
    double intraBytes = (l - 1) / l * S;
    double interBytes = (reduce ? 2 : 1) * (D - 1) / D * S / l;
    PhaseSpec first{
        (reduce ? "reduce_scatter (" : "inside (") + unit.str() + ")", 0, {}};
    PhaseSpec across{("across " + unit + "s").str(),
                     stepLatency(P, acrossClass, protocol) * (reduce ? 2 : 1) *
                         (D - 1),
                     {}};
    PhaseSpec last{("all_gather (" + unit + ")").str(),
                   reduce ? stepLatency(P, insideClass, protocol) * (l - 1) : 0,
                   {}};
    first.latencyUs =
        std::max(0.0, prediction.latencyUs - across.latencyUs - last.latencyUs);
    perGroup([&](ArrayRef<int64_t> group) {
      if (bySocket) {
        const GroupShape::SocketLevels &levels = *shape.socketLevels;
        SmallVector<SmallVector<int64_t, 8>, 2> sockets =
            getRanksBySocket(topology, group);
        size_t firstFrom = first.flows.size(), lastFrom = last.flows.size(),
               acrossFrom = across.flows.size();
        for (const auto &ranks : sockets) {
          addRing(topology, ranks, intraBytes, factor, first.flows);
          if (reduce)
            addRing(topology, ranks, intraBytes, factor, last.flows);
        }
        for (const auto &ring : getRingsAcrossSockets(sockets))
          addRing(topology, ring, interBytes, factor, across.flows);
        capFlowsFrom(first.flows, firstFrom, levels.insideGBps * factor);
        capFlowsFrom(last.flows, lastFrom, levels.insideGBps * factor);
        capFlowsFrom(across.flows, acrossFrom, levels.acrossGBps * factor);
        return;
      }
      GroupLayout layout = layoutOf(topology, group);
      for (auto &[node, ranks] : layout.byNode) {
        addRing(topology, ranks, intraBytes, factor, first.flows);
        if (reduce)
          addRing(topology, ranks, intraBytes, factor, last.flows);
      }
      addRailRings(topology, group, interBytes, factor, across.flows);
    });
    if (prediction.pipelineChunks > 1) {
      // The chunks in flight at once: every level's flows share the links
      // together, after the fill and the steps.
      PhaseSpec pipelined{
          llvm::formatv("pipelined ({0} chunks)", prediction.pipelineChunks)
              .str(),
          prediction.latencyUs + prediction.pipelineFillUs,
          {}};
      for (PhaseSpec *level : {&first, &across, &last})
        llvm::append_range(pipelined.flows, level->flows);
      phases.push_back(std::move(pipelined));
      break;
    }
    if (request.kind == CollectiveKind::AllGather)
      std::swap(first, across);
    phases.push_back(std::move(first));
    phases.push_back(std::move(across));
    if (reduce)
      phases.push_back(std::move(last));
    break;
  }
  case Algorithm::direct: {
    if (n > 512)
      return unsupported("a direct exchange among more than 512 ranks is "
                         "beyond flow-level simulation");
    double bytes;
    switch (request.kind) {
    case CollectiveKind::AllReduce:
      bytes = S;
      break;
    case CollectiveKind::Broadcast:
    case CollectiveKind::Reduce:
      bytes = S;
      break;
    default:
      bytes = S / n;
      break;
    }
    PhaseSpec phase{"direct", prediction.latencyUs, {}};
    bool rooted = request.kind == CollectiveKind::Broadcast ||
                  request.kind == CollectiveKind::Reduce;
    perGroup([&](ArrayRef<int64_t> group) {
      for (size_t i = 0; i < group.size(); ++i)
        for (size_t j = 0; j < group.size(); ++j) {
          if (i == j)
            continue;
          if (rooted && i != static_cast<size_t>(request.root))
            continue;
          phase.flows.push_back({topology.getGPU(group[i]),
                                 topology.getGPU(group[j]), bytes, factor});
        }
    });
    phases.push_back(std::move(phase));
    break;
  }
  case Algorithm::halving_doubling: {
    // log2(n) levels of pairwise exchanges; the bytes halve each level.
    unsigned levels = 0;
    while ((uint64_t(1) << levels) < static_cast<uint64_t>(n))
      ++levels;
    // all_reduce, broadcast (scatter + all_gather) and reduce
    // (reduce_scatter + gather) take two rounds.
    bool twoRounds = request.kind == CollectiveKind::AllReduce ||
                     request.kind == CollectiveKind::Broadcast ||
                     request.kind == CollectiveKind::Reduce;
    unsigned rounds = twoRounds ? 2 : 1;
    double perLevelLatency = prediction.latencyUs / (levels * rounds + 1);
    for (unsigned round = 0; round < rounds; ++round)
      for (unsigned k = 0; k < levels; ++k) {
        unsigned level = round == 0 ? k : levels - 1 - k;
        uint64_t distance = uint64_t(1) << (levels - 1 - level);
        double bytes = S / double(uint64_t(2) << level);
        PhaseSpec phase{
            llvm::formatv("level {0}", level).str(), perLevelLatency, {}};
        perGroup([&](ArrayRef<int64_t> group) {
          for (size_t i = 0; i < group.size(); ++i) {
            size_t j = i ^ distance;
            if (j < group.size())
              phase.flows.push_back({topology.getGPU(group[i]),
                                     topology.getGPU(group[j]), bytes, factor});
          }
        });
        phases.push_back(std::move(phase));
      }
    phases.front().latencyUs += perLevelLatency;
    break;
  }
  }
  return phases;
}
