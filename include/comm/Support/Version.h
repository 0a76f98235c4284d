//===- Version.h - comm's version, for --version ----------------*- C++ -*-===//

#ifndef COMM_SUPPORT_VERSION_H
#define COMM_SUPPORT_VERSION_H

#include "llvm/ADT/StringRef.h"

namespace mlir {
namespace comm {

/// "comm 0.1.0 (git 1a2b3c4)": the project version and the commit the
/// build was configured from ("unknown" outside a git checkout).
llvm::StringRef getCommVersion();

/// Makes --version print comm's version after LLVM's. Call before the
/// command line is parsed.
void registerCommVersionPrinter();

} // namespace comm
} // namespace mlir

#endif // COMM_SUPPORT_VERSION_H
