//===- comm-compile.cpp - ahead-of-time compiler for comm -------*- C++ -*-===//
//
// comm-compile prog.mlir --topology T --target cpu-mpi -o prog
//
// Plans the program for the topology, lowers it to C++ (cpu-mpi) or CUDA
// (cuda-nccl, cuda-verbs), compiles the sources with c++ or nvcc and links
// them with libcommrt into an executable (a harness main), an object, or a
// static library plus a C header.
//
//===----------------------------------------------------------------------===//

#include "comm/Analysis/TopologyAnalysis.h"
#include "comm/Conversion/CommToEmitC/CommToEmitC.h"
#include "comm/Dialect/Comm/IR/CommDialect.h"
#include "comm/Dialect/Comm/IR/CommOps.h"
#include "comm/InitAllDialects.h"
#include "comm/InitAllPasses.h"
#include "comm/Pipelines/Pipelines.h"
#include "comm/Support/InputChecks.h"
#include "comm/Support/OutputFile.h"
#include "comm/Support/Version.h"
#include "comm/Target/Cpp/CommToCpp.h"
#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

using namespace mlir;
using namespace mlir::comm;
namespace cl = llvm::cl;

static cl::OptionCategory category("comm-compile options");

static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<program.mlir>"),
                                          cl::Required, cl::cat(category));
static cl::opt<std::string>
    outputFilename("o",
                   cl::desc("output: an executable (default a.out), an "
                            "object (.o), a static library (x.a) with its header "
                            "x.h next to it, "
                            "the generated source (.cpp, .cu) or the "
                            "lowered EmitC module (.mlir)"),
                   cl::value_desc("file"), cl::init("a.out"),
                   cl::cat(category));
static cl::opt<std::string> topology(
    "topology",
    cl::desc("preset (e.g. dgx-h100x4) or topology file (NCCL XML, comm "
             "YAML) the program is planned and checked for; default: the "
             "module's comm.topology attribute, else for cpu-mpi the "
             "processes of this machine (host, or host<N> for a world of "
             "N > 4), else no planning"),
    cl::value_desc("preset|file"), cl::cat(category));

static cl::opt<std::string> costParams(
    "cost-params",
    cl::desc("cost model parameters the plan uses (YAML, as comm-sim "
             "calibrate --write-params writes them from your own nccl-tests "
             "runs); default: the module's comm.cost_params attribute, else "
             "the built-in calibration"),
    cl::value_desc("params.yaml"), cl::cat(category));
static cl::opt<Target> target("target",
                              cl::desc("what is generated and which runtime "
                                       "backend it calls (default cpu-mpi)"),
                              TargetValues(), cl::init(Target::cpu_mpi),
                              cl::cat(category));
static cl::opt<Strategy>
    strategy("strategy",
             cl::desc("who plans (with a topology; default comm): comm's "
                      "planner, or a baseline doing what a framework's "
                      "defaults do, to compare against"),
             StrategyValues(), cl::init(Strategy::comm), cl::cat(category));
static cl::opt<bool> withHarness(
    "emit-harness",
    cl::desc("link a main() that fills deterministic inputs on every rank, "
             "runs each public function, checks it against the unplanned "
             "program (or --reference) and prints timings; the program "
             "takes --iterations N, --warmup N, --time-budget S (what the "
             "default timing of one function may take, 20 s), --inputs "
             "integers|random, "
             "--rtol X, --atol X (replacing each function's tolerance, "
             "derived from the precisions it sends in) and --no-check"),
    cl::cat(category));
static cl::opt<std::string> referenceFilename(
    "reference",
    cl::desc("the program the harness checks against (default: the input "
             "without #comm.plan attributes and without async regions)"),
    cl::value_desc("file"), cl::cat(category));
static cl::opt<bool> verbose("v",
                             cl::desc("print every step and command (on a "
                                      "terminal the steps are printed "
                                      "anyway)"),
                             cl::cat(category));
static cl::opt<bool> keepTemps("keep-temps",
                               cl::desc("keep the generated sources and "
                                        "objects (their folder is printed)"),
                               cl::cat(category));
