//===- InitAllDialects.cpp - the dialects comm programs use -----*- C++ -*-===//

#include "comm/InitAllDialects.h"
#include "comm/Dialect/Comm/IR/CommDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/ShardingInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/Func/Extensions/ShardingExtensions.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/ShardingInterfaceImpl.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/AllocationOpInterfaceImpl.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Tensor/IR/ShardingInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

void mlir::comm::registerAllDialects(DialectRegistry &registry) {
  registry.insert<comm::CommDialect, arith::ArithDialect,
                  bufferization::BufferizationDialect, emitc::EmitCDialect,
                  func::FuncDialect, gpu::GPUDialect, linalg::LinalgDialect,
                  math::MathDialect, memref::MemRefDialect, scf::SCFDialect,
                  shard::ShardDialect, tensor::TensorDialect>();
  // buffer-results-to-out-params hoists allocations through this interface.
  memref::registerAllocationOpInterfaceExternalModels(registry);
  // sharding-propagation and shard-partition read these (the frontend for
  // shard programs runs them before convert-shard-to-comm).
  arith::registerShardingInterfaceExternalModels(registry);
  func::registerShardingInterfaceExternalModels(registry);
  linalg::registerShardingInterfaceExternalModels(registry);
  tensor::registerShardingInterfaceExternalModels(registry);
}
