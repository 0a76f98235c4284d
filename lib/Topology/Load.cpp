//===- Load.cpp - find a topology by name or file ---------------*- C++ -*-===//

#include "comm/Support/InputChecks.h"
#include "comm/Topology/Topology.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::comm;

static llvm::Expected<std::unique_ptr<Topology>> loadOne(StringRef spec);

llvm::Expected<std::unique_ptr<Topology>>
mlir::comm::loadTopology(StringRef spec) {
  // "<file>:<N>": N machines of the file's machine.
  size_t colon = spec.rfind(':');
  uint64_t count;
  if (colon != StringRef::npos &&
      !spec.substr(colon + 1).getAsInteger(10, count) &&
      llvm::sys::fs::exists(spec.substr(0, colon))) {
    if (count == 0 || count > static_cast<uint64_t>(kNodesRange.max))
      return makeTopologyError(spec, 0,
                               "a cluster needs between 1 and " +
                                   Twine(kNodesRange.max) + " nodes");
    auto topology = loadOne(spec.substr(0, colon));
    if (!topology)
      return topology.takeError();
    (*topology)->setNumNodes(count);
    if ((*topology)->getFabric().kind == FabricKind::None) {
      Fabric fabric;
      fabric.kind = FabricKind::RailOptimized;
      SmallVector<unsigned> nics =
          (*topology)->getNode().getDevicesOfKind(DeviceKind::NIC);
      if (!nics.empty())
        fabric.network = (*topology)->getNode().getDevice(nics.front()).network;
      (*topology)->setFabric(fabric);
    }
    (*topology)->setName(((*topology)->getName() + "x" + Twine(count)).str());
    if (llvm::Error error = (*topology)->finalize())
      return std::move(error);
    return topology;
  }
  return loadOne(spec);
}

static llvm::Expected<std::unique_ptr<Topology>> loadOne(StringRef spec) {
  // Extensions are matched ignoring case: a file saved as TOPO.XML or
  // machine.YAML is read like topo.xml and machine.yaml.
  std::string extension = llvm::sys::path::extension(spec).lower();
  bool looksLikeFile =
      !extension.empty() || spec.contains('/') || llvm::sys::fs::exists(spec);
  if (!looksLikeFile)
    return buildTopologyPreset(spec);

  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(spec, /*IsText=*/true);
  if (!file)
    return makeTopologyError(
        spec, 0, "cannot read the topology file: " + file.getError().message());
  StringRef text = (*file)->getBuffer();
  if (text.contains('\0'))
    return makeTopologyError(spec, 0,
                             "NUL byte in a text file; the file is binary or "
                             "corrupted");
  StringRef head = text.ltrim();
  if (head.empty())
    return makeTopologyError(spec, 0,
                             "the topology file is empty; expected NCCL's "
                             "topology XML or comm's YAML");
  // The extension decides; a file without one (a pipe, a mktemp name) is
  // XML when it starts with '<'.
  if (extension == ".xml" || (extension.empty() && head.starts_with("<")))
    return importNcclTopologyXml(text, spec);
  if (extension == ".yaml" || extension == ".yml" || extension.empty())
    return importTopologyYaml(text, spec);
  return makeTopologyError(spec, 0,
                           "unknown topology file type '" + extension +
                               "'; expected .xml (NCCL) or .yaml (comm)");
}