static cl::opt<std::string> optLevel("opt",
                                     cl::desc("host/device compiler "
                                              "optimization level: 0, 1, 2, "
                                              "3, s, z, fast or g (-O<level>)"),
                                     cl::init("2"), cl::cat(category));
static cl::opt<std::string>
    cudaArch("cuda-arch",
             cl::desc("comma-separated SM versions the CUDA code is built "
                      "for: 80, 90, 90a (Hopper-specific), 100a, sm_90 "
                      "(default 80,90)"),
             cl::init("80,90"), cl::cat(category));
static cl::opt<std::string> cxx("cxx", cl::desc("host C++ compiler"),
                                cl::init(COMM_CXX_COMPILER), cl::cat(category));
static cl::opt<std::string> nvcc("nvcc", cl::desc("CUDA compiler"),
                                 cl::init(COMM_NVCC), cl::cat(category));
static cl::opt<std::string>
    runtimeInclude("runtime-include",
                   cl::desc("folder of commrt.h and the generated code's "
                            "headers"),
                   cl::init(COMM_RUNTIME_INCLUDE_DIR), cl::cat(category));
static cl::opt<std::string> runtimeLib("runtime-lib",
                                       cl::desc("folder of libcommrt"),
                                       cl::init(COMM_RUNTIME_LIBRARY_DIR),
                                       cl::cat(category));

namespace {
enum class OutputKind { Executable, Object, Library, Source, Mlir };

/// The steps of one compilation, with their temporary folder.
class Driver {
public:
  int run();

private:
  /// One short line per step with -v, or whenever stderr is a terminal
  /// (compiling takes seconds); nothing when piped without -v.
  bool step(const Twine &what) {
    if (verbose || llvm::sys::Process::StandardErrIsDisplayed())
      llvm::errs() << "comm-compile: " << what << "\n";
    return true;
  }
  int error(const Twine &message) {
    llvm::errs() << "comm-compile: error: " << message << "\n";
    return 1;
  }
  OwningOpRef<ModuleOp> parse(StringRef filename);
  LogicalResult compile(ModuleOp module, const CompileOptions &options,
                        MutableArrayRef<EntryPoint> tolerances = {});
  LogicalResult writeFile(StringRef path,
                          function_ref<LogicalResult(raw_ostream &)> body);
  LogicalResult execute(ArrayRef<std::string> command);
  /// Compiles `source` at --opt, or at `level` where given.
  LogicalResult compileSource(StringRef source, StringRef object, bool cuda,
                              StringRef level = "");
  /// The level the lowered `module` is compiled at: --opt, unless it was
  /// left at its default and one generated function is longer than the
  /// host compiler optimizes in reasonable time (then 0, said once).
  std::string getLevelFor(ModuleOp module, StringRef what);
  std::string temp(StringRef name) {
    SmallString<256> path(tempDir);
    llvm::sys::path::append(path, name);
    return std::string(path);
  }

  MLIRContext context;
  /// Diagnostics quote the lines they point at (the handler reads each
  /// file it needs on demand).
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics{sourceMgr, &context};
  SmallString<256> tempDir;
};

/// Reads the tolerances of the planned program's wire precisions just
/// before lowering erases its plans.
struct ToleranceProbe : public PassInstrumentation {
  explicit ToleranceProbe(MutableArrayRef<EntryPoint> entries)
      : entries(entries) {}
  void runBeforePass(Pass *pass, Operation *op) override {
    if (pass->getArgument() == "comm-bufferize")
      if (auto module = dyn_cast<ModuleOp>(op))
        setEntryTolerances(module, entries);
  }
  MutableArrayRef<EntryPoint> entries;
};
} // namespace

/// What the reference's functions are renamed to start with.
static constexpr llvm::StringLiteral kReferencePrefix = "comm_ref_";

