//===- CommOps.cpp - comm dialect operations -------------------*- C++ -*-===//

#include "comm/Dialect/Comm/IR/CommOps.h"
#include "CommVerifiers.h"
#include "comm/Dialect/Comm/IR/CommAlgorithms.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::comm;
using namespace mlir::comm::detail;

#include "comm/Dialect/Comm/CommOpInterfaces.cpp.inc"

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

std::optional<int64_t> mlir::comm::getWorldSize(Operation *op) {
  for (Operation *parent = op; parent; parent = parent->getParentOp())
    if (auto size = parent->getAttrOfType<IntegerAttr>(
            CommDialect::getWorldSizeAttrName()))
      return size.getInt();
  return std::nullopt;
}

bool mlir::comm::groupsCoverWorld(Operation *op, ReplicaGroupsAttr groups) {
  // The verifier keeps every rank under the world size, and groups disjoint.
  std::optional<int64_t> world = getWorldSize(op);
  return world && groups.getNumGroups() * groups.getGroupSize() == *world;
}

unsigned mlir::comm::getElementStorageBytes(Type element) {
  if (isa<FloatTF32Type>(element))
    return 4;
  return std::max(1u, (element.getIntOrFloatBitWidth() + 7) / 8);
}

std::optional<int64_t> mlir::comm::getStorageBytes(ShapedType tensor) {
  if (!tensor.hasRank() || !tensor.getElementType().isIntOrFloat())
    return std::nullopt;
  int64_t bytes = getElementStorageBytes(tensor.getElementType());
  for (int64_t dim : tensor.getShape())
    if (ShapedType::isDynamic(dim) || llvm::MulOverflow(bytes, dim, bytes))
      return std::nullopt;
  return bytes;
}

/// Size in bytes of a tensor of a verified op.
static int64_t getTensorBytes(Type type) {
  return getStorageBytes(cast<RankedTensorType>(type)).value_or(0);
}

/// Rejects tensors whose size in bytes overflows 64-bit arithmetic, so that
/// every byte count derived from a verified op is exact.
LogicalResult mlir::comm::detail::verifyTensorSizes(Operation *op) {
  auto check = [&](Type type) -> LogicalResult {
    auto tensor = dyn_cast<ShapedType>(type);
    if (!tensor || !tensor.hasRank() || !tensor.hasStaticShape() ||
        !tensor.getElementType().isIntOrFloat() || getStorageBytes(tensor))
      return success();
    return op->emitOpError() << "moves " << tensor
                             << ", whose size in bytes overflows 64 bits";
  };
  for (Type type : op->getOperandTypes())
    if (failed(check(type)))
      return failure();
  for (Type type : op->getResultTypes())
    if (failed(check(type)))
      return failure();
  return success();
}

static LogicalResult verifyRankInWorld(Operation *op, int64_t rank,
                                       StringRef what) {
  std::optional<int64_t> worldSize = getWorldSize(op);
  if (worldSize && rank >= *worldSize)
    return op->emitOpError()
           << what << " names rank " << rank << ", but the world has only "
           << *worldSize << " ranks (comm.world_size)";
  return success();
}

LogicalResult mlir::comm::detail::verifyGroups(Operation *op,
                                              ReplicaGroupsAttr groups) {
  return verifyRankInWorld(op, groups.getMaxRank(), "replica group");
}

/// Checks a flat [source, target, source, target, ...] list.
LogicalResult mlir::comm::detail::verifyPairs(Operation *op,
                                             ArrayRef<int64_t> pairs) {
  if (pairs.empty())
    return op->emitOpError() << "expects at least one [source, target] pair";
  if (pairs.size() % 2 != 0)
    return op->emitOpError()
           << "expects [source, target] pairs, got an odd number of ranks ("
           << pairs.size() << ")";
  llvm::SmallDenseSet<int64_t> sources, targets;
  for (size_t i = 0; i < pairs.size(); i += 2) {
    int64_t source = pairs[i], target = pairs[i + 1];
    if (source < 0 || target < 0)
      return op->emitOpError()
             << "pair [" << source << ", " << target
             << "] names a negative rank";
    if (!sources.insert(source).second)
      return op->emitOpError()
             << "rank " << source << " is the source of more than one pair";
    if (!targets.insert(target).second)
      return op->emitOpError()
             << "rank " << target << " is the target of more than one pair";
    if (failed(verifyRankInWorld(op, std::max(source, target), "pair")))
      return failure();
  }
  return success();
}

LogicalResult mlir::comm::detail::verifyReduction(Operation *op,
                                                 ReductionKind kind,
                                                 Type elementType) {
  if (isValidReduction(kind, elementType))
    return success();
  return op->emitOpError()
         << "reduction '" << stringifyReductionKind(kind)
         << "' is not defined for element type " << elementType << "; "
         << (isa<FloatType>(elementType) ? "bitwise reductions need integers"
                                         : "'avg' needs floating point");
}

