//===- comm-sim.cpp - predict and simulate communication --------*- C++ -*-===//
//
// comm-sim bench     an nccl-tests style table of predicted times
// comm-sim run       simulate a whole comm program
// comm-sim calibrate fit the cost model on measured figures
//
// The driver only parses flags and calls the cost model (lib/CostModel) and
// the simulator (lib/Sim).
//
//===----------------------------------------------------------------------===//

#include "Bench.h"
#include "Run.h"
#include "comm/CostModel/Calibration.h"
#include "comm/CostModel/CostModel.h"
#include "comm/Dialect/Comm/IR/EnumNames.h"
#include "comm/Pipelines/CompileOptions.h"
#include "comm/Support/OutputFile.h"
#include "comm/Support/Version.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;
using namespace mlir::comm;
using namespace mlir::comm::sim;
namespace cl = llvm::cl;

namespace {
struct Options {
  cl::OptionCategory category{"comm-sim options"};
  cl::SubCommand bench{"bench",
                       "Predict a collective over a range of sizes, as an "
                       "nccl-tests style table"};
  cl::SubCommand run{"run", "Simulate a whole comm program on a topology"};
  cl::SubCommand algorithms{
      "algorithms",
      "Print the algorithm table: what a plan may name for each collective "
      "on each backend, and what the backend's own collective picks"};
  cl::SubCommand calibrate{
      "calibrate",
      "Fit the cost model on measured figures and report the fit error"};

  // Shared.
  cl::opt<std::string> topology{
      "topology",
      cl::desc("A preset (dgx-h100), a cluster (dgx-h100x4), an NCCL XML "
               "or comm YAML file (file.yaml:N for N machines of it)"),
      cl::value_desc("spec"),
      cl::sub(bench),
      cl::sub(run),
      cl::sub(calibrate),
      cl::cat(category)};
  // A long alias: a one-letter option would make LLVM read a mistyped long
  // option (--tarce) as a group of one-letter flags.
  cl::alias topologyAlias{"topo", cl::aliasopt(topology),
                          cl::desc("Alias for --topology")};
  cl::opt<std::string> params{
      "params",
      cl::desc("Cost model parameters (YAML, as calibrate writes)"),
      cl::value_desc("file"),
      cl::sub(bench),
      cl::sub(run),
      cl::sub(calibrate),
      cl::cat(category)};
  // Listed in --help (LLVM hides aliases), since README.md and the other
  // tools spell it this way.
  cl::alias costParams{"cost-params",
                       cl::desc("Alias for --params (the name comm-opt's "
                                "comm-plan and comm-compile use)"),
                       cl::aliasopt(params), cl::NotHidden};
  cl::opt<bool> json{"json", cl::desc("Print JSON instead of a table"),
                     cl::sub(bench), cl::sub(run), cl::cat(category)};
  cl::opt<std::string> plot{"plot",
                            cl::desc("Write an SVG chart (bench: bandwidth "
                                     "curve; run: timeline)"),
                            cl::value_desc("file.svg"),
                            cl::sub(bench),
                            cl::sub(run),
                            cl::cat(category)};
  cl::opt<std::string> output{"o",
                              cl::desc("Output file"),
                              cl::init("-"),
                              cl::sub(bench),
                              cl::sub(run),
                              cl::sub(algorithms),
                              cl::sub(calibrate),
                              cl::cat(category)};

