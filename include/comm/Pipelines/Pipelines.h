//===- Pipelines.h - the pass pipelines of comm -----------------*- C++ -*-===//
//
// The pipelines comm-opt registers and comm-translate and comm-compile run:
// planning (passes that decide how each transfer happens, all optional) and
// lowering (tensors to buffers to EmitC calls of the runtime).
//
//===----------------------------------------------------------------------===//

#ifndef COMM_PIPELINES_PIPELINES_H
#define COMM_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir {
namespace comm {

struct PlanningPipelineOptions
    : public PassPipelineOptions<PlanningPipelineOptions> {
  PassOptions::Option<std::string> topology{
      *this, "topology",
      llvm::cl::desc("preset name or topology file (NCCL XML or comm YAML); "
                     "empty: the module's comm.topology attribute")};
};

struct LoweringPipelineOptions
    : public PassPipelineOptions<LoweringPipelineOptions> {
  PassOptions::Option<std::string> target{
      *this, "target",
      llvm::cl::desc("cpu (host buffers, mpi backend) or cuda (device "
                     "buffers, nccl/verbs backends)"),
      llvm::cl::init("cpu")};
  PassOptions::Option<std::string> backend{
      *this, "backend",
      llvm::cl::desc("mpi, nccl or verbs: the runtime backend the program "
                     "runs on (empty: mpi for cpu, nccl for cuda)"),
      llvm::cl::init("")};
};

/// Checks the program against the topology and simplifies it; the planning
/// passes of later issues join here.
void buildPlanningPipeline(OpPassManager &pm,
                           const PlanningPipelineOptions &options);

/// comm-bufferize, buffer-results-to-out-params, convert-comm-to-emitc.
void buildLoweringPipeline(OpPassManager &pm,
                           const LoweringPipelineOptions &options);

/// Registers `comm-plan` and `comm-lower-to-emitc` with the pass registry.
void registerPipelines();

} // namespace comm
} // namespace mlir

#endif // COMM_PIPELINES_PIPELINES_H
