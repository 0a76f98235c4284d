//===- Passes.h - comm passes -----------------------------------*- C++ -*-===//

#ifndef COMM_DIALECT_COMM_TRANSFORMS_PASSES_H
#define COMM_DIALECT_COMM_TRANSFORMS_PASSES_H

#include "comm/Pipelines/CompileOptions.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace comm {

/// How comm-fuse sizes its buckets.
enum class FuseMode {
  /// PyTorch DDP's rule: fixed byte limits, a smaller first bucket.
  threshold,
  /// The bucket boundaries that let the transfers finish first, by the
  /// cost model, with compute ahead of each transfer as the schedule
  /// will overlap it.
  cost,
  /// Horovod's tensor fusion: the tensors that become ready within one
  /// cycle travel together, up to the byte limit.
  cycle,
};

} // namespace comm
} // namespace mlir

COMM_LISTING_ENUM_OPTION(mlir::comm::FuseMode)

namespace mlir {
namespace comm {

#define GEN_PASS_DECL
#include "comm/Dialect/Comm/CommPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "comm/Dialect/Comm/CommPasses.h.inc"

/// comm-fuse with `options` that also sets `*jointChanged` where, in cost
/// mode, cutting some block's runs of collectives jointly (its `joint`
/// option) gave other buckets than cutting each alone would have.
std::unique_ptr<Pass> createCommFuse(const CommFuseOptions &options,
                                     bool *jointChanged);

/// Verifies `ops`, each without its regions, for a pass that changed only
/// their attributes (it added, moved and erased no op). A pass that did only
/// that, and whose ops verify, marks all analyses preserved (no analysis
/// reads an attribute comm writes), so that the pass manager does not
/// verify the whole module again: at 100,000 ops in comm.starts that costs
/// half a second a pass. A comm op's verifier reads its own attributes,
/// never another op's.
LogicalResult verifyOpsWithNewAttributes(ArrayRef<Operation *> ops);

} // namespace comm
} // namespace mlir

#endif // COMM_DIALECT_COMM_TRANSFORMS_PASSES_H