  // bench.
  cl::opt<std::string> collective{
      "collective",
      cl::desc("all_reduce, reduce_scatter, all_gather, all_to_all, "
               "broadcast, reduce, sendrecv"),
      cl::init("all_reduce"),
      cl::sub(bench),
      cl::sub(calibrate),
      cl::cat(category)};
  cl::opt<uint64_t> ranks{"ranks",
                          cl::desc("Ranks taking part, at least 2 (default: "
                                   "every GPU; calibrate: the log's)"),
                          cl::init(0),
                          cl::sub(bench),
                          cl::sub(calibrate),
                          cl::cat(category)};
  cl::opt<std::string> sizes{
      "sizes",
      cl::desc("Sizes in bytes: <size>, <min>:<max> or <min>:<max>:<factor> "
               "(K, M, G, T are powers of two)"),
      cl::init("8:8G"), cl::sub(bench), cl::cat(category)};
  // nccl-tests' own flags, so that its command lines work here.
  cl::opt<std::string> minBytes{"b",
                                cl::desc("First size (nccl-tests' -b, "
                                         "--minbytes): overrides --sizes"),
                                cl::value_desc("bytes"), cl::sub(bench),
                                cl::cat(category)};
  cl::alias minBytesLong{"minbytes", cl::desc("Alias for -b"),
                         cl::aliasopt(minBytes)};
  cl::opt<std::string> maxBytes{"e",
                                cl::desc("Last size (nccl-tests' -e, "
                                         "--maxbytes): overrides --sizes"),
                                cl::value_desc("bytes"), cl::sub(bench),
                                cl::cat(category)};
  cl::alias maxBytesLong{"maxbytes", cl::desc("Alias for -e"),
                         cl::aliasopt(maxBytes)};
  cl::opt<std::string> stepFactor{"f",
                                  cl::desc("Step factor between sizes "
                                           "(nccl-tests' -f, --stepfactor)"),
                                  cl::sub(bench), cl::cat(category)};
  cl::alias stepFactorLong{"stepfactor", cl::desc("Alias for -f"),
                           cl::aliasopt(stepFactor)};
  cl::opt<std::string> op{"op",
                          cl::desc("Reduction named in the redop column "
                                   "(nccl-tests' -o, --op: sum, prod, min, "
                                   "max, avg; -o is comm-sim's output file)"),
                          cl::init("sum"), cl::sub(bench), cl::cat(category)};
  cl::opt<std::string> dtype{"dtype", cl::desc("Element type (f32, bf16, ...)"),
                             cl::init("f32"), cl::sub(bench),
                             cl::cat(category)};
  cl::alias dtypeShort{"d", cl::desc("Alias for --dtype (nccl-tests' -d)"),
                       cl::aliasopt(dtype)};
  cl::alias dtypeLong{"datatype", cl::desc("Alias for --dtype"),
                      cl::aliasopt(dtype)};
  cl::opt<std::string> algorithm{
      "algorithm", cl::desc("Fix the algorithm (ring, tree, nvls, ...)"),
      cl::sub(bench), cl::cat(category)};
  cl::opt<std::string> protocol{"protocol",
                                cl::desc("Fix the protocol (simple, ll, "
                                         "ll128)"),
                                cl::sub(bench), cl::cat(category)};
  cl::opt<Backend> backend{
      "backend",
      cl::desc("The runtime backend the collective runs on: the search "
               "covers the algorithms a plan may name there (default: for "
               "run, the program's comm.backend, which comm-plan records; "
               "else nccl)"),
      BackendValues(),
      cl::init(Backend::nccl),
      cl::sub(bench),
      cl::sub(run),
      cl::cat(category)};
  cl::list<Backend> tableBackends{
      "backend",           cl::desc("Only these backends (default: all)"),
      BackendValues(),     cl::CommaSeparated,
      cl::sub(algorithms), cl::cat(category)};
  cl::opt<bool> native{
      "native",
      cl::desc("Search what the backend's own collective chooses among when "
               "no plan names an algorithm, instead of what a plan may name"),
      cl::sub(bench), cl::cat(category)};
  cl::opt<bool> ncclOnly{"nccl",
                         cl::desc("NCCL's own choice, what nccl-tests "
                                  "measure: --backend=nccl --native"),
                         cl::sub(bench), cl::cat(category)};
  cl::opt<bool> explainTerms{"explain",
                             cl::desc("Print the terms of every prediction"),
                             cl::sub(bench), cl::cat(category)};

  // run.
  cl::opt<std::string> program{cl::Positional, cl::desc("<program.mlir>"),
                               cl::sub(run), cl::cat(category)};
  cl::opt<std::string> trace{
      "trace", cl::desc("Write a Chrome/Perfetto trace (JSON)"),
      cl::value_desc("file.json"), cl::sub(run), cl::cat(category)};
  cl::opt<std::string> entry{"entry",
                             cl::desc("Function to run (default: the only "
                                      "or first public function)"),
                             cl::sub(run), cl::cat(category)};
  cl::opt<unsigned> traceRanks{"trace-ranks",
                               cl::desc("Ranks to put in the trace and the "
                                        "plot, the first N (at least 1)"),
                               cl::init(64), cl::sub(run), cl::cat(category)};

