//===- CommAttrs.h - comm enums and attributes ------------------*- C++ -*-===//

#ifndef COMM_DIALECT_COMM_IR_COMMATTRS_H
#define COMM_DIALECT_COMM_IR_COMMATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>

#include "comm/Dialect/Comm/CommEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "comm/Dialect/Comm/CommAttrs.h.inc"

namespace mlir {
class Operation;
namespace comm {

/// Whether `kind` is a valid reduction for elements of type `elementType`.
/// Bitwise reductions need integers, `avg` needs floating point.
bool isValidReduction(ReductionKind kind, Type elementType);

/// The fields of a #comm.plan, unset where the plan leaves them open.
struct PlanFields {
  std::optional<Algorithm> algorithm;
  std::optional<Protocol> protocol;
  std::optional<int64_t> channels;
  std::optional<int64_t> chunkBytes;
  Type precision;
  std::optional<Route> route;
  std::optional<int64_t> stream;
};

/// `plan` (null: a plan that sets nothing) with the fields `update`
/// changes: how a pass writes one decision and keeps the others.
PlanAttr getPlanWith(MLIRContext *context, PlanAttr plan,
                     llvm::function_ref<void(PlanFields &)> update);

/// The name of a comm op without the dialect and the "buffer." prefix:
/// "all_reduce" for both comm.all_reduce and comm.buffer.all_reduce.
StringRef getTransferName(Operation *op);

} // namespace comm
} // namespace mlir

#endif // COMM_DIALECT_COMM_IR_COMMATTRS_H
