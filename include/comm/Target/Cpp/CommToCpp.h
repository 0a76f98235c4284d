//===- CommToCpp.h - comm programs to C++ and CUDA --------------*- C++ -*-===//
//
// The back end of comm: lowers a module (comm on tensors, on buffers, or
// already EmitC) to EmitC and prints it as C++ (cpu target) or CUDA C++
// (cuda target) through MLIR's EmitC translator; and writes the harness that
// runs, checks and times the entry points.
//
//===----------------------------------------------------------------------===//

#ifndef COMM_TARGET_CPP_COMMTOCPP_H
#define COMM_TARGET_CPP_COMMTOCPP_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/raw_ostream.h"
#include <string>
#include <vector>

namespace mlir {
namespace comm {

enum class CodeTarget { Cpu, Cuda };

/// Lowers `module` in place (whatever of comm-bufferize,
/// buffer-results-to-out-params and convert-comm-to-emitc it still needs)
/// and prints it for the runtime `backend` ("mpi", "nccl", "verbs"; empty:
/// the target's default). Errors are reported on the module's context.
LogicalResult translateCommToCpp(ModuleOp module, raw_ostream &os,
                                 CodeTarget target, StringRef backend = "");

/// One C entry point of a compiled program: its buffers in C order (inputs,
/// then results as out-parameters).
struct EntryPoint {
  std::string name;
  std::vector<Type> inputs;
  std::vector<Type> results;
};

/// The public functions of `module` (before lowering), or an error on the
/// first one that cannot have a C entry point (`forHarness`: that the
/// harness cannot drive, i.e. one that takes scalars).
FailureOr<std::vector<EntryPoint>> collectEntryPoints(ModuleOp module,
                                                      bool forHarness);

struct HarnessOptions {
  CodeTarget target = CodeTarget::Cpu;
  /// Prefix of the reference entry points (empty: no check).
  std::string referencePrefix;
  /// Default tolerances of floating-point results, from the precisions the
  /// program sends in.
  double rtol = 1e-5, atol = 1e-6;
  std::string programName;
  /// The --target of comm-compile, and the commrt_backend enumerator the
  /// harness asks the runtime for.
  std::string targetName = "cpu-mpi";
  std::string backend = "COMMRT_BACKEND_MPI";
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

/// The smallest precision any #comm.plan of `module` sends floating-point
/// data in, as tolerances (rtol, atol) for checking its results.
std::pair<double, double> defaultTolerances(ModuleOp module);

/// Registers --comm-to-cpp and --comm-to-cuda with mlir-translate's
/// registry.
void registerCommTranslations();

} // namespace comm
} // namespace mlir

#endif // COMM_TARGET_CPP_COMMTOCPP_H
