//===- PlanComparison.cpp - comm's plan against the baselines' -----------===//
//
// comm-plan-compare: comm-plan (strategy=comm) plans the module with comm's
// passes, then plans copies of the module as it was with every baseline
// strategy (naive, ddp, horovod, xla; kStrategies), simulates each planned
// step on the topology and keeps the fastest: comm's plan unless a
// baseline's is faster. comm's passes decide each op by the cost model
// with what they see of the step (a bucket's ready time, a split's
// prediction), and a decision that is right for the op can be wrong for
// the step; the comparison makes comm's plan never slower, as simulated,
// than what a framework's defaults would have done with the same program.
//
//===----------------------------------------------------------------------===//

#include "SimulatedStep.h"
#include "comm/Analysis/TopologyAnalysis.h"
#include "comm/Dialect/Comm/IR/CommOps.h"
#include "comm/Dialect/Comm/Transforms/Passes.h"
#include "comm/Pipelines/Pipelines.h"
#include "comm/Sim/Simulator.h"
#include "comm/Support/QuietThread.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Threading.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/ThreadPool.h"

#include <atomic>

using namespace mlir;
using namespace mlir::comm;

std::map<std::string, double>
mlir::comm::getSimulatedStepsUs(ModuleOp module, const Topology &topology,
                                const CostModel &model, Backend backend) {
  std::map<std::string, double> steps;
  for (auto function : module.getOps<func::FuncOp>()) {
    if (function.isExternal() || !function.isPublic())
      continue;
    FailureOr<sim::SimResult> result =
        sim::simulateFunction(function, topology, model, backend,
                              /*traceRanks=*/0, /*withBounds=*/false);
    if (succeeded(result))
      steps[function.getSymName().str()] = result->stepTimeUs;
  }
  return steps;
}

/// Each public function of `module`, in order, with its blocking bound
/// (SimResult::blockingBoundUs), or std::nullopt where it may overlap
/// transfers with compute or cannot be bounded.
using Bounds = std::vector<std::pair<std::string, std::optional<double>>>;
static Bounds getBlockingBounds(ModuleOp module, const Topology &topology,
                                const CostModel &model) {
  Bounds bounds;
  for (auto function : module.getOps<func::FuncOp>()) {
    if (function.isExternal() || !function.isPublic())
      continue;
    std::optional<double> bound;
    // A comm.start lets transfers overlap: no blocking bound (found before
    // flattening the function, which costs as much as a third of
    // simulating it).
    if (!function.walk([](StartOp) { return WalkResult::interrupt(); })
             .wasInterrupted()) {
      FailureOr<sim::SimResult> result =
          sim::boundFunction(function, topology, model);
      if (succeeded(result) && result->blockingBoundUs > 0)
        bound = result->blockingBoundUs;
    }
    bounds.emplace_back(function.getSymName().str(), bound);
  }
  return bounds;
}

namespace {
class PlanComparisonPass : public PlanningSearchPass<PlanComparisonPass> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PlanComparisonPass)

  explicit PlanComparisonPass(const PlanningPipelineOptions &from)
      : PlanningSearchPass(from) {
    std::string text;
    llvm::raw_string_ostream os(text);
    getPipeline(Strategy::comm, options.explain).printAsTextualPipeline(os);
    commPipeline = text;
  }
  PlanComparisonPass(const PlanComparisonPass &other)
      : PlanningSearchPass(other) {}

  StringRef getArgument() const override { return "comm-plan-compare"; }
  StringRef getDescription() const override {
    return "Plan with comm's passes and with every baseline strategy, "
           "simulate each plan and keep the fastest";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    for (const StrategyInfo &info : kStrategies)
      getPipeline(info.strategy, /*explain=*/false)
          .getDependentDialects(registry);
  }
  void runOnOperation() override;

