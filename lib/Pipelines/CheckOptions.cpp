//===- CheckOptions.cpp - comm-plan's options, checked first ----*- C++ -*-===//
//
// comm-plan hands its options to the passes it runs, which check them
// again under their own names (comm-schedule's memory-budget beside its
// streams, comm-reduce-precision's max-rel-error). A person who wrote
// comm-plan's options is told about those, by comm-plan's names, before any
// pass runs.
//
//===----------------------------------------------------------------------===//

#include "comm/Analysis/TopologyAnalysis.h"
#include "comm/Dialect/Comm/IR/CommDialect.h"
#include "comm/Dialect/Comm/Transforms/Passes.h"
#include "comm/Pipelines/Pipelines.h"
#include "comm/Support/QuietThread.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/Pass.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace mlir::comm;

LogicalResult
mlir::comm::parseHierarchicalOption(StringRef name,
                                    std::optional<HierarchicalMode> &mode) {
  mode.reset();
  if (name == "auto")
    return success();
  if (name == "never")
    mode = HierarchicalMode::never;
  else if (name == "faster")
    mode = HierarchicalMode::faster;
  else if (name == "always")
    mode = HierarchicalMode::always;
  else
    return failure();
  return success();
}

LogicalResult
mlir::comm::checkPlanningOptions(const PlanningPipelineOptions &options,
                                 Location loc) {
  int64_t budget = options.memoryBudget;
  if (budget < 0)
    return emitError(loc) << "comm-plan: memory-budget must be a number of "
                             "bytes (0: no bound), got "
                          << budget;
  double tolerance = options.maxRelError;
  if (!std::isfinite(tolerance) || tolerance < 0 || tolerance >= 1)
    return emitError(loc)
           << "comm-plan: max-rel-error must be in [0, 1) "
              "(a relative error; 0: results as exact as "
              "written), got "
           << llvm::formatv("{0}", llvm::format("%g", tolerance)).str();
  StringRef hierarchical = options.hierarchical;
  std::optional<HierarchicalMode> mode;
  if (failed(parseHierarchicalOption(hierarchical, mode)))
    return emitError(loc) << "comm-plan: hierarchical='" << hierarchical
                          << "' is not a mode: expected auto, never, faster "
                             "or always";
  // What a baseline strategy does not do, said rather than dropped: the
  // frameworks send at the precision the program wrote, and naive runs the
  // program as written.
  if (options.strategy != Strategy::comm) {
    std::string strategy =
        ("strategy=" + stringifyStrategy(options.strategy)).str();
    if (tolerance > 0)
      emitWarning(loc) << "comm-plan: " << strategy
                       << " sends every transfer at the precision the "
                          "program wrote; max-rel-error applies to "
                          "strategy=comm only";
    if (options.strategy == Strategy::naive && mode &&
        *mode != HierarchicalMode::never)
      emitWarning(loc) << "comm-plan: " << strategy
                       << " runs the program as written; hierarchical="
                       << hierarchical << " splits nothing there";
    if (options.strategy == Strategy::naive && budget > 0)
      emitWarning(loc) << "comm-plan: " << strategy
                       << " starts no transfer early; memory-budget bounds "
                          "nothing there";
  }
  return success();
}

