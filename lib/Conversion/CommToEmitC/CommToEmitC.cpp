//===- CommToEmitC.cpp - bufferized comm to EmitC calls ---------*- C++ -*-===//
//
// Lowers a bufferized comm program (comm-bufferize, then
// buffer-results-to-out-params) to EmitC: every comm.buffer.* op becomes a
// call of the helpers in commrt_gen.h, which call the commrt C ABI; memref
// allocations go through the runtime; func, scf and arith go through the
// upstream EmitC conversions. Each public function gets an `extern "C"`
// entry point taking the commrt_context first.
//
//===----------------------------------------------------------------------===//

#include "comm/Conversion/CommToEmitC.h"
#include "comm/Conversion/Passes.h"
#include "comm/Dialect/Comm/IR/CommOps.h"
#include "mlir/Conversion/ArithToEmitC/ArithToEmitC.h"
#include "mlir/Conversion/FuncToEmitC/FuncToEmitC.h"
#include "mlir/Conversion/SCFToEmitC/SCFToEmitC.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/EmitC/Transforms/TypeConversions.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

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

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

StringRef mlir::comm::getCommrtDtypeName(Type type) {
  if (type.isF32())
    return "COMMRT_F32";
  if (type.isF64())
    return "COMMRT_F64";
  if (type.isF16())
    return "COMMRT_F16";
  if (type.isBF16())
    return "COMMRT_BF16";
  if (type.isSignlessInteger(8))
    return "COMMRT_I8";
  if (type.isSignlessInteger(32))
    return "COMMRT_I32";
  if (type.isSignlessInteger(64))
    return "COMMRT_I64";
  return "";
}

/// The C type that holds one element of a buffer.
static Type cElementType(Type type) {
  if (type.isF16() || type.isBF16())
    return emitc::OpaqueType::get(type.getContext(), "uint16_t");
  return type;
}