/// Checks a plan's channels and chunks against the limits the runtime
/// enforces (commrt.h): at most getMaxPlanChannels() channels, and, for a
/// schedule the runtime runs (any algorithm but nvls), at most
/// getMaxPlanChunksPerChannel() chunks of chunk_bytes in each channel's
/// slice of the buffer (reduce_scatter, all_gather: of one rank's block),
/// counted in elements on the wire as the runtime counts them.
static LogicalResult verifyPlanChunks(Operation *op, PlanAttr plan,
                                      Type elementType) {
  std::optional<int64_t> channels = plan.getChannels();
  if (channels && *channels > getMaxPlanChannels())
    return op->emitOpError()
           << "plan 'channels' is " << *channels
           << "; the runtime runs at most " << getMaxPlanChannels();
  std::optional<int64_t> chunkBytes = plan.getChunkBytes();
  std::optional<Algorithm> algorithm = plan.getAlgorithm();
  std::optional<CollectiveKind> kind = getCollectiveKind(op);
  if (!chunkBytes || !algorithm || *algorithm == Algorithm::nvls || !kind ||
      !elementType)
    return success();
  // The elements of one buffer (all_reduce, broadcast, reduce) or one
  // rank's block (the smallest of a reduce_scatter's or all_gather's
  // shapes).
  bool blocks = *kind == CollectiveKind::ReduceScatter ||
                *kind == CollectiveKind::AllGather;
  std::optional<int64_t> domain;
  auto consider = [&](Type type) {
    auto shaped = dyn_cast<ShapedType>(type);
    if (!shaped || !shaped.hasStaticShape())
      return;
    int64_t elements = shaped.getNumElements();
    if (!domain || (blocks && elements < *domain))
      domain = elements;
  };
  for (Type type : op->getOperandTypes())
    consider(type);
  if (blocks)
    for (Type type : op->getResultTypes())
      consider(type);
  Type wire = plan.getPrecision() ? plan.getPrecision() : elementType;
  if (!domain || *domain <= 0 || !wire.isIntOrFloat())
    return success();
  int64_t elementBytes =
      std::max<int64_t>(1, (wire.getIntOrFloatBitWidth() + 7) / 8);
  int64_t lanes = std::max<int64_t>(1, channels.value_or(1));
  int64_t chunks =
      getPlanChunksPerChannel(*domain, lanes, *chunkBytes, elementBytes);
  if (chunks <= getMaxPlanChunksPerChannel())
    return success();
  int64_t slice = llvm::divideCeil(*domain, lanes);
  return op->emitOpError()
         << "plan 'chunk_bytes' " << *chunkBytes << " cuts each channel's "
         << slice * elementBytes << " bytes into " << chunks
         << " chunks; the runtime runs at most " << getMaxPlanChunksPerChannel()
         << " per channel (chunk_bytes >= "
         << llvm::divideCeil(slice, getMaxPlanChunksPerChannel()) * elementBytes
         << ", or more channels)";
}

/// Checks a plan against the op it is attached to. `elementType` is null for
/// ops that move no data.
LogicalResult mlir::comm::detail::verifyTransfer(Operation *op,
                                                PlanAttr plan,
                                                Type elementType) {
  if (failed(verifyTensorSizes(op)))
    return failure();
  if (!plan)
    return success();
  // The bufferized ops take the plans of the ops they come from.
  if (std::optional<Algorithm> algorithm = plan.getAlgorithm()) {
    std::optional<CollectiveKind> kind = getCollectiveKind(op);
    ArrayRef<Algorithm> applicable =
        kind ? getApplicableAlgorithms(*kind) : ArrayRef<Algorithm>();
    if (applicable.empty())
      return op->emitOpError()
             << "takes no algorithm, but its plan names '"
             << stringifyAlgorithm(*algorithm) << "'";
    if (!llvm::is_contained(applicable, *algorithm)) {
      auto diag = op->emitOpError()
                  << "cannot use algorithm '" << stringifyAlgorithm(*algorithm)
                  << "'; expected one of ";
      llvm::interleaveComma(applicable, diag, [&](Algorithm a) {
        diag << stringifyAlgorithm(a);
      });
      return diag;
    }
  }
  if (failed(verifyPlanChunks(op, plan, elementType)))
    return failure();
  if (Type precision = plan.getPrecision()) {
    auto floatType = dyn_cast_or_null<FloatType>(elementType);
    if (!floatType) {
      auto diag = op->emitOpError()
                  << "plan precision " << precision
                  << " needs floating-point data, but the op moves ";
      if (elementType)
        diag << "elements of type " << elementType;
      else
        diag << "no data";
      return diag;
    }
    if (cast<FloatType>(precision).getWidth() > floatType.getWidth())
      return op->emitOpError()
             << "plan precision " << precision
             << " is wider than the element type " << elementType;
  }
  return success();
}

/// Common checks of a grouped collective.
static LogicalResult verifyGroupedCollective(Operation *op,
                                             ReplicaGroupsAttr groups,
                                             PlanAttr plan, Type elementType) {
  if (failed(verifyGroups(op, groups)))
    return failure();
  return verifyTransfer(op, plan, elementType);
}

LogicalResult mlir::comm::detail::verifyDim(Operation *op, StringRef name,
                                           int64_t dim, ShapedType type) {
  if (dim >= type.getRank())
    return op->emitOpError() << name << " " << dim << " is out of range for "
                             << type << " of rank " << type.getRank();
  return success();
}

