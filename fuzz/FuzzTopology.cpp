//===- FuzzTopology.cpp - libFuzzer target for topology files --*- C++ -*-===//
//
// One input is one topology file: NCCL's XML when it starts with '<', comm's
// YAML otherwise. An import that succeeds is finalized; its paths between
// every pair of ranks and its YAML export (re-imported) are computed too.
// Errors are expected; a crash, a sanitizer report or a hang is a finding.
//
//===----------------------------------------------------------------------===//

#include "comm/Topology/Topology.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::comm;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  StringRef text(reinterpret_cast<const char *>(data), size);
  bool xml = text.ltrim().starts_with("<");
  llvm::Expected<std::unique_ptr<Topology>> topology =
      xml ? importNcclTopologyXml(text, "fuzz.xml")
          : importTopologyYaml(text, "fuzz.yaml");
  if (!topology) {
    llvm::consumeError(topology.takeError());
    return 0;
  }
  // An NCCL graph file describes no hardware: nothing to walk or export.
  if ((*topology)->getNode().getNumDevices() == 0)
    return 0;
  uint64_t ranks = std::min<uint64_t>((*topology)->getNumGPUs(), 16);
  for (uint64_t a = 0; a < ranks; ++a)
    for (uint64_t b = 0; b < ranks; ++b)
      (void)(*topology)->getGPUPath(a, b);
  std::string exported;
  llvm::raw_string_ostream os(exported);
  exportTopologyYaml(**topology, os);
  llvm::Expected<std::unique_ptr<Topology>> again =
      importTopologyYaml(exported, "exported.yaml");
  if (!again) {
    // What comm writes it must read back.
    llvm::errs() << "export does not re-import: "
                 << llvm::toString(again.takeError()) << "\n";
    __builtin_trap();
  }
  return 0;
}
