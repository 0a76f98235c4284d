//===- CommToEmitCPass.cpp - the convert-comm-to-emitc pass -----*- C++ -*-===//
//
// Lowers a bufferized comm program (comm-bufferize, then
// buffer-results-to-out-params) to EmitC with the patterns of
// CommToEmitC.cpp and the upstream func, scf and arith conversions. Checks
// first that the program can run on the target's backend (the one algorithm
// table), then gives each public function an `extern "C"` entry point
// taking the commrt_context first.
//
//===----------------------------------------------------------------------===//

#include "comm/Conversion/CommToEmitC/CommToEmitC.h"
#include "comm/Conversion/Passes.h"
#include "comm/Dialect/Comm/IR/CommAlgorithms.h"
#include "comm/Dialect/Comm/IR/CommOps.h"
#include "comm/Support/CNames.h"
#include "mlir/Conversion/ArithToEmitC/ArithToEmitC.h"
#include "mlir/Conversion/FuncToEmitC/FuncToEmitC.h"
#include "mlir/Conversion/SCFToEmitC/SCFToEmitC.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/StringSet.h"

namespace mlir {
namespace comm {
#define GEN_PASS_DEF_CONVERTCOMMTOEMITC
#include "comm/Conversion/Passes.h.inc"
} // namespace comm
} // namespace mlir

using namespace mlir;
using namespace mlir::comm;

/// The prefix of the generated function that holds a comm function's body.
static constexpr llvm::StringLiteral kImplPrefix = "comm_impl_";

/// Checks that \p op can run on the target's backend at all: verbs carries
/// point to point only, so a collective there is an error now rather than
/// at run time.
static LogicalResult checkBackend(Operation *op, Target target) {
  std::optional<CollectiveKind> kind = getCollectiveKind(op);
  Backend backend = getBackend(target);
  if (!kind || isCarriedBy(*kind, backend))
    return success();
  InFlightDiagnostic diag = op->emitError();
  std::string message;
  llvm::raw_string_ostream os(message);
  describeNotCarried(getTransferName(op), backend, os);
  return diag << message << "; compile for "
              << (isCudaTarget(target) ? "cuda-nccl" : "cpu-mpi")
              << ", or write the collective as sends and receives";
}

/// Checks that the plan of \p op names an algorithm the target's backend
/// realizes, with channels its schedules run.
/// Whether the runtime refuses to convert elements of type `from` to `to`:
/// f64 to a 16-bit float would round twice, through f32 (canConvert in
/// runtime/lib/Kernels.cpp).
static bool roundsTwice(Type from, Type to) {
  return from.isF64() && isa<Float16Type, BFloat16Type>(to);
}

/// A pack of f64 pieces into a 16-bit buffer, which the runtime refuses
/// (an unpack the other way widens, which it does).
static LogicalResult checkConversions(Operation *op) {
  auto pack = dyn_cast<BufferPackOp>(op);
  if (!pack)
    return success();
  Type buffer = getElementTypeOrSelf(pack.getTarget().getType());
  for (Value input : pack.getInputs())
    if (roundsTwice(getElementTypeOrSelf(input.getType()), buffer))
      return op->emitError()
             << "comm.pack of f64 data into a " << buffer
             << " buffer: the runtime converts f64 to a 16-bit type only "
                "through f32 (rounding twice) and refuses it; pack into f32";
  return success();
}

