//===- Commands.h - the comm-sim commands -----------------------*- C++ -*-===//

#ifndef COMM_SIM_COMMANDS_H
#define COMM_SIM_COMMANDS_H

namespace mlir {
namespace comm {
namespace sim {

/// Parses comm-sim's command line and runs the chosen command; returns the
/// process exit status.
int runCommSim(int argc, char **argv);

} // namespace sim
} // namespace comm
} // namespace mlir

#endif // COMM_SIM_COMMANDS_H
