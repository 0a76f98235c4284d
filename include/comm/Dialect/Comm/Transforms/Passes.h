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

/// Whether comm-fuse in cost mode, with `options`, cuts some block's runs
/// of collectives differently when it cuts them jointly (its `joint`
/// option) than when it cuts each alone. Changes nothing; fails, after a
/// located error, without a topology.
FailureOr<bool> fuseJointChangesCuts(ModuleOp module,
                                     const CommFuseOptions &options);

} // namespace comm
} // namespace mlir

#endif // COMM_DIALECT_COMM_TRANSFORMS_PASSES_H