static LogicalResult checkPlan(Operation *op, Target target) {
  auto plan = op->getAttrOfType<PlanAttr>("plan");
  std::optional<CollectiveKind> kind = getCollectiveKind(op);
  Backend backend = getBackend(target);
  if (plan && plan.getRoute() && kind) {
    if (!isRouteRealized(*plan.getRoute(), backend)) {
      std::string message;
      llvm::raw_string_ostream os(message);
      describeUnrealizedRoute(getTransferName(op), *plan.getRoute(), backend,
                              os);
      return op->emitError() << message;
    }
    // On verbs a host-staged transfer's buffers are in host memory, where
    // comm-route's copies put them.
    if (*plan.getRoute() == Route::host_staged && backend == Backend::verbs)
      for (Value buffer : op->getOperands())
        if (getRecordedSpace(buffer).value_or(MemorySpace::hbm) ==
            MemorySpace::hbm)
          return op->emitError()
                 << "plan route 'host_staged' of comm." << getTransferName(op)
                 << " needs its buffers in pinned host memory on the verbs "
                    "backend; run comm-route (backend=verbs) before "
                    "comm-bufferize to stage them";
  }
  if (plan && plan.getPrecision() &&
      getCommrtDtypeName(plan.getPrecision()).empty())
    return op->emitError()
           << "plan precision " << plan.getPrecision() << " of comm."
           << getTransferName(op)
           << " is not one the runtime carries data in (f32, f64, f16, bf16); "
              "the simulator times it, but it cannot be compiled";
  if (plan && plan.getPrecision())
    for (Type operand : op->getOperandTypes())
      if (roundsTwice(getElementTypeOrSelf(operand), plan.getPrecision()))
        return op->emitError()
               << "plan precision " << plan.getPrecision() << " of comm."
               << getTransferName(op) << " would carry f64 data in a 16-bit "
               << "type, which the runtime converts through f32 (rounding "
                  "twice) and refuses; use precision = f32";
  if (!plan || !plan.getAlgorithm() || !kind)
    return success();
  if (!isRealized(*kind, *plan.getAlgorithm(), backend)) {
    std::string message;
    llvm::raw_string_ostream os(message);
    describeUnrealized(*kind, getTransferName(op), *plan.getAlgorithm(),
                       backend, os);
    return op->emitError() << message;
  }
  // The plan's channels and chunks are within the runtime's limits: the
  // verifier checks them (getMaxPlanChannels).
  return success();
}

