//===- HierarchicalSearch.cpp - split all_reduces where the step gains ----===//
//
// comm-plan-hierarchical: comm-plan's decision whether to split
// all_reduces, all_gathers and reduce_scatters across a slow cut
// (Hierarchical.h). Whether a split pays depends on the
// step, not on the op: its parts queue behind one another on the
// communication stream and change what overlaps what, so an op predicted
// faster split can lengthen the step and one predicted slower can shorten
// it. With hierarchical=auto the pass plans the module three ways (no
// split, the splits the model predicts faster, every split) with the rest
// of the planning pipeline, simulates each planned step and applies the
// fastest; the rest of the pipeline then plans the module as it planned
// the winning copy.
//
//===----------------------------------------------------------------------===//

#include "SimulatedStep.h"
#include "comm/Analysis/TopologyAnalysis.h"
#include "comm/Dialect/Comm/Transforms/Hierarchical.h"
#include "comm/Pipelines/Pipelines.h"
#include "comm/Sim/Simulator.h"
#include "comm/Support/QuietThread.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FormatVariadic.h"

#include <optional>

using namespace mlir;
using namespace mlir::comm;

namespace {
class HierarchicalSearchPass
    : public PlanningSearchPass<HierarchicalSearchPass> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(HierarchicalSearchPass)

  explicit HierarchicalSearchPass(const PlanningPipelineOptions &from)
      : PlanningSearchPass(from) {
    mode = from.hierarchical;
  }
  HierarchicalSearchPass(const HierarchicalSearchPass &other)
      : PlanningSearchPass(other) {}

  StringRef getArgument() const override { return "comm-plan-hierarchical"; }
  StringRef getDescription() const override {
    return "Split all_reduces, all_gathers and reduce_scatters across a slow "
           "cut (by machine, or by CPU socket of a PCIe machine) where the "
           "simulated step gains";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, tensor::TensorDialect>();
    // The planning tail runs inside this pass on copies of the module.
    getTail().getDependentDialects(registry);
  }
  void runOnOperation() override;

private:
  OpPassManager getTail() const {
    PlanningPipelineOptions quiet;
    quiet.copyOptionValuesFrom(options);
    quiet.explain = false;
    OpPassManager tail(ModuleOp::getOperationName());
    buildPlanningTail(tail, quiet);
    return tail;
  }
  /// Whether the rest of planning runs comm-select-algorithm (so that a
  /// split is predicted against the whole as it will be planned).
  bool isPlanned() const;
  /// The step of each public function of the module that simulates once
  /// `split` is applied and the rest of planning has run, or std::nullopt
  /// where planning fails.
  std::optional<std::map<std::string, double>>
  simulateVariant(HierarchicalMode split, const Topology &topology,
                  const CostModel &model);

  // Shown when the pipeline is printed.
  Pass::Option<std::string> mode{*this, "mode",
                                 llvm::cl::desc("auto, never, faster or "
                                                "always (comm-plan's "
                                                "hierarchical option)")};
  Pass::Statistic numCandidates{this, "candidates",
                                "Collectives a hierarchical split applies to"};
  Pass::Statistic numSplit{this, "collectives-split",
                           "Collectives split across a slow cut"};
  Pass::Statistic numVariants{this, "variants-simulated",
                              "Planned copies of the module simulated"};
};
} // namespace

bool HierarchicalSearchPass::isPlanned() const {
  // comm's tail plans every collective with comm-select-algorithm; a
  // baseline's leaves them to the backend.
  return options.strategy == Strategy::comm;
}

std::optional<std::map<std::string, double>>
HierarchicalSearchPass::simulateVariant(HierarchicalMode split,
                                        const Topology &topology,
                                        const CostModel &model) {
  ModuleOp module = getOperation();
  // The copy lives in the module while it is planned (a pass may only run
  // a pipeline on what it owns) and is erased after.
  OpBuilder builder(module.getBody(), module.getBody()->end());
  auto copy = cast<ModuleOp>(builder.clone(*module));
  llvm::scope_exit erase([&] { copy->erase(); });
  splitHierarchically(copy, topology, model, options.backend, split,
                      /*explain=*/false, "comm-plan", /*kept=*/nullptr,
                      isPlanned());
  OpPassManager tail = getTail();
  if (failed(runPipeline(tail, copy)))
    return std::nullopt;
  return getSimulatedStepsUs(copy, topology, model, options.backend);
}

