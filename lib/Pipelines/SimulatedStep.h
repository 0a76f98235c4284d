//===- SimulatedStep.h - a planned module's simulated step ------*- C++ -*-===//
//
// What the searches of comm-plan (the hierarchical split, the comparison
// with the baseline strategies) compare plans by.
//
//===----------------------------------------------------------------------===//

#ifndef COMM_LIB_PIPELINES_SIMULATEDSTEP_H
#define COMM_LIB_PIPELINES_SIMULATEDSTEP_H

#include "comm/CostModel/CostModel.h"
#include "comm/Pipelines/Pipelines.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <optional>

namespace mlir {
namespace comm {

/// The summed simulated step of `module`'s public functions (nested modules
/// are not looked into), or std::nullopt where one fails to simulate.
std::optional<double> getSimulatedStepUs(ModuleOp module,
                                         const Topology &topology,
                                         const CostModel &model,
                                         Backend backend);

/// A search of comm-plan that plans copies of the module with comm-plan's
/// own options (comm-plan-compare, comm-plan-hierarchical): it holds them,
/// since PassWrapper's copy does not.
template <typename Derived>
class PlanningSearchPass
    : public PassWrapper<Derived, OperationPass<ModuleOp>> {
protected:
  explicit PlanningSearchPass(const PlanningPipelineOptions &from) {
    options.copyOptionValuesFrom(from);
  }
  PlanningSearchPass(const PlanningSearchPass &other)
      : PassWrapper<Derived, OperationPass<ModuleOp>>(other) {
    options.copyOptionValuesFrom(other.options);
  }

  PlanningPipelineOptions options;
};

} // namespace comm
} // namespace mlir

#endif // COMM_LIB_PIPELINES_SIMULATEDSTEP_H
