//===- Run.h - comm-sim run -------------------------------------*- C++ -*-===//

#ifndef COMM_TOOLS_COMMSIM_RUN_H
#define COMM_TOOLS_COMMSIM_RUN_H

#include "comm/CostModel/CostModel.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace mlir {
namespace comm {
namespace sim {

struct SimOptions {
  std::string programPath;
  std::string topologySpec; ///< overrides the module's comm.topology
  std::string entry;
  std::string tracePath;
  unsigned traceRanks = 64;
  std::string plotPath;
  bool json = false;
  /// The backend plans are checked against and plan-less collectives run
  /// as (its own choice of algorithm); unset: the module's comm.backend
  /// (what comm-plan planned for), else nccl.
  std::optional<Backend> backend;
  /// Cost model parameter file; empty: the module's comm.cost_params,
  /// else the built-in calibration.
  std::string paramsPath;
};

/// comm-sim run: parses the program, simulates it, prints the report (or
/// JSON), writes the trace and the plot.
LogicalResult runProgram(const SimOptions &options, llvm::raw_ostream &os);

} // namespace sim
} // namespace comm
} // namespace mlir

#endif // COMM_TOOLS_COMMSIM_RUN_H