  // calibrate.
  cl::opt<std::string> data{"data",
                            cl::desc("Measured points (CSV: system, topology, "
                                     "collective, ranks, size_bytes, "
                                     "busbw_GBps, source)"),
                            cl::value_desc("points.csv"), cl::sub(calibrate),
                            cl::cat(category)};
  cl::list<std::string> ncclTests{
      "nccl-tests",
      cl::desc("nccl-tests output files, as the binaries print it (the "
               "collective from the file name, e.g. all_reduce_perf.log, or "
               "--collective; the ranks from its device lines, or --ranks), "
               "measured on --topology"),
      cl::value_desc("log"),
      cl::CommaSeparated,
      cl::sub(calibrate),
      cl::cat(category)};
  cl::opt<bool> fit{"fit", cl::desc("Fit the parameters (else only report)"),
                    cl::sub(calibrate), cl::cat(category)};
  cl::opt<std::string> writeParams{
      "write-params", cl::desc("Write the fitted parameters"),
      cl::value_desc("file.yaml"), cl::sub(calibrate), cl::cat(category)};
  cl::opt<unsigned> iterations{
      "iterations", cl::desc("Nelder-Mead iterations per restart"),
      cl::init(1500), cl::sub(calibrate), cl::cat(category)};
  cl::opt<bool> points{"points", cl::desc("Also list every point"),
                       cl::sub(calibrate), cl::cat(category)};
  cl::list<std::string> exclude{
      "exclude",
      cl::desc("Leave out of the fit the systems whose name contains this "
               "text (they are still reported): a check that the model "
               "predicts systems it was not fitted on"),
      cl::sub(calibrate), cl::cat(category)};
};
} // namespace

static int fail(const Twine &message) {
  llvm::WithColor::error(llvm::errs(), "comm-sim") << message << "\n";
  return 1;
}

static int fail(llvm::Error error) {
  std::string text = llvm::toString(std::move(error));
  // Located errors already say "error:".
  if (StringRef(text).contains(": error: ")) {
    llvm::errs() << text << "\n";
    return 1;
  }
  return fail(text);
}

static llvm::Expected<CostParams> loadParams(StringRef path) {
  if (path.empty())
    return getDefaultCostParams();
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot read --params '" + path +
                                       "': " + buffer.getError().message());
  return parseCostParams((*buffer)->getBuffer(), path);
}

