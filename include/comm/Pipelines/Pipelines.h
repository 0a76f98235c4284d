//===- Pipelines.h - the pass pipelines of comm -----------------*- C++ -*-===//
//
// The pipelines comm-opt registers and comm-compile runs on one
// PassManager: planning (passes that decide how each transfer happens, all
// optional) and lowering (tensors to buffers to EmitC calls of the
// runtime). Translation to C++ only prints the result.
//
//===----------------------------------------------------------------------===//

#ifndef COMM_PIPELINES_PIPELINES_H
#define COMM_PIPELINES_PIPELINES_H

#include "comm/Dialect/Comm/Transforms/Hierarchical.h"
#include "comm/Dialect/Comm/Transforms/Passes.h"
#include "comm/Pipelines/CompileOptions.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <optional>

namespace mlir {
namespace comm {

struct PlanningPipelineOptions
    : public PassPipelineOptions<PlanningPipelineOptions> {
  PassOptions::Option<std::string> topology{
      *this, "topology",
      llvm::cl::desc("preset name or topology file (NCCL XML or comm YAML); "
                     "empty: the module's comm.topology attribute")};
  PassOptions::Option<std::string> costParams{
      *this, "cost-params",
      llvm::cl::desc("cost model parameters (YAML, as comm-sim calibrate "
                     "--write-params writes them from your nccl-tests runs); "
                     "empty: the module's comm.cost_params attribute, else "
                     "the built-in calibration")};
  PassOptions::Option<Backend> backend{
      *this, "backend",
      llvm::cl::desc("the runtime backend the program runs on: plans name "
                     "only what it realizes (default nccl; comm-compile "
                     "sets it from --target)"),
      llvm::cl::init(Backend::nccl), BackendValues()};
  PassOptions::Option<Strategy> strategy{
      *this, "strategy",
      llvm::cl::desc("who plans: comm (default), or a baseline doing what "
                     "a framework's defaults do (docs/Planning.md)"),
      llvm::cl::init(Strategy::comm), StrategyValues()};
  PassOptions::Option<bool> explain{
      *this, "explain",
      llvm::cl::desc("every planning pass says what it decided (remarks; "
                     "default false)"),
      llvm::cl::init(false)};
  PassOptions::Option<int64_t> memoryBudget{
      *this, "memory-budget",
      llvm::cl::desc("most bytes in flight per rank once transfers overlap "
                     "compute (default 0: no bound)"),
      llvm::cl::init(0)};
  PassOptions::Option<double> maxRelError{
      *this, "max-rel-error",
      llvm::cl::desc("error the results may take where no comm.max_rel_error "
                     "says, so that data may travel narrower (default 0: "
                     "none; strategy=comm only)"),
      llvm::cl::init(0.0)};
  PassOptions::Option<std::string> hierarchical{
      *this, "hierarchical",
      llvm::cl::desc(
          "which all_reduces, all_gathers and reduce_scatters are split "
          "at a slow cut (machines, or the CPU sockets of a PCIe machine), "
          "an all_reduce into reduce_scatter inside, all_reduce across, "
          "all_gather inside: auto (default; strategy=comm simulates the "
          "planned step with none, with those the model predicts faster "
          "and with every one, and keeps the fastest; the baselines split "
          "none), never, faster, always (these two also for ddp, horovod "
          "and xla)"),
      llvm::cl::init("auto")};
  PassOptions::Option<bool> compare{
      *this, "compare",
      llvm::cl::desc(
          "strategy=comm: also plan the program as every baseline strategy "
          "(naive, ddp, horovod, xla) plans it, simulate each on the "
          "topology and keep the fastest, comm's own unless one is faster, "
          "so that comm's plan is never slower than theirs (not where "
          "hierarchical forces a split; default true)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> fuseJoint{
      *this, "fuse-joint",
      llvm::cl::desc(
          "strategy=comm: comm-fuse cuts runs that share the communication "
          "stream together (comm-fuse joint); with compare, comm-plan also "
          "plans the module with them cut alone and keeps the faster "
          "(default true)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> verify{
      *this, "verify",
      llvm::cl::desc("end with comm-verify-schedule: every rank's sends "
                     "meet their receives, collectives their groups, and "
                     "nothing can deadlock (default true)"),
      llvm::cl::init(true)};

  /// Not an option: where comm-fuse reports that cutting runs jointly
  /// changed its buckets (createCommFuse's `jointChanged`).
  bool *fuseJointChanged = nullptr;
};

struct LoweringPipelineOptions
    : public PassPipelineOptions<LoweringPipelineOptions> {
  PassOptions::Option<Target> target{
      *this, "target",
      llvm::cl::desc("what is generated and which runtime backend it calls"),
      llvm::cl::init(Target::cpu_mpi), TargetValues()};
};

/// Checks the program against the topology, buckets small collectives
/// (comm-fuse), narrows the wire type where a tolerance allows it
/// (comm-reduce-precision), chooses every collective's algorithm and
/// protocol with the cost model (comm-select-algorithm), starts transfers
/// early and waits late (comm-schedule) and simplifies it. A baseline
/// strategy runs only what its framework does: fixed buckets and the
/// schedule (ddp, horovod, xla), or nothing (naive).
void buildPlanningPipeline(OpPassManager &pm,
                           const PlanningPipelineOptions &options);

/// What planning runs after comm-fuse, comm-reduce-precision and the
/// hierarchical split: the decomposition the backend needs, then
/// (strategy=comm) comm-pipeline and comm-select-algorithm, then comm-route,
/// comm-schedule and the canonicalizer. The hierarchical search plans each
/// of its variants with it.
void buildPlanningTail(OpPassManager &pm,
                       const PlanningPipelineOptions &options);
/// Reads comm-plan's `hierarchical` option into `mode`: never, faster or
/// always, or std::nullopt for auto (comm-plan simulates the modes and
/// keeps the fastest); failure() for any other word.
LogicalResult parseHierarchicalOption(StringRef name,
                                      std::optional<HierarchicalMode> &mode);
/// Checks comm-plan's own options (memory-budget, max-rel-error,
/// hierarchical) and reports a wrong one at `loc` by comm-plan's name.
LogicalResult checkPlanningOptions(const PlanningPipelineOptions &options,
                                   Location loc);
/// The pass comm-plan runs first: checkPlanningOptions (comm-plan-options).
std::unique_ptr<Pass>
createCheckPlanningOptions(const PlanningPipelineOptions &options);
/// The pass that applies `options.hierarchical` (comm-plan-hierarchical).
std::unique_ptr<Pass>
createHierarchicalSearch(const PlanningPipelineOptions &options);
/// What planning runs after comm-check-topology for `options.strategy`
/// (for comm without the comparison with the baselines). Where `afterFuse`
/// is given, the passes after comm-fuse go there rather than into `pm`
/// (the comparison starts a candidate once comm-fuse has run).
void buildStrategyPipeline(OpPassManager &pm,
                           const PlanningPipelineOptions &options,
                           OpPassManager *afterFuse = nullptr);
/// The comm-fuse options of `options.strategy` (DDP's and XLA's byte
/// limits, Horovod's cycle, comm's cost model).
CommFuseOptions getStrategyFuseOptions(const PlanningPipelineOptions &options);
/// The pass that plans with comm and with every baseline and keeps the
/// fastest simulated plan (comm-plan-compare; `options.compare`).
std::unique_ptr<Pass>
createPlanComparison(const PlanningPipelineOptions &options);
/// comm-bufferize, buffer-results-to-out-params, convert-comm-to-emitc.
void buildLoweringPipeline(OpPassManager &pm,
                           const LoweringPipelineOptions &options);

/// What comm-compile runs on one PassManager before it prints the result:
/// the planning pipeline when a topology is given, then the lowering.
void buildCompilePipeline(OpPassManager &pm, const CompileOptions &options);
/// The same as a textual pipeline of the registered pipelines, which
/// `comm-opt --pass-pipeline=` runs: "builtin.module(comm-plan{...},
/// comm-lower-to-emitc{...})".
void printCompilePipeline(const CompileOptions &options, llvm::raw_ostream &os);

/// Registers `comm-plan` and `comm-lower-to-emitc` with the pass registry.
void registerPipelines();

} // namespace comm
} // namespace mlir

#endif // COMM_PIPELINES_PIPELINES_H
