//===- CommDialect.h - comm dialect -----------------------------*- C++ -*-===//

#ifndef COMM_DIALECT_COMM_IR_COMMDIALECT_H
#define COMM_DIALECT_COMM_IR_COMMDIALECT_H

#include "mlir/IR/Dialect.h"

#include "comm/Dialect/Comm/CommDialect.h.inc"

#endif // COMM_DIALECT_COMM_IR_COMMDIALECT_H