void HierarchicalSearchPass::runOnOperation() {
  ModuleOp module = getOperation();
  // comm-plan-options checked the word.
  std::optional<HierarchicalMode> fixed;
  if (failed(parseHierarchicalOption(options.hierarchical, fixed)))
    return signalPassFailure();
  if (fixed == HierarchicalMode::never)
    return markAllAnalysesPreserved();
  FailureOr<std::shared_ptr<const Topology>> topology =
      getTopologyFor(module, options.topology);
  if (failed(topology))
    return signalPassFailure();
  FailureOr<CostParams> params = getCostParamsFor(module, options.costParams);
  if (failed(params))
    return signalPassFailure();
  CostModel model(**topology, *params);
  if (fixed) {
    unsigned split =
        splitHierarchically(module, **topology, model, options.backend, *fixed,
                            options.explain, "comm-plan",
                            /*kept=*/nullptr, isPlanned());
    numSplit += split;
    if (split == 0)
      markAllAnalysesPreserved();
    return;
  }

  // Nothing to decide where nothing splits (groups inside one DGX, whose
  // sockets' GPUs NVSwitch joins).
  unsigned candidates = 0;
  module.walk([&](Operation *op) {
    std::string why;
    if (isHierarchicalKind(op) &&
        getHierarchicalSplit(op, **topology, model, why))
      ++candidates;
  });
  numCandidates += candidates;
  // (Where the variants were planned, copies of the module were made and
  // erased: the pass manager forgets what it held of them only if the
  // pass does not say it preserved everything.)
  if (candidates == 0)
    return markAllAnalysesPreserved();

  std::optional<std::map<std::string, double>> steps[3];
  const HierarchicalMode variants[] = {HierarchicalMode::never,
                                       HierarchicalMode::faster,
                                       HierarchicalMode::always};
  {
    // The copies' errors are the module's own, reported when the real
    // pipeline plans it.
    QuietThread quiet(&getContext());
    for (auto [index, variant] : llvm::enumerate(variants)) {
      steps[index] = simulateVariant(variant, **topology, model);
      ++numVariants;
    }
  }
  // The variants are compared on the functions every one that planned
  // simulates: a function the simulator cannot run (a loop whose trip
  // count only the run knows, the evaluation beside a training step)
  // once made every variant's step fail, and nothing was split.
  std::optional<double> times[3];
  const std::map<std::string, double> *first = nullptr;
  for (const auto &variant : steps)
    if (variant && !first)
      first = &*variant;
  for (auto [index, variant] : llvm::enumerate(steps)) {
    if (!variant || !first)
      continue;
    double sum = 0;
    bool any = false;
    for (const auto &[name, us] : *first)
      if (llvm::all_of(steps, [&, &name = name](const auto &other) {
            return !other || other->count(name);
          })) {
        sum += variant->at(name);
        any = true;
      }
    if (any)
      times[index] = sum;
  }
  unsigned best = 0;
  for (unsigned index = 1; index < 3; ++index)
    if (times[index] && (!times[best] || *times[index] < *times[best]))
      best = index;
  if (options.explain) {
    auto show = [](std::optional<double> us) {
      return us ? llvm::formatv("{0:F2} us", *us).str() : std::string("failed");
    };
    static const char *const names[] = {"none", "those predicted faster",
                                        "every one"};
    mlir::emitRemark(module.getLoc()) << llvm::formatv(
        "comm-plan: {0} collective(s) split across a slow cut; simulated "
        "step with none split {1}, with those predicted faster {2}, with "
        "every one {3}: splitting {4}",
        candidates, show(times[0]), show(times[1]), show(times[2]),
        names[best]);
  }
  if (best != 0)
    numSplit +=
        splitHierarchically(module, **topology, model, options.backend,
                            variants[best], options.explain, "comm-plan",
                            /*kept=*/nullptr, isPlanned());
}

std::unique_ptr<Pass>
mlir::comm::createHierarchicalSearch(const PlanningPipelineOptions &options) {
  return std::make_unique<HierarchicalSearchPass>(options);
}
