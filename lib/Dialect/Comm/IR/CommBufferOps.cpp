//===- CommBufferOps.cpp - comm operations on buffers ----------*- C++ -*-===//

#include "CommVerifiers.h"
#include "comm/Dialect/Comm/IR/CommOps.h"

using namespace mlir;
using namespace mlir::comm;
using namespace mlir::comm::detail;

static int64_t elements(Value value) {
  return cast<ShapedType>(value.getType()).getNumElements();
}

static Type elementOf(Value value) {
  return cast<ShapedType>(value.getType()).getElementType();
}

/// Source and target of a collective: same element type; the target holds
/// `num / den` times the source's elements.
static LogicalResult verifyScaled(Operation *op, Value source, Value target,
                                  int64_t num, int64_t den) {
  if (failed(verifyTensorSizes(op)))
    return failure();
  if (elementOf(source) != elementOf(target))
    return op->emitOpError() << "source holds " << elementOf(source)
                             << " but target holds " << elementOf(target);
  if (elements(source) * num != elements(target) * den)
    return op->emitOpError()
           << "target of " << elements(target) << " elements does not match "
           << "a source of " << elements(source) << " elements (expected "
           << elements(source) * num / den << ")";
  return success();
}

LogicalResult BufferAllReduceOp::verify() {
  if (failed(verifyGroups(*this, getGroups())) ||
      failed(verifyReduction(*this, getKind(), elementOf(getSource()))))
    return failure();
  return verifyScaled(*this, getSource(), getTarget(), 1, 1);
}

LogicalResult BufferReduceScatterOp::verify() {
  if (failed(verifyGroups(*this, getGroups())) ||
      failed(verifyReduction(*this, getKind(), elementOf(getSource()))))
    return failure();
  return verifyScaled(*this, getSource(), getTarget(), 1,
                      getGroups().getGroupSize());
}

LogicalResult BufferAllGatherOp::verify() {
  if (failed(verifyGroups(*this, getGroups())))
    return failure();
  return verifyScaled(*this, getSource(), getTarget(),
                      getGroups().getGroupSize(), 1);
}

LogicalResult BufferAllToAllOp::verify() {
  if (failed(verifyGroups(*this, getGroups())))
    return failure();
  if (elements(getSource()) % getGroups().getGroupSize() != 0)
    return emitOpError() << "source of " << elements(getSource())
                         << " elements does not split into groups of "
                         << getGroups().getGroupSize();
  return verifyScaled(*this, getSource(), getTarget(), 1, 1);
}

LogicalResult BufferBroadcastOp::verify() {
  if (failed(verifyGroups(*this, getGroups())) ||
      failed(verifyRoot(*this, getRoot(), getGroups())))
    return failure();
  return verifyScaled(*this, getSource(), getTarget(), 1, 1);
}

LogicalResult BufferReduceOp::verify() {
  if (failed(verifyGroups(*this, getGroups())) ||
      failed(verifyRoot(*this, getRoot(), getGroups())) ||
      failed(verifyReduction(*this, getKind(), elementOf(getSource()))))
    return failure();
  return verifyScaled(*this, getSource(), getTarget(), 1, 1);
}

LogicalResult BufferPermuteOp::verify() {
  if (failed(verifyPairs(*this, getPairs())))
    return failure();
  return verifyScaled(*this, getSource(), getTarget(), 1, 1);
}

LogicalResult BufferCopyOp::verify() {
  return verifyScaled(*this, getSource(), getTarget(), 1, 1);
}

LogicalResult BufferSendOp::verify() {
  if (getTag() < 0)
    return emitOpError() << "tag must be non-negative, got " << getTag();
  if (failed(verifyTensorSizes(*this)))
    return failure();
  return verifyPairs(*this, getPairs());
}

LogicalResult BufferRecvOp::verify() {
  if (getTag() < 0)
    return emitOpError() << "tag must be non-negative, got " << getTag();
  if (failed(verifyTensorSizes(*this)))
    return failure();
  return verifyPairs(*this, getPairs());
}

LogicalResult BufferPackOp::verify() {
  if (failed(verifyTensorSizes(*this)))
    return failure();
  return verifyBufferLayout(*this, getTarget().getType(),
                            getInputs().getTypes(), getOffsets(), "input");
}

LogicalResult BufferUnpackOp::verify() {
  if (failed(verifyTensorSizes(*this)))
    return failure();
  return verifyBufferLayout(*this, getSource().getType(),
                            getOutputs().getTypes(), getOffsets(), "output");
}

LogicalResult BufferComputeOp::verify() {
  if (getName().empty())
    return emitOpError() << "expects a non-empty name";
  return success();
}

LogicalResult BufferCombineOp::verify() {
  if (getLhs().getType() != getTarget().getType() ||
      getRhs().getType() != getTarget().getType())
    return emitOpError() << "operands and target must have the same type";
  return verifyReduction(*this, getKind(), elementOf(getTarget()));
}
