//===- StableHLOToComm.h - convert-stablehlo-to-comm internals --*- C++ -*-===//

#ifndef COMM_LIB_CONVERSION_STABLEHLOTOCOMM_STABLEHLOTOCOMM_H
#define COMM_LIB_CONVERSION_STABLEHLOTOCOMM_STABLEHLOTOCOMM_H

#include "comm/Conversion/ComputeImport/ComputeImport.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir {
namespace comm {

/// The cost of a StableHLO op in generic form, or std::nullopt if it is not
/// one or has no rule.
std::optional<ComputeEstimate> estimateStableHLO(Operation *op);

/// Checks that no sharding in `module` (inlined, its `sdy.mesh` ops still
/// there) asks XLA's partitioner to split the program: a located error for
/// the first that does (Shardings.cpp says which do).
LogicalResult checkPartitioned(ModuleOp module);

} // namespace comm
} // namespace mlir

#endif // COMM_LIB_CONVERSION_STABLEHLOTOCOMM_STABLEHLOTOCOMM_H
