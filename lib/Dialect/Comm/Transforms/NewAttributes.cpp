//===- NewAttributes.cpp - verify the ops a pass retagged -------*- C++ -*-===//

#include "comm/Dialect/Comm/Transforms/Passes.h"
#include "mlir/IR/Verifier.h"

using namespace mlir;

LogicalResult
mlir::comm::verifyOpsWithNewAttributes(ArrayRef<Operation *> ops) {
  for (Operation *op : ops)
    if (failed(verify(op, /*verifyRecursively=*/false)))
      return failure();
  return success();
}
