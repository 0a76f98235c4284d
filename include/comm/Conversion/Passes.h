//===- Passes.h - comm conversion passes ------------------------*- C++ -*-===//

#ifndef COMM_CONVERSION_PASSES_H
#define COMM_CONVERSION_PASSES_H

#include "comm/Pipelines/CompileOptions.h"
#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace comm {

#define GEN_PASS_DECL
#include "comm/Conversion/Passes.h.inc"

/// Checks that every shard annotation and shard op names axes its grid has,
/// each once (what upstream's partitioning assumes); located errors.
LogicalResult checkShardAnnotations(Operation *root);

#define GEN_PASS_REGISTRATION
#include "comm/Conversion/Passes.h.inc"

} // namespace comm
} // namespace mlir

#endif // COMM_CONVERSION_PASSES_H
