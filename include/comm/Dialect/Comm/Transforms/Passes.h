//===- Passes.h - comm passes -----------------------------------*- C++ -*-===//

#ifndef COMM_DIALECT_COMM_TRANSFORMS_PASSES_H
#define COMM_DIALECT_COMM_TRANSFORMS_PASSES_H

#include "comm/Pipelines/CompileOptions.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace comm {

#define GEN_PASS_DECL
#include "comm/Dialect/Comm/CommPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "comm/Dialect/Comm/CommPasses.h.inc"

} // namespace comm
} // namespace mlir

#endif // COMM_DIALECT_COMM_TRANSFORMS_PASSES_H
