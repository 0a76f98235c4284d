//===- FlowNetwork.cpp - flow-level link sharing ---------------*- C++ -*-===//

#include "comm/Sim/FlowNetwork.h"

#include <cmath>
#include <limits>
#include <queue>
#include <tuple>

using namespace mlir;
using namespace mlir::comm;
using namespace mlir::comm::sim;

static constexpr double kInf = std::numeric_limits<double>::infinity();

double FlowNetwork::getCapacity(uint64_t directedLink) const {
  return topology.getLink(directedLink / 2).props->bandwidthGBps;
}

double FlowNetwork::getUsableCapacity(uint64_t directedLink) const {
  const Link &link = *topology.getLink(directedLink / 2).props;
  auto kind = static_cast<unsigned>(link.kind);
  return link.bandwidthGBps *
         (kind < efficiency.size() ? efficiency[kind] : 1.0);
}

FlowId FlowNetwork::addFlow(const Path &path, double bytes, double capGBps,
                            uint64_t owner) {
  FlowId id;
  if (!freeList.empty()) {
    id = freeList.back();
    freeList.pop_back();
  } else {
    id = flows.size();
    flows.emplace_back();
  }
  Flow &flow = flows[id];
  flow.links.clear();
  for (const PathHop &hop : path.hops)
    flow.links.push_back(2 * hop.link + hop.reverse);
  flow.remaining = bytes;
  flow.capBytesPerUs = capGBps * 1e3;
  flow.rate = 0;
  flow.owner = owner;
  flow.active = true;
  ++numActive;
  dirty = true;
  return id;
}

