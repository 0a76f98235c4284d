//===- CommAttrs.h - comm enums and attributes ------------------*- C++ -*-===//

#ifndef COMM_DIALECT_COMM_IR_COMMATTRS_H
#define COMM_DIALECT_COMM_IR_COMMATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/SmallVector.h"

#include "comm/Dialect/Comm/CommEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "comm/Dialect/Comm/CommAttrs.h.inc"

namespace mlir {
class Operation;
namespace comm {

/// Whether `kind` is a valid reduction for elements of type `elementType`.
/// Bitwise reductions need integers, `avg` needs floating point.
bool isValidReduction(ReductionKind kind, Type elementType);

/// The name of a comm op without the dialect and the "buffer." prefix:
/// "all_reduce" for both comm.all_reduce and comm.buffer.all_reduce.
StringRef getTransferName(Operation *op);

} // namespace comm
} // namespace mlir

#endif // COMM_DIALECT_COMM_IR_COMMATTRS_H
