//===- CommCombine.cpp - element-wise arith ops as local reductions -------===//
//
// Point-to-point schedules combine what they receive with element-wise arith
// ops on tensors; comm-bufferize makes them comm.buffer.combine, the
// simulator costs them as local kernels, comm-decompose writes them. The
// table of which arith op is which reduction is here, once.
//
//===----------------------------------------------------------------------===//

#include "comm/Dialect/Comm/IR/CommOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::comm;

std::optional<ReductionKind> mlir::comm::getCombineKind(Operation *op) {
  if (op->getNumResults() != 1 ||
      !isa<RankedTensorType>(op->getResult(0).getType()))
    return std::nullopt;
  return llvm::TypeSwitch<Operation *, std::optional<ReductionKind>>(op)
      .Case<arith::AddFOp, arith::AddIOp>(
          [](auto) { return ReductionKind::sum; })
      .Case<arith::MulFOp, arith::MulIOp>(
          [](auto) { return ReductionKind::prod; })
      .Case<arith::MaximumFOp, arith::MaxNumFOp, arith::MaxSIOp>(
          [](auto) { return ReductionKind::max; })
      .Case<arith::MinimumFOp, arith::MinNumFOp, arith::MinSIOp>(
          [](auto) { return ReductionKind::min; })
      .Case<arith::AndIOp>([](auto) { return ReductionKind::band; })
      .Case<arith::OrIOp>([](auto) { return ReductionKind::bor; })
      .Case<arith::XOrIOp>([](auto) { return ReductionKind::bxor; })
      .Default([](Operation *) { return std::nullopt; });
}

FailureOr<Value> mlir::comm::buildCombine(OpBuilder &builder, Location loc,
                                          ReductionKind kind, Value lhs,
                                          Value rhs) {
  bool isFloat = isa<FloatType>(getElementTypeOrSelf(lhs.getType()));
  switch (kind) {
  case ReductionKind::sum:
    return isFloat ? arith::AddFOp::create(builder, loc, lhs, rhs).getResult()
                   : arith::AddIOp::create(builder, loc, lhs, rhs).getResult();
  case ReductionKind::prod:
    return isFloat ? arith::MulFOp::create(builder, loc, lhs, rhs).getResult()
                   : arith::MulIOp::create(builder, loc, lhs, rhs).getResult();
  case ReductionKind::max:
    return isFloat
               ? arith::MaximumFOp::create(builder, loc, lhs, rhs).getResult()
               : arith::MaxSIOp::create(builder, loc, lhs, rhs).getResult();
  case ReductionKind::min:
    return isFloat
               ? arith::MinimumFOp::create(builder, loc, lhs, rhs).getResult()
               : arith::MinSIOp::create(builder, loc, lhs, rhs).getResult();
  case ReductionKind::band:
  case ReductionKind::bor:
  case ReductionKind::bxor:
    if (isFloat)
      return failure();
    if (kind == ReductionKind::band)
      return arith::AndIOp::create(builder, loc, lhs, rhs).getResult();
    if (kind == ReductionKind::bor)
      return arith::OrIOp::create(builder, loc, lhs, rhs).getResult();
    return arith::XOrIOp::create(builder, loc, lhs, rhs).getResult();
  case ReductionKind::avg:
    // An average is a sum and a division, which no local op here performs.
    return failure();
  }
  return failure();
}
