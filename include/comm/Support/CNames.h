//===- CNames.h - names the generated C code can take -----------*- C++ -*-===//
//
// comm-compile turns every function into C: comm_impl_<name>, and for a
// public one also an `extern "C"` entry point under its own name. Which
// names it rejects is decided here, once, for the lowering that rejects
// them and for the importers that choose an entry's name.
//
//===----------------------------------------------------------------------===//

#ifndef COMM_SUPPORT_CNAMES_H
#define COMM_SUPPORT_CNAMES_H

#include "mlir/Support/LLVM.h"
#include <string>

namespace mlir {
namespace comm {

/// Why `name` cannot name a C function of the generated code, or "". Every
/// function with a body becomes one (comm_impl_<name>); a public one
/// (`entryPoint`) is also an `extern "C"` entry point under its own name,
/// which must not be a C or C++ keyword, `main` (a harness's, or any
/// program's), a prefix the runtime and the generated code use, a reserved
/// identifier, or a common C library function (the generated code includes
/// the C library's headers, and a program that defines `exit` replaces
/// libc's). The reason completes "its name ...".
std::string whyNotCName(StringRef name, bool entryPoint);

} // namespace comm
} // namespace mlir

#endif // COMM_SUPPORT_CNAMES_H
