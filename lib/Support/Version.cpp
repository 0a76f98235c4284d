//===- Version.cpp - comm's version, for --version --------------*- C++ -*-===//

#include "comm/Support/Version.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

llvm::StringRef mlir::comm::getCommVersion() {
  return "comm " COMM_VERSION " (git " COMM_GIT_REVISION ")";
}

void mlir::comm::registerCommVersionPrinter() {
  llvm::cl::AddExtraVersionPrinter(
      [](llvm::raw_ostream &os) { os << getCommVersion() << "\n"; });
}
