//===- CommToEmitC.cpp - comm buffer ops to EmitC calls ---------*- C++ -*-===//
//
// The patterns of convert-comm-to-emitc: every comm.buffer.* op becomes a
// call of the helpers in commrt_gen.h, which call the commrt C ABI; memref
// allocations go through the runtime. The pass that drives them, with the
// upstream func, scf and arith conversions, is in CommToEmitCPass.cpp.
//
//===----------------------------------------------------------------------===//

#include "comm/Conversion/CommToEmitC/CommToEmitC.h"
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

using namespace mlir;
using namespace mlir::comm;

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

bool mlir::comm::isLowerableBuffer(MemRefType type) {
  return type.hasStaticShape() && type.getLayout().isIdentity() &&
         !getCommrtDtypeName(type.getElementType()).empty();
}

void mlir::comm::populateCommToEmitCTypeConversions(TypeConverter &converter) {
  converter.addConversion([](Type type) { return type; });
  populateEmitCSizeTTypeConversions(converter);
  converter.addConversion([](MemRefType type) -> std::optional<Type> {
    if (!isLowerableBuffer(type))
      return std::nullopt;
    return emitc::PointerType::get(cElementType(type.getElementType()));
  });
  converter.addConversion([](TokenType token) -> Type {
    return emitc::PointerType::get(
        emitc::OpaqueType::get(token.getContext(), "commgen::Async"));
  });
  auto cast = [](OpBuilder &builder, Type type, ValueRange inputs,
                 Location loc) -> Value {
    return UnrealizedConversionCastOp::create(builder, loc, type, inputs)
        .getResult(0);
  };
  converter.addSourceMaterialization(cast);
  converter.addTargetMaterialization(cast);
}

namespace {
/// Builds the argument list of a helper call: literals and operand indices.
class CallBuilder {
public:
  CallBuilder(ConversionPatternRewriter &rewriter, Operation *op,
              const CommToEmitCState &state)
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
  const CommToEmitCState &state;
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
StringRef spaceOfBuffer(Value buffer, const CommToEmitCState &state) {
  if (!state.cuda)
    return "COMMRT_HOST";
  if (std::optional<MemorySpace> space = getRecordedSpace(buffer))
    return spaceOf(*space);
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
              const CommToEmitCState &state)
      : OpConversionPattern<Op>(converter, ctx), state(state) {}
  const CommToEmitCState &state;
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
        .integer(getPlanStream(op))
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
        .integer(getPlanStream(op))
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
        .integer(getPlanStream(op))
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
        .integer(getPlanStream(op))
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
        .integer(getPlanStream(op))
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
        .integer(getPlanStream(op))
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
        .integer(getPlanStream(op))
        .location()
        .call("commgen::permute");
    rewriter.eraseOp(op);
    return success();
  }
};

/// commgen::p2p_begin before the first op of a run of sends and receives
/// (markCommToEmitCP2pRuns), commgen::p2p_end after the last.
void beginP2pRun(ConversionPatternRewriter &rewriter, Operation *op,
                 const CommToEmitCState &state) {
  if (state.p2pRunBegins.contains(op))
    CallBuilder(rewriter, op, state).call("commgen::p2p_begin");
}
void endP2pRun(ConversionPatternRewriter &rewriter, Operation *op,
               const CommToEmitCState &state) {
  if (state.p2pRunEnds.contains(op))
    CallBuilder(rewriter, op, state).location().call("commgen::p2p_end");
}

