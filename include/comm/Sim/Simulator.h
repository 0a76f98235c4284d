//===- Simulator.h - discrete-event simulation of comm programs -*- C++ -*-===//
//
// Every rank runs the same function. Compute steps occupy a rank's compute
// stream for their cost; collectives start once every rank of their group
// has reached them, and run as phases of flows over the topology's links,
// sharing bandwidth max-min fairly with every other transfer in flight;
// comm.start issues its body on a communication stream so that it overlaps
// the compute that follows until the matching comm.wait.
//
//===----------------------------------------------------------------------===//

#ifndef COMM_SIM_SIMULATOR_H
#define COMM_SIM_SIMULATOR_H

#include "comm/CostModel/CostModel.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/JSON.h"

#include <string>
#include <vector>

namespace mlir {
namespace comm {
namespace sim {

struct LinkUse {
  uint64_t directedLink;
  double bytes;
  double utilization; ///< busy fraction of the step
};

struct TraceEvent {
  std::string name, category;
  uint64_t pid, tid;
  double startUs, durationUs;
  /// What a trace viewer shows for the event: bytes, group, algorithm,
  /// protocol, the op's source location.
  std::vector<std::pair<std::string, llvm::json::Value>> args;
  /// The transfer the event is part of, shared by its ranks' events (flow
  /// arrows link them); 0 for compute and waits.
  uint64_t flowId = 0;
};

/// A directed link busy with a phase of a collective (tracing only).
struct LinkInterval {
  uint64_t directedLink;
  double startUs, endUs;
  std::string label;
};

struct SimResult {
  double stepTimeUs = 0;
  double computeUs = 0;     ///< compute time of the critical rank
  double exposedCommUs = 0; ///< step time not hidden under compute
  double commBytes = 0;     ///< bytes carried by all flows
  uint64_t ranks = 0;
  uint64_t collectives = 0; ///< collective instances simulated
  uint64_t flows = 0;
  /// No plan of the program on one communication stream per rank runs
  /// faster: the larger of a rank's compute (comm.compute ops alone) and
  /// the sum of its transfers at their physical bounds, with every
  /// transfer of one kind and group counted as one (as if fused) so that
  /// no bucketing beats it.
  double lowerBoundUs = 0;
  /// The transfer part of the bound, and what sets the bound.
  double transferBoundUs = 0;
  std::string lowerBoundWhy;
  /// A bound on the transfers for any number of streams and any algorithm:
  /// the most time one cut (a rank's link, its machine's NICs, a socket's
  /// interconnect) needs for all the bytes that must cross it, summed over
  /// the rank's transfers at raw bandwidth, latency left out. The step
  /// takes at least this long, so no plan's exposed communication falls
  /// below cutBoundUs - computeUs.
  double cutBoundUs = 0;
  std::string cutBoundWhy;
  /// Where nothing runs asynchronously (no comm.start; a send is posted and
  /// left out): a rank's compute plus the sum of its transfers' bounds,
  /// since each transfer stops its compute; the largest over the ranks.
  /// 0 where a comm.start lets transfers overlap compute.
  double blockingBoundUs = 0;
  std::vector<LinkUse> links; ///< most used first
  std::vector<TraceEvent> events;
  std::vector<LinkInterval> linkIntervals;
};

/// Simulates `function` on `topology` as compiled for `backend`: each
/// collective runs its plan's algorithm, or the backend's own choice when
/// its plan names none; a plan the backend cannot run is an error. Errors
/// are emitted at the offending op. Without `withBounds` the result's
/// bounds (lowerBoundUs and the rest, which cost about a third of a
/// simulation of many collectives) are left at 0: for a caller that only
/// compares step times.
FailureOr<SimResult> simulateFunction(func::FuncOp function,
                                      const Topology &topology,
                                      const CostModel &model, Backend backend,
                                      unsigned traceRanks,
                                      bool withBounds = true);

/// The bounds of `function` (lowerBoundUs, transferBoundUs, cutBoundUs,
/// blockingBoundUs and what sets them) without simulating it: what
/// deciding whether a plan can beat another needs, at a fraction of a
/// simulation's time on a program of many collectives.
FailureOr<SimResult> boundFunction(func::FuncOp function,
                                   const Topology &topology,
                                   const CostModel &model);

/// The name of a trace thread of a rank: "compute stream" (0), "comm
/// stream" (1, the backend's own), "comm stream k" (2 + k, a plan's
/// `stream = k`).
std::string getTraceThreadName(uint64_t tid);
/// The first trace thread of a rank's sends (posted, not on a stream; one
/// lane per send in flight at once).
constexpr uint64_t kTraceSendThread = uint64_t(1) << 20;

/// Writes events as Chrome trace JSON.
void writeChromeTrace(const SimResult &result, const Topology &topology,
                      llvm::raw_ostream &os);
/// Writes an SVG timeline of the first ranks and the busiest links.
void writeTimelineSvg(const SimResult &result, const Topology &topology,
                      llvm::raw_ostream &os);

} // namespace sim
} // namespace comm
} // namespace mlir

#endif // COMM_SIM_SIMULATOR_H
