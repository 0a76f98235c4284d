//===- SimulatedStep.h - a planned module's simulated step ------*- C++ -*-===//
//
// What the searches of comm-plan (the hierarchical split, the comparison
// with the baseline strategies) compare plans by.
//
//===----------------------------------------------------------------------===//

#ifndef COMM_LIB_PIPELINES_SIMULATEDSTEP_H
#define COMM_LIB_PIPELINES_SIMULATEDSTEP_H

#include "comm/CostModel/CostModel.h"
#include "mlir/IR/BuiltinOps.h"

#include <optional>

namespace mlir {
namespace comm {

/// The summed simulated step of `module`'s public functions (nested modules
/// are not looked into), or std::nullopt where one fails to simulate.
std::optional<double> getSimulatedStepUs(ModuleOp module,
                                         const Topology &topology,
                                         const CostModel &model,
                                         Backend backend);

} // namespace comm
} // namespace mlir

#endif // COMM_LIB_PIPELINES_SIMULATEDSTEP_H