/// The harness calls each entry point and its reference (comm_ref_<name>)
/// on the same buffers and runs the job on the program's world size: a
/// reference given by --reference must have every entry point, with the
/// same argument and result types, and declare the same world size (a
/// reference that reads or writes more than the program's buffers would
/// run past them).
static LogicalResult checkReference(ModuleOp program,
                                    ArrayRef<EntryPoint> entries,
                                    ModuleOp reference) {
  auto describe = [](FunctionType type) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "(";
    llvm::interleaveComma(type.getInputs(), os);
    os << ") -> (";
    llvm::interleaveComma(type.getResults(), os);
    os << ")";
    return text;
  };
  for (const EntryPoint &entry : entries) {
    auto function = program.lookupSymbol<func::FuncOp>(entry.name);
    auto ref = reference.lookupSymbol<func::FuncOp>(
        std::string(kReferencePrefix) + entry.name);
    if (!ref || ref.isExternal()) {
      InFlightDiagnostic diag =
          emitNoEntryError(reference, "the reference has no function @" +
                                          entry.name +
                                          " with a body; the harness checks "
                                          "the program's @" +
                                          entry.name + " against it");
      diag.attachNote(function.getLoc()) << "the program's @" << entry.name;
      return diag;
    }
    if (ref.getFunctionType() != function.getFunctionType()) {
      InFlightDiagnostic diag =
          ref.emitError()
          << "the reference's @" << entry.name << " has type "
          << describe(ref.getFunctionType()) << ", but the program's is "
          << describe(function.getFunctionType())
          << "; the harness passes both the same buffers";
      diag.attachNote(function.getLoc()) << "the program's @" << entry.name;
      return diag;
    }
  }
  auto programSize = program->getAttrOfType<IntegerAttr>("comm.world_size");
  auto referenceSize =
      reference->getAttrOfType<IntegerAttr>("comm.world_size");
  if (programSize && referenceSize &&
      programSize.getInt() != referenceSize.getInt()) {
    InFlightDiagnostic diag =
        emitError(reference.getLoc())
        << "the reference declares comm.world_size = "
        << referenceSize.getInt() << ", but the program "
        << programSize.getInt() << "; both run on the same ranks";
    diag.attachNote(program.getLoc()) << "the program's module";
    return diag;
  }
  return success();
}

OwningOpRef<ModuleOp> Driver::parse(StringRef filename) {
  std::string message;
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(filename, &message);
  if (!file) {
    error(message);
    return nullptr;
  }
  if (failed(checkInputText(*file)))
    return nullptr;
  llvm::SourceMgr fileMgr;
  fileMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(fileMgr, &context);
  if (module)
    locateImplicitModule(*module);
  return module;
}

/// Plans (when options name a topology) and lowers `module` on one
/// PassManager; -v prints the pipeline it runs.
LogicalResult Driver::compile(ModuleOp module, const CompileOptions &options,
                              MutableArrayRef<EntryPoint> tolerances) {
  PassManager pm(&context, ModuleOp::getOperationName());
  buildCompilePipeline(pm, options);
  if (failed(applyPassManagerCLOptions(pm)))
    return failure();
  // --mlir-timing: each pipeline (the program's, the reference's) reports
  // its passes' times when it ends.
  DefaultTimingManager timing;
  applyDefaultTimingManagerCLOptions(timing);
  TimingScope timingScope = timing.getRootScope();
  pm.enableTiming(timingScope);
  if (verbose) {
    llvm::errs() << "comm-compile: running ";
    pm.printAsTextualPipeline(llvm::errs());
    llvm::errs() << "\ncomm-compile: comm-opt --pass-pipeline='";
    printCompilePipeline(options, llvm::errs());
    llvm::errs() << "' replays it\n";
  }
  if (!tolerances.empty())
    pm.addInstrumentation(std::make_unique<ToleranceProbe>(tolerances));
  return pm.run(module);
}

LogicalResult
Driver::writeFile(StringRef path,
                  function_ref<LogicalResult(raw_ostream &)> body) {
  std::string message;
  auto file = openOutputFile(path, &message);
  if (!file) {
    error(message);
    return failure();
  }
  if (failed(body(file->os())))
    return failure();
  // A write that failed (a full disk) is an error of ours, not LLVM's
  // fatal "IO failure" when the stream is destroyed.
  if (llvm::Error failed = keepOutputFile(*file, path)) {
    error(llvm::toString(std::move(failed)));
    return failure();
  }
  step("wrote " + path);
  return success();
}

