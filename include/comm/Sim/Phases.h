//===- Phases.h - collectives as phases of flows ----------------*- C++ -*-===//
//
// The simulator runs each collective as the algorithm the cost model chose:
// a sequence of phases, each a fixed latency (its steps) followed by flows
// that share the links with everything else in flight.
//
//===----------------------------------------------------------------------===//

#ifndef COMM_SIM_PHASES_H
#define COMM_SIM_PHASES_H

#include "comm/CostModel/CostModel.h"

#include <string>
#include <vector>

namespace mlir {
namespace comm {
namespace sim {

/// One flow of a phase: `bytes` from device `src` to `dst`.
struct FlowSpec {
  DeviceId src, dst;
  double bytes;
  /// The rate cap is this fraction of the path's effective bandwidth.
  double protocolFactor = 1;
  /// When set, the cap is this bandwidth (GB/s) instead (NVLS).
  double fixedCapGBps = 0;
  /// Rails (NIC indices) to leave and enter through, or -1 for the nearest.
  int srcRail = -1, dstRail = -1;
};

struct PhaseSpec {
  std::string name;
  double latencyUs = 0;
  std::vector<FlowSpec> flows;
};

/// The phases and flows of a collective as the chosen algorithm runs it.
llvm::Expected<std::vector<PhaseSpec>>
getCollectivePhases(const CostModel &model, const CollectiveRequest &request,
                    const Prediction &prediction);

} // namespace sim
} // namespace comm
} // namespace mlir

#endif // COMM_SIM_PHASES_H