std::string mlir::comm::quoteCString(StringRef text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string mlir::comm::getCTypeName(Type type) {
  if (type.isF32())
    return "float";
  if (type.isF64())
    return "double";
  if (type.isF16() || type.isBF16())
    return "uint16_t";
  if (type.isIndex())
    return "size_t";
  if (type.isSignlessInteger(1))
    return "bool";
  if (auto integer = dyn_cast<IntegerType>(type))
    return "int" + std::to_string(integer.getWidth()) + "_t";
  return "";
}

static bool isSupportedBuffer(MemRefType type) {
  return type.hasStaticShape() && type.getLayout().isIdentity() &&
         !getCommrtDtypeName(type.getElementType()).empty();
}

namespace {
class CommTypeConverter : public TypeConverter {
public:
  explicit CommTypeConverter(MLIRContext *ctx) {
    addConversion([](Type type) { return type; });
    populateEmitCSizeTTypeConversions(*this);
    addConversion([](MemRefType type) -> std::optional<Type> {
      if (!isSupportedBuffer(type))
        return std::nullopt;
      return emitc::PointerType::get(cElementType(type.getElementType()));
    });
    addConversion([ctx](TokenType) -> Type {
      return emitc::PointerType::get(
          emitc::OpaqueType::get(ctx, "commgen::Async"));
    });
    auto cast = [](OpBuilder &builder, Type type, ValueRange inputs,
                   Location loc) -> Value {
      return UnrealizedConversionCastOp::create(builder, loc, type, inputs)
          .getResult(0);
    };
    addSourceMaterialization(cast);
    addTargetMaterialization(cast);
  }
};

/// What the patterns share: the target's default memory space and the
/// comm.start each op of an async body belonged to.
struct LoweringState {
  StringRef defaultSpace;
  /// Ops moved out of a comm.start body -> the async handle of that start.
  llvm::DenseMap<Operation *, Value> asyncOf;
  /// comm.start -> its async handle.
  llvm::DenseMap<Operation *, Value> startHandle;
  bool cuda = false;
};

/// Builds the argument list of a helper call: literals and operand indices.
class CallBuilder {
public:
  CallBuilder(ConversionPatternRewriter &rewriter, Operation *op,
              const LoweringState &state)
      : rewriter(rewriter), op(op), state(state) {}

  CallBuilder &operand(Value value) {
    args.push_back(rewriter.getIndexAttr(operands.size()));
    operands.push_back(value);
    return *this;
  }
  CallBuilder &literal(StringRef text) {
    args.push_back(emitc::OpaqueAttr::get(rewriter.getContext(), text));
    return *this;
  }
  CallBuilder &integer(int64_t value) {
    args.push_back(rewriter.getI64IntegerAttr(value));
    return *this;
  }
  CallBuilder &real(double value) {
    args.push_back(rewriter.getF64FloatAttr(value));
    return *this;
  }
  /// The async handle of the enclosing comm.start, or nullptr.
  CallBuilder &async() {
    auto it = state.asyncOf.find(op);
    if (it == state.asyncOf.end())
      return literal("nullptr");
    return operand(it->second);
  }
  /// A C string literal with the op's source location.
  CallBuilder &location() {
    return literal(quoteCString(locationText(op->getLoc())));
  }
  CallBuilder &ranks(ReplicaGroupsAttr groups) {
    std::string text = "COMMGEN_RANKS(" + std::to_string(groups.getGroupSize());
    for (int64_t rank : groups.getRanks())
      text += ", " + std::to_string(rank);
    return literal(text + ")");
  }
  CallBuilder &pairs(ArrayRef<int64_t> flat) {
    std::string text = "COMMGEN_PAIRS(";
    llvm::raw_string_ostream os(text);
    llvm::interleaveComma(flat, os);
    return literal(text + ")");
  }

  emitc::CallOpaqueOp call(StringRef callee, TypeRange results = {},
                           ArrayRef<Attribute> templateArgs = {}) {
    return emitc::CallOpaqueOp::create(
        rewriter, op->getLoc(), results, callee, operands,
        rewriter.getArrayAttr(args),
        templateArgs.empty() ? ArrayAttr()
                             : rewriter.getArrayAttr(templateArgs));
  }

  static std::string locationText(Location loc) {
    if (auto fused = dyn_cast<FusedLoc>(loc))
      if (!fused.getLocations().empty())
        return locationText(fused.getLocations().front());
    if (auto name = dyn_cast<NameLoc>(loc))
      return locationText(name.getChildLoc());
    if (auto callSite = dyn_cast<CallSiteLoc>(loc))
      return locationText(callSite.getCallee());
    if (auto file = dyn_cast<FileLineColLoc>(loc))
      return (file.getFilename().getValue() + ":" + Twine(file.getLine()) +
              ":" + Twine(file.getColumn()))
          .str();
    return "<unknown location>";
  }

private:
  ConversionPatternRewriter &rewriter;
  Operation *op;
  const LoweringState &state;
  SmallVector<Attribute> args;
  SmallVector<Value> operands;
};

int64_t numElements(Value buffer) {
  return cast<MemRefType>(buffer.getType()).getNumElements();
}

Type elementOf(Value buffer) {
  return cast<MemRefType>(buffer.getType()).getElementType();
}

/// The wire dtype of a plan (its precision), or the data's own.
StringRef wireOf(PlanAttr plan, Type element) {
  if (plan && plan.getPrecision())
    return getCommrtDtypeName(plan.getPrecision());
  return getCommrtDtypeName(element);
}

/// The commgen::Plan of a plan: algorithm, channels, chunk bytes.
std::string planOf(PlanAttr plan) {
  std::string algorithm = "COMMRT_ALGORITHM_DEFAULT";
  int64_t channels = 0, chunk = 0;
  if (plan && plan.getAlgorithm())
    algorithm =
        "COMMRT_ALGORITHM_" + stringifyAlgorithm(*plan.getAlgorithm()).upper();
  if (plan && plan.getChannels())
    channels = *plan.getChannels();
  if (plan && plan.getChunkBytes())
    chunk = *plan.getChunkBytes();
  return llvm::formatv("commgen::Plan{{{0}, {1}, {2}}", algorithm, channels,
                       chunk)
      .str();
}

int64_t streamOf(PlanAttr plan) {
  if (plan && plan.getStream())
    return *plan.getStream();
  return -1;
}

StringRef redopOf(ReductionKind kind) {
  switch (kind) {
  case ReductionKind::sum:
    return "COMMRT_SUM";
  case ReductionKind::prod:
    return "COMMRT_PROD";
  case ReductionKind::min:
    return "COMMRT_MIN";
  case ReductionKind::max:
    return "COMMRT_MAX";
  case ReductionKind::avg:
    return "COMMRT_AVG";
  case ReductionKind::band:
    return "COMMRT_BAND";
  case ReductionKind::bor:
    return "COMMRT_BOR";
  case ReductionKind::bxor:
    return "COMMRT_BXOR";
  }
  llvm_unreachable("unknown reduction kind");
}

StringRef spaceOf(MemorySpace space) {
  switch (space) {
  case MemorySpace::hbm:
    return "COMMRT_HBM";
  case MemorySpace::host:
    return "COMMRT_HOST";
  case MemorySpace::pinned_host:
    return "COMMRT_PINNED_HOST";
  }
  llvm_unreachable("unknown memory space");
}

/// The memory space of a buffer: the one comm-bufferize recorded on its
/// allocation, or the target's default. On the cpu target every buffer is
/// host memory.
StringRef spaceOfBuffer(Value buffer, const LoweringState &state) {
  if (!state.cuda)
    return "COMMRT_HOST";
  if (Operation *def = buffer.getDefiningOp())
    if (auto space = def->getAttrOfType<MemorySpaceAttr>(
            CommDialect::getSpaceAttrName()))
      return spaceOf(space.getValue());
  return state.defaultSpace;
}

/// Product of the dimensions of `shape` before `dim`.
int64_t outerElements(ArrayRef<int64_t> shape, int64_t dim) {
  int64_t outer = 1;
  for (int64_t i = 0; i < dim; ++i)
    outer *= shape[i];
  return outer;
}

template <typename Op> struct CommPattern : public OpConversionPattern<Op> {
  CommPattern(const TypeConverter &converter, MLIRContext *ctx,
              const LoweringState &state)
      : OpConversionPattern<Op>(converter, ctx), state(state) {}
  const LoweringState &state;
};

struct AllReduceLowering : CommPattern<BufferAllReduceOp> {
  using CommPattern::CommPattern;
  LogicalResult
  matchAndRewrite(BufferAllReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type element = elementOf(op.getSource());
    CallBuilder(rewriter, op, state)
        .async()
        .ranks(op.getGroups())
        .operand(adaptor.getSource())
        .operand(adaptor.getTarget())
        .integer(numElements(op.getSource()))
        .literal(getCommrtDtypeName(element))
        .literal(wireOf(op.getPlanAttr(), element))
        .literal(redopOf(op.getKind()))
        .literal(planOf(op.getPlanAttr()))
        .literal(spaceOfBuffer(op.getTarget(), state))
        .integer(streamOf(op.getPlanAttr()))
        .location()
        .call("commgen::all_reduce");
    rewriter.eraseOp(op);
    return success();
  }
};

struct ReduceScatterLowering : CommPattern<BufferReduceScatterOp> {
  using CommPattern::CommPattern;
  LogicalResult
  matchAndRewrite(BufferReduceScatterOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type element = elementOf(op.getSource());
    auto shape = cast<MemRefType>(op.getSource().getType()).getShape();
    CallBuilder(rewriter, op, state)
        .async()
        .ranks(op.getGroups())
        .operand(adaptor.getSource())
        .operand(adaptor.getTarget())
        .integer(numElements(op.getTarget()))
        .integer(outerElements(shape, op.getDim()))
        .literal(getCommrtDtypeName(element))
        .literal(wireOf(op.getPlanAttr(), element))
        .literal(redopOf(op.getKind()))
        .literal(planOf(op.getPlanAttr()))
        .literal(spaceOfBuffer(op.getTarget(), state))
        .integer(streamOf(op.getPlanAttr()))
        .location()
        .call("commgen::reduce_scatter");
    rewriter.eraseOp(op);
    return success();
  }
};

struct AllGatherLowering : CommPattern<BufferAllGatherOp> {
  using CommPattern::CommPattern;
  LogicalResult
  matchAndRewrite(BufferAllGatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type element = elementOf(op.getSource());
    auto shape = cast<MemRefType>(op.getSource().getType()).getShape();
    CallBuilder(rewriter, op, state)
        .async()
        .ranks(op.getGroups())
        .operand(adaptor.getSource())
        .operand(adaptor.getTarget())
        .integer(numElements(op.getSource()))
        .integer(outerElements(shape, op.getDim()))
        .literal(getCommrtDtypeName(element))
        .literal(wireOf(op.getPlanAttr(), element))
        .literal(planOf(op.getPlanAttr()))
        .literal(spaceOfBuffer(op.getTarget(), state))
        .integer(streamOf(op.getPlanAttr()))
        .location()
        .call("commgen::all_gather");
    rewriter.eraseOp(op);
    return success();
  }
};

struct AllToAllLowering : CommPattern<BufferAllToAllOp> {
  using CommPattern::CommPattern;
  LogicalResult
  matchAndRewrite(BufferAllToAllOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type element = elementOf(op.getSource());
    SmallVector<int64_t> chunk(
        cast<MemRefType>(op.getSource().getType()).getShape());
    int64_t splitDim = op.getSplitDim(), concatDim = op.getConcatDim();
    int64_t splitOuter = outerElements(chunk, splitDim);
    chunk[splitDim] /= op.getGroups().getGroupSize();
    int64_t concatOuter = outerElements(chunk, concatDim);
    CallBuilder(rewriter, op, state)
        .async()
        .ranks(op.getGroups())
        .operand(adaptor.getSource())
        .operand(adaptor.getTarget())
        .integer(numElements(op.getSource()))
        .integer(splitOuter)
        .integer(concatOuter)
        .literal(getCommrtDtypeName(element))
        .literal(wireOf(op.getPlanAttr(), element))
        .literal(spaceOfBuffer(op.getTarget(), state))
        .integer(streamOf(op.getPlanAttr()))
        .location()
        .call("commgen::all_to_all");
    rewriter.eraseOp(op);
    return success();
  }
};

struct BroadcastLowering : CommPattern<BufferBroadcastOp> {
  using CommPattern::CommPattern;
  LogicalResult
  matchAndRewrite(BufferBroadcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type element = elementOf(op.getSource());
    CallBuilder(rewriter, op, state)
        .async()
        .ranks(op.getGroups())
        .operand(adaptor.getSource())
        .operand(adaptor.getTarget())
        .integer(numElements(op.getSource()))
        .integer(op.getRoot())
        .literal(getCommrtDtypeName(element))
        .literal(wireOf(op.getPlanAttr(), element))
        .literal(planOf(op.getPlanAttr()))
        .literal(spaceOfBuffer(op.getTarget(), state))
        .integer(streamOf(op.getPlanAttr()))
        .location()
        .call("commgen::broadcast");
    rewriter.eraseOp(op);
    return success();
  }
};

struct ReduceLowering : CommPattern<BufferReduceOp> {
  using CommPattern::CommPattern;
  LogicalResult
  matchAndRewrite(BufferReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type element = elementOf(op.getSource());
    CallBuilder(rewriter, op, state)
        .async()
        .ranks(op.getGroups())
        .operand(adaptor.getSource())
        .operand(adaptor.getTarget())
        .integer(numElements(op.getSource()))
        .integer(op.getRoot())
        .literal(getCommrtDtypeName(element))
        .literal(wireOf(op.getPlanAttr(), element))
        .literal(redopOf(op.getKind()))
        .literal(planOf(op.getPlanAttr()))
        .literal(spaceOfBuffer(op.getTarget(), state))
        .integer(streamOf(op.getPlanAttr()))
        .location()
        .call("commgen::reduce");
    rewriter.eraseOp(op);
    return success();
  }
};

struct PermuteLowering : CommPattern<BufferPermuteOp> {
  using CommPattern::CommPattern;
  LogicalResult
  matchAndRewrite(BufferPermuteOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type element = elementOf(op.getSource());
    CallBuilder(rewriter, op, state)
        .async()
        .pairs(op.getPairs())
        .operand(adaptor.getSource())
        .operand(adaptor.getTarget())
        .integer(numElements(op.getSource()))
        .literal(getCommrtDtypeName(element))
        .literal(wireOf(op.getPlanAttr(), element))
        .literal(spaceOfBuffer(op.getTarget(), state))
        .integer(streamOf(op.getPlanAttr()))
        .location()
        .call("commgen::permute");
    rewriter.eraseOp(op);
    return success();
  }
};

struct SendLowering : CommPattern<BufferSendOp> {
  using CommPattern::CommPattern;
  LogicalResult
  matchAndRewrite(BufferSendOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type element = elementOf(op.getSource());
    CallBuilder(rewriter, op, state)
        .async()
        .pairs(op.getPairs())
        .integer(op.getTag())
        .operand(adaptor.getSource())
        .integer(numElements(op.getSource()))
        .literal(getCommrtDtypeName(element))
        .literal(wireOf(op.getPlanAttr(), element))
        .literal(spaceOfBuffer(op.getSource(), state))
        .integer(streamOf(op.getPlanAttr()))
        .location()
        .call("commgen::send");
    rewriter.eraseOp(op);
    return success();
  }
};

struct RecvLowering : CommPattern<BufferRecvOp> {
  using CommPattern::CommPattern;
  LogicalResult
  matchAndRewrite(BufferRecvOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type element = elementOf(op.getTarget());
    CallBuilder(rewriter, op, state)
        .async()
        .pairs(op.getPairs())
        .integer(op.getTag())
        .operand(adaptor.getTarget())
        .integer(numElements(op.getTarget()))
        .literal(getCommrtDtypeName(element))
        .literal(wireOf(op.getPlanAttr(), element))
        .literal(spaceOfBuffer(op.getTarget(), state))
        .integer(streamOf(op.getPlanAttr()))
        .location()
        .call("commgen::recv");
    rewriter.eraseOp(op);
    return success();
  }
};

struct CopyLowering : CommPattern<BufferCopyOp> {
  using CommPattern::CommPattern;
  LogicalResult
  matchAndRewrite(BufferCopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    bool cpu = !state.cuda;
    CallBuilder(rewriter, op, state)
        .async()
        .operand(adaptor.getTarget())
        .literal(cpu ? "COMMRT_HOST" : spaceOf(op.getDst()))
        .operand(adaptor.getSource())
        .literal(cpu ? "COMMRT_HOST" : spaceOf(op.getSrc()))
        .integer(numElements(op.getSource()))
        .literal(getCommrtDtypeName(elementOf(op.getSource())))
        .integer(streamOf(op.getPlanAttr()))
        .location()
        .call("commgen::copy");
    rewriter.eraseOp(op);
    return success();
  }
};

/// memref.copy (from buffer-results-to-out-params): a copy in one space.
struct MemrefCopyLowering : CommPattern<memref::CopyOp> {
  using CommPattern::CommPattern;
  LogicalResult
  matchAndRewrite(memref::CopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    CallBuilder(rewriter, op, state)
        .literal("nullptr")
        .operand(adaptor.getTarget())
        .literal(spaceOfBuffer(op.getTarget(), state))
        .operand(adaptor.getSource())
        .literal(spaceOfBuffer(op.getSource(), state))
        .integer(numElements(op.getSource()))
        .literal(getCommrtDtypeName(elementOf(op.getSource())))
        .integer(-1)
        .location()
        .call("commgen::copy");
    rewriter.eraseOp(op);
    return success();
  }
};

/// The pieces of a pack or unpack, one `commrt_piece` value each.
SmallVector<Value> buildPieces(ConversionPatternRewriter &rewriter,
                               Operation *op, const LoweringState &state,
                               ValueRange original, ValueRange converted,
                               ArrayRef<int64_t> offsets) {
  SmallVector<Value> pieces;
  Type pieceType = emitc::OpaqueType::get(op->getContext(), "commrt_piece");
  for (auto [index, buffer] : llvm::enumerate(original)) {
    pieces.push_back(CallBuilder(rewriter, op, state)
                         .operand(converted[index])
                         .integer(numElements(buffer))
                         .integer(offsets[index])
                         .literal(getCommrtDtypeName(elementOf(buffer)))
                         .call("commgen::piece", pieceType)
                         .getResult(0));
  }
  return pieces;
}

struct PackLowering : CommPattern<BufferPackOp> {
  using CommPattern::CommPattern;
  LogicalResult
  matchAndRewrite(BufferPackOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Value> pieces =
        buildPieces(rewriter, op, state, op.getInputs(), adaptor.getInputs(),
                    op.getOffsets());
    CallBuilder call(rewriter, op, state);
    call.async()
        .operand(adaptor.getTarget())
        .literal(getCommrtDtypeName(elementOf(op.getTarget())))
        .integer(numElements(op.getTarget()))
        .literal(spaceOfBuffer(op.getTarget(), state))
        .location();
    for (Value piece : pieces)
      call.operand(piece);
    call.call(state.cuda ? "commgen::cuda::pack" : "commgen::pack");
    rewriter.eraseOp(op);
    return success();
  }
};

struct UnpackLowering : CommPattern<BufferUnpackOp> {
  using CommPattern::CommPattern;
  LogicalResult
  matchAndRewrite(BufferUnpackOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Value> pieces =
        buildPieces(rewriter, op, state, op.getOutputs(), adaptor.getOutputs(),
                    op.getOffsets());
    CallBuilder call(rewriter, op, state);
    call.async()
        .operand(adaptor.getSource())
        .literal(getCommrtDtypeName(elementOf(op.getSource())))
        .integer(numElements(op.getSource()))
        .literal(spaceOfBuffer(op.getSource(), state))
        .location();
    for (Value piece : pieces)
      call.operand(piece);
    call.call(state.cuda ? "commgen::cuda::unpack" : "commgen::unpack");
    rewriter.eraseOp(op);
    return success();
  }
};

struct CombineLowering : CommPattern<BufferCombineOp> {
  using CommPattern::CommPattern;
  LogicalResult
  matchAndRewrite(BufferCombineOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    CallBuilder(rewriter, op, state)
        .async()
        .operand(adaptor.getTarget())
        .operand(adaptor.getLhs())
        .operand(adaptor.getRhs())
        .integer(numElements(op.getTarget()))
        .literal(getCommrtDtypeName(elementOf(op.getTarget())))
        .literal(redopOf(op.getKind()))
        .literal(spaceOfBuffer(op.getTarget(), state))
        .location()
        .call(state.cuda ? "commgen::cuda::combine" : "commgen::combine");
    rewriter.eraseOp(op);
    return success();
  }
};

/// The C identifier of the user function implementing a comm.compute.
std::string computeSymbol(StringRef name) {
  std::string symbol = "comm_compute_";
  for (char c : name)
    symbol += llvm::isAlnum(c) ? c : '_';
  return symbol;
}

struct ComputeLowering : CommPattern<BufferComputeOp> {
  using CommPattern::CommPattern;
  LogicalResult
  matchAndRewrite(BufferComputeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type tensorType = emitc::OpaqueType::get(op->getContext(), "comm_tensor");
    SmallVector<Value> tensors;
    auto addTensors = [&](ValueRange original, ValueRange converted) {
      for (auto [index, buffer] : llvm::enumerate(original))
        tensors.push_back(CallBuilder(rewriter, op, state)
                              .operand(converted[index])
                              .integer(numElements(buffer))
                              .literal(getCommrtDtypeName(elementOf(buffer)))
                              .literal(spaceOfBuffer(buffer, state))
                              .call("commgen::tensor", tensorType)
                              .getResult(0));
    };
    addTensors(op.getInputs(), adaptor.getInputs());
    addTensors(op.getOutputs(), adaptor.getOutputs());
    CallBuilder call(rewriter, op, state);
    call.async()
        .literal(quoteCString(op.getName()))
        .literal(computeSymbol(op.getName()))
        .real(op.getTimeUsAttr() ? op.getTimeUsAttr().getValueAsDouble() : 0.0)
        .integer(op.getInputs().size())
        .location();
    for (Value tensor : tensors)
      call.operand(tensor);
    call.call("commgen::compute");
    rewriter.eraseOp(op);
    return success();
  }
};

struct BarrierLowering : CommPattern<BarrierOp> {
  using CommPattern::CommPattern;
  LogicalResult
  matchAndRewrite(BarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    CallBuilder(rewriter, op, state)
        .async()
        .ranks(op.getGroups())
        .location()
        .call("commgen::barrier");
    rewriter.eraseOp(op);
    return success();
  }
};

struct StartLowering : CommPattern<StartOp> {
  using CommPattern::CommPattern;
  LogicalResult
  matchAndRewrite(StartOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, state.startHandle.lookup(op));
    return success();
  }
};

struct WaitLowering : CommPattern<WaitOp> {
  using CommPattern::CommPattern;
  LogicalResult
  matchAndRewrite(WaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    CallBuilder(rewriter, op, state)
        .operand(adaptor.getToken())
        .location()
        .call("commgen::wait");
    rewriter.eraseOp(op);
    return success();
  }
};

struct AllocLowering : CommPattern<memref::AllocOp> {
  using CommPattern::CommPattern;
  LogicalResult
  matchAndRewrite(memref::AllocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MemRefType type = op.getType();
    Type converted = getTypeConverter()->convertType(type);
    if (!converted)
      return rewriter.notifyMatchFailure(op, "unsupported buffer type");
    auto call = CallBuilder(rewriter, op, state)
                    .integer(type.getNumElements())
                    .literal(getCommrtDtypeName(type.getElementType()))
                    .literal(spaceOfBuffer(op, state))
                    .location()
                    .call("commgen::alloc", converted,
                          {TypeAttr::get(cElementType(type.getElementType()))});
    rewriter.replaceOp(op, call.getResults());
    return success();
  }
};

struct DeallocLowering : CommPattern<memref::DeallocOp> {
  using CommPattern::CommPattern;
  LogicalResult
  matchAndRewrite(memref::DeallocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<MemRefType>(op.getMemref().getType());
    CallBuilder(rewriter, op, state)
        .operand(adaptor.getMemref())
        .integer(type.getNumElements())
        .literal(getCommrtDtypeName(type.getElementType()))
        .literal(spaceOfBuffer(op.getMemref(), state))
        .location()
        .call("commgen::dealloc");
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// What the module is lowered for: the code target and the runtime backend
/// its program will run on.
struct LoweringFor {
  bool cuda = false;
  /// "mpi", "nccl" or "verbs".
  StringRef backend;
};

/// The algorithms the runtime runs for the buffer op named \p name (its
/// name without the dialect and "buffer." prefixes), as a list for the
/// message.
static StringRef realizedAlgorithms(StringRef name, bool nccl) {
  if (name == "all_reduce")
    return nccl ? "ring, tree, direct, halving_doubling, hierarchical, nvls"
                : "ring, tree, direct, halving_doubling, hierarchical";
  if (name == "reduce_scatter" || name == "all_gather")
    return "ring, direct, halving_doubling, hierarchical";
  if (name == "broadcast" || name == "reduce")
    return "ring, tree, direct, halving_doubling, hierarchical";
  if (name == "all_to_all" || name == "permute" || name == "send" ||
      name == "recv")
    return "direct";
  return "";
}

/// Checks that \p op can run on the backend: verbs carries point to point
/// only, so a collective there is an error now rather than at run time.
static LogicalResult checkBackend(Operation *op, const LoweringFor &lowering) {
  if (lowering.backend != "verbs" ||
      !isa<BufferAllReduceOp, BufferReduceScatterOp, BufferAllGatherOp,
           BufferAllToAllOp, BufferBroadcastOp, BufferReduceOp, BarrierOp>(op))
    return success();
  StringRef name = getTransferName(op);
  return op->emitError()
         << "comm." << name
         << " cannot run on the verbs backend, which carries point to point "
            "only (send, recv, permute); compile for "
         << (lowering.cuda ? "cuda-nccl" : "cpu-mpi")
         << ", or write the collective as sends and receives";
}

/// Checks that the plan of \p op names an algorithm the lowering realizes.
static LogicalResult checkAlgorithm(Operation *op,
                                    const LoweringFor &lowering) {
  auto plan = op->getAttrOfType<PlanAttr>("plan");
  if (!plan || !plan.getAlgorithm())
    return success();
  StringRef name = getTransferName(op);
  StringRef algorithm = stringifyAlgorithm(*plan.getAlgorithm());
  bool nccl = lowering.backend == "nccl";
  StringRef realized = realizedAlgorithms(name, nccl);
  SmallVector<StringRef> list;
  realized.split(list, ", ");
  if (llvm::is_contained(list, algorithm)) {
    if (plan.getChannels() && *plan.getChannels() > 64)
      return op->emitError()
             << "plan channels = " << *plan.getChannels()
             << " exceeds the 64 channels the runtime's schedules run";
    return success();
  }
  InFlightDiagnostic diag = op->emitError()
                            << "plan algorithm '" << algorithm << "' of comm."
                            << name << " is not realized on the "
                            << lowering.backend << " backend";
  if (realized.empty())
    diag << "; it takes no algorithm";
  else
    diag << " (expected " << realized << ")";
  if (algorithm == "nvls" &&
      realizedAlgorithms(name, /*nccl=*/true).ends_with("nvls"))
    diag << "; NVLink SHARP needs the nccl backend (the cuda target)";
  return diag;
}

/// Checks that the module is in the form this pass lowers, with a located
/// error for the first thing that is not.
static LogicalResult checkInput(ModuleOp module, const LoweringFor &lowering) {
  WalkResult result = module.walk([&](Operation *op) -> WalkResult {
    if (failed(checkAlgorithm(op, lowering)) ||
        failed(checkBackend(op, lowering)))
      return WalkResult::interrupt();
    if (isa<AllReduceOp, ReduceScatterOp, AllGatherOp, AllToAllOp, BroadcastOp,
            ReduceOp, PermuteOp, SendOp, RecvOp, CopyOp, PackOp, UnpackOp,
            ComputeOp>(op))
      return op->emitError()
             << "convert-comm-to-emitc expects buffers; run comm-bufferize "
                "first";
    if (auto function = dyn_cast<func::FuncOp>(op)) {
      if (function.getNumResults() != 0)
        return op->emitError()
               << "convert-comm-to-emitc expects functions without results; "
                  "run buffer-results-to-out-params first";
      for (Type type : function.getArgumentTypes()) {
        auto memref = dyn_cast<MemRefType>(type);
        if (memref && !isSupportedBuffer(memref))
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
          memref && !isSupportedBuffer(memref))
        return op->emitError()
               << "buffer of type " << memref
               << " cannot be lowered: buffers need a static shape, the "
                  "identity layout and an element type commrt knows (f32, "
                  "f64, f16, bf16, i8, i32, i64)";
    if (auto start = dyn_cast<StartOp>(op)) {
      if (start.getToken().use_empty())
        return op->emitError()
               << "the token of this comm.start is never waited for; its "
                  "transfers would never complete";
      if (start.getYield() && !start.getYield().getValues().empty())
        return op->emitError()
               << "convert-comm-to-emitc expects the bufferized comm.start, "
                  "which yields nothing; run comm-bufferize first";
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// The X-macro lists that tell commrt_gen_cuda.cuh which kernels to compile:
/// the (piece, buffer) type pairs of the packs and unpacks, the (type, op)
/// pairs of the combines (see the header).
static std::string kernelLists(ModuleOp module) {
  // A handful of entries each: keep them in first-use order.
  using List = SmallVector<std::string>;
  List packs, unpacks, combines;
  auto add = [](List &list, StringRef first, StringRef second) {
    std::string entry = ("X(" + first + ", " + second + ")").str();
    if (!llvm::is_contained(list, entry))
      list.push_back(std::move(entry));
  };
  auto pairs = [&](List &list, ValueRange pieces, Value buffer) {
    for (Value piece : pieces)
      add(list, getCommrtDtypeName(elementOf(piece)),
          getCommrtDtypeName(elementOf(buffer)));
  };
  module.walk([&](Operation *op) {
    if (auto pack = dyn_cast<BufferPackOp>(op))
      pairs(packs, pack.getInputs(), pack.getTarget());
    else if (auto unpack = dyn_cast<BufferUnpackOp>(op))
      pairs(unpacks, unpack.getOutputs(), unpack.getSource());
    else if (auto combine = dyn_cast<BufferCombineOp>(op))
      add(combines, getCommrtDtypeName(elementOf(combine.getTarget())),
          redopOf(combine.getKind()));
  });
  std::string text = "// The kernels this program uses.\n";
  auto define = [&](StringRef name, const List &list) {
    text += "#define COMMGEN_CUDA_" + name.str() + "_KERNELS(X)";
    for (const std::string &entry : list)
      text += " " + entry;
    text += "\n";
  };
  define("PACK", packs);
  define("UNPACK", unpacks);
  define("COMBINE", combines);
  text.pop_back();
  return text;
}

/// Moves the ops of every comm.start body in front of it, after a call that
/// creates the start's async handle, and records which ops it issues.
static void hoistAsyncBodies(ModuleOp module, LoweringState &state) {
  MLIRContext *ctx = module.getContext();
  Type handleType =
      emitc::PointerType::get(emitc::OpaqueType::get(ctx, "commgen::Async"));
  SmallVector<StartOp> starts;
  module.walk([&](StartOp start) { starts.push_back(start); });
  for (StartOp start : starts) {
    OpBuilder builder(start);
    Value handle =
        emitc::CallOpaqueOp::create(builder, start.getLoc(), handleType,
                                    "commgen::start", ValueRange())
            .getResult(0);
    state.startHandle[start] = handle;
    Block &body = start.getBody().front();
    for (Operation &op : llvm::make_early_inc_range(body)) {
      if (isa<YieldOp>(op)) {
        op.erase();
        continue;
      }
      op.walk([&](Operation *inner) { state.asyncOf[inner] = handle; });
      op.moveBefore(start);
    }
  }
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

/// The `extern "C"` entry point of a public function.
static std::string entryPoint(StringRef name, FunctionType type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "/// Entry point of @" << name
     << ". Returns COMMRT_SUCCESS or the status of the first failure; "
        "comm_last_error() says what failed.\n";
  os << "extern \"C\" int32_t " << name << "(commrt_context *ctx";
  for (auto [index, input] : llvm::enumerate(type.getInputs())) {
    os << ", ";
    if (auto memref = dyn_cast<MemRefType>(input))
      os << getCTypeName(memref.getElementType()) << " *";
    else
      os << getCTypeName(input) << " ";
    os << "arg" << index;
  }
  os << ") {\n  return commgen::entry(ctx, \"" << name << "\", [&]() {\n    "
     << kImplPrefix << name << "(";
  for (size_t index = 0; index < type.getNumInputs(); ++index)
    os << (index ? ", " : "") << "arg" << index;
  os << ");\n  });\n}";
  return text;
}

namespace {
struct ConvertCommToEmitCPass
    : public comm::impl::ConvertCommToEmitCBase<ConvertCommToEmitCPass> {
  using ConvertCommToEmitCBase::ConvertCommToEmitCBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    if (target != "cpu" && target != "cuda") {
      module.emitError() << "convert-comm-to-emitc: unknown target '" << target
                         << "' (expected cpu or cuda)";
      return signalPassFailure();
    }
    LoweringFor lowering;
    lowering.cuda = target == "cuda";
    lowering.backend = backend;
    if (lowering.backend.empty())
      lowering.backend = lowering.cuda ? "nccl" : "mpi";
    if (lowering.backend != "mpi" && lowering.backend != "nccl" &&
        lowering.backend != "verbs") {
      module.emitError() << "convert-comm-to-emitc: unknown backend '"
                         << lowering.backend
                         << "' (expected mpi, nccl or verbs)";
      return signalPassFailure();
    }
    if ((lowering.backend == "mpi" && lowering.cuda) ||
        (lowering.backend == "nccl" && !lowering.cuda)) {
      module.emitError()
          << "convert-comm-to-emitc: the " << lowering.backend
          << " backend carries "
          << (lowering.cuda ? "host buffers, not the device buffers of the "
                              "cuda target"
                            : "device buffers, not the host buffers of the "
                              "cpu target");
      return signalPassFailure();
    }
    if (failed(checkInput(module, lowering)))
      return signalPassFailure();

    LoweringState state;
    state.cuda = lowering.cuda;
    std::string kernels = state.cuda ? kernelLists(module) : "";
    state.defaultSpace = state.cuda ? "COMMRT_HBM" : "COMMRT_HOST";
    hoistAsyncBodies(module, state);

    // Entry points are emitted after the functions, so remember them now.
    SmallVector<std::pair<std::string, FunctionType>> entries;
    for (func::FuncOp function : renameBodies(module))
      entries.push_back(
          {function.getSymName().drop_front(kImplPrefix.size()).str(),
           function.getFunctionType()});
    llvm::StringSet<> computeNames;
    module.walk([&](BufferComputeOp op) { computeNames.insert(op.getName()); });

    CommTypeConverter converter(ctx);
    ConversionTarget conversionTarget(*ctx);
    conversionTarget.addLegalDialect<emitc::EmitCDialect>();
    conversionTarget.addIllegalDialect<CommDialect, memref::MemRefDialect,
                                       func::FuncDialect, scf::SCFDialect,
                                       arith::ArithDialect>();
    conversionTarget.addLegalOp<ModuleOp>();

    RewritePatternSet patterns(ctx);
    patterns.add<AllReduceLowering, ReduceScatterLowering, AllGatherLowering,
                 AllToAllLowering, BroadcastLowering, ReduceLowering,
                 PermuteLowering, SendLowering, RecvLowering, CopyLowering,
                 MemrefCopyLowering, PackLowering, UnpackLowering,
                 CombineLowering, ComputeLowering, BarrierLowering,
                 StartLowering, WaitLowering, AllocLowering, DeallocLowering>(
        converter, ctx, state);
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
                                computeSymbol(name.getKey()) +
                                "(const comm_compute_args *);"));
    builder.setInsertionPointToEnd(module.getBody());
    for (auto &[name, type] : entries)
      emitc::VerbatimOp::create(builder, module.getLoc(),
                                builder.getStringAttr(entryPoint(name, type)));
    if (!entries.empty())
      emitc::VerbatimOp::create(
          builder, module.getLoc(),
          builder.getStringAttr(
              "/// The message of the last failed entry point call.\n"
              "extern \"C\" __attribute__((weak)) const char "
              "*comm_last_error(void) {\n  return "
              "commgen::lastErrorStorage().c_str();\n}"));
  }
};
} // namespace