static int runBenchCommand(Options &o) {
  if (o.topology.empty())
    return fail("bench needs --topology=<spec> (a preset such as dgx-h100, "
                "a cluster dgx-h100x4, or a file)");
  BenchOptions options;
  std::optional<CollectiveKind> kind = lookupMeasuredCollective(o.collective);
  if (!kind)
    return fail("unknown --collective '" + o.collective + "'; expected " +
                getMeasuredCollectiveNames());
  options.kind = *kind;
  // --ranks 0 is too few ranks, not "every GPU" (that is no --ranks).
  if (o.ranks.getNumOccurrences())
    options.ranks = o.ranks;
  options.json = o.json;
  options.explain = o.explainTerms;
  options.backend = o.ncclOnly ? Backend::nccl : o.backend.getValue();
  options.native = o.native || o.ncclOnly;
  if (o.ncclOnly && o.backend.getNumOccurrences() && o.backend != Backend::nccl)
    return fail("--nccl measures the nccl backend; it contradicts --backend=" +
                stringifyBackend(o.backend));
  if (llvm::Error e = parseSizeRange(o.sizes, options))
    return fail(std::move(e));
  if (llvm::Error e =
          applyNcclTestsFlags(o.minBytes, o.maxBytes, o.stepFactor, options))
    return fail(std::move(e));
  // nccl-tests' reductions (its -o); bitwise ones are comm's own.
  std::optional<ReductionKind> reduction = symbolizeReductionKind(o.op);
  if (!reduction || !llvm::is_contained({"sum", "prod", "min", "max", "avg"},
                                        StringRef(o.op)))
    return fail("unknown --op '" + o.op +
                "'; expected sum, prod, min, max or avg");
  options.reduction = *reduction;
  if (llvm::Error e = parseDataType(o.dtype, options))
    return fail(std::move(e));
  if (!o.algorithm.empty()) {
    options.algorithm = symbolizeAlgorithm(o.algorithm);
    if (!options.algorithm)
      return fail("unknown --algorithm '" + o.algorithm +
                  "'; expected one of " + getEnumNames<Algorithm>());
  }
  // The backend's own collective runs only its own algorithms (a
  // halving_doubling of NCCL's own was timed as if NCCL had one).
  if (options.algorithm && options.native &&
      !llvm::is_contained(getNativeAlgorithms(options.kind, options.backend),
                          *options.algorithm)) {
    std::string own;
    for (Algorithm a : getNativeAlgorithms(options.kind, options.backend))
      own += (own.empty() ? "" : ", ") + stringifyAlgorithm(a).str();
    return fail("--algorithm " + o.algorithm + " is not one of the " +
                stringifyBackend(options.backend) + " backend's own " +
                stringifyCollectiveKind(options.kind) + " algorithms (" +
                (own.empty() ? std::string("none") : own) +
                ") that --native and --nccl time; leave out --native to time "
                "it as a plan's schedule");
  }
  if (!o.protocol.empty()) {
    options.protocol = symbolizeProtocol(o.protocol);
    if (!options.protocol)
      return fail("unknown --protocol '" + o.protocol + "'; expected one of " +
                  getEnumNames<Protocol>());
  }
  // A plan's schedules (every algorithm a plan names but nvls) are the
  // runtime's sends and receives: no protocol to force there.
  if (options.protocol && !options.native &&
      (!options.algorithm ||
       isRuntimeSchedule(options.kind, *options.algorithm, options.backend)))
    return fail(
        "--protocol " + o.protocol +
        " applies to NCCL's own collectives (add --native, or --nccl, or "
        "--algorithm nvls): without them the bench times what a plan may "
        "name on the " +
        stringifyBackend(options.backend) +
        " backend, the runtime's schedules of sends and receives, " +
        (options.backend == Backend::nccl
             ? "whose protocol NCCL chooses by size (LL up to " +
                   std::to_string(kNcclP2pLlThresholdBytes) +
                   " bytes, Simple above)"
             : "which have no protocol"));
  llvm::Expected<CostParams> params = loadParams(o.params);
  if (!params)
    return fail(params.takeError());
  llvm::Expected<std::unique_ptr<Topology>> topology = loadTopology(o.topology);
  if (!topology)
    return fail(topology.takeError());
  if ((*topology)->getNumGPUs() == 0)
    return fail("topology '" + o.topology + "' has no GPU");
  warnAboutUndescribedGpus(**topology, llvm::errs());
  CostModel model(**topology, *params);
  llvm::Expected<std::vector<BenchRow>> rows = runBench(model, options);
  if (!rows)
    return fail(rows.takeError());
  std::string error;
  auto out = openOutputFile(o.output, &error);
  if (!out)
    return fail(error);
  printBench(model, options, *rows, out->os());
  if (llvm::Error error = keepOutputFile(*out, o.output))
    return fail(std::move(error));
  if (!o.plot.empty()) {
    auto svg = openOutputFile(o.plot, &error);
    if (!svg)
      return fail(error);
    plotBench(options, *rows,
              (stringifyCollectiveKind(options.kind) + " on " +
               (*topology)->getName())
                  .str(),
              svg->os());
    if (llvm::Error error = keepOutputFile(*svg, o.plot))
      return fail(std::move(error));
  }
  return 0;
}

