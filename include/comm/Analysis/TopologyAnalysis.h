//===- TopologyAnalysis.h - the topology a program targets ------*- C++ -*-===//
//
// Passes find the hardware a module targets through its `comm.topology`
// attribute (or a pass option that overrides it). Topologies are loaded once
// per process and shared: a preset or a file named by several passes or
// modules is read only once.
//
//===----------------------------------------------------------------------===//

#ifndef COMM_ANALYSIS_TOPOLOGYANALYSIS_H
#define COMM_ANALYSIS_TOPOLOGYANALYSIS_H

#include "comm/CostModel/CostModel.h"
#include "comm/Topology/Topology.h"
#include "mlir/IR/Operation.h"

#include <memory>

namespace mlir {
namespace comm {

/// Name of the module attribute naming the topology.
constexpr StringLiteral kTopologyAttrName = "comm.topology";

/// The topology spec for `op`: `overrideSpec` when non-empty, else the
/// nearest enclosing `comm.topology` attribute, else an empty string. A
/// relative file the attribute names is looked for next to the file the
/// module was read from first, then in the working directory (so is a
/// `comm.cost_params` file).
std::string getTopologySpec(Operation *op, StringRef overrideSpec = "");

/// Loads (or returns the cached) topology named by `spec`. Thread-safe.
llvm::Expected<std::shared_ptr<const Topology>>
loadCachedTopology(StringRef spec);

/// The topology `op` targets. Emits an error at `op` and fails when none is
/// named or it cannot be loaded, or when the enclosing comm.world_size has
/// more ranks than it. The error for none names the attribute and
/// `overrideHint`, how the caller takes an override (a tool's flag).
FailureOr<std::shared_ptr<const Topology>>
getTopologyFor(Operation *op, StringRef overrideSpec = "",
               StringRef overrideHint = "topology=<preset|file> to the pass");

/// The cost model parameters for `op`: those of the file `overridePath` when
/// non-empty, else of the file the nearest enclosing `comm.cost_params`
/// names (CommDialect::getCostParamsAttrName()), else the defaults (calibrated
/// on published nccl-tests figures). Files are read once per process. Emits an
/// error at `op` and fails when a file cannot be read or parsed.
FailureOr<CostParams> getCostParamsFor(Operation *op,
                                       StringRef overridePath = "");

/// An analysis for `getAnalysis<TopologyAnalysis>()`: the topology named by
/// the module's `comm.topology`, loaded lazily.
class TopologyAnalysis {
public:
  explicit TopologyAnalysis(Operation *op) : op(op) {}
  /// The topology, or failure (with an error emitted at the module).
  FailureOr<std::shared_ptr<const Topology>> getTopology();

private:
  Operation *op;
  std::shared_ptr<const Topology> topology;
};

} // namespace comm
} // namespace mlir

#endif // COMM_ANALYSIS_TOPOLOGYANALYSIS_H
