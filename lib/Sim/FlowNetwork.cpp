//===- FlowNetwork.cpp - flow-level link sharing ---------------*- C++ -*-===//

#include "comm/Sim/FlowNetwork.h"

#include <cmath>
#include <limits>

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
  // Progressive filling: raise all unfrozen flows' rates together; freeze
  // the flows of the first saturated link, or the flows that reach their
  // cap, and repeat.
  struct LinkLoad {
    double residual;
    unsigned unfrozen;
  };
  llvm::DenseMap<uint64_t, LinkLoad> load;
  std::vector<FlowId> unfrozen;
  unfrozen.reserve(numActive);
  for (FlowId id = 0; id < flows.size(); ++id) {
    Flow &flow = flows[id];
    if (!flow.active)
      continue;
    flow.rate = 0;
    unfrozen.push_back(id);
    for (uint64_t link : flow.links) {
      auto [it, inserted] = load.try_emplace(link, LinkLoad{0, 0});
      if (inserted)
        it->second.residual = getUsableCapacity(link) * 1e3;
      ++it->second.unfrozen;
    }
  }
  double level = 0;
  while (!unfrozen.empty()) {
    double increment = kInf;
    for (auto &[link, state] : load)
      if (state.unfrozen)
        increment = std::min(increment, state.residual / state.unfrozen);
    for (FlowId id : unfrozen)
      increment = std::min(increment, flows[id].capBytesPerUs - level);
    if (!std::isfinite(increment)) {
      // Flows over no link (same device): they complete at their cap.
      for (FlowId id : unfrozen)
        flows[id].rate = flows[id].capBytesPerUs;
      break;
    }
    increment = std::max(increment, 0.0);
    level += increment;
    for (auto &[link, state] : load)
      state.residual -= increment * state.unfrozen;
    // Freeze flows at their cap or on a saturated link.
    std::vector<FlowId> still;
    still.reserve(unfrozen.size());
    for (FlowId id : unfrozen) {
      Flow &flow = flows[id];
      bool frozen = flow.capBytesPerUs - level <= 1e-9 * flow.capBytesPerUs;
      if (!frozen)
        for (uint64_t link : flow.links) {
          const LinkLoad &state = load[link];
          if (state.residual <= 1e-9 * getUsableCapacity(link) * 1e3) {
            frozen = true;
            break;
          }
        }
      if (frozen) {
        flow.rate = level;
        for (uint64_t link : flow.links)
          --load[link].unfrozen;
      } else {
        still.push_back(id);
      }
    }
    unfrozen.swap(still);
  }
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
