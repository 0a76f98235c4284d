//===- InitAllPasses.cpp - register comm's passes and pipelines -*- C++ -*-===//

#include "comm/InitAllPasses.h"
#include "comm/Conversion/Passes.h"
#include "comm/Dialect/Comm/Transforms/Passes.h"
#include "comm/Pipelines/Pipelines.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Transforms/Passes.h"

void mlir::comm::registerAllPasses() {
  mlir::registerTransformsPasses();
  mlir::bufferization::registerBufferResultsToOutParamsPass();
  comm::registerCommPasses();
  comm::registerCommConversionPasses();
  comm::registerPipelines();
}
