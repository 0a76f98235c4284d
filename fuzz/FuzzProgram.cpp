//===- FuzzProgram.cpp - libFuzzer target for comm programs ----*- C++ -*-===//
//
// One input is one .mlir program: checked as comm-opt checks its input,
// parsed, verified, simulated, planned for dgx-h100 and for two PCIe
// machines (pcie-4gpux2, where comm-plan splits collectives by machine and
// by CPU socket where the simulated step gains) and lowered for cpu-mpi
// (comm-lower-to-emitc); an input that holds StableHLO or
// shard ops goes through its importer first (convert-stablehlo-to-comm on
// the unverified generic form, as comm-opt runs it; or sharding-propagation,
// shard-partition and convert-shard-to-comm). Diagnostics are expected and
// dropped; a crash, a sanitizer report or a hang is a finding. Seeds: the
// tests and examples (utils/fuzz.sh).
//
//===----------------------------------------------------------------------===//

#include "comm/CostModel/CostModel.h"
#include "comm/InitAllDialects.h"
#include "comm/InitAllPasses.h"
#include "comm/Pipelines/Pipelines.h"
#include "comm/Sim/Simulator.h"
#include "comm/Support/InputChecks.h"
#include "comm/Topology/Topology.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

namespace {
struct Fixture {
  DialectRegistry registry;
  std::unique_ptr<MLIRContext> context;
  /// For StableHLO: unregistered dialects allowed.
  std::unique_ptr<MLIRContext> openContext;
  std::unique_ptr<comm::Topology> topology;
  std::unique_ptr<comm::CostModel> model;

  Fixture() {
    comm::registerAllDialects(registry);
    comm::registerAllPasses();
    context = std::make_unique<MLIRContext>(registry);
    context->loadAllAvailableDialects();
    context->getDiagEngine().registerHandler([](Diagnostic &) {});
    openContext = std::make_unique<MLIRContext>(registry);
    openContext->loadAllAvailableDialects();
    openContext->allowUnregisteredDialects();
    openContext->getDiagEngine().registerHandler([](Diagnostic &) {});
    topology = cantFail(comm::buildTopologyPreset("dgx-h100"));
    model = std::make_unique<comm::CostModel>(*topology);
  }
};
} // namespace

/// Parses `text` as comm-opt would for its importers, and runs them.
static OwningOpRef<ModuleOp> importFramework(Fixture &fixture, StringRef text) {
  bool stablehlo = text.contains("stablehlo.");
  MLIRContext *ctx =
      stablehlo ? fixture.openContext.get() : fixture.context.get();
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, "fuzz.mlir"), llvm::SMLoc());
  // comm-opt defers verifying the importer's input to the importer.
  ParserConfig config(ctx, /*verifyAfterParse=*/!stablehlo);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, config);
  // The importer checks each op's invariants before anything reads them;
  // the pass manager's own check of the input (which the fuzzer's pass
  // manager runs before the first pass) must not see a function without a
  // type either.
  if (!module || (stablehlo && failed(comm::verifyEachOpAlone(*module))))
    return nullptr;
  // The pipelines comm-opt runs, by their registered names, so that the
  // checks comm puts before upstream's partitioning come along.
  PassManager pm(ctx);
  if (failed(parsePassPipeline(
          stablehlo ? "builtin.module(convert-stablehlo-to-comm)"
                    : "builtin.module(sharding-propagation,shard-partition,"
                      "convert-shard-to-comm)",
          pm)))
    return nullptr;
  if (failed(pm.run(*module)))
    return nullptr;
  return module;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static Fixture fixture;
  StringRef text(reinterpret_cast<const char *>(data), size);
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(text, "fuzz.mlir");
  if (failed(comm::checkInputText(*buffer)))
    return 0;
  OwningOpRef<ModuleOp> module;
  if (text.contains("stablehlo.") || text.contains("shard.")) {
    module = importFramework(fixture, text);
  } else {
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
    module = parseSourceFile<ModuleOp>(sourceMgr, fixture.context.get());
  }
  if (!module || failed(verify(*module)))
    return 0;

  // Simulate every function as written, on 8 ranks of dgx-h100.
  for (auto function : module->getOps<func::FuncOp>())
    if (!function.isExternal())
      (void)comm::sim::simulateFunction(function, *fixture.topology,
                                        *fixture.model, comm::Backend::nccl,
                                        /*traceRanks=*/1);

  // Plan, then lower what was planned, for each machine.
  for (StringRef topology : {"dgx-h100", "pcie-4gpux2"}) {
    OwningOpRef<ModuleOp> copy = module->clone();
    PassManager pm(fixture.context.get());
    comm::PlanningPipelineOptions planning;
    planning.topology = topology.str();
    planning.backend = comm::Backend::mpi;
    comm::buildPlanningPipeline(pm, planning);
    comm::LoweringPipelineOptions lowering;
    comm::buildLoweringPipeline(pm, lowering);
    (void)pm.run(*copy);
  }
  return 0;
}
