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

static ShapedType shapeOf(Value value) {
  return cast<ShapedType>(value.getType());
}

LogicalResult BufferAllReduceOp::verify() {
  if (failed(verifyGroups(*this, getGroups())) ||
      failed(verifyReduction(*this, getKind(), elementOf(getSource()))) ||
      failed(verifyTransfer(*this, getPlanAttr(), elementOf(getSource()))))
    return failure();
  return verifyScaled(*this, getSource(), getTarget(), 1, 1);
}

LogicalResult BufferReduceScatterOp::verify() {
  if (failed(verifyGroups(*this, getGroups())) ||
      failed(verifyReduction(*this, getKind(), elementOf(getSource()))) ||
      failed(verifyTransfer(*this, getPlanAttr(), elementOf(getSource()))) ||
      failed(verifyDim(*this, "dim", getDim(), shapeOf(getSource()))) ||
      failed(verifyScaled(*this, getSource(), getTarget(), 1,
                          getGroups().getGroupSize())))
    return failure();
  return verifyScaledShape(*this, shapeOf(getSource()), shapeOf(getTarget()),
                           getDim(), getGroups().getGroupSize(),
                           /*multiply=*/false);
}

LogicalResult BufferAllGatherOp::verify() {
  if (failed(verifyGroups(*this, getGroups())) ||
      failed(verifyTransfer(*this, getPlanAttr(), elementOf(getSource()))) ||
      failed(verifyDim(*this, "dim", getDim(), shapeOf(getSource()))) ||
      failed(verifyScaled(*this, getSource(), getTarget(),
                          getGroups().getGroupSize(), 1)))
    return failure();
  return verifyScaledShape(*this, shapeOf(getSource()), shapeOf(getTarget()),
                           getDim(), getGroups().getGroupSize(),
                           /*multiply=*/true);
}

LogicalResult BufferAllToAllOp::verify() {
  if (failed(verifyGroups(*this, getGroups())) ||
      failed(verifyTransfer(*this, getPlanAttr(), elementOf(getSource()))) ||
      failed(
          verifyDim(*this, "split_dim", getSplitDim(), shapeOf(getSource()))) ||
      failed(verifyDim(*this, "concat_dim", getConcatDim(),
                       shapeOf(getSource()))) ||
      failed(verifyScaled(*this, getSource(), getTarget(), 1, 1)))
    return failure();
  int64_t groupSize = getGroups().getGroupSize();
  SmallVector<int64_t> expected(shapeOf(getSource()).getShape());
  if (expected[getSplitDim()] % groupSize != 0)
    return emitOpError() << "dimension " << getSplitDim() << " of size "
                         << expected[getSplitDim()]
                         << " does not split into groups of " << groupSize;
  expected[getSplitDim()] /= groupSize;
  expected[getConcatDim()] *= groupSize;
  if (shapeOf(getTarget()).getShape() != ArrayRef<int64_t>(expected))
    return emitOpError() << "expected target type "
                         << shapeOf(getSource()).clone(expected)
                         << " for groups of " << groupSize << ", got "
                         << getTarget().getType();
  return success();
}

LogicalResult BufferBroadcastOp::verify() {
  if (failed(verifyGroups(*this, getGroups())) ||
      failed(verifyTransfer(*this, getPlanAttr(), elementOf(getSource()))) ||
      failed(verifyRoot(*this, getRoot(), getGroups())))
    return failure();
  return verifyScaled(*this, getSource(), getTarget(), 1, 1);
}

LogicalResult BufferReduceOp::verify() {
  if (failed(verifyGroups(*this, getGroups())) ||
      failed(verifyTransfer(*this, getPlanAttr(), elementOf(getSource()))) ||
      failed(verifyRoot(*this, getRoot(), getGroups())) ||
      failed(verifyReduction(*this, getKind(), elementOf(getSource()))))
    return failure();
  return verifyScaled(*this, getSource(), getTarget(), 1, 1);
}

LogicalResult BufferPermuteOp::verify() {
  if (failed(verifyPairs(*this, getPairs())) ||
      failed(verifyTransfer(*this, getPlanAttr(), elementOf(getSource()))))
    return failure();
  return verifyScaled(*this, getSource(), getTarget(), 1, 1);
}

LogicalResult BufferCopyOp::verify() {
  if (failed(verifyTransfer(*this, getPlanAttr(), elementOf(getSource()))))
    return failure();
  return verifyScaled(*this, getSource(), getTarget(), 1, 1);
}

LogicalResult BufferSendOp::verify() {
  // I64Attr reads back unsigned: look at the signed value.
  if (getTagAttr().getInt() < 0)
    return emitOpError() << "tag must be non-negative, got "
                         << getTagAttr().getInt();
  if (failed(verifyTransfer(*this, getPlanAttr(), elementOf(getSource()))))
    return failure();
  return verifyPairs(*this, getPairs());
}

LogicalResult BufferRecvOp::verify() {
  // I64Attr reads back unsigned: look at the signed value.
  if (getTagAttr().getInt() < 0)
    return emitOpError() << "tag must be non-negative, got "
                         << getTagAttr().getInt();
  if (failed(verifyTransfer(*this, getPlanAttr(), elementOf(getTarget()))))
    return failure();
  return verifyPairs(*this, getPairs());
}

LogicalResult BufferPackOp::verify() {
  if (failed(verifyTensorSizes(*this)))
    return failure();
  return verifyBufferLayout(*this, getTarget().getType(),
                            getInputs().getTypes(), getOffsets(), "input",
                            getNumBlocks());
}

LogicalResult BufferUnpackOp::verify() {
  if (failed(verifyTensorSizes(*this)))
    return failure();
  return verifyBufferLayout(*this, getSource().getType(),
                            getOutputs().getTypes(), getOffsets(), "output",
                            getNumBlocks());
}

LogicalResult BufferRotateOp::verify() {
  if (getSource() == getTarget())
    return emitOpError() << "needs a target other than its source";
  return verifyRotation(*this, shapeOf(getSource()), getGroups());
}

LogicalResult BufferScaleOp::verify() {
  if (!isa<FloatType>(elementOf(getSource())))
    return emitOpError() << "scales floating-point buffers only, not "
                         << getSource().getType();
  return verifyTensorSizes(*this);
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