/// The points of --data and of every --nccl-tests log.
static llvm::Expected<std::vector<MeasuredPoint>>
readCalibrationPoints(Options &o) {
  std::vector<MeasuredPoint> points;
  if (!o.data.empty()) {
    auto read = readMeasuredPoints(o.data);
    if (!read)
      return read.takeError();
    points = std::move(*read);
  }
  if (o.ncclTests.empty())
    return points;
  NcclTestsLogOptions logOptions;
  logOptions.topology = o.topology;
  logOptions.ranks = o.ranks;
  if (o.collective.getNumOccurrences()) {
    logOptions.kind = lookupMeasuredCollective(o.collective);
    if (!logOptions.kind)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "unknown --collective '" + o.collective +
                                         "'; expected " +
                                         getMeasuredCollectiveNames());
  }
  for (const std::string &path : o.ncclTests) {
    // An empty entry ("a.log,", ",a.log") was read as a file named
    // "topology".
    if (path.empty())
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "--nccl-tests lists an empty file name (a comma too many?)");
    auto read = readNcclTestsLog(path, logOptions);
    if (!read)
      return read.takeError();
    llvm::append_range(points, *read);
  }
  return points;
}

static int runCalibrateCommand(Options &o) {
  if (o.data.empty() && o.ncclTests.empty())
    return fail("calibrate needs measurements: --data=<points.csv> "
                "(bench/calibration/points.csv holds published nccl-tests "
                "figures) or --nccl-tests=<log>... with --topology=<spec> "
                "(your own nccl-tests runs)");
  // As in bench: a given --ranks names the group, so 0 is too few, not
  // "the log's own count" (that is no --ranks).
  if (o.ranks.getNumOccurrences() && o.ranks < 2)
    return fail("a collective needs at least 2 ranks, got " + Twine(o.ranks));
  if (o.fit && o.iterations == 0)
    return fail("--iterations 0 leaves nothing to fit: give at least 1 "
                "(default 1500), or leave out --fit to report the "
                "parameters as they are");
  if (!o.ncclTests.empty() && o.topology.empty())
    return fail("--nccl-tests needs --topology=<spec>: the machine the logs "
                "were measured on (a preset, a cluster such as dgx-h100x4, "
                "or your NCCL topology XML)");
  if (!o.topology.empty()) {
    // Its errors are the logs' points' to report, with their lines.
    if (llvm::Expected<std::unique_ptr<Topology>> topology =
            loadTopology(o.topology))
      warnAboutUndescribedGpus(**topology, llvm::errs());
    else
      llvm::consumeError(topology.takeError());
  }
  llvm::Expected<CostParams> start =
      o.params.empty() && o.fit ? getPriorCostParams() : loadParams(o.params);
  if (!start)
    return fail(start.takeError());
  auto points = readCalibrationPoints(o);
  if (!points)
    return fail(points.takeError());
  CostParams params = *start;
  for (MeasuredPoint &point : *points)
    point.heldOut |= llvm::any_of(o.exclude, [&](const std::string &text) {
      return StringRef(point.system).contains(text);
    });
  if (o.fit) {
    std::vector<MeasuredPoint> fitPoints;
    for (const MeasuredPoint &point : *points)
      if (!point.heldOut)
        fitPoints.push_back(point);
    if (fitPoints.empty())
      return fail("--exclude leaves no point to fit");
    auto fitted = fitCostParams(fitPoints, params, o.iterations, &llvm::errs());
    if (!fitted)
      return fail(fitted.takeError());
    params = *fitted;
  }
  auto results = evaluatePoints(*points, params);
  if (!results)
    return fail(results.takeError());
  std::string error;
  auto out = openOutputFile(o.output, &error);
  if (!out)
    return fail(error);
  bool within = printCalibrationReport(*results, out->os(), o.points);
  if (llvm::any_of(*points,
                   [](const MeasuredPoint &point) { return point.heldOut; }))
    printHoldOutSummary(
        *results, [](const MeasuredPoint &point) { return point.heldOut; },
        out->os());
  out->os() << (within ? "\nevery system's median error is within its "
                         "band's bound\n"
                       : "\nsome systems' median errors are outside their "
                         "bounds\n");
  if (llvm::Error error = keepOutputFile(*out, o.output))
    return fail(std::move(error));
  if (!o.writeParams.empty()) {
    auto file = openOutputFile(o.writeParams, &error);
    if (!file)
      return fail(error);
    printCostParams(params, file->os());
    if (llvm::Error error = keepOutputFile(*file, o.writeParams))
      return fail(std::move(error));
  }
  return 0;
}

