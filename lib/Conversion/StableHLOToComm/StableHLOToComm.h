//===- StableHLOToComm.h - convert-stablehlo-to-comm internals --*- C++ -*-===//

#ifndef COMM_LIB_CONVERSION_STABLEHLOTOCOMM_STABLEHLOTOCOMM_H
#define COMM_LIB_CONVERSION_STABLEHLOTOCOMM_STABLEHLOTOCOMM_H

#include "comm/Conversion/ComputeImport/ComputeImport.h"

namespace mlir {
namespace comm {

/// The cost of a StableHLO op in generic form, or std::nullopt if it is not
/// one or has no rule.
std::optional<ComputeEstimate> estimateStableHLO(Operation *op);

} // namespace comm
} // namespace mlir

#endif // COMM_LIB_CONVERSION_STABLEHLOTOCOMM_STABLEHLOTOCOMM_H