/// Checks that the module is in the form this pass lowers, with a located
/// error for the first thing that is not.
static LogicalResult checkInput(ModuleOp module, Target target) {
  // A transfer of elements the runtime has no type for (a bool mask
  // all-reduced in JAX) is named at the transfer: the walk below meets the
  // buffer first, at the compute that made it.
  WalkResult moved = module.walk([&](Operation *op) -> WalkResult {
    if (!isa<BufferAllReduceOp, BufferReduceScatterOp, BufferAllGatherOp,
             BufferAllToAllOp, BufferBroadcastOp, BufferReduceOp,
             BufferPermuteOp, BufferCopyOp, BufferSendOp, BufferRecvOp>(op))
      return WalkResult::advance();
    for (Type type : op->getOperandTypes()) {
      auto memref = dyn_cast<MemRefType>(type);
      if (!memref || !getCommrtDtypeName(memref.getElementType()).empty())
        continue;
      return op->emitError()
             << "moves " << memref.getElementType()
             << " elements, which commrt has no type for (f32, f64, f16, "
                "bf16, i8, i32, i64); convert them before the transfer (a "
                "JAX bool: x.astype(jnp.int8))";
    }
    return WalkResult::advance();
  });
  if (moved.wasInterrupted())
    return failure();
  // Each compute's kernel is comm_compute_<name> with every character
  // but letters and digits made '_': two names that become one symbol
  // would run one kernel (a program's own for both).
  llvm::StringMap<BufferComputeOp> bySymbol;
  WalkResult symbols = module.walk([&](BufferComputeOp op) -> WalkResult {
    auto [it, inserted] =
        bySymbol.try_emplace(getComputeSymbol(op.getName()), op);
    if (inserted || it->second.getName() == op.getName())
      return WalkResult::advance();
    InFlightDiagnostic diag =
        op.emitError() << "compute \"" << op.getName() << "\" calls "
                       << it->first() << ", as \"" << it->second.getName()
                       << "\" does: a program's kernels are named "
                          "comm_compute_<name> with every character but "
                          "letters and digits made '_', so the two would run "
                          "one kernel; rename one";
    diag.attachNote(it->second.getLoc()) << "the other compute";
    return WalkResult::interrupt();
  });
  if (symbols.wasInterrupted())
    return failure();
  WalkResult result = module.walk([&](Operation *op) -> WalkResult {
    if (failed(checkBackend(op, target)) || failed(checkPlan(op, target)) ||
        failed(checkConversions(op)))
      return WalkResult::interrupt();
    if (isa<AllReduceOp, ReduceScatterOp, AllGatherOp, AllToAllOp, BroadcastOp,
            ReduceOp, PermuteOp, SendOp, RecvOp, CopyOp, PackOp, UnpackOp,
            ComputeOp>(op))
      return op->emitError()
             << "convert-comm-to-emitc expects buffers; run comm-bufferize "
                "first";
    if (auto call = dyn_cast<func::CallOp>(op)) {
      auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
          op, call.getCalleeAttr());
      if (callee && callee.isExternal())
        return op->emitError()
               << "calls @" << call.getCallee()
               << ", which the module declares but does not define; a "
                  "compiled program runs the functions of its module only "
                  "(write the work as comm.compute, whose kernel a program "
                  "links as comm_compute_<name>)";
    }
    if (auto function = dyn_cast<func::FuncOp>(op)) {
      if (!function.isExternal()) {
        std::string why =
            whyNotCName(function.getSymName(), function.isPublic());
        if (!why.empty())
          return op->emitError()
                 << "function @" << function.getSymName()
                 << " cannot be compiled: its name " << why << "; rename it";
      }
      // A declaration is not compiled: a call to it is the error (below),
      // and buffer-results-to-out-params leaves its results as they are.
      if (!function.isExternal() && function.getNumResults() != 0)
        return op->emitError()
               << "convert-comm-to-emitc expects functions without results; "
                  "run buffer-results-to-out-params first";
      for (Type type : function.getArgumentTypes()) {
        auto memref = dyn_cast<MemRefType>(type);
        if (memref && !isLowerableBuffer(memref))
          return op->emitError()
                 << "argument of type " << type
                 << " cannot be lowered: buffers need a static shape, the "
                    "identity layout and an element type commrt knows (f32, "
                    "f64, f16, bf16, i8, i32, i64)";
        if (!memref && getCTypeName(type).empty())
          return op->emitError() << "argument of type " << type
                                 << " cannot be passed to a C entry point";
      }
    }
    for (Value result : op->getResults())
      if (auto memref = dyn_cast<MemRefType>(result.getType());
          memref && !isLowerableBuffer(memref))
        return op->emitError()
               << "buffer of type " << memref
               << " cannot be lowered: buffers need a static shape, the "
                  "identity layout and an element type commrt knows (f32, "
                  "f64, f16, bf16, i8, i32, i64)";
    if (auto start = dyn_cast<StartOp>(op)) {
      if (start.getYield() && !start.getYield().getValues().empty())
        return op->emitError()
               << "convert-comm-to-emitc expects the bufferized comm.start, "
                  "which yields nothing; run comm-bufferize first";
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// Renames every function with a body to comm_impl_<name> and returns the
/// public ones, which get C entry points under their own names.
static SmallVector<func::FuncOp> renameBodies(ModuleOp module) {
  SmallVector<func::FuncOp> entries;
  SymbolTable symbols(module);
  for (auto function :
       llvm::make_early_inc_range(module.getOps<func::FuncOp>())) {
    if (function.isExternal())
      continue;
    if (function.isPublic())
      entries.push_back(function);
    std::string name = (kImplPrefix + function.getSymName()).str();
    if (failed(symbols.rename(function,
                              StringAttr::get(module.getContext(), name))))
      function.emitError() << "cannot rename to " << name;
  }
  return entries;
}

/// The `extern "C"` entry point of a public function of a program for
/// `worldSize` ranks (0: not declared).
static std::string entryPoint(StringRef name, FunctionType type,
                              int64_t worldSize) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "/// Entry point of @" << name
     << ". Returns COMMRT_SUCCESS or the status of the first failure; "
        "comm_last_error() says what failed.\n";
  os << "extern \"C\" " << getEntryPointPrototype(name, type.getInputs());
  os << " {\n  return commgen::entry(ctx, \"" << name << "\", [&]() {\n    "
     << kImplPrefix << name << "(";
  for (size_t index = 0; index < type.getNumInputs(); ++index)
    os << (index ? ", " : "") << "arg" << index;
  os << ");\n  }";
  if (worldSize > 0)
    os << ", " << worldSize;
  os << ");\n}";
  return text;
}

namespace {
struct ConvertCommToEmitCPass
    : public comm::impl::ConvertCommToEmitCBase<ConvertCommToEmitCPass> {
  using ConvertCommToEmitCBase::ConvertCommToEmitCBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    if (failed(checkInput(module, target)))
      return signalPassFailure();

    CommToEmitCState state(target);
    std::string kernels = state.cuda ? getCudaKernelLists(module) : "";
    prepareCommToEmitCAsyncBodies(module, state);
    markCommToEmitCP2pRuns(module, state);

    // Entry points are emitted after the functions, so remember them now.
    SmallVector<std::pair<std::string, FunctionType>> entries;
    for (func::FuncOp function : renameBodies(module))
      entries.push_back(
          {function.getSymName().drop_front(kImplPrefix.size()).str(),
           function.getFunctionType()});
    llvm::StringSet<> computeNames;
    module.walk([&](BufferComputeOp op) { computeNames.insert(op.getName()); });

    TypeConverter converter;
    populateCommToEmitCTypeConversions(converter);
    ConversionTarget conversionTarget(*ctx);
    conversionTarget.addLegalDialect<emitc::EmitCDialect>();
    conversionTarget.addIllegalDialect<CommDialect, memref::MemRefDialect,
                                       func::FuncDialect, scf::SCFDialect,
                                       arith::ArithDialect>();
    conversionTarget.addLegalOp<ModuleOp>();

    RewritePatternSet patterns(ctx);
    populateCommToEmitCPatterns(converter, patterns, state);
    populateFuncToEmitCPatterns(converter, patterns);
    populateArithToEmitCPatterns(converter, patterns);
    populateSCFToEmitCConversionPatterns(patterns, converter);
    if (failed(
            applyFullConversion(module, conversionTarget, std::move(patterns))))
      return signalPassFailure();

    // Bodies are internal; the C entry points below are the interface.
    for (auto function : module.getOps<emitc::FuncOp>())
      if (!function.isExternal())
        function.setSpecifiersAttr(
            ArrayAttr::get(ctx, {StringAttr::get(ctx, "static")}));

    OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
    if (state.cuda)
      emitc::VerbatimOp::create(builder, module.getLoc(),
                                builder.getStringAttr(kernels));
    emitc::IncludeOp::create(builder, module.getLoc(),
                             builder.getStringAttr(state.cuda
                                                       ? "commrt_gen_cuda.cuh"
                                                       : "commrt_gen.h"),
                             UnitAttr());
    for (const auto &name : computeNames)
      emitc::VerbatimOp::create(
          builder, module.getLoc(),
          builder.getStringAttr("extern \"C\" __attribute__((weak)) void " +
                                getComputeSymbol(name.getKey()) +
                                "(const comm_compute_args *);"));
    // Every body is declared before the first one, so that a function may
    // call one defined after it (C++ needs the prototype first).
    SmallVector<emitc::FuncOp> bodies;
    for (auto function : module.getOps<emitc::FuncOp>())
      if (!function.isExternal())
        bodies.push_back(function);
    if (!bodies.empty()) {
      builder.setInsertionPoint(bodies.front());
      for (emitc::FuncOp function : bodies)
        emitc::DeclareFuncOp::create(builder, function.getLoc(),
                                     function.getSymNameAttr());
    }
    builder.setInsertionPointToEnd(module.getBody());
    int64_t worldSize = getWorldSize(module).value_or(0);
    for (auto &[name, type] : entries)
      emitc::VerbatimOp::create(
          builder, module.getLoc(),
          builder.getStringAttr(entryPoint(name, type, worldSize)));
    if (!entries.empty())
      emitc::VerbatimOp::create(
          builder, module.getLoc(),
          builder.getStringAttr(
              "/// The message of the last failed entry point call.\n"
              "extern \"C\" __attribute__((weak)) const char "
              "*comm_last_error(void) {\n  return "
              "commgen::lastErrorStorage().c_str();\n}"));
    // What the program was lowered for, for the translator and the harness.
    module->setAttr(CommDialect::getTargetAttrName(),
                    StringAttr::get(ctx, stringifyTarget(target)));
  }
};
} // namespace
