//===- CommDialect.cpp - comm dialect --------------------------*- C++ -*-===//

#include "comm/Dialect/Comm/IR/CommDialect.h"
#include "comm/Dialect/Comm/IR/CommAlgorithms.h"
#include "comm/Dialect/Comm/IR/CommOps.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace mlir::comm;

#include "comm/Dialect/Comm/CommDialect.cpp.inc"

void CommDialect::initialize() {
  registerAttributes();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "comm/Dialect/Comm/CommOps.cpp.inc"
      >();
}

LogicalResult CommDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  if (attr.getName() == getWorldSizeAttrName()) {
    auto size = dyn_cast<IntegerAttr>(attr.getValue());
    if (!size || !size.getType().isSignlessInteger() || size.getInt() < 1)
      return op->emitError()
             << "'" << getWorldSizeAttrName()
             << "' must be a positive integer, got " << attr.getValue();
    return success();
  }
  if (attr.getName() == getTopologyAttrName()) {
    auto spec = dyn_cast<StringAttr>(attr.getValue());
    if (!spec || spec.getValue().empty())
      return op->emitError()
             << "'" << getTopologyAttrName()
             << "' must be a non-empty string naming a preset or a file, got "
             << attr.getValue();
    return success();
  }
  if (attr.getName() == getCostParamsAttrName()) {
    auto path = dyn_cast<StringAttr>(attr.getValue());
    if (!path || path.getValue().empty())
      return op->emitError()
             << "'" << getCostParamsAttrName()
             << "' must be a non-empty string naming a cost model parameter "
                "file, got "
             << attr.getValue();
    return success();
  }
  if (attr.getName() == getTargetAttrName()) {
    auto target = dyn_cast<StringAttr>(attr.getValue());
    if (!target || target.getValue().empty() || !isa<ModuleOp>(op))
      return op->emitError() << "'" << getTargetAttrName()
                             << "' must be a non-empty string on a module, "
                                "got "
                             << attr.getValue();
    return success();
  }
  if (attr.getName() == getBackendAttrName()) {
    auto backend = dyn_cast<StringAttr>(attr.getValue());
    if (!backend || !symbolizeBackend(backend.getValue()) || !isa<ModuleOp>(op))
      return op->emitError() << "'" << getBackendAttrName()
                             << "' must be \"mpi\", \"nccl\" or \"verbs\" on "
                                "a module, got "
                             << attr.getValue();
    return success();
  }
  if (attr.getName() == getMaxRelErrorAttrName() ||
      attr.getName() == getErrorBoundAttrName()) {
    bool bound = attr.getName() == getErrorBoundAttrName();
    auto value = dyn_cast<FloatAttr>(attr.getValue());
    double v = value ? value.getValueAsDouble() : -1;
    if (!value || !(bound ? v >= 0 : v > 0) || !(v < 1))
      return op->emitError()
             << "'" << attr.getName().getValue() << "' must be a float in "
             << (bound ? "[0, 1)" : "(0, 1)") << ", got " << attr.getValue();
    if (bound && !getCollectiveKind(op))
      return op->emitError() << "'" << getErrorBoundAttrName()
                             << "' belongs on an op that moves data";
    return success();
  }
  if (attr.getName() == getSpaceAttrName()) {
    if (!isa<MemorySpaceAttr>(attr.getValue()))
      return op->emitError() << "'" << getSpaceAttrName()
                             << "' must be a memory space (hbm, host, "
                                "pinned_host), got "
                             << attr.getValue();
    if (!isa<RecvOp, PermuteOp>(op) &&
        (op->getNumResults() != 1 ||
         !isa<MemRefType>(op->getResult(0).getType())))
      return op->emitError() << "'" << getSpaceAttrName()
                             << "' belongs on an op that allocates one "
                                "buffer, or on a comm.recv or comm.permute "
                                "(the memory its result arrives in)";
    return success();
  }
  return op->emitError() << "unknown comm attribute '"
                         << attr.getName().getValue() << "' on "
                         << op->getName() << "; expected '"
                         << getWorldSizeAttrName() << "', '"
                         << getTopologyAttrName() << "', '"
                         << getCostParamsAttrName() << "', '"
                         << getBackendAttrName() << "', '"
                         << getTargetAttrName() << "', '"
                         << getMaxRelErrorAttrName() << "', '"
                         << getErrorBoundAttrName() << "' or '"
                         << getSpaceAttrName() << "'";
}
