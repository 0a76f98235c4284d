//===- CommToCpp.h - comm programs to C++ and CUDA --------------*- C++ -*-===//
//
// The back end of comm: prints a module lowered to EmitC as C++ or CUDA C++
// through MLIR's EmitC translator, and writes the harness that runs, checks
// and times the entry points.
//
//===----------------------------------------------------------------------===//

#ifndef COMM_TARGET_CPP_COMMTOCPP_H
#define COMM_TARGET_CPP_COMMTOCPP_H

#include "comm/Pipelines/CompileOptions.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/raw_ostream.h"
#include <string>
#include <vector>

namespace mlir {
namespace comm {

/// Prints `module`, lowered by convert-comm-to-emitc (the
/// comm-lower-to-emitc pipeline), as C++ or CUDA C++ for the target it
/// records in comm.target, through MLIR's EmitC translator. Lowering is the
/// pipelines' job: an op that is not EmitC is a located error.
LogicalResult translateCommToCpp(ModuleOp module, raw_ostream &os);

/// One C entry point of a compiled program: its buffers in C order (inputs,
/// then results as out-parameters).
struct EntryPoint {
  std::string name;
  std::vector<Type> inputs;
  std::vector<Type> results;
  /// Tolerances of its floating-point results (setEntryTolerances).
  double rtol = 1e-5, atol = 1e-6;
};

/// The public functions of `module` (before lowering), or an error on the
/// first one that cannot have a C entry point (`forHarness`: that the
/// harness cannot drive, i.e. one that takes scalars).
FailureOr<std::vector<EntryPoint>> collectEntryPoints(ModuleOp module,
                                                      bool forHarness);

struct HarnessOptions {
  Target target = Target::cpu_mpi;
  /// Prefix of the reference entry points (empty: no check).
  std::string referencePrefix;
  std::string programName;
  /// The module's comm.world_size: the harness refuses to run on another
  /// number of ranks (0: unknown, not checked).
  int64_t worldSize = 0;
};

/// Writes the C++ of a main() that fills deterministic inputs on every
/// rank, runs each entry point, compares it with its reference and prints
/// timings.
void emitHarness(ArrayRef<EntryPoint> entries, const HarnessOptions &options,
                 raw_ostream &os);

/// Renames the public functions of `module` to `prefix + name` (and private
/// ones to keep them distinct), and drops every #comm.plan: the reference a
/// planned program is checked against.
void makeReference(ModuleOp module, StringRef prefix);

/// Sets each entry point's tolerances (rtol, atol) for checking its
/// results, from what it and the functions it calls do: the smallest
/// precision any #comm.plan there sends floating-point data in (or any
/// reduction of 16-bit floats sums in: another algorithm rounds in another
/// order), and the largest comm.error_bound comm-reduce-precision recorded
/// there; 1e-5 and 1e-6 where nothing is narrower than f32.
void setEntryTolerances(ModuleOp module, MutableArrayRef<EntryPoint> entries);

/// The translation's name: --comm-to-cpp.
inline constexpr llvm::StringLiteral kCommToCppTranslation = "comm-to-cpp";

/// Registers --comm-to-cpp with mlir-translate's registry.
void registerCommTranslations();

} // namespace comm
} // namespace mlir

#endif // COMM_TARGET_CPP_COMMTOCPP_H