static LogicalResult verifySameElementType(Operation *op, Type input,
                                           Type result) {
  Type inElt = getElementTypeOrSelf(input);
  Type outElt = getElementTypeOrSelf(result);
  if (inElt != outElt)
    return op->emitOpError() << "result element type " << outElt
                             << " differs from input element type " << inElt;
  return success();
}

/// Checks that `result` is `input` with dimension `dim` scaled: multiplied
/// by `groupSize` when `multiply`, divided otherwise.
LogicalResult mlir::comm::detail::verifyScaledShape(Operation *op,
                                                   ShapedType input,
                                                   ShapedType result,
                                                   int64_t dim,
                                                   int64_t groupSize,
                                                   bool multiply) {
  if (input.getRank() != result.getRank())
    return op->emitOpError() << "result rank " << result.getRank()
                             << " differs from input rank " << input.getRank();
  SmallVector<int64_t> expected(input.getShape());
  if (multiply) {
    if (llvm::MulOverflow(expected[dim], groupSize, expected[dim]))
      return op->emitOpError() << "dimension " << dim << " of size "
                               << input.getDimSize(dim) << " times "
                               << groupSize << " ranks overflows 64 bits";
  } else {
    if (input.getDimSize(dim) % groupSize != 0)
      return op->emitOpError()
             << "dimension " << dim << " of size " << input.getDimSize(dim)
             << " is not divisible by the group size " << groupSize;
    expected[dim] /= groupSize;
  }
  if (result.getShape() != ArrayRef<int64_t>(expected))
    return op->emitOpError()
           << "expected result type "
           << input.clone(expected)
           << " for groups of " << groupSize << ", got " << result;
  return success();
}

//===----------------------------------------------------------------------===//
// Custom directives
//===----------------------------------------------------------------------===//

/// Enum attributes are written as a bare keyword inside ops.
template <typename AttrT>
static ParseResult parseEnumKeyword(OpAsmParser &parser, AttrT &attr) {
  using EnumT = decltype(std::declval<AttrT>().getValue());
  FailureOr<EnumT> value = FieldParser<EnumT>::parse(parser);
  if (failed(value))
    return failure();
  attr = AttrT::get(parser.getContext(), *value);
  return success();
}

template <typename AttrT>
static void printEnumKeyword(OpAsmPrinter &printer, Operation *, AttrT attr) {
  printer << stringifyEnum(attr.getValue());
}

static ParseResult parseReplicaGroups(OpAsmParser &parser,
                                      ReplicaGroupsAttr &groups) {
  groups = ReplicaGroupsAttr::parseBare(parser);
  return success(static_cast<bool>(groups));
}

static void printReplicaGroups(OpAsmPrinter &printer, Operation *,
                               ReplicaGroupsAttr groups) {
  groups.printBare(printer);
}

/// `(` types `)`, where the list may be empty (MLIR's generated parser for
/// `(` type($variadic) `)` requires at least one type).
static ParseResult parseTypeList(OpAsmParser &parser,
                                 SmallVectorImpl<Type> &types) {
  if (parser.parseLParen())
    return failure();
  if (succeeded(parser.parseOptionalRParen()))
    return success();
  if (parser.parseTypeList(types))
    return failure();
  return parser.parseRParen();
}

static void printTypeList(OpAsmPrinter &printer, Operation *, TypeRange types) {
  printer << "(";
  llvm::interleaveComma(types, printer);
  printer << ")";
}

static ParseResult parsePairs(OpAsmParser &parser, DenseI64ArrayAttr &pairs) {
  SmallVector<int64_t> flat;
  auto parsePair = [&]() -> ParseResult {
    SMLoc loc = parser.getCurrentLocation();
    SmallVector<int64_t, 2> pair;
    if (parser.parseCommaSeparatedList(
            AsmParser::Delimiter::Square,
            [&]() { return parser.parseInteger(pair.emplace_back()); },
            "in a [source, target] pair"))
      return failure();
    if (pair.size() != 2)
      return parser.emitError(loc)
             << "expected a [source, target] pair, got " << pair.size()
             << " ranks";
    llvm::append_range(flat, pair);
    return success();
  };
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, parsePair,
                                     "in the [source, target] pairs"))
    return failure();
  pairs = DenseI64ArrayAttr::get(parser.getContext(), flat);
  return success();
}