LogicalResult Driver::execute(ArrayRef<std::string> command) {
  if (verbose) {
    llvm::errs() << "comm-compile: $";
    for (const std::string &arg : command)
      llvm::errs() << " " << arg;
    llvm::errs() << "\n";
  }
  SmallVector<StringRef> args(command.begin(), command.end());
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(command.front(), args, std::nullopt, {}, 0,
                                     0, &message);
  if (rc != 0) {
    error("'" + llvm::join(args, " ") + "' failed" +
          (message.empty() ? " (exit status " + std::to_string(rc) + ")"
                           : ": " + message));
    return failure();
  }
  return success();
}

/// The full path of a compiler, or an error naming what is missing.
static std::optional<std::string> findTool(StringRef name) {
  if (llvm::sys::path::is_absolute(name))
    return llvm::sys::fs::can_execute(name) ? std::optional(name.str())
                                            : std::nullopt;
  if (auto found = llvm::sys::findProgramByName(name))
    return *found;
  return std::nullopt;
}

/// The CUDA runtime's folder: lib64 next to the bin folder of --nvcc.
static std::string getCudaLibDir() {
  SmallString<256> cudaLib(
      llvm::sys::path::parent_path(llvm::sys::path::parent_path(nvcc)));
  llvm::sys::path::append(cudaLib, "lib64");
  return std::string(cudaLib);
}

/// The flags a sanitizer build of comm adds to the code it generates (the
/// runtime it links is instrumented too); empty in an ordinary build.
static void appendGeneratedCodeFlags(std::vector<std::string> &command) {
  SmallVector<StringRef> flags;
  StringRef(COMM_GENERATED_CODE_FLAGS).split(flags, ' ', -1, false);
  for (StringRef flag : flags)
    command.push_back(flag.str());
}

/// Operations of one generated function above which the host compiler is
/// not asked to optimize it by default: g++ -O2 took 140 s on a function of
/// 1,000 collectives and computes (about 15,000 lines; -O1 64 s, -O0 6 s)
/// and did not finish 10,000 in 5 minutes, while the function only calls
/// the runtime.
static constexpr int64_t kMaxOptimizedFunctionOps = 4000;

std::string Driver::getLevelFor(ModuleOp module, StringRef what) {
  if (optLevel.getNumOccurrences())
    return optLevel;
  int64_t most = 0;
  StringRef longest;
  for (auto function : module.getOps<emitc::FuncOp>()) {
    int64_t ops = 0;
    function.walk([&](Operation *) { ++ops; });
    if (ops > most) {
      most = ops;
      longest = function.getSymName();
    }
  }
  if (most <= kMaxOptimizedFunctionOps)
    return optLevel;
  llvm::errs() << "comm-compile: note: the generated " << what << " function "
               << longest << " holds " << most
               << " operations: compiling it at -O0 (optimizing one "
                  "function this long takes the compiler minutes; --opt 2 "
                  "forces it)\n";
  return "0";
}

LogicalResult Driver::compileSource(StringRef source, StringRef object,
                                    bool cuda, StringRef level) {
  std::string opt = level.empty() ? optLevel.getValue() : level.str();
  std::vector<std::string> command;
  if (cuda) {
    auto tool = findTool(nvcc);
    if (!tool) {
      error("the CUDA compiler '" + nvcc +
            "' was not found (install the CUDA toolkit or pass --nvcc)");
      return failure();
    }
    // nvcc takes -O0..-O3 only; the host compiler's other levels (-Og,
    // -Os, -Oz, -Ofast) reach it through -Xcompiler ("nvcc fatal: 'g':
    // expected a number").
    bool numeric = opt.size() == 1 && isdigit(opt[0]);
    command = {*tool, "-std=c++17"};
    if (!numeric)
      command.push_back("-Xcompiler");
    command.push_back("-O" + opt);
    command.insert(command.end(), {"-Xcompiler", "-fPIC"});
    SmallVector<StringRef> archs;
    StringRef(cudaArch).split(archs, ',', -1, false);
    for (StringRef arch : archs) {
      // 90, sm_90, or an architecture-specific 90a / family 100f.
      arch = arch.trim();
      arch.consume_front("sm_");
      StringRef number = arch.drop_back(
          !arch.empty() && (arch.back() == 'a' || arch.back() == 'f'));
      if (number.size() < 2 || !llvm::all_of(number, llvm::isDigit)) {
        error("--cuda-arch takes SM versions like 80,90 (or 90a, sm_90), "
              "not '" +
              cudaArch + "'");
        return failure();
      }
      command.push_back("-gencode=arch=compute_" + arch.str() + ",code=sm_" +
                        arch.str());
    }
  } else {
    auto tool = findTool(cxx);
    if (!tool) {
      error("the C++ compiler '" + cxx + "' was not found (pass --cxx)");
      return failure();
    }
    command = {*tool, "-std=c++17", "-O" + opt, "-fPIC"};
    appendGeneratedCodeFlags(command);
  }
  command.push_back("-I" + runtimeInclude);
  command.push_back("-c");
  command.push_back(source.str());
  command.push_back("-o");
  command.push_back(object.str());
  return execute(command);
}

