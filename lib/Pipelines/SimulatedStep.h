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

#include <map>
#include <optional>
#include <string>

namespace mlir {
namespace comm {

/// The simulated step of each public function of `module` that simulates
/// (a loop whose trip count only the run knows does not; nested modules are
/// not looked into), by name. The searches compare plans on the functions
/// that simulate in all of them.
std::map<std::string, double> getSimulatedStepsUs(ModuleOp module,
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
