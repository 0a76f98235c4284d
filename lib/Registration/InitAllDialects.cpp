//===- InitAllDialects.cpp - the dialects comm programs use -----*- C++ -*-===//

#include "comm/InitAllDialects.h"
#include "comm/Dialect/Comm/IR/CommDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/AllocationOpInterfaceImpl.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

void mlir::comm::registerAllDialects(DialectRegistry &registry) {
  registry
      .insert<comm::CommDialect, arith::ArithDialect,
              bufferization::BufferizationDialect, emitc::EmitCDialect,
              func::FuncDialect, gpu::GPUDialect, memref::MemRefDialect,
              scf::SCFDialect, shard::ShardDialect, tensor::TensorDialect>();
  // buffer-results-to-out-params hoists allocations through this interface.
  memref::registerAllocationOpInterfaceExternalModels(registry);
}