/// The C declaration of an entry point, for the library's header.
static void declareEntry(const EntryPoint &entry, raw_ostream &os) {
  os << "/// @" << entry.name << ":";
  for (auto [index, t] : llvm::enumerate(entry.inputs))
    os << " arg" << index << " " << t;
  for (auto [index, t] : llvm::enumerate(entry.results))
    os << ", result " << index << " " << t;
  SmallVector<Type> parameters(entry.inputs.begin(), entry.inputs.end());
  llvm::append_range(parameters, entry.results);
  std::vector<std::string> names;
  for (size_t i = 0; i < entry.inputs.size(); ++i)
    names.push_back("arg" + std::to_string(i));
  for (size_t i = 0; i < entry.results.size(); ++i)
    names.push_back("result" + std::to_string(i));
  os << "\n" << getEntryPointPrototype(entry.name, parameters, names) << ";\n";
}

int Driver::run() {
  DialectRegistry registry;
  registerAllDialects(registry);
  context.appendDialectRegistry(registry);
  context.printOpOnDiagnostic(false);
  context.loadAllAvailableDialects();
  bool cuda = isCudaTarget(target);

  OutputKind kind = OutputKind::Executable;
  StringRef extension = llvm::sys::path::extension(outputFilename);
  if (extension == ".o")
    kind = OutputKind::Object;
  else if (extension == ".a")
    kind = OutputKind::Library;
  else if (extension == ".cpp" || extension == ".cu" || extension == ".cc")
    kind = OutputKind::Source;
  else if (extension == ".mlir")
    kind = OutputKind::Mlir;
  // What -o may name but comm-compile does not make: it was written as an
  // executable under that name.
  if (llvm::is_contained({".so", ".dylib", ".dll", ".h", ".hpp", ".c", ".ll",
                          ".bc", ".s", ".ptx", ".cubin", ".fatbin"},
                         extension))
    return error("-o '" + outputFilename + "': comm-compile does not write " +
                 extension +
                 " files; it writes an executable (no extension), an object "
                 "(.o), a static library with its header next to it (.a), "
                 "the generated source (.cpp, .cc, .cu) or the lowered "
                 "EmitC module (.mlir)");
  // The program and its reference are read before anything is written,
  // but -o naming one of them would replace it with what it compiles to.
  for (StringRef read : {StringRef(inputFilename), StringRef(referenceFilename)})
    if (!read.empty() && llvm::sys::fs::equivalent(read, outputFilename))
      return error("-o '" + outputFilename + "' is the program '" + read +
                   "' comm-compile reads: it would be overwritten; name "
                   "another output");
  if (llvm::sys::fs::is_directory(outputFilename))
    return error("-o '" + outputFilename +
                 "' is a directory: name the file to write");
  if (kind == OutputKind::Library) {
    SmallString<256> header(outputFilename);
    llvm::sys::path::replace_extension(header, ".h");
    if (llvm::sys::fs::is_directory(header))
      return error("-o '" + outputFilename + "' writes its header to '" +
                   header + "', which is a directory");
  }
  if (withHarness && kind != OutputKind::Executable)
    return error("--emit-harness makes an executable; -o '" + outputFilename +
                 "' names an object, library or source");
  // The level goes after -O as one argument: a flag or a second word would
  // reach the compiler as something else (--opt=-O3 was -O-O3).
  if (!llvm::is_contained({"0", "1", "2", "3", "s", "z", "fast", "g"},
                          StringRef(optLevel)))
    return error("--opt takes an optimization level: 0, 1, 2, 3, s, z, fast "
                 "or g (it becomes -O<level>), not '" +
                 optLevel + "'");
  if (!referenceFilename.empty() && !withHarness)
    return error("--reference names the program the harness checks "
                 "against; it needs --emit-harness");
  // The source is C++ for the cpu target and CUDA C++ for the cuda ones:
  // a file named for the other would be compiled as the wrong language.
  if (kind == OutputKind::Source && (extension == ".cu") != cuda)
    return error("-o '" + outputFilename + "' names " +
                 (cuda ? "a C++ source, but target "
                       : "a CUDA source, but "
                         "target ") +
                 stringifyTarget(target) + " writes " +
                 (cuda ? "CUDA C++ (name it .cu)" : "C++ (name it .cpp)"));

  step("parsing " + inputFilename);
  OwningOpRef<ModuleOp> module = parse(inputFilename);
  if (!module)
    return 1;

  // The reference is taken before planning: the program as written,
  // without the decisions.
  OwningOpRef<ModuleOp> reference;
  if (withHarness) {
    if (!referenceFilename.empty()) {
      step("parsing the reference " + referenceFilename);
      reference = parse(referenceFilename);
      if (!reference)
        return 1;
    } else {
      reference = module->clone();
    }
    makeReference(*reference, kReferencePrefix);
  }

  // A plan names what its backend realizes and was timed on it: compiled
  // for another, it would run what the planner never chose among.
  if (auto recorded = (*module)->getAttrOfType<StringAttr>(
          CommDialect::getBackendAttrName())) {
    Backend targetBackend = getBackend(target);
    if (recorded.getValue() != stringifyBackend(targetBackend)) {
      // The verifier took only a backend's name; one target calls each.
      Backend planned = *symbolizeBackend(recorded.getValue());
      StringRef plannedTarget = llvm::find_if(kTargets, [&](auto &info) {
                                  return info.backend == planned;
                                })->name;
      (*module)->emitError()
          << "the program was planned for the " << recorded.getValue()
          << " backend (its " << CommDialect::getBackendAttrName()
          << "), but --target " << stringifyTarget(target) << " calls "
          << stringifyBackend(targetBackend) << ": compile it with --target "
          << plannedTarget
          << ", or plan the program from before that plan "
             "with comm-plan's backend="
          << stringifyBackend(targetBackend);
      return 1;
    }
  }

  CompileOptions options;
  options.target = target;
  options.topology = topology;
  options.costParams = costParams;
  options.strategy = strategy;
  if (options.topology.empty())
    options.topology = getTopologySpec(*module);
  if (options.topology.empty() && target == Target::cpu_mpi) {
    // cpu-mpi code runs as processes of one machine: plan for it.
    options.topology = "host";
    if (auto size = (*module)->getAttrOfType<IntegerAttr>("comm.world_size"))
      if (size.getInt() > 4 && size.getInt() <= 4096)
        options.topology = "host" + std::to_string(size.getInt());
  }
  if (options.topology.empty()) {
    // What only planning reads would be dropped without a word.
    for (const cl::Option *option :
         {static_cast<const cl::Option *>(&strategy),
          static_cast<const cl::Option *>(&costParams)})
      if (option->getNumOccurrences())
        return error("--" + option->ArgStr.str() +
                     " is read by planning, but there is no --topology "
                     "and no comm.topology attribute to plan for (the " +
                     stringifyTarget(target).str() +
                     " target is otherwise lowered as written)");
    step("no --topology and no comm.topology attribute: planning skipped");
  }

  // Planning keeps the signatures: the entry points are the program's.
  FailureOr<std::vector<EntryPoint>> entries =
      collectEntryPoints(*module, kind == OutputKind::Executable);
  if (failed(entries))
    return 1;
  if (withHarness && !referenceFilename.empty() &&
      failed(checkReference(*module, *entries, *reference)))
    return 1;
  step((options.topology.empty()
            ? "lowering for "
            : "planning for " + options.topology + " (strategy " +
                  stringifyStrategy(strategy).str() + ") and lowering for ") +
       stringifyTarget(target));
  if (failed(compile(*module, options, *entries)))
    return 1;

  if (kind == OutputKind::Mlir)
    return failed(writeFile(outputFilename,
                            [&](raw_ostream &os) {
                              module->print(os);
                              return success();
                            }))
               ? 1
               : 0;
  if (kind == OutputKind::Source)
    return failed(writeFile(outputFilename,
                            [&](raw_ostream &os) {
                              return translateCommToCpp(*module, os);
                            }))
               ? 1
               : 0;

  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("comm-compile", tempDir))
    return error("cannot create a temporary folder: " + ec.message());
  llvm::scope_exit cleanup([&]() {
    if (keepTemps)
      llvm::errs() << "comm-compile: kept the generated files in " << tempDir
                   << "\n";
    else
      llvm::sys::fs::remove_directories(tempDir);
  });

  std::string ext = cuda ? ".cu" : ".cpp";
  std::string programSource = temp("program" + ext);
  if (failed(writeFile(programSource, [&](raw_ostream &os) {
        return translateCommToCpp(*module, os);
      })))
    return 1;
  std::vector<std::string> objects;
  objects.push_back(temp("program.o"));
  if (failed(compileSource(programSource, objects.back(), cuda,
                           getLevelFor(*module, "program's"))))
    return 1;

  if (kind == OutputKind::Object) {
    std::error_code ec =
        llvm::sys::fs::copy_file(objects.back(), outputFilename);
    if (ec)
      return error("cannot write " + outputFilename + ": " + ec.message());
    step("wrote " + outputFilename);
    return 0;
  }

  if (kind == OutputKind::Library) {
    auto ar = findTool("ar");
    if (!ar)
      return error("'ar' was not found (apt-get install binutils)");
    llvm::sys::fs::remove(outputFilename);
    if (failed(execute({*ar, "rcs", outputFilename, objects.back()})))
      return 1;
    SmallString<256> header(outputFilename);
    llvm::sys::path::replace_extension(header, ".h");
    // The file's name and a hash of what it declares: two libraries of one
    // name from two programs (a/libp.h, b/libp.h) hid each other.
    std::string declared = inputFilename;
    for (const EntryPoint &entry : *entries)
      declared += "," + entry.name;
    std::string guard =
        "COMM_" + llvm::sys::path::stem(header).upper() + "_" +
        llvm::utohexstr(llvm::xxh3_64bits(declared) & 0xffffffff) + "_H";
    for (char &c : guard)
      if (!llvm::isAlnum(c))
        c = '_';
    if (failed(writeFile(header, [&](raw_ostream &os) {
          std::optional<int64_t> world = getWorldSize(*module);
          os << "/* Generated by comm-compile from " << inputFilename
             << " (target " << stringifyTarget(target) << ").\n"
             << " * Compile with -I" << runtimeInclude << "; link with -L"
             << runtimeLib << " -Wl,-rpath," << runtimeLib << " -lcommrt"
             << (cuda ? " -L" + getCudaLibDir() + " -lcudart" : "")
             << " -lstdc++\n * (the code is C++).\n"
             << " * Call commrt_init first and pass its context"
             << (world ? ", on " + std::to_string(*world) +
                             " ranks (comm.world_size)"
                       : std::string())
             << "; commrt_finalize\n * releases what the calls kept. "
             << "Buffers are " << (cuda ? "device memory" : "host memory")
             << "; an output may not alias an input.\n"
             << " * Each call returns a commrt_status (0 on success; "
                "comm_last_error() says what\n * failed); under the default "
                "error policy a timeout or a failure on another\n * rank "
                "ends the job instead (commrt_set_error_policy). A "
                "comm.compute\n * calls comm_compute_<name>(const "
                "comm_compute_args *) where one is linked\n * (commrt_gen.h, "
                "docs/Lowering.md), else a stand-in. */\n"
             << "#ifndef " << guard << "\n#define " << guard << "\n\n"
             << "#include \"commrt.h\"\n\n#ifdef __cplusplus\nextern \"C\" "
                "{\n#endif\n\n";
          for (const EntryPoint &entry : *entries)
            declareEntry(entry, os);
          os << "\n/// The message of the last failed call.\nconst char "
                "*comm_last_error(void);\n\n#ifdef __cplusplus\n}\n#endif\n\n"
             << "#endif /* " << guard << " */\n";
          return success();
        })))
      return 1;
    step("wrote " + outputFilename + " and " + header);
    return 0;
  }

  // An executable: the harness main, with the reference when checking.
  HarnessOptions harness;
  harness.target = target;
  harness.programName = llvm::sys::path::filename(inputFilename).str();
  if (auto size = (*module)->getAttrOfType<IntegerAttr>("comm.world_size"))
    harness.worldSize = size.getInt();
  if (withHarness) {
    harness.referencePrefix = kReferencePrefix;
    step("lowering the reference for " + stringifyTarget(target));
    // Both sides round: a bf16 all_reduce checked against the sends and
    // local sums it was decomposed into differs by the rounding of either
    // order of summation, so each entry allows the larger of the two
    // programs' tolerances.
    std::vector<EntryPoint> referenceEntries = *entries;
    for (EntryPoint &entry : referenceEntries)
      entry.name = (kReferencePrefix + entry.name).str();
    setEntryTolerances(*reference, referenceEntries);
    for (auto [entry, ref] : llvm::zip(*entries, referenceEntries)) {
      entry.rtol = std::max(entry.rtol, ref.rtol);
      entry.atol = std::max(entry.atol, ref.atol);
    }
    CompileOptions referenceOptions;
    referenceOptions.target = target;
    if (failed(compile(*reference, referenceOptions)))
      return 1;
    std::string referenceSource = temp("reference" + ext);
    if (failed(writeFile(referenceSource, [&](raw_ostream &os) {
          return translateCommToCpp(*reference, os);
        })))
      return 1;
    objects.push_back(temp("reference.o"));
    if (failed(compileSource(referenceSource, objects.back(), cuda,
                             getLevelFor(*reference, "reference's"))))
      return 1;
  }
  std::string harnessSource = temp("harness.cpp");
  if (failed(writeFile(harnessSource, [&](raw_ostream &os) {
        comm::emitHarness(*entries, harness, os);
        return success();
      })))
    return 1;
  objects.push_back(temp("harness.o"));
  if (failed(compileSource(harnessSource, objects.back(), false)))
    return 1;

  auto linker = findTool(cxx);
  if (!linker)
    return error("the C++ compiler '" + cxx + "' was not found (pass --cxx)");
  std::vector<std::string> link = {*linker};
  link.insert(link.end(), objects.begin(), objects.end());
  link.push_back("-o");
  link.push_back(outputFilename);
  link.push_back("-L" + runtimeLib);
  link.push_back("-Wl,-rpath," + runtimeLib);
  link.push_back("-lcommrt");
  appendGeneratedCodeFlags(link);
  if (cuda) {
    std::string cudaLib = getCudaLibDir();
    link.push_back("-L" + cudaLib);
    link.push_back("-Wl,-rpath," + cudaLib);
    link.push_back("-lcudart");
  }
  if (failed(execute(link)))
    return 1;
  step("wrote " + outputFilename);
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  mlir::comm::registerCommVersionPrinter();
  registerAllPasses();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "comm-compile: compile a comm program ahead of time\n\n"
      "Plans the program for --topology and lowers it to C++ (cpu-mpi) or\n"
      "CUDA (cuda-nccl, cuda-verbs) calling the commrt runtime, on one pass\n"
      "pipeline (comm-plan, then comm-lower-to-emitc; -v prints it, and\n"
      "MLIR's --mlir-print-ir-after-all shows every step), then compiles\n"
      "the result and links it with libcommrt. -o picks what is written: an "
      "executable\n"
      "(a harness main that runs every public function; with --emit-harness\n"
      "it also checks the results), an object (.o), a static library plus a\n"
      "header with one C entry point per public function (.a), or the\n"
      "generated source (.cpp/.cu), or the lowered EmitC module (.mlir).\n\n"
      "  comm-compile step.mlir --topology dgx-h100x4 --target cpu-mpi \\\n"
      "      --emit-harness -o step && mpirun -np 4 ./step\n");
  Driver driver;
  return driver.run();
}