static void printPairs(OpAsmPrinter &printer, Operation *,
                       DenseI64ArrayAttr pairs) {
  ArrayRef<int64_t> flat = pairs.asArrayRef();
  printer << '[';
  for (size_t i = 0; i + 1 < flat.size(); i += 2)
    printer << (i ? ", " : "") << '[' << flat[i] << ", " << flat[i + 1] << ']';
  printer << ']';
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

/// A collective over groups of one rank moves nothing: its result is its
/// input.
template <typename OpT>
static OpFoldResult foldSingletonGroups(OpT op) {
  // Only where every rank is in a group: the others get zeros.
  if (op.getGroups().getGroupSize() == 1 &&
      op.getInput().getType() == op.getType() &&
      groupsCoverWorld(op, op.getGroups()))
    return op.getInput();
  return {};
}

// all_reduce

LogicalResult AllReduceOp::verify() {
  Type elementType = getInput().getType().getElementType();
  if (failed(verifyReduction(*this, getKind(), elementType)))
    return failure();
  return verifyGroupedCollective(*this, getGroups(), getPlanAttr(),
                                 elementType);
}

OpFoldResult AllReduceOp::fold(FoldAdaptor) {
  return foldSingletonGroups(*this);
}

Type AllReduceOp::getCommElementType() {
  return getInput().getType().getElementType();
}
int64_t AllReduceOp::getBytesSentPerRank() {
  return getTensorBytes(getInput().getType());
}
int64_t AllReduceOp::getBytesReceivedPerRank() {
  return getTensorBytes(getType());
}

// reduce_scatter

LogicalResult ReduceScatterOp::verify() {
  auto input = getInput().getType(), result = getType();
  Type elementType = input.getElementType();
  if (failed(verifyReduction(*this, getKind(), elementType)) ||
      failed(verifySameElementType(*this, input, result)) ||
      failed(verifyDim(*this, "dim", getDim(), input)) ||
      failed(verifyScaledShape(*this, input, result, getDim(),
                               getGroups().getGroupSize(),
                               /*multiply=*/false)))
    return failure();
  return verifyGroupedCollective(*this, getGroups(), getPlanAttr(),
                                 elementType);
}

OpFoldResult ReduceScatterOp::fold(FoldAdaptor) {
  return foldSingletonGroups(*this);
}

Type ReduceScatterOp::getCommElementType() {
  return getInput().getType().getElementType();
}
int64_t ReduceScatterOp::getBytesSentPerRank() {
  return getTensorBytes(getInput().getType());
}
int64_t ReduceScatterOp::getBytesReceivedPerRank() {
  return getTensorBytes(getType());
}

// all_gather

LogicalResult AllGatherOp::verify() {
  auto input = getInput().getType(), result = getType();
  if (failed(verifySameElementType(*this, input, result)) ||
      failed(verifyDim(*this, "dim", getDim(), input)) ||
      failed(verifyScaledShape(*this, input, result, getDim(),
                               getGroups().getGroupSize(),
                               /*multiply=*/true)))
    return failure();
  return verifyGroupedCollective(*this, getGroups(), getPlanAttr(),
                                 input.getElementType());
}

OpFoldResult AllGatherOp::fold(FoldAdaptor) {
  return foldSingletonGroups(*this);
}

Type AllGatherOp::getCommElementType() {
  return getInput().getType().getElementType();
}
int64_t AllGatherOp::getBytesSentPerRank() {
  return getTensorBytes(getInput().getType());
}
int64_t AllGatherOp::getBytesReceivedPerRank() {
  return getTensorBytes(getType());
}

// all_to_all

LogicalResult AllToAllOp::verify() {
  auto input = getInput().getType(), result = getType();
  int64_t groupSize = getGroups().getGroupSize();
  int64_t splitDim = getSplitDim(), concatDim = getConcatDim();
  if (failed(verifySameElementType(*this, input, result)) ||
      failed(verifyDim(*this, "split dimension", splitDim, input)) ||
      failed(verifyDim(*this, "concat dimension", concatDim, input)))
    return failure();
  if (input.getDimSize(splitDim) % groupSize != 0)
    return emitOpError() << "split dimension " << splitDim << " of size "
                         << input.getDimSize(splitDim)
                         << " is not divisible by the group size "
                         << groupSize;
  SmallVector<int64_t> expected(input.getShape());
  expected[splitDim] /= groupSize;
  if (llvm::MulOverflow(expected[concatDim], groupSize, expected[concatDim]))
    return emitOpError() << "concat dimension " << concatDim
                         << " times " << groupSize
                         << " ranks overflows 64 bits";
  if (result.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError() << "expected result type "
                         << RankedTensorType::get(expected,
                                                  input.getElementType())
                         << " (split " << splitDim << ", concat " << concatDim
                         << ", groups of " << groupSize << "), got " << result;
  return verifyGroupedCollective(*this, getGroups(), getPlanAttr(),
                                 input.getElementType());
}

OpFoldResult AllToAllOp::fold(FoldAdaptor) {
  return foldSingletonGroups(*this);
}

Type AllToAllOp::getCommElementType() {
  return getInput().getType().getElementType();
}
int64_t AllToAllOp::getBytesSentPerRank() {
  return getTensorBytes(getInput().getType());
}
int64_t AllToAllOp::getBytesReceivedPerRank() {
  return getTensorBytes(getType());
}

// broadcast

LogicalResult mlir::comm::detail::verifyRoot(Operation *op, int64_t root,
                                ReplicaGroupsAttr groups) {
  if (root >= groups.getGroupSize())
    return op->emitOpError() << "root " << root
                             << " is not a position in groups of "
                             << groups.getGroupSize() << " ranks";
  return success();
}

LogicalResult BroadcastOp::verify() {
  if (failed(verifyRoot(*this, getRoot(), getGroups())))
    return failure();
  return verifyGroupedCollective(*this, getGroups(), getPlanAttr(),
                                 getInput().getType().getElementType());
}

OpFoldResult BroadcastOp::fold(FoldAdaptor) {
  return foldSingletonGroups(*this);
}

Type BroadcastOp::getCommElementType() {
  return getInput().getType().getElementType();
}
int64_t BroadcastOp::getBytesSentPerRank() {
  return getTensorBytes(getInput().getType());
}
int64_t BroadcastOp::getBytesReceivedPerRank() {
  return getTensorBytes(getType());
}

// reduce

LogicalResult ReduceOp::verify() {
  Type elementType = getInput().getType().getElementType();
  if (failed(verifyReduction(*this, getKind(), elementType)) ||
      failed(verifyRoot(*this, getRoot(), getGroups())))
    return failure();
  return verifyGroupedCollective(*this, getGroups(), getPlanAttr(),
                                 elementType);
}

OpFoldResult ReduceOp::fold(FoldAdaptor) { return foldSingletonGroups(*this); }

Type ReduceOp::getCommElementType() {
  return getInput().getType().getElementType();
}
int64_t ReduceOp::getBytesSentPerRank() {
  return getTensorBytes(getInput().getType());
}
int64_t ReduceOp::getBytesReceivedPerRank() {
  return getTensorBytes(getType());
}

// permute

LogicalResult PermuteOp::verify() {
  if (failed(verifyPairs(*this, getPairs())))
    return failure();
  return verifyTransfer(*this, getPlanAttr(),
                    getInput().getType().getElementType());
}

ReplicaGroupsAttr PermuteOp::getReplicaGroups() {
  SmallVector<int64_t> ranks(getPairs());
  llvm::sort(ranks);
  ranks.erase(llvm::unique(ranks), ranks.end());
  return ReplicaGroupsAttr::get(getContext(), ranks, ranks.size());
}

Type PermuteOp::getCommElementType() {
  return getInput().getType().getElementType();
}
int64_t PermuteOp::getBytesSentPerRank() {
  return getTensorBytes(getInput().getType());
}
int64_t PermuteOp::getBytesReceivedPerRank() {
  return getTensorBytes(getType());
}

// barrier

LogicalResult BarrierOp::verify() {
  return verifyGroupedCollective(*this, getGroups(), getPlanAttr(),
                                 /*elementType=*/nullptr);
}

Type BarrierOp::getCommElementType() { return nullptr; }
int64_t BarrierOp::getBytesSentPerRank() { return 0; }
int64_t BarrierOp::getBytesReceivedPerRank() { return 0; }

namespace {
/// A barrier over groups of one rank waits for nobody.
struct EraseSingletonBarrier : public OpRewritePattern<BarrierOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BarrierOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getGroups().getGroupSize() != 1)
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void BarrierOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<EraseSingletonBarrier>(context);
}

//===----------------------------------------------------------------------===//
// Point to point
//===----------------------------------------------------------------------===//

LogicalResult SendOp::verify() {
  if (failed(verifyPairs(*this, getPairs())))
    return failure();
  return verifyTransfer(*this, getPlanAttr(),
                    getInput().getType().getElementType());
}

LogicalResult RecvOp::verify() {
  if (failed(verifyPairs(*this, getPairs())))
    return failure();
  return verifyTransfer(*this, getPlanAttr(), getType().getElementType());
}

//===----------------------------------------------------------------------===//
// Memory movement
//===----------------------------------------------------------------------===//

LogicalResult CopyOp::verify() {
  return verifyTransfer(*this, getPlanAttr(),
                    getInput().getType().getElementType());
}

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

/// Checks that `pieces` placed at `offsets` fit, without overlapping, in the
/// 1-D `buffer`, and that their element types are the buffer's or, for a
/// converting pack/unpack, floating point like the buffer's. `what` names a
/// piece in messages ("input" or "result").
LogicalResult mlir::comm::detail::verifyBufferLayout(
    Operation *op, Type bufferType, TypeRange pieces, ArrayRef<int64_t> offsets,
    StringRef what, int64_t blocks) {
  auto buffer = cast<ShapedType>(bufferType);
  // Offsets count the buffer's elements in row-major order, whatever its
  // shape.
  if (buffer.getRank() == 0)
    return op->emitOpError()
           << "expects a buffer with at least one dimension, got " << buffer;
  if (buffer.getNumElements() % blocks)
    return op->emitOpError()
           << "buffer of " << buffer.getNumElements()
           << " elements does not split into " << blocks << " equal blocks";
  if (pieces.empty())
    return op->emitOpError() << "expects at least one " << what;
  if (offsets.size() != pieces.size())
    return op->emitOpError() << "expects one offset per " << what << " ("
                             << pieces.size() << "), got " << offsets.size();
  Type bufferElt = buffer.getElementType();
  // With blocks, offsets are within a block and each piece has one part in
  // every block.
  int64_t capacity = buffer.getNumElements() / blocks;
  SmallVector<std::tuple<int64_t, int64_t, unsigned>> extents;
  for (auto [index, piece] : llvm::enumerate(pieces)) {
    auto type = cast<ShapedType>(piece);
    Type elt = type.getElementType();
    if (elt != bufferElt && !(isa<FloatType>(elt) && isa<FloatType>(bufferElt)))
      return op->emitOpError()
             << what << " #" << index << " has element type " << elt
             << " but the buffer holds " << bufferElt
             << "; only floating-point types convert";
    if (type.getNumElements() % blocks)
      return op->emitOpError()
             << what << " #" << index << " of " << type.getNumElements()
             << " elements does not split into " << blocks << " equal parts";
    int64_t offset = offsets[index], size = type.getNumElements() / blocks;
    if (offset < 0)
      return op->emitOpError() << "offset of " << what << " #" << index
                               << " is negative (" << offset << ")";
    if (size > capacity || offset > capacity - size)
      return op->emitOpError()
             << what << " #" << index << " (" << size << " elements at offset "
             << offset << ") does not fit in the "
             << (blocks > 1 ? "block" : "buffer") << " of " << capacity
             << " elements";
    extents.emplace_back(offset, size, index);
  }
  llvm::sort(extents);
  for (size_t i = 1; i < extents.size(); ++i) {
    auto [prevOffset, prevSize, prevIndex] = extents[i - 1];
    auto [offset, size, index] = extents[i];
    if (size != 0 && prevOffset + prevSize > offset)
      return op->emitOpError()
             << what << "s #" << std::min(prevIndex, index) << " and #"
             << std::max(prevIndex, index) << " overlap in the buffer";
  }
  return success();
}

/// Whether the pieces fill every element of the buffer (they are known not
/// to overlap).
static bool coversBuffer(Type bufferType, TypeRange pieces) {
  int64_t total = 0;
  for (Type piece : pieces)
    total += cast<RankedTensorType>(piece).getNumElements();
  return total == cast<RankedTensorType>(bufferType).getNumElements();
}

static bool convertsElements(Type bufferType, TypeRange pieces) {
  Type bufferElt = getElementTypeOrSelf(bufferType);
  return llvm::any_of(pieces, [&](Type piece) {
    return getElementTypeOrSelf(piece) != bufferElt;
  });
}

LogicalResult mlir::comm::detail::verifyRotation(Operation *op, ShapedType type,
                                                 ReplicaGroupsAttr groups) {
  if (failed(verifyGroups(op, groups)) || failed(verifyTensorSizes(op)))
    return failure();
  if (type.getRank() == 0)
    return op->emitOpError() << "rotates chunks along dimension 0, but " << type
                             << " has no dimensions";
  int64_t n = groups.getGroupSize();
  if (type.getDimSize(0) % n != 0)
    return op->emitOpError()
           << "cannot cut dimension 0 of " << type << " into " << n
           << " equal chunks (one per rank of a group): expected a multiple "
              "of "
           << n;
  return success();
}

LogicalResult RotateOp::verify() {
  return verifyRotation(*this, getType(), getGroups());
}

int64_t RotateOp::getSourceChunk(int64_t chunk, int64_t position) {
  int64_t n = getGroups().getGroupSize();
  int64_t shift = getShift() % n;
  int64_t index = (chunk + (getInverse() ? -position : position) + shift) % n;
  return index < 0 ? index + n : index;
}

LogicalResult PackOp::verify() {
  if (failed(verifyTensorSizes(*this)))
    return failure();
  return verifyBufferLayout(*this, getType(), getInputs().getTypes(),
                            getOffsets(), "input", getNumBlocks());
}

std::optional<MemorySpace> mlir::comm::getRecordedSpace(Value value) {
  if (Operation *def = value.getDefiningOp())
    if (auto space = def->getAttrOfType<MemorySpaceAttr>(
            CommDialect::getSpaceAttrName()))
      return space.getValue();
  return std::nullopt;
}

RankedTensorType mlir::comm::getSliceType(RankedTensorType type,
                                          int64_t parts) {
  SmallVector<int64_t> shape(type.getShape());
  shape[0] /= parts;
  return RankedTensorType::get(shape, type.getElementType());
}

SmallVector<int64_t> mlir::comm::getRingPairs(ReplicaGroupsAttr groups,
                                              int64_t shift) {
  SmallVector<int64_t> flat;
  int64_t n = groups.getGroupSize();
  for (int64_t g = 0; g < groups.getNumGroups(); ++g) {
    ArrayRef<int64_t> group = groups.getGroup(g);
    for (int64_t i = 0; i < n; ++i) {
      flat.push_back(group[i]);
      flat.push_back(group[(((i + shift) % n) + n) % n]);
    }
  }
  return flat;
}

StartOp mlir::comm::createStartedRecv(OpBuilder &builder, SendOp send) {
  Location loc = send.getLoc();
  auto start =
      StartOp::create(builder, loc, TokenType::get(builder.getContext()));
  OpBuilder inside(builder.getContext());
  inside.createBlock(&start.getBody());
  auto received = RecvOp::create(inside, loc, send.getInput().getType(),
                                 send.getPairsAttr(), send.getTagAttr(),
                                 send.getPlanAttr());
  if (Attribute bound = send->getAttr(CommDialect::getErrorBoundAttrName()))
    received->setAttr(CommDialect::getErrorBoundAttrName(), bound);
  YieldOp::create(inside, loc, ValueRange{received});
  return start;
}

Value mlir::comm::createWaitedRecv(OpBuilder &builder, StartOp start) {
  Type type = start.getYield().getValues().front().getType();
  return WaitOp::create(builder, start.getLoc(), TypeRange{type},
                        start.getToken())
      .getResult(0);
}

PieceBoundListener::PieceBoundListener(OpBuilder &builder, Operation *whole)
    : builder(builder), outer(builder.getListener()),
      bound(whole->getAttr(CommDialect::getErrorBoundAttrName())) {
  builder.setListener(this);
}

PieceBoundListener::~PieceBoundListener() { builder.setListener(outer); }

void PieceBoundListener::notifyOperationInserted(
    Operation *op, OpBuilder::InsertPoint previous) {
  if (bound && isa<CollectiveOpInterface, PointToPointOpInterface>(op))
    op->setAttr(CommDialect::getErrorBoundAttrName(), bound);
  if (outer)
    outer->notifyOperationInserted(op, previous);
}

LogicalResult mlir::comm::checkTransferMatch(Operation *send, Operation *recv,
                                             int64_t rank, int64_t from,
                                             int64_t tag) {
  auto wireOf = [](Operation *op) -> Type {
    if (auto plan = op->getAttrOfType<PlanAttr>("plan"))
      return plan.getPrecision();
    return {};
  };
  Type sent = cast<PointToPointOpInterface>(send).getTransferType();
  Type received = cast<PointToPointOpInterface>(recv).getTransferType();
  if (sent != received) {
    InFlightDiagnostic diag = recv->emitError()
                              << "rank " << rank << " receives " << received
                              << " from rank " << from << " (tag " << tag
                              << "), but the matching comm.send sends "
                              << sent;
    diag.attachNote(send->getLoc()) << "the matching comm.send";
    return diag;
  }
  Type sentWire = wireOf(send), receivedWire = wireOf(recv);
  if (sentWire == receivedWire)
    return success();
  // Each end converts to and from its plan's precision: the bytes on the
  // wire must be read as they were written.
  auto describe = [&](Type wire) {
    std::string text;
    llvm::raw_string_ostream os(text);
    if (wire)
      os << wire;
    else
      os << cast<ShapedType>(sent).getElementType() << " (no plan precision)";
    return text;
  };
  InFlightDiagnostic diag = recv->emitError()
                            << "rank " << rank << " receives from rank "
                            << from << " (tag " << tag << ") as "
                            << describe(receivedWire)
                            << " on the wire, but the matching comm.send "
                               "sends "
                            << describe(sentWire);
  diag.attachNote(send->getLoc()) << "the matching comm.send";
  return diag;
}

int64_t mlir::comm::getPlanStream(Operation *op) {
  auto plan = op->getAttrOfType<PlanAttr>("plan");
  return plan && plan.getStream() ? *plan.getStream() : kBackendStream;
}

PlanAttr mlir::comm::getPiecePlan(PlanAttr plan) {
  if (!plan || (!plan.getPrecision() && !plan.getRoute() && !plan.getStream()))
    return nullptr;
  return PlanAttr::get(plan.getContext(), std::nullopt, std::nullopt,
                       std::nullopt, std::nullopt, plan.getPrecision(),
                       plan.getRoute(), plan.getStream());
}

PackOp mlir::comm::createJoin(OpBuilder &builder, Location loc, Type resultType,
                              ValueRange parts) {
  SmallVector<int64_t> offsets;
  int64_t offset = 0;
  for (Value part : parts) {
    offsets.push_back(offset);
    offset += cast<ShapedType>(part.getType()).getNumElements();
  }
  return PackOp::create(builder, loc, resultType, parts,
                        builder.getDenseI64ArrayAttr(offsets), nullptr);
}

/// pack(unpack(%b)) with the same layout, covering the whole buffer and
/// converting nothing, is %b.
OpFoldResult PackOp::fold(FoldAdaptor) {
  if (getInputs().empty())
    return {};
  auto unpack = getInputs().front().getDefiningOp<UnpackOp>();
  if (!unpack || unpack.getInput().getType() != getType() ||
      unpack.getOffsets() != getOffsets() ||
      unpack.getNumBlocks() != getNumBlocks() ||
      !llvm::equal(unpack.getResults(), getInputs()) ||
      convertsElements(getType(), getInputs().getTypes()) ||
      !coversBuffer(getType(), getInputs().getTypes()))
    return {};
  return unpack.getInput();
}

LogicalResult UnpackOp::verify() {
  if (failed(verifyTensorSizes(*this)))
    return failure();
  return verifyBufferLayout(*this, getInput().getType(), getResultTypes(),
                            getOffsets(), "result", getNumBlocks());
}

/// unpack(pack(%a, %b)) with the same layout and no conversion is %a, %b.
LogicalResult UnpackOp::fold(FoldAdaptor,
                             SmallVectorImpl<OpFoldResult> &results) {
  auto pack = getInput().getDefiningOp<PackOp>();
  if (!pack || pack.getOffsets() != getOffsets() ||
      pack.getNumBlocks() != getNumBlocks() ||
      pack.getInputs().getTypes() != getResultTypes() ||
      convertsElements(pack.getType(), pack.getInputs().getTypes()))
    return failure();
  llvm::append_range(results, pack.getInputs());
  return success();
}

//===----------------------------------------------------------------------===//
// Compute stand-in
//===----------------------------------------------------------------------===//

LogicalResult ComputeOp::verify() {
  if (getName().empty())
    return emitOpError() << "expects a non-empty name";
  if (auto flops = getFlops();
      flops && (flops->isNegative() || !flops->isFinite()))
    return emitOpError() << "flops must be non-negative and finite, got "
                         << flops->convertToDouble();
  if (IntegerAttr bytes = getBytesAttr(); bytes && bytes.getInt() < 0)
    return emitOpError() << "bytes must be non-negative, got "
                         << bytes.getInt();
  if (auto time = getTimeUs();
      time && (time->isNegative() || !time->isFinite()))
    return emitOpError() << "time_us must be non-negative and finite, got "
                         << time->convertToDouble();
  if (std::optional<ArrayRef<int64_t>> part = getPart()) {
    if (part->size() != 2 || (*part)[1] < 1 || (*part)[0] < 0 ||
        (*part)[0] >= (*part)[1])
      return emitOpError() << "part must be [i, k] with 0 <= i < k";
    for (Type type : getResultTypes())
      if (cast<RankedTensorType>(type).getRank() == 0)
        return emitOpError() << "a part is a slice along dimension 0, but "
                             << type << " has no dimensions";
  }
  if (ReplicaGroupsAttr groups = getPartGroupsAttr()) {
    if (!getPart())
      return emitOpError() << "'rotated over' needs a part [i, k]";
    if (groups.getGroupSize() != (*getPart())[1])
      return emitOpError() << "'rotated over' groups of "
                           << groups.getGroupSize()
                           << " ranks, but the op is cut into "
                           << (*getPart())[1]
                           << " parts: a rotated part needs one per rank";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Async
//===----------------------------------------------------------------------===//

YieldOp StartOp::getYield() {
  Block &body = getBody().front();
  if (body.empty())
    return {};
  return dyn_cast<YieldOp>(body.back());
}

LogicalResult StartOp::verify() {
  // The terminator is a comm.yield: no other terminator accepts this parent.
  if ((*this)->getParentOfType<StartOp>())
    return emitOpError() << "may not be nested inside another comm.start";
  // Only the wait completes the transfers: a start nobody waits for never
  // ends (the lowering could not emit it, and the simulator would time a
  // program that cannot run).
  if (getToken().use_empty())
    return emitOpError() << "has a token that is never waited for; a "
                            "comm.start is waited for exactly once, or its "
                            "transfers never complete";
  // The token stays where it was started: returned, passed to a call or
  // carried through a loop, its wait could run other than once (a wait in
  // a callee, a loop's body) or never.
  for (Operation *user : getToken().getUsers())
    if (!isa<WaitOp>(user)) {
      InFlightDiagnostic diag =
          emitOpError() << "has a token used by '" << user->getName()
                        << "'; a token is used only by the comm.wait that "
                           "completes it, in the function that started it";
      diag.attachNote(user->getLoc()) << "used here";
      return diag;
    }
  return success();
}

LogicalResult WaitOp::verify() {
  // A token is waited for once: its results are the transfer's, and a
  // second wait would hand them out twice.
  for (Operation *user : getToken().getUsers()) {
    auto other = dyn_cast<WaitOp>(user);
    if (!other || other == *this)
      continue;
    if (other->getBlock() != (*this)->getBlock() ||
        other->isBeforeInBlock(*this)) {
      InFlightDiagnostic diag =
          emitOpError() << "waits for a token that is already waited for; "
                           "a comm.start is waited for exactly once";
      diag.attachNote(other.getLoc()) << "the other comm.wait";
      return diag;
    }
  }
  auto start = getToken().getDefiningOp<StartOp>();
  if (!start)
    return success();
  // A wait inside a loop that its start is outside of would run on every
  // iteration (or on none), completing the transfers again each time.
  // (A loop holding the start as well runs both once per iteration.)
  for (Operation *parent = (*this)->getParentOp();
       parent && !parent->isAncestor(start); parent = parent->getParentOp())
    if (isa<LoopLikeOpInterface>(parent)) {
      InFlightDiagnostic diag =
          emitOpError() << "waits inside a loop ('" << parent->getName()
                        << "') for a comm.start outside it: it would wait "
                           "on every iteration, or on none; wait before the "
                           "loop, or start the transfer inside it";
      diag.attachNote(start.getLoc()) << "the comm.start";
      return diag;
    }
  YieldOp yield = start.getYield();
  if (!yield)
    return success();
  TypeRange yielded = yield.getValues().getTypes();
  if (yielded != getResultTypes())
    return emitOpError() << "returns " << getNumResults()
                         << " value(s) of type(s) (" << getResultTypes()
                         << ") but its comm.start yields (" << yielded << ")";
  return success();
}

#define GET_OP_CLASSES
#include "comm/Dialect/Comm/CommOps.cpp.inc"
