//===- CommInterfaces.h - comm op interfaces --------------------*- C++ -*-===//

#ifndef COMM_DIALECT_COMM_IR_COMMINTERFACES_H
#define COMM_DIALECT_COMM_IR_COMMINTERFACES_H

#include "comm/Dialect/Comm/IR/CommAttrs.h"
#include "mlir/IR/OpDefinition.h"

#include "comm/Dialect/Comm/CommOpInterfaces.h.inc"

#endif // COMM_DIALECT_COMM_IR_COMMINTERFACES_H
