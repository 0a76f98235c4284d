//===- FlowNetwork.h - flow-level link sharing ------------------*- C++ -*-===//
//
// Flows cross directed links of a topology; their rates are max-min fair
// (progressive filling) under the links' capacities and each flow's own cap.
// The network advances in time between events, accumulating per-link busy
// bytes for utilization reports.
//
//===----------------------------------------------------------------------===//

#ifndef COMM_SIM_FLOWNETWORK_H
#define COMM_SIM_FLOWNETWORK_H

#include "comm/Topology/Topology.h"
#include "llvm/ADT/DenseMap.h"

#include <vector>

namespace mlir {
namespace comm {
namespace sim {

using FlowId = uint32_t;

class FlowNetwork {
public:
  /// `efficiency` (by LinkKind, or empty: 1 for every kind) is the share of
  /// a link's raw bandwidth its flows can use together, as the cost model
  /// has it for one transfer: without it, two channels crossing one NIC
  /// each got the efficiency's share and together its raw speed.
  explicit FlowNetwork(const Topology &topology,
                       std::vector<double> efficiency = {})
      : topology(topology), efficiency(std::move(efficiency)) {}

  /// Adds a flow of `bytes` along `path` whose rate never exceeds `capGBps`;
  /// `owner` is returned when it completes.
  FlowId addFlow(const Path &path, double bytes, double capGBps,
                 uint64_t owner);
  /// Recomputes the max-min fair rates (after flows were added or removed).
  void recomputeRates();
  /// Time (us) until the next flow completes, or +inf.
  double timeToNextCompletion() const;
  /// Moves every active flow forward by `us`; returns the owners of the
  /// flows that completed (and removes them). A flow whose time left is at
  /// most `resolutionUs` (what the caller's clock can still tell apart) is
  /// complete too: the clock could not advance to its end.
  std::vector<uint64_t> advance(double us, double resolutionUs = 0);

  unsigned getNumActiveFlows() const { return numActive; }
  /// Bytes each directed link (2 * link + reverse) carried so far.
  const llvm::DenseMap<uint64_t, double> &getLinkBytes() const {
    return linkBytes;
  }
  /// Raw capacity of a directed link in GB/s (what utilization is
  /// reported against).
  double getCapacity(uint64_t directedLink) const;
  /// What its flows can use of it together, in GB/s: the raw capacity at
  /// the link's efficiency.
  double getUsableCapacity(uint64_t directedLink) const;
  /// Total bytes carried by all flows.
  double getTotalBytes() const { return totalBytes; }

private:
  struct Flow {
    SmallVector<uint64_t, 10> links; ///< directed links
    double remaining = 0;            ///< bytes
    double capBytesPerUs = 0;
    double rate = 0; ///< bytes per us
    uint64_t owner = 0;
    bool active = false;
  };
  const Topology &topology;
  std::vector<double> efficiency;
  std::vector<Flow> flows;
  std::vector<FlowId> freeList;
  unsigned numActive = 0;
  bool dirty = false;
  llvm::DenseMap<uint64_t, double> linkBytes;
  double totalBytes = 0;
  /// recomputeRates' scratch, by directed link: the link's load in the
  /// call (kNoLoad between calls), and what its flows can use of it in
  /// bytes/us (-1 until asked).
  static constexpr unsigned kNoLoad = ~0u;
  std::vector<unsigned> loadOfLink;
  std::vector<double> usableBytesPerUs;
};

} // namespace sim
} // namespace comm
} // namespace mlir

#endif // COMM_SIM_FLOWNETWORK_H
