//===- TopologyLoad.cpp - find a topology by name or file ------*- C++ -*-===//

#include "comm/Analysis/Topology.h"
#include "comm/Support/InputChecks.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::comm;

llvm::Expected<std::unique_ptr<Topology>>
mlir::comm::loadTopology(StringRef spec) {
  StringRef extension = llvm::sys::path::extension(spec);
  bool looksLikeFile = !extension.empty() || spec.contains('/') ||
                       llvm::sys::fs::exists(spec);
  if (!looksLikeFile)
    return buildTopologyPreset(spec);

  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(spec, /*IsText=*/true);
  if (!file)
    return makeTopologyError(spec, 0,
                             "cannot read the topology file: " +
                                 file.getError().message());
  StringRef text = (*file)->getBuffer();
  if (text.contains('\0'))
    return makeTopologyError(spec, 0,
                             "NUL byte in a text file; the file is binary or "
                             "corrupted");
  StringRef head = text.ltrim();
  if (extension == ".xml" || head.starts_with("<"))
    return importNcclTopologyXml(text, spec);
  if (extension == ".yaml" || extension == ".yml" || extension.empty())
    return importTopologyYaml(text, spec);
  return makeTopologyError(spec, 0,
                           "unknown topology file type '" + extension +
                               "'; expected .xml (NCCL) or .yaml (comm)");
}
