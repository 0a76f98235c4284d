//===- InitAllDialects.h - register comm and its companions -----*- C++ -*-===//

#ifndef COMM_INITALLDIALECTS_H
#define COMM_INITALLDIALECTS_H

#include "mlir/IR/DialectRegistry.h"

namespace mlir {
namespace comm {

/// Registers the comm dialect and the upstream dialects comm programs are
/// written with: func, arith, tensor, memref, scf, shard, emitc, gpu,
/// bufferization.
void registerAllDialects(DialectRegistry &registry);

} // namespace comm
} // namespace mlir

#endif // COMM_INITALLDIALECTS_H