private:
  /// The pipeline of `strategy`; comm's ends with comm-verify-schedule
  /// (where the options say so), a baseline's only once it is kept. Where
  /// `afterFuse` is given, the passes after comm-fuse go there.
  OpPassManager getPipeline(Strategy strategy, bool explain,
                            bool *fuseJointChanged = nullptr,
                            OpPassManager *afterFuse = nullptr) const {
    PlanningPipelineOptions planning;
    getPlanningOptions(planning, strategy, explain);
    planning.fuseJointChanged = fuseJointChanged;
    OpPassManager pm(ModuleOp::getOperationName());
    buildStrategyPipeline(pm, planning, afterFuse);
    return pm;
  }
  /// The options getPipeline plans with (comm's without the joint cuts of
  /// comm-fuse is a candidate, verified only once it is kept).
  void getPlanningOptions(PlanningPipelineOptions &planning, Strategy strategy,
                          bool explain, bool fuseJoint = true) const {
    planning.copyOptionValuesFrom(options);
    planning.strategy = strategy;
    planning.explain = explain;
    planning.fuseJoint = options.fuseJoint && fuseJoint;
    if (strategy != Strategy::comm || !fuseJoint)
      planning.verify = false;
  }

  // Shown when the pipeline is printed (comm-compile -v).
  Pass::Option<std::string> commPipeline{
      *this, "comm", llvm::cl::desc("the passes that make comm's own plan")};
  Pass::Statistic numPlans{this, "plans-simulated",
                           "Plans of the module simulated (comm's and the "
                           "baselines')"};
  Pass::Statistic numBaselineKept{
      this, "baseline-kept",
      "Modules whose baseline plan simulated faster than comm's"};
};
} // namespace