void FlowNetwork::recomputeRates() {
  if (!dirty)
    return;
  dirty = false;
  // Progressive filling: all unfrozen flows' rates rise together; the
  // flows of a link that saturates, or a flow that reaches its cap, freeze
  // at that level, and the rest go on. With every unfrozen flow at the
  // level, a link saturates at level (capacity - frozen flows' rates) /
  // unfrozen flows, which changes only when one of its flows freezes: the
  // links and caps wait in one heap by that level, so that each freeze
  // costs a few heap updates (rising to the next level over every link and
  // flow took minutes for 20,000 flows at many distinct rates).
  struct LinkLoad {
    double capacity;
    double frozenRate = 0;
    unsigned unfrozen = 0;
    unsigned version = 0;
    /// Its level changed since it was last pushed.
    bool touched = false;
    /// Its flows: flowsOfLoads[begin, begin + flows).
    unsigned begin = 0, flows = 0;
  };
  // The loads in the order the flows first cross their links, each flow's
  // loads (flowLoads[loadsBegin[id], loadsBegin[id + 1])) and each load's
  // flows in flow order, in flat arrays: this runs at every event, and a
  // map and a vector per link cost more than the filling itself.
  if (loadOfLink.empty()) {
    loadOfLink.assign(2 * topology.getNumLinks(), kNoLoad);
    usableBytesPerUs.assign(2 * topology.getNumLinks(), -1);
  }
  std::vector<LinkLoad> loads;
  std::vector<uint64_t> linksSeen;
  std::vector<unsigned> flowLoads;
  std::vector<unsigned> loadsBegin(flows.size() + 1, 0);
  std::vector<FlowId> unfrozen;
  unfrozen.reserve(numActive);
  for (FlowId id = 0; id < flows.size(); ++id) {
    Flow &flow = flows[id];
    if (flow.active) {
      flow.rate = 0;
      unfrozen.push_back(id);
      for (uint64_t link : flow.links) {
        unsigned &index = loadOfLink[link];
        if (index == kNoLoad) {
          index = loads.size();
          linksSeen.push_back(link);
          double &usable = usableBytesPerUs[link];
          if (usable < 0)
            usable = getUsableCapacity(link) * 1e3;
          loads.push_back({usable});
        }
        ++loads[index].unfrozen;
        flowLoads.push_back(index);
      }
    }
    loadsBegin[id + 1] = flowLoads.size();
  }
  for (uint64_t link : linksSeen)
    loadOfLink[link] = kNoLoad;
  std::vector<FlowId> flowsOfLoads(flowLoads.size());
  {
    unsigned next = 0;
    for (LinkLoad &load : loads) {
      load.begin = next;
      next += load.unfrozen;
    }
    for (FlowId id : unfrozen)
      for (unsigned k = loadsBegin[id]; k < loadsBegin[id + 1]; ++k) {
        LinkLoad &load = loads[flowLoads[k]];
        flowsOfLoads[load.begin + load.flows++] = id;
      }
  }
  // (level, link index or flow id, whether a link, the link's version).
  // The first events are made into a heap at once (pushing them one by one
  // cost a third of the filling); no two are equal, so the order they
  // leave it in does not depend on how it was built.
  using Event = std::tuple<double, unsigned, bool, unsigned>;
  std::vector<Event> first;
  first.reserve(loads.size() + unfrozen.size());
  for (unsigned index = 0; index < loads.size(); ++index)
    first.push_back({loads[index].capacity / loads[index].unfrozen, index, true,
                     loads[index].version});
  for (FlowId id : unfrozen)
    if (std::isfinite(flows[id].capBytesPerUs))
      first.push_back({flows[id].capBytesPerUs, id, false, 0});
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events(
      std::greater<Event>(), std::move(first));
  auto pushLink = [&](unsigned index) {
    LinkLoad &load = loads[index];
    if (load.unfrozen)
      events.push({(load.capacity - load.frozenRate) / load.unfrozen, index,
                   true, ++load.version});
  };
  std::vector<bool> frozen(flows.size(), false);
  size_t left = unfrozen.size();
  double level = 0;
  // The links whose level the freezes of one event changed: each is pushed
  // once after them (a link shared by many of the flows that freeze
  // together was pushed once per flow, the heap's work most of the time).
  std::vector<unsigned> touched;
  auto freeze = [&](FlowId id) {
    if (frozen[id])
      return;
    frozen[id] = true;
    --left;
    flows[id].rate = level;
    for (unsigned k = loadsBegin[id]; k < loadsBegin[id + 1]; ++k) {
      unsigned index = flowLoads[k];
      LinkLoad &load = loads[index];
      load.frozenRate += level;
      --load.unfrozen;
      if (!load.touched) {
        load.touched = true;
        touched.push_back(index);
      }
    }
  };
  while (left && !events.empty()) {
    auto [at, index, isLink, version] = events.top();
    events.pop();
    if (isLink && (version != loads[index].version || !loads[index].unfrozen))
      continue;
    level = std::max(level, at);
    if (!isLink) {
      freeze(index);
    } else {
      const LinkLoad &load = loads[index];
      for (unsigned k = load.begin; k < load.begin + load.flows; ++k)
        freeze(flowsOfLoads[k]);
    }
    for (unsigned link : touched) {
      loads[link].touched = false;
      pushLink(link);
    }
    touched.clear();
  }
  // Flows over no link (same device) complete at their cap.
  for (FlowId id : unfrozen)
    if (!frozen[id])
      flows[id].rate = flows[id].capBytesPerUs;
}

double FlowNetwork::timeToNextCompletion() const {
  double best = kInf;
  for (const Flow &flow : flows)
    if (flow.active && flow.rate > 0)
      best = std::min(best, flow.remaining / flow.rate);
  return best;
}

std::vector<uint64_t> FlowNetwork::advance(double us, double resolutionUs) {
  std::vector<uint64_t> done;
  for (FlowId id = 0; id < flows.size(); ++id) {
    Flow &flow = flows[id];
    if (!flow.active)
      continue;
    double moved = std::min(flow.remaining, flow.rate * us);
    flow.remaining -= moved;
    totalBytes += moved;
    for (uint64_t link : flow.links)
      linkBytes[link] += moved;
    // Relative tolerance: a flow within a few bytes of its end is done, and
    // so is one whose end the clock cannot reach apart from now.
    if (flow.remaining <= 1e-6 * std::max(1.0, flow.rate * us) ||
        flow.remaining < 1e-3 || flow.remaining <= flow.rate * resolutionUs) {
      flow.active = false;
      --numActive;
      freeList.push_back(id);
      done.push_back(flow.owner);
      dirty = true;
    }
  }
  return done;
}
