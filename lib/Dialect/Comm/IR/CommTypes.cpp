//===- CommTypes.cpp - comm types ------------------------------*- C++ -*-===//

#include "comm/Dialect/Comm/IR/CommTypes.h"
#include "comm/Dialect/Comm/IR/CommDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::comm;

#define GET_TYPEDEF_CLASSES
#include "comm/Dialect/Comm/CommTypes.cpp.inc"

void CommDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "comm/Dialect/Comm/CommTypes.cpp.inc"
      >();
}
