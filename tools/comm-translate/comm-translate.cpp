//===- comm-translate.cpp - comm programs to C++ and CUDA ------*- C++ -*-===//
//
// mlir-translate for comm: --comm-to-cpp prints a comm program lowered to
// EmitC (comm-opt --comm-lower-to-emitc) as the C++, or for a cuda target
// the CUDA C++, that calls the commrt runtime; --mlir-to-cpp is MLIR's own
// EmitC translator.
//
//===----------------------------------------------------------------------===//

#include "comm/InitAllPasses.h"
#include "comm/Support/InputChecks.h"
#include "comm/Support/Version.h"
#include "comm/Target/Cpp/CommToCpp.h"
#include "mlir/Target/Cpp/CppEmitter.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdlib>

namespace mlir {
void registerToCppTranslation();
} // namespace mlir

/// The translations this tool registers (--comm-to-cpp here, upstream's
/// --mlir-to-cpp): without one, --comm-to-cpp is what comm-translate is for
/// (MLIR's driver said "must be specified at least once!", twice).
static bool namesTranslation(llvm::ArrayRef<char *> arguments) {
  return llvm::any_of(arguments.drop_front(), [](const char *argument) {
    llvm::StringRef name =
        llvm::StringRef(argument).ltrim('-').split('=').first;
    return name == mlir::comm::kCommToCppTranslation || name == "mlir-to-cpp";
  });
}

int main(int argc, char **argv) {
  llvm::SmallVector<char *> arguments =
      mlir::comm::getArgumentsWithoutOpDumps(argc, argv);
  // The list ends with a null pointer, as argv does.
  static std::string defaultTranslation =
      ("--" + mlir::comm::kCommToCppTranslation).str();
  if (!namesTranslation(llvm::ArrayRef(arguments).drop_back()))
    arguments.insert(arguments.begin() + 1, defaultTranslation.data());
  argc = static_cast<int>(arguments.size()) - 1;
  argv = arguments.data();
  // MLIR's translate driver keeps its output file without checking the
  // write: a full disk or a closed pipe then ends in LLVM's fatal "IO
  // failure on output stream". Say it as an error of the run instead.
  llvm::install_fatal_error_handler(
      [](void *, const char *reason, bool) {
        llvm::errs() << "comm-translate: error: "
                     << (llvm::StringRef(reason).starts_with("IO failure")
                             ? "cannot write the output: "
                             : "")
                     << reason << "\n";
        llvm::errs().flush();
        std::_Exit(1);
      },
      nullptr);
  mlir::comm::registerAllPasses();
  mlir::comm::registerCommVersionPrinter();
  mlir::comm::registerCommTranslations();
  mlir::registerToCppTranslation();
  return mlir::failed(mlir::mlirTranslateMain(
      argc, argv,
      "comm-translate: print comm programs lowered to EmitC (comm-opt "
      "--comm-lower-to-emitc=target=...) as C++ or CUDA C++ (--comm-to-cpp; "
      "the module's comm.target decides; the default) or --mlir-to-cpp "
      "(MLIR's plain EmitC translator)\n"));
}
