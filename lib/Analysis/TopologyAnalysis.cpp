//===- TopologyAnalysis.cpp - the topology a program targets ---*- C++ -*-===//

#include "comm/Analysis/TopologyAnalysis.h"
#include "comm/Analysis/CollectiveCost.h"
#include "comm/Dialect/Comm/IR/CommDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <mutex>

using namespace mlir;
using namespace mlir::comm;

/// A file a module attribute names by a relative path is looked for next
/// to the module's own file first, as an #include is, then where the tool
/// runs (the only place it was looked for: a module that named its topology
/// file beside it worked only when run from its directory).
static std::string resolveNextToModule(Operation *holder, StringRef path) {
  if (path.empty() || llvm::sys::path::is_absolute(path))
    return path.str();
  auto file = dyn_cast<FileLineColLoc>(holder->getLoc());
  if (!file)
    return path.str();
  StringRef directory = llvm::sys::path::parent_path(file.getFilename());
  if (directory.empty())
    return path.str();
  SmallString<256> beside(directory);
  llvm::sys::path::append(beside, path);
  return llvm::sys::fs::exists(beside) ? beside.str().str() : path.str();
}

std::string mlir::comm::getTopologySpec(Operation *op, StringRef overrideSpec) {
  if (!overrideSpec.empty())
    return overrideSpec.str();
  for (Operation *parent = op; parent; parent = parent->getParentOp())
    if (auto spec = parent->getAttrOfType<StringAttr>(kTopologyAttrName))
      return resolveNextToModule(parent, spec.getValue());
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
      path = resolveNextToModule(parent, attr.getValue());
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
