//===- comm-opt.cpp - comm optimizer driver --------------------*- C++ -*-===//
//
// mlir-opt for comm: parses IR, runs passes and pipelines, prints the result.
//
//===----------------------------------------------------------------------===//

#include "comm/InitAllDialects.h"
#include "comm/InitAllPasses.h"
#include "comm/Support/InputChecks.h"
#include "comm/Support/OutputFile.h"
#include "comm/Support/Version.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace mlir::comm::test {
void registerTestModelChoicePass();
} // namespace mlir::comm::test

int main(int argc, char **argv) {
  SmallVector<char *> arguments =
      mlir::comm::getArgumentsWithoutOpDumps(argc, argv);
  argc = static_cast<int>(arguments.size()) - 1;
  argv = arguments.data();
  DialectRegistry registry;
  mlir::comm::registerCommVersionPrinter();
  comm::registerAllDialects(registry);
  comm::registerAllPasses();
  comm::test::registerTestModelChoicePass();
  if (failed(comm::checkRepeatedPassOptions(arguments, "comm-opt")))
    return 1;
  auto [inputFilename, outputFilename] = registerAndParseCLIOptions(
      argc, argv,
      "comm-opt: parse, verify and transform comm IR (passes and pipelines "
      "as in mlir-opt)\n",
      registry);

  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();
  // Shardy's export calls functions from inside sdy ops, which do not resolve
  // while sdy is unregistered: the StableHLO importer inlines those calls and
  // then verifies its whole input itself.
  for (int i = 1; i < argc; ++i)
    if (StringRef(argv[i]).contains("convert-stablehlo-to-comm"))
      config.verifyOnParsing(false);
  // The printer verifies the module before printing it (printing what does
  // not verify in the generic form); where the module was verified after
  // parsing and after every pass that changed it, that is one verification
  // more of the same IR (0.4 s for 100,000 ops in comm.starts), skipped as
  // --mlir-print-assume-verified skips it, unless that option is given
  // (--mlir-print-assume-verified=false verifies). Not where IR is printed
  // between passes (--mlir-print-ir-*), before a pass's output is verified.
  auto &options = llvm::cl::getRegisteredOptions();
  bool printsBetweenPasses = llvm::any_of(options, [](const auto &entry) {
    return entry.first.starts_with("mlir-print-ir") &&
           entry.second->getNumOccurrences() > 0;
  });
  if (config.shouldVerifyOnParsing() && config.shouldVerifyPasses() &&
      !printsBetweenPasses)
    if (auto *assume = static_cast<llvm::cl::opt<bool> *>(
            options.lookup("mlir-print-assume-verified"));
        assume && assume->getNumOccurrences() == 0)
      assume->setValue(true);
  // A pass option with a bad value: llvm::cl prints what is wrong ("for
  // the --mode option: 'xyz' is not a value of --mode ...") and MLIR's driver
  // then reports the failure as an error with no location and no text
  // ("<unknown>:0: error: "). The empty part goes; the text, where there is
  // one, is said as comm-opt's error, without the empty location.
  config.setPassPipelineSetupFn(
      [original = config](PassManager &pm) -> LogicalResult {
        ScopedDiagnosticHandler handler(pm.getContext(), [](Diagnostic &diag) {
          if (diag.getSeverity() != DiagnosticSeverity::Error ||
              !isa<UnknownLoc>(diag.getLocation()))
            return failure();
          std::string message = diag.str();
          StringRef text = StringRef(message).trim();
          if (text.empty())
            return success();
          // The textual pipeline's parser says "error:" itself.
          if (!text.contains("error: "))
            llvm::errs() << "comm-opt: error: ";
          llvm::errs() << text << "\n";
          return success();
        });
        // Module-level diagnostics name the file's first line, not 0:0.
        pm.addInstrumentation(
            comm::createLocateImplicitModuleInstrumentation());
        return original.setupPassPipeline(pm);
      });
  // Listing dialects or passes reads no input: let MLIR's driver do it.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return asMainReturnCode(
        MlirOptMain(argc, argv, inputFilename, outputFilename, registry));

  llvm::InitLLVM initLLVM(argc, argv);
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(inputFilename, &errorMessage);
  if (!input) {
    llvm::errs() << "comm-opt: error: " << errorMessage << "\n";
    return 1;
  }
  if (failed(comm::checkInputText(*input)))
    return 1;
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << "comm-opt: error: " << errorMessage << "\n";
    return 1;
  }
  if (failed(MlirOptMain(output->os(), std::move(input), registry, config)))
    return 1;
  // A full disk or a closed pipe is an error of the run, not a crash.
  if (llvm::Error error = comm::keepOutputFile(*output, outputFilename)) {
    llvm::errs() << "comm-opt: error: " << llvm::toString(std::move(error))
                 << "\n";
    return 1;
  }
  return 0;
}
