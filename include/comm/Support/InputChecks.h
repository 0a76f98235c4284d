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
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

namespace mlir {
namespace comm {

/// Deepest bracket nesting the tools accept. Real programs stay far below.
constexpr unsigned kMaxInputNesting = 512;

/// Most steps one rank's program may unroll to (loops unrolled, calls
/// followed): the transfers comm-verify-schedule (and so comm-plan and
/// comm-compile) accepts and the steps comm-sim simulates. At 2,000,000 a
/// valid program simulated for 75 s and took 1 GB before its last step;
/// 1,000,000 take about 45 s here.
constexpr size_t kMaxUnrolledSteps = 1'000'000;

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

/// Checks a YAML text the way checkInputText checks MLIR: LLVM's YAML
/// reader recurses once per flow bracket (`[`, `{`) and per block level, so
/// `devices: [[[[...` 30,000 deep overflowed the stack. Refuses flow
/// brackets nested deeper than `maxDepth` and lines indented past 8 columns
/// per level, as "file:line:col: error: ...". Quoted scalars and comments
/// are skipped.
llvm::Error checkYamlNesting(StringRef text, StringRef fileName,
                             unsigned maxDepth = kMaxInputNesting);

/// Verifies the invariants of every op nested in `root`, each alone and
/// parents first, without the symbol checks of a whole-module verification:
/// for input parsed without verification (the StableHLO importer's), whose
/// calls may not resolve yet, but whose functions must have their types
/// before anything (MLIR's own call verifier included) reads them.
LogicalResult verifyEachOpAlone(Operation *root);

/// MLIR's parser wraps a file's top-level ops in a module at the file's
/// line 0, column 0, which a diagnostic prints as `file:0:0` with no source
/// line. Moves such a module to the file's first line (column 1), marked as
/// implicit; an explicit `module { ... }` keeps its location. Idempotent.
void locateImplicitModule(Operation *module);
/// Whether `module` is the parser's implicit module (before or after
/// locateImplicitModule).
bool isImplicitModule(Operation *module);
/// A pass instrumentation that calls locateImplicitModule on the root op
/// before the first pass runs, so that every pass's module-level
/// diagnostic names a line (comm-opt installs it).
std::unique_ptr<PassInstrumentation>
createLocateImplicitModuleInstrumentation();

/// Reports at `module`'s location that it has no function to run (`what`
/// says which); for an implicit module at the file's first line, saying so
/// when the file holds no op at all (an empty file, or one of comments
/// only), and saying so when the module is already lowered to EmitC.
InFlightDiagnostic emitNoEntryError(Operation *module, const Twine &what);

/// The command line `argv` with `--mlir-print-op-on-diagnostic=false` added
/// unless it names that option: the tools' diagnostics name a location and
/// the source line, and MLIR's default note that prints the op in generic
/// form (for a module's error the whole module) buried them. The strings
/// are `argv`'s and the added literal; the vector ends with a null.
SmallVector<char *> getArgumentsWithoutOpDumps(int argc, char **argv);

/// MLIR reads a pass's option string (`topology=a explain topology=b`) and
/// keeps the last value of a key given twice without a word, so a pipeline
/// meant for one machine silently plans for another. Checks every
/// `--<pass or pipeline>=<options>` argument and every `{...}` option list
/// of `--pass-pipeline=`: a key given twice is an error naming the pass or
/// pipeline, the key and both values, printed as `<tool>: error: ...`.
LogicalResult checkRepeatedPassOptions(ArrayRef<char *> arguments,
                                       StringRef tool);
} // namespace comm
} // namespace mlir

#endif // COMM_SUPPORT_INPUTCHECKS_H