static int runAlgorithmsCommand(Options &o) {
  SmallVector<Backend> backends(o.tableBackends.begin(), o.tableBackends.end());
  if (backends.empty())
    for (uint32_t i = 0; i <= getMaxEnumValForBackend(); ++i)
      backends.push_back(static_cast<Backend>(i));
  std::string error;
  auto out = openOutputFile(o.output, &error);
  if (!out)
    return fail(error);
  raw_ostream &os = out->os();
  os << "# The one algorithm table (lib/Dialect/Comm/IR/CommAlgorithms.cpp).\n"
        "# realized: what a #comm.plan may name on the backend; native: what "
        "the\n# backend's own collective picks among when no plan names one; "
        "-: none.\n";
  os << llvm::formatv("{0,-15} {1,-8} {2,-52} {3}\n", "# collective", "backend",
                      "realized", "native");
  auto list = [](ArrayRef<Algorithm> algorithms) {
    if (algorithms.empty())
      return std::string("-");
    std::string text;
    llvm::raw_string_ostream os(text);
    llvm::interleave(
        algorithms, os, [&](Algorithm a) { os << stringifyAlgorithm(a); }, ",");
    return text;
  };
  for (unsigned k = 0; k < kNumCollectiveKinds; ++k) {
    auto kind = static_cast<CollectiveKind>(k);
    if (kind == CollectiveKind::Copy)
      continue;
    for (Backend backend : backends) {
      if (!isCarriedBy(kind, backend))
        continue;
      os << llvm::formatv(
          "{0,-15} {1,-8} {2,-52} {3}\n", stringifyCollectiveKind(kind),
          stringifyBackend(backend), list(getRealizedAlgorithms(kind, backend)),
          list(getNativeAlgorithms(kind, backend)));
    }
  }
  if (llvm::Error error = keepOutputFile(*out, o.output))
    return fail(std::move(error));
  return 0;
}

static int runRunCommand(Options &o) {
  if (o.program.empty())
    return fail("run needs a program: comm-sim run <program.mlir> "
                "[--topology=<spec>]");
  // The simulator records the links' timelines only along with some rank's,
  // so 0 would write a trace with no event at all.
  if (o.traceRanks == 0)
    return fail("--trace-ranks must be at least 1, got 0: the trace and the "
                "plot show the first N ranks and the busiest links");
  SimOptions options;
  options.programPath = o.program;
  options.topologySpec = o.topology;
  options.entry = o.entry;
  options.tracePath = o.trace;
  options.traceRanks = o.traceRanks;
  options.plotPath = o.plot;
  options.json = o.json;
  if (o.backend.getNumOccurrences())
    options.backend = o.backend;
  options.paramsPath = o.params;
  std::string error;
  auto out = openOutputFile(o.output, &error);
  if (!out)
    return fail(error);
  if (failed(runProgram(options, out->os())))
    return 1;
  if (llvm::Error error = keepOutputFile(*out, o.output))
    return fail(std::move(error));
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  mlir::comm::registerCommVersionPrinter();
  Options o;
  cl::HideUnrelatedOptions(o.category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "comm-sim: predict and simulate communication on hardware you do not "
      "have\n\n"
      "  comm-sim bench --collective all_reduce --topology dgx-h100x2 "
      "[--ranks N] [--sizes 8:8G] [--dtype f32] [--json] [--explain]\n"
      "  comm-sim run prog.mlir --topology dgx-h100 [--trace out.json] "
      "[--plot timeline.svg] [--json]\n"
      "  comm-sim algorithms [--backend mpi,nccl]\n"
      "  comm-sim calibrate --data bench/calibration/points.csv [--fit] "
      "[--write-params params.yaml]\n");
  if (o.bench)
    return runBenchCommand(o);
  if (o.run)
    return runRunCommand(o);
  if (o.algorithms)
    return runAlgorithmsCommand(o);
  if (o.calibrate)
    return runCalibrateCommand(o);
  return fail(
      "expected a command: bench, run, algorithms or calibrate (see --help)");
}