struct SendLowering : CommPattern<BufferSendOp> {
  using CommPattern::CommPattern;
  LogicalResult
  matchAndRewrite(BufferSendOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type element = elementOf(op.getSource());
    beginP2pRun(rewriter, op, state);
    CallBuilder(rewriter, op, state)
        .async()
        .pairs(op.getPairs())
        .integer(op.getTag())
        .operand(adaptor.getSource())
        .integer(numElements(op.getSource()))
        .literal(getCommrtDtypeName(element))
        .literal(wireOf(op.getPlanAttr(), element))
        .literal(spaceOfBuffer(op.getSource(), state))
        .integer(getPlanStream(op))
        .location()
        .call("commgen::send");
    endP2pRun(rewriter, op, state);
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
    beginP2pRun(rewriter, op, state);
    CallBuilder(rewriter, op, state)
        .async()
        .pairs(op.getPairs())
        .integer(op.getTag())
        .operand(adaptor.getTarget())
        .integer(numElements(op.getTarget()))
        .literal(getCommrtDtypeName(element))
        .literal(wireOf(op.getPlanAttr(), element))
        .literal(spaceOfBuffer(op.getTarget(), state))
        .integer(getPlanStream(op))
        .location()
        .call("commgen::recv");
    endP2pRun(rewriter, op, state);
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
        .integer(getPlanStream(op))
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

/// The pieces of a pack or unpack, one `commrt_piece` value each; with
/// several blocks, one per part of every buffer, block by block (ascending
/// offsets, as the runtime's plain-copy path wants them).
SmallVector<Value> buildPieces(ConversionPatternRewriter &rewriter,
                               Operation *op, const CommToEmitCState &state,
                               ValueRange original, ValueRange converted,
                               ArrayRef<int64_t> offsets, int64_t blocks,
                               int64_t flatElements) {
  SmallVector<Value> pieces;
  Type pieceType = emitc::OpaqueType::get(op->getContext(), "commrt_piece");
  int64_t blockSize = flatElements / blocks;
  for (int64_t block = 0; block < blocks; ++block)
    for (auto [index, buffer] : llvm::enumerate(original)) {
      int64_t part = numElements(buffer) / blocks;
      CallBuilder call(rewriter, op, state);
      call.operand(converted[index]);
      if (blocks > 1)
        call.integer(block * part);
      call.integer(part)
          .integer(block * blockSize + offsets[index])
          .literal(getCommrtDtypeName(elementOf(buffer)));
      pieces.push_back(
          call.call(blocks > 1 ? "commgen::piece_at" : "commgen::piece",
                    pieceType)
              .getResult(0));
    }
  return pieces;
}

struct PackLowering : CommPattern<BufferPackOp> {
  using CommPattern::CommPattern;
  LogicalResult
  matchAndRewrite(BufferPackOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Value> pieces = buildPieces(
        rewriter, op, state, op.getInputs(), adaptor.getInputs(),
        op.getOffsets(), op.getNumBlocks(), numElements(op.getTarget()));
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
    SmallVector<Value> pieces = buildPieces(
        rewriter, op, state, op.getOutputs(), adaptor.getOutputs(),
        op.getOffsets(), op.getNumBlocks(), numElements(op.getSource()));
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

struct ScaleLowering : CommPattern<BufferScaleOp> {
  using CommPattern::CommPattern;
  LogicalResult
  matchAndRewrite(BufferScaleOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    CallBuilder(rewriter, op, state)
        .async()
        .operand(adaptor.getTarget())
        .operand(adaptor.getSource())
        .integer(numElements(op.getSource()))
        .literal(getCommrtDtypeName(elementOf(op.getSource())))
        .real(op.getFactor().convertToDouble())
        .literal(spaceOfBuffer(op.getTarget(), state))
        .location()
        .call("commgen::scale");
    rewriter.eraseOp(op);
    return success();
  }
};

struct RotateLowering : CommPattern<BufferRotateOp> {
  using CommPattern::CommPattern;
  LogicalResult
  matchAndRewrite(BufferRotateOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    CallBuilder(rewriter, op, state)
        .async()
        .ranks(op.getGroups())
        .operand(adaptor.getSource())
        .operand(adaptor.getTarget())
        .integer(numElements(op.getSource()))
        .literal(getCommrtDtypeName(elementOf(op.getSource())))
        .integer(op.getShift())
        .integer(op.getInverse() ? 1 : 0)
        .literal(spaceOfBuffer(op.getTarget(), state))
        .location()
        .call("commgen::rotate");
    rewriter.eraseOp(op);
    return success();
  }
};

/// The size of dimension 0 of a compute's buffer (1 for a scalar).
static int64_t rowsOf(Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  return type.getRank() ? type.getDimSize(0) : 1;
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
                              .integer(rowsOf(buffer))
                              .literal(getCommrtDtypeName(elementOf(buffer)))
                              .literal(spaceOfBuffer(buffer, state))
                              .call("commgen::tensor", tensorType)
                              .getResult(0));
    };
    addTensors(op.getInputs(), adaptor.getInputs());
    addTensors(op.getOutputs(), adaptor.getOutputs());
    int64_t part = op.getPart() ? (*op.getPart())[0] : 0;
    int64_t parts = op.getPart() ? (*op.getPart())[1] : 1;
    // A rotated part's index depends on the rank's place in its group.
    Value rotatedPart;
    if (ReplicaGroupsAttr groups = op.getPartGroupsAttr())
      rotatedPart = CallBuilder(rewriter, op, state)
                        .ranks(groups)
                        .integer(part)
                        .integer(parts)
                        .call("commgen::rotated_part", rewriter.getI64Type())
                        .getResult(0);
    CallBuilder call(rewriter, op, state);
    call.async()
        .literal(quoteCString(op.getName()))
        .literal(getComputeSymbol(op.getName()))
        .real(op.getTimeUsAttr() ? op.getTimeUsAttr().getValueAsDouble() : 0.0);
    if (rotatedPart)
      call.operand(rotatedPart);
    else
      call.integer(part);
    call.integer(parts)
        .integer(op.getRowwise() ? 1 : 0)
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
// Public entry points
//===----------------------------------------------------------------------===//

std::string mlir::comm::getComputeSymbol(StringRef name) {
  std::string symbol = "comm_compute_";
  for (char c : name)
    symbol += llvm::isAlnum(c) ? c : '_';
  return symbol;
}

std::string mlir::comm::getEntryPointPrototype(StringRef name,
                                               ArrayRef<Type> parameters,
                                               ArrayRef<std::string> names) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "int32_t " << name << "(commrt_context *ctx";
  for (auto [index, type] : llvm::enumerate(parameters)) {
    os << ", ";
    if (auto shaped = dyn_cast<ShapedType>(type))
      os << getCTypeName(shaped.getElementType()) << " *";
    else
      os << getCTypeName(type) << " ";
    if (index < names.size())
      os << names[index];
    else
      os << "arg" << index;
  }
  os << ")";
  return text;
}

void mlir::comm::populateCommToEmitCPatterns(const TypeConverter &converter,
                                             RewritePatternSet &patterns,
                                             const CommToEmitCState &state) {
  patterns
      .add<AllReduceLowering, ReduceScatterLowering, AllGatherLowering,
           AllToAllLowering, BroadcastLowering, ReduceLowering, PermuteLowering,
           SendLowering, RecvLowering, CopyLowering, MemrefCopyLowering,
           PackLowering, UnpackLowering, CombineLowering, ScaleLowering,
           RotateLowering, ComputeLowering, BarrierLowering, StartLowering,
           WaitLowering, AllocLowering, DeallocLowering>(
          converter, patterns.getContext(), state);
}

void mlir::comm::prepareCommToEmitCAsyncBodies(ModuleOp module,
                                               CommToEmitCState &state) {
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

void mlir::comm::markCommToEmitCP2pRuns(ModuleOp module,
                                        CommToEmitCState &state) {
  // The sends and receives of a comm.start body are in the block too
  // (prepareCommToEmitCAsyncBodies moved them before the start): a run may
  // go on through them, so that a blocking send and the receive a
  // comm.start posts after it (comm-pipeline's rotated exchange), or a
  // start's own send and receive, go into one group. NCCL runs a lone
  // ncclSend until the peer's ncclRecv runs: on one stream, a ring of ranks
  // that each send and then receive outside a group waits forever.
  auto p2p = [&](Operation *op) { return isa<BufferSendOp, BufferRecvOp>(op); };
  // What a comm.start leaves in the block: the call that makes its handle,
  // and the start itself, now empty.
  auto startOf = [](Operation &op) {
    if (isa<StartOp>(op))
      return true;
    auto call = dyn_cast<emitc::CallOpaqueOp>(op);
    return call && call.getCallee() == "commgen::start";
  };
  module.walk([&](Block *block) {
    Operation *first = nullptr, *last = nullptr;
    unsigned length = 0;
    auto close = [&]() {
      if (length >= 2) {
        state.p2pRunBegins.insert(first);
        state.p2pRunEnds.insert(last);
      }
      first = last = nullptr;
      length = 0;
    };
    for (Operation &op : *block) {
      if (p2p(&op)) {
        if (!first)
          first = &op;
        last = &op;
        ++length;
        continue;
      }
      // Views, constants and the allocation of a receive's buffer between
      // two transfers keep the run going (an allocation takes memory no
      // transfer uses).
      if (first && ((op.getNumRegions() == 0 &&
                     (isMemoryEffectFree(&op) || isa<memref::AllocOp>(op))) ||
                    startOf(op)))
        continue;
      close();
    }
    close();
  });
}

std::string mlir::comm::getCudaKernelLists(ModuleOp module) {
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
