//===- CommVerifiers.h - checks shared by the comm ops ----------*- C++ -*-===//
//
// Internal to the dialect library: the tensor ops and their bufferized
// forms run the same checks.
//
//===----------------------------------------------------------------------===//

#ifndef COMM_LIB_DIALECT_COMM_IR_COMMVERIFIERS_H
#define COMM_LIB_DIALECT_COMM_IR_COMMVERIFIERS_H

#include "comm/Dialect/Comm/IR/CommOps.h"

namespace mlir {
namespace comm {
namespace detail {

LogicalResult verifyPairs(Operation *op, ArrayRef<int64_t> pairs);
LogicalResult verifyGroups(Operation *op, ReplicaGroupsAttr groups);
LogicalResult verifyReduction(Operation *op, ReductionKind kind,
                              Type elementType);
LogicalResult verifyTensorSizes(Operation *op);
LogicalResult verifyBufferLayout(Operation *op, Type bufferType,
                                 TypeRange pieces, ArrayRef<int64_t> offsets,
                                 StringRef what, int64_t blocks = 1);
LogicalResult verifyTransfer(Operation *op, PlanAttr plan, Type elementType);
LogicalResult verifyRoot(Operation *op, int64_t root, ReplicaGroupsAttr groups);
/// `dim` is a dimension of `type`.
LogicalResult verifyDim(Operation *op, StringRef name, int64_t dim,
                        ShapedType type);
/// `result` is `input` with dimension `dim` multiplied (or divided) by
/// `groupSize`.
LogicalResult verifyScaledShape(Operation *op, ShapedType input,
                                ShapedType result, int64_t dim,
                                int64_t groupSize, bool multiply);
/// The checks of comm.rotate and comm.buffer.rotate: groups, and a dimension
/// 0 that the group size divides.
LogicalResult verifyRotation(Operation *op, ShapedType type,
                             ReplicaGroupsAttr groups);

} // namespace detail
} // namespace comm
} // namespace mlir

#endif // COMM_LIB_DIALECT_COMM_IR_COMMVERIFIERS_H
