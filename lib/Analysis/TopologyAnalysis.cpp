//===- TopologyAnalysis.cpp - the topology a program targets ---*- C++ -*-===//

#include "comm/Analysis/TopologyAnalysis.h"
#include "comm/Analysis/CollectiveCost.h"
#include "comm/Dialect/Comm/IR/CommDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"

#include <mutex>

using namespace mlir;
using namespace mlir::comm;

std::string mlir::comm::getTopologySpec(Operation *op, StringRef overrideSpec) {
  if (!overrideSpec.empty())
    return overrideSpec.str();
  for (Operation *parent = op; parent; parent = parent->getParentOp())
    if (auto spec = parent->getAttrOfType<StringAttr>(kTopologyAttrName))
      return spec.getValue().str();
  return {};
}

llvm::Expected<std::shared_ptr<const Topology>>
mlir::comm::loadCachedTopology(StringRef spec) {
  static std::mutex mutex;
  static llvm::StringMap<std::shared_ptr<const Topology>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(spec);
  if (it != cache.end())
    return it->second;
  llvm::Expected<std::unique_ptr<Topology>> loaded = loadTopology(spec);
  if (!loaded)
    return loaded.takeError();
  std::shared_ptr<const Topology> shared(std::move(*loaded));
  cache[spec] = shared;
  return shared;
}

FailureOr<CostParams> mlir::comm::getCostParamsFor(Operation *op,
                                                   StringRef overridePath) {
  std::string path = overridePath.str();
  for (Operation *parent = op; parent && path.empty();
       parent = parent->getParentOp())
    if (auto attr = parent->getAttrOfType<StringAttr>(
            CommDialect::getCostParamsAttrName()))
      path = attr.getValue().str();
  if (path.empty())
    return getDefaultCostParams();
  static std::mutex mutex;
  static llvm::StringMap<CostParams> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(path);
  if (it != cache.end())
    return it->second;
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return emitError(op->getLoc())
           << "cannot read cost model parameters '" << path
           << "': " << buffer.getError().message();
  llvm::Expected<CostParams> params =
      parseCostParams((*buffer)->getBuffer(), path);
  if (!params)
    return emitError(op->getLoc())
           << "cannot use cost model parameters '" << path
           << "': " << llvm::toString(params.takeError());
  cache[path] = *params;
  return *params;
}

FailureOr<std::shared_ptr<const Topology>>
mlir::comm::getTopologyFor(Operation *op, StringRef overrideSpec,
                           StringRef overrideHint) {
  std::string spec = getTopologySpec(op, overrideSpec);
  if (spec.empty())
    return emitError(op->getLoc())
           << "no topology: add a '" << kTopologyAttrName
           << "' module attribute (a preset such as \"dgx-h100\", a cluster "
              "\"dgx-h100x4\", or a .xml/.yaml file) or pass "
           << overrideHint;
  llvm::Expected<std::shared_ptr<const Topology>> topology =
      loadCachedTopology(spec);
  if (!topology)
    return emitError(op->getLoc())
           << "cannot load topology '" << spec
           << "': " << llvm::toString(topology.takeError());
  if ((*topology)->getNode().getNumDevices() == 0)
    return emitError(op->getLoc())
           << "topology '" << spec
           << "' describes no hardware (an NCCL graph file?)";
  // A program with more ranks than the hardware cannot be planned for it:
  // every pass that reads a topology refuses it, as comm-check-topology
  // does (a plan for 4 ranks made on host1 would be a silent wrong answer).
  if (failed(getProgramRanks(op, **topology, spec)))
    return failure();
  return *topology;
}

FailureOr<std::shared_ptr<const Topology>> TopologyAnalysis::getTopology() {
  if (topology)
    return topology;
  FailureOr<std::shared_ptr<const Topology>> result = getTopologyFor(op);
  if (succeeded(result))
    topology = *result;
  return result;
}