namespace {
/// comm-plan's first pass: its options, by comm-plan's names.
class CheckPlanningOptionsPass
    : public PassWrapper<CheckPlanningOptionsPass, OperationPass<ModuleOp>> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CheckPlanningOptionsPass)

  explicit CheckPlanningOptionsPass(const PlanningPipelineOptions &from) {
    options.copyOptionValuesFrom(from);
  }
  CheckPlanningOptionsPass(const CheckPlanningOptionsPass &other)
      : PassWrapper(other) {
    options.copyOptionValuesFrom(other.options);
  }

  StringRef getArgument() const override { return "comm-plan-options"; }
  StringRef getDescription() const override {
    return "Check comm-plan's options before any planning pass runs; "
           "record the topology and backend planned for as the module's "
           "comm.topology and comm.backend";
  }
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(checkPlanningOptions(options, module.getLoc())))
      return signalPassFailure();
    if (failed(checkPlannedFor(module)))
      return signalPassFailure();
    if (failed(checkBackendRunsRanks(module)))
      return signalPassFailure();
    // The plan is for this machine and this backend: comm-sim and
    // comm-compile read the module's attributes (one naming another machine
    // was kept, and they simulated the plan there without a word; a plan for
    // mpi was simulated on nccl unless --backend said otherwise).
    MLIRContext *context = module.getContext();
    if (!options.topology.empty())
      module->setAttr(CommDialect::getTopologyAttrName(),
                      StringAttr::get(context, options.topology));
    module->setAttr(
        CommDialect::getBackendAttrName(),
        StringAttr::get(context, stringifyBackend(options.backend)));
    if (failed(verifyOpsWithNewAttributes(module.getOperation())))
      return signalPassFailure();
    markAllAnalysesPreserved();
  }

private:
  /// A module comm-plan planned already (its comm.backend) is planned
  /// again only for the same backend and machine: the passes keep the plan
  /// fields they find, as a person's, so an nvls or hierarchical plan for
  /// one machine stayed in a plan for another, which could not run it.
  LogicalResult checkPlannedFor(ModuleOp module) {
    auto backend =
        module->getAttrOfType<StringAttr>(CommDialect::getBackendAttrName());
    auto topology =
        module->getAttrOfType<StringAttr>(CommDialect::getTopologyAttrName());
    if (!backend)
      return success();
    bool otherBackend = backend.getValue() != stringifyBackend(options.backend);
    bool otherTopology = !options.topology.empty() && topology &&
                         topology.getValue() != options.topology;
    if (!otherBackend && !otherTopology)
      return success();
    bool planned = module
                       .walk([](Operation *op) {
                         return op->hasAttr("plan") ? WalkResult::interrupt()
                                                    : WalkResult::advance();
                       })
                       .wasInterrupted();
    if (!planned)
      return success();
    InFlightDiagnostic diag = emitError(module.getLoc())
                              << "comm-plan: this program was planned for the "
                              << backend.getValue() << " backend";
    if (topology)
      diag << " on " << topology.getValue();
    diag << " (its " << CommDialect::getBackendAttrName()
         << (topology ? " and " + CommDialect::getTopologyAttrName().str()
                      : std::string())
         << "), and comm-plan keeps the plan fields it finds; to plan for "
         << "backend=" << stringifyBackend(options.backend);
    if (!options.topology.empty())
      diag << " on " << options.topology;
    diag << ", plan the program from before that plan";
    return failure();
  }

  /// A machine whose ranks are CPU processes (`host`) is planned for the
  /// mpi backend, by every strategy: the baselines accepted the default
  /// nccl and wrote a plan no tool could simulate or compile.
  LogicalResult checkBackendRunsRanks(ModuleOp module) {
    if (options.backend == Backend::mpi)
      return success();
    // No topology is comm-plan's own error, and a file that does not load
    // the first pass's to report.
    bool named = !options.topology.empty() ||
                 module->hasAttr(CommDialect::getTopologyAttrName());
    if (!named)
      return success();
    FailureOr<std::shared_ptr<const Topology>> topology = [&] {
      QuietThread quiet(module.getContext());
      return getTopologyFor(module, options.topology);
    }();
    if (failed(topology) || !(*topology)->hasProcessRanks())
      return success();
    return emitError(module.getLoc())
           << "comm-plan: the ranks of '" << (*topology)->getName()
           << "' are processes on the CPU, which the mpi backend runs; "
              "backend="
           << stringifyBackend(options.backend)
           << " cannot run them: give comm-plan backend=mpi";
  }

  PlanningPipelineOptions options;
};
} // namespace

std::unique_ptr<Pass>
mlir::comm::createCheckPlanningOptions(const PlanningPipelineOptions &options) {
  return std::make_unique<CheckPlanningOptionsPass>(options);
}
