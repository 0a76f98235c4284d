//===- Run.cpp - comm-sim run ----------------------------------*- C++ -*-===//

#include "Run.h"
#include "Bench.h"

#include "comm/Analysis/TopologyAnalysis.h"
#include "comm/Dialect/Comm/IR/CommDialect.h"
#include "comm/InitAllDialects.h"
#include "comm/Sim/Simulator.h"
#include "comm/Support/InputChecks.h"
#include "comm/Support/OutputFile.h"
#include "comm/Topology/TopologyPrinter.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include <cmath>

#include <cmath>

using namespace mlir;
using namespace mlir::comm;
using namespace mlir::comm::sim;

static func::FuncOp findEntry(ModuleOp module, StringRef name) {
  if (!name.empty())
    return module.lookupSymbol<func::FuncOp>(name);
  func::FuncOp first;
  for (auto function : module.getOps<func::FuncOp>()) {
    if (function.isExternal() || function.isPrivate())
      continue;
    if (!first)
      first = function;
  }
  return first;
}

LogicalResult mlir::comm::sim::runProgram(const SimOptions &options,
                                          llvm::raw_ostream &os) {
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // A diagnostic points at the op; printing the op (for a module, the
  // whole program) buries the message.
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(options.programPath, &error);
  if (!input) {
    llvm::errs() << "comm-sim: error: " << error << "\n";
    return failure();
  }
  unsigned id = sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  if (failed(checkInputText(sourceMgr, id)))
    return failure();
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return failure();
  locateImplicitModule(*module);

  func::FuncOp entry = findEntry(*module, options.entry);
  if (!entry) {
    if (options.entry.empty())
      emitNoEntryError(*module, "no public function with a body to simulate");
    else
      module->emitError() << "no function @" << options.entry;
    return failure();
  }
  FailureOr<std::shared_ptr<const Topology>> topology =
      getTopologyFor(*module, options.topologySpec, "--topology=<preset|file>");
  FailureOr<CostParams> params = getCostParamsFor(*module, options.paramsPath);
  if (failed(topology) || failed(params))
    return failure();
  warnAboutUndescribedGpus(**topology, llvm::errs());
  CostModel model(**topology, *params);
  // The verifier took only a backend's name.
  Backend backend = options.backend.value_or(Backend::nccl);
  if (auto recorded = (*module)->getAttrOfType<StringAttr>(
          CommDialect::getBackendAttrName());
      recorded && !options.backend)
    backend = *symbolizeBackend(recorded.getValue());
  // The trace and the plot are opened before anything runs: a path that
  // cannot be written is an error before the report, not after it.
  std::unique_ptr<llvm::ToolOutputFile> trace, plot;
  for (auto [path, file] : {std::pair(&options.tracePath, &trace),
                            std::pair(&options.plotPath, &plot)}) {
    if (path->empty())
      continue;
    *file = openOutputFile(*path, &error);
    if (!*file) {
      llvm::errs() << "comm-sim: error: " << error << "\n";
      return failure();
    }
  }
  unsigned traceRanks = options.tracePath.empty() && options.plotPath.empty()
                            ? 0
                            : options.traceRanks;
  FailureOr<SimResult> result =
      simulateFunction(entry, **topology, model, backend, traceRanks);
  if (failed(result))
    return failure();

  if (options.json) {
    llvm::json::Array links;
    for (const LinkUse &use : llvm::ArrayRef(result->links).take_front(16)) {
      LinkRef link = (*topology)->getLink(use.directedLink / 2);
      bool reverse = use.directedLink & 1;
      links.push_back(llvm::json::Object{
          {"from", (*topology)->getDeviceName(reverse ? link.b : link.a)},
          {"to", (*topology)->getDeviceName(reverse ? link.a : link.b)},
          {"bytes", static_cast<int64_t>(std::llround(use.bytes))},
          {"utilization", use.utilization}});
    }
    llvm::json::Object object{
        {"step_time_us", result->stepTimeUs},
        {"exposed_comm_us", result->exposedCommUs},
        {"compute_us", result->computeUs},
        {"lower_bound_us", result->lowerBoundUs},
        {"transfer_bound_us", result->transferBoundUs},
        {"lower_bound_why", result->lowerBoundWhy},
        {"cut_bound_us", result->cutBoundUs},
        {"cut_bound_why", result->cutBoundWhy},
        {"comm_bytes", static_cast<int64_t>(std::llround(result->commBytes))},
        {"ranks", static_cast<int64_t>(result->ranks)},
        {"backend", stringifyBackend(backend)},
        {"collectives", static_cast<int64_t>(result->collectives)},
        {"flows", static_cast<int64_t>(result->flows)},
        {"busiest_links", std::move(links)}};
    os << llvm::formatv("{0:2}", llvm::json::Value(std::move(object))) << "\n";
  } else {
    os << "comm-sim run: @" << entry.getName() << " on "
       << (*topology)->getName() << ", " << result->ranks << " ranks, "
       << stringifyBackend(backend) << " backend\n";
    os << llvm::formatv("  step time          {0,12:F2} us\n",
                        result->stepTimeUs);
    os << llvm::formatv("  compute            {0,12:F2} us\n",
                        result->computeUs);
    os << llvm::formatv("  exposed comm       {0,12:F2} us ({1:P1} of the "
                        "step)\n",
                        result->exposedCommUs,
                        result->stepTimeUs > 0
                            ? result->exposedCommUs / result->stepTimeUs
                            : 0.0);
    if (result->lowerBoundUs > 0)
      os << llvm::formatv("  lower bound        {0,12:F2} us ({1:F2}x above "
                          "it; {2})\n",
                          result->lowerBoundUs,
                          result->stepTimeUs / result->lowerBoundUs,
                          result->lowerBoundWhy);
    else
      os << llvm::formatv("  lower bound        {0,12:F2} us ({1})\n", 0.0,
                          result->lowerBoundWhy);
    if (result->cutBoundUs > 0)
      os << llvm::formatv("  busiest cut        {0,12:F2} us (any streams and "
                          "algorithms: {1})\n",
                          result->cutBoundUs, result->cutBoundWhy);
    os << llvm::formatv("  bytes on links     {0,12:F0}\n", result->commBytes);
    os << llvm::formatv("  collectives        {0,12} ({1} flows)\n",
                        result->collectives, result->flows);
    os << "  busiest links:\n";
    for (const LinkUse &use : llvm::ArrayRef(result->links).take_front(8)) {
      LinkRef link = (*topology)->getLink(use.directedLink / 2);
      bool reverse = use.directedLink & 1;
      os << llvm::formatv("    {0,-28} -> {1,-28} {2,6:P1}  {3} at {4}\n",
                          (*topology)->getDeviceName(reverse ? link.b : link.a),
                          (*topology)->getDeviceName(reverse ? link.a : link.b),
                          use.utilization, stringifyLinkKind(link.props->kind),
                          formatBandwidth(link.props->bandwidthGBps));
    }
  }
  if (trace) {
    writeChromeTrace(*result, **topology, trace->os());
    if (llvm::Error error = keepOutputFile(*trace, options.tracePath)) {
      llvm::errs() << "comm-sim: error: " << llvm::toString(std::move(error))
                   << "\n";
      return failure();
    }
  }
  if (plot) {
    writeTimelineSvg(*result, **topology, plot->os());
    if (llvm::Error error = keepOutputFile(*plot, options.plotPath)) {
      llvm::errs() << "comm-sim: error: " << llvm::toString(std::move(error))
                   << "\n";
      return failure();
    }
  }
  return success();
}
