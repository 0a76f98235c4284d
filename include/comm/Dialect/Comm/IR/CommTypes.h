//===- CommTypes.h - comm types ---------------------------------*- C++ -*-===//

#ifndef COMM_DIALECT_COMM_IR_COMMTYPES_H
#define COMM_DIALECT_COMM_IR_COMMTYPES_H

#include "mlir/IR/Types.h"

#define GET_TYPEDEF_CLASSES
#include "comm/Dialect/Comm/CommTypes.h.inc"

#endif // COMM_DIALECT_COMM_IR_COMMTYPES_H