void PlanComparisonPass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *context = &getContext();
  FailureOr<std::shared_ptr<const Topology>> topology =
      getTopologyFor(module, options.topology);
  if (failed(topology))
    return signalPassFailure();
  FailureOr<CostParams> params = getCostParamsFor(module, options.costParams);
  if (failed(params))
    return signalPassFailure();
  CostModel model(**topology, *params);
  // The module as written, for the candidates below.
  OwningOpRef<ModuleOp> original = cast<ModuleOp>(module->clone());

  // The candidates: comm's plan with the runs cut alone (where comm-fuse's
  // joint cuts changed a cut: it cuts runs that share a stream together by
  // its one-queue model, which the simulator does not always agree with),
  // then every baseline. Each plans its own copy of the module as written
  // with a pass manager of its own, so that they run at once on the
  // context's threads (each a pipeline and a simulation: on a module of
  // 100,000 ops, seconds), and are judged in order afterwards.
  struct Candidate {
    std::string name;
    /// A plan that never overlaps (naive's, where the source has no
    /// comm.start) whose compute plus its transfers' bounds already reaches
    /// the fastest step is not simulated (all its collectives one by one:
    /// the dearest plan to simulate), since it cannot be chosen.
    bool bounded = false;
    std::unique_ptr<PassManager> pm;
    OwningOpRef<ModuleOp> copy;
    bool planned = false;
    /// A bounded candidate's functions' bounds.
    Bounds bounds;
    /// Each public function's simulated step, once simulated.
    std::optional<std::map<std::string, double>> steps;
    std::optional<double> floor, us;
  };
  const std::string kAlone = "comm with runs cut alone";
  std::vector<Candidate> candidates;
  auto make = [&](std::string name, Strategy strategy, bool fuseJoint,
                  bool bounded) {
    Candidate candidate;
    candidate.name = std::move(name);
    candidate.bounded = bounded;
    candidate.pm =
        std::make_unique<PassManager>(context, ModuleOp::getOperationName());
    PlanningPipelineOptions planning;
    getPlanningOptions(planning, strategy, /*explain=*/false, fuseJoint);
    buildStrategyPipeline(*candidate.pm, planning);
    // A candidate's passes are those comm-plan runs, each verified after it
    // runs where comm-plan plans without comparing; here the module is
    // verified once, after the comparison, with the plan it keeps (each
    // verification of a module of 100,000 ops costs a few tenths of a
    // second).
    candidate.pm->enableVerifier(false);
    return candidate;
  };
  // A candidate copies the module as written (several threads may read
  // `original` at once; nothing writes it) and plans it; one that fails to
  // plan is left out. A bounded one is bounded, and simulated where a
  // function has no bound (whether the others need simulating waits for
  // comm's own step).
  auto plan = [&](Candidate &candidate) {
    candidate.copy = cast<ModuleOp>(original->clone());
    candidate.planned = succeeded(candidate.pm->run(*candidate.copy));
    if (!candidate.planned)
      return;
    if (candidate.bounded)
      candidate.bounds = getBlockingBounds(*candidate.copy, **topology, model);
    if (!candidate.bounded ||
        llvm::any_of(candidate.bounds,
                     [](const auto &entry) { return !entry.second; }))
      candidate.steps = getSimulatedStepsUs(*candidate.copy, **topology, model,
                                            options.backend);
  };
  for (const StrategyInfo &info : kStrategies)
    if (info.strategy != Strategy::comm)
      candidates.push_back(make(stringifyStrategy(info.strategy).str(),
                                info.strategy, /*fuseJoint=*/true,
                                /*bounded=*/true));

  // The baselines plan on the context's threads while comm's own pipeline
  // runs here, on the module itself (its statistics, timing and
  // diagnostics are the user's; the baselines' are not). They leave this
  // thread a core, and this thread takes the baselines left once comm's
  // plan is simulated. The dialects they need were loaded before any pass
  // ran: this pass's getDependentDialects names every strategy's pipeline.
  std::optional<QuietThread> quietOthers;
  quietOthers.emplace(context, /*othersOnly=*/true);
  std::optional<ScopedDiagnosticHandler> quiet;
  // comm's plan with the runs cut alone, where it is a candidate.
  std::optional<Candidate> alone;
  std::atomic<size_t> nextBaseline = 0;
  auto planBaselines = [&] {
    for (size_t next; (next = nextBaseline++) < candidates.size();)
      plan(candidates[next]);
  };
  std::optional<llvm::ThreadPoolTaskGroup> baselines;
  if (context->isMultithreadingEnabled()) {
    llvm::ThreadPoolInterface &pool = context->getThreadPool();
    baselines.emplace(pool);
    unsigned workers =
        std::max(1u, std::min<unsigned>(candidates.size(),
                                        pool.getMaxConcurrency() - 1));
    for (unsigned i = 0; i < workers; ++i)
      baselines->async(planBaselines);
  }
  // comm's pipeline runs in two parts, up to comm-fuse and the rest:
  // comm-fuse says whether it cut runs that share the stream otherwise
  // together than alone, and so whether the runs cut alone are a
  // candidate, which then plans on the threads too.
  bool jointMatters = false;
  OpPassManager rest(ModuleOp::getOperationName());
  OpPassManager head =
      getPipeline(Strategy::comm, options.explain, &jointMatters, &rest);
  LogicalResult ownPlanned = runPipeline(head, module);
  if (succeeded(ownPlanned)) {
    if (jointMatters) {
      alone = make(kAlone, Strategy::comm, /*fuseJoint=*/false,
                   /*bounded=*/false);
      if (baselines)
        baselines->async([&] { plan(*alone); });
    }
    ownPlanned = runPipeline(rest, module);
  }
  // What the simulator rejects (a loop whose trip count only the run
  // knows) is the plan's to keep; the plans are compared on the public
  // functions it simulates, and a baseline whose plan of one of them does
  // not simulate is left out. No diagnostic from here on is the user's
  // (the second handler is in place before the first goes).
  quiet.emplace(context, [](Diagnostic &) { return success(); });
  quietOthers.reset();
  std::map<std::string, double> ownSteps;
  if (succeeded(ownPlanned)) {
    ownSteps = getSimulatedStepsUs(module, **topology, model, options.backend);
    ++numPlans;
  }
  if (ownSteps.empty())
    nextBaseline = candidates.size();
  planBaselines();
  if (baselines)
    baselines->wait();
  if (failed(ownPlanned))
    return signalPassFailure();
  // Where comm's plan is kept, the module is as its pipeline left it, and
  // that pipeline verified it after each pass that changed it (where the
  // pass manager verifies at all): the pass manager need not verify it
  // again after this pass (no analysis outlives the pipeline's passes).
  if (ownSteps.empty())
    return markAllAnalysesPreserved();
  auto total =
      [&](const std::map<std::string, double> &steps) -> std::optional<double> {
    double sum = 0;
    for (const auto &[name, us] : ownSteps) {
      auto it = steps.find(name);
      if (it == steps.end())
        return std::nullopt;
      sum += it->second;
    }
    return sum;
  };
  std::optional<double> ownUs = total(ownSteps);
  // A bounded candidate's floor: its bounds of the functions comm's plan
  // simulated.
  auto floorOf = [&](const Bounds &bounds) -> std::optional<double> {
    double sum = 0;
    for (const auto &[name, bound] : bounds) {
      if (!ownSteps.count(name))
        continue;
      if (!bound)
        return std::nullopt;
      sum += *bound;
    }
    return sum;
  };

  if (alone)
    candidates.insert(candidates.begin(), std::move(*alone));
  // Bounded ones are not simulated where their floor reaches comm's own
  // step (so at least the fastest before them, whichever that is). A copy
  // that cannot be kept (no faster than comm's plan, which is kept on a
  // tie) is freed on its thread.
  parallelForEach(context, candidates, [&](Candidate &candidate) {
    if (!candidate.copy)
      plan(candidate);
    if (candidate.planned) {
      if (candidate.bounded)
        candidate.floor = floorOf(candidate.bounds);
      if (!candidate.steps && (!candidate.floor || *candidate.floor < *ownUs))
        candidate.steps = getSimulatedStepsUs(*candidate.copy, **topology,
                                              model, options.backend);
      if (candidate.steps)
        candidate.us = total(*candidate.steps);
    }
    if (!candidate.us || *candidate.us >= *ownUs * (1 - 1e-9))
      candidate.copy = nullptr;
  });
  original = nullptr;

  struct Result {
    std::string name;
    std::optional<double> us;
    /// Not simulated: its blocking step's bound already reaches comm's.
    bool bounded = false;
  };
  SmallVector<Result> results;
  OwningOpRef<ModuleOp> best;
  std::optional<std::string> bestName;
  double bestUs = *ownUs;
  // In order, each is kept if it beats the fastest so far (ties keep the
  // earlier).
  for (Candidate &candidate : candidates) {
    if (!candidate.planned) {
      results.push_back({candidate.name, std::nullopt});
      continue;
    }
    if (candidate.floor && *candidate.floor >= bestUs) {
      results.push_back({candidate.name, *candidate.floor, /*bounded=*/true});
      continue;
    }
    ++numPlans;
    results.push_back({candidate.name, candidate.us});
    if (candidate.us && *candidate.us < bestUs * (1 - 1e-9)) {
      bestUs = *candidate.us;
      bestName = candidate.name;
      best = std::move(candidate.copy);
    }
  }

  quiet.reset();
  if (options.explain) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << llvm::formatv("comm-plan: simulated step as comm plans it {0:F2} us",
                        *ownUs);
    for (const Result &result : results) {
      os << ", " << result.name << " ";
      if (result.us)
        os << llvm::formatv("{0}{1:F2} us", result.bounded ? "at least " : "",
                            *result.us);
      else
        os << "failed";
    }
    if (!bestName)
      os << ": keeping comm's plan";
    else if (*bestName == kAlone)
      os << ": keeping comm's plan with the runs cut alone";
    else
      os << ": keeping " << *bestName << "'s plan";
    mlir::emitRemark(module.getLoc()) << text;
  }
  if (!bestName)
    return markAllAnalysesPreserved();
  if (*bestName != kAlone)
    ++numBaselineKept;
  // The baseline's planned module replaces comm's, attributes and all, and
  // is verified as comm's was.
  module.getBody()->clear();
  module.getBody()->getOperations().splice(module.getBody()->end(),
                                           best->getBody()->getOperations());
  module->setAttrs(best.get()->getAttrDictionary());
  if (options.verify) {
    OpPassManager verify(ModuleOp::getOperationName());
    CommVerifyScheduleOptions verifyOptions;
    verifyOptions.backend = options.backend;
    verify.addPass(createCommVerifySchedule(verifyOptions));
    if (failed(runPipeline(verify, module)))
      return signalPassFailure();
  }
}

std::unique_ptr<Pass>
mlir::comm::createPlanComparison(const PlanningPipelineOptions &options) {
  return std::make_unique<PlanComparisonPass>(options);
}
