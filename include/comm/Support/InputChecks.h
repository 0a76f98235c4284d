//===- InputChecks.h - guards run on input before parsing -------*- C++ -*-===//
//
// MLIR's parsers recurse once per nesting level, so an input nested a few
// thousand levels deep exhausts the stack; and MLIR's lexer skips NUL bytes,
// so a text file corrupted by a run of NULs parses as if nothing were wrong.
// The tools check every text input first and reject both with a located
// error instead.
//
//===----------------------------------------------------------------------===//

#ifndef COMM_SUPPORT_INPUTCHECKS_H
#define COMM_SUPPORT_INPUTCHECKS_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

namespace mlir {
namespace comm {

/// Deepest bracket nesting the tools accept. Real programs stay far below.
constexpr unsigned kMaxInputNesting = 512;

/// Checks that an MLIR text buffer holds no NUL byte and that its brackets
/// `( [ { <` nest at most `maxDepth` levels (string literals and `//`
/// comments are skipped). On failure prints `file:line:col: error: ...` to
/// `sourceMgr`'s diagnostic stream and returns failure. Binary (bytecode)
/// buffers are not checked.
LogicalResult checkInputText(llvm::SourceMgr &sourceMgr, unsigned bufferId,
                                unsigned maxDepth = kMaxInputNesting);

/// Same, for a buffer not yet in a source manager.
LogicalResult checkInputText(const llvm::MemoryBuffer &buffer,
                                unsigned maxDepth = kMaxInputNesting);

/// Verifies the invariants of every op nested in `root`, each alone and
/// parents first, without the symbol checks of a whole-module verification:
/// for input parsed without verification (the StableHLO importer's), whose
/// calls may not resolve yet, but whose functions must have their types
/// before anything (MLIR's own call verifier included) reads them.
LogicalResult verifyEachOpAlone(Operation *root);

/// Reports at `module`'s location that it has no function to run (`what`
/// says which). The module MLIR's parser makes around a file's top-level
/// ops is at the file's line 0, column 0; the report names the file's
/// first line instead, and says so when the file holds no op at all (an
/// empty file, or one of comments only).
InFlightDiagnostic emitNoEntryError(Operation *module, const Twine &what);

} // namespace comm
} // namespace mlir

#endif // COMM_SUPPORT_INPUTCHECKS_H
