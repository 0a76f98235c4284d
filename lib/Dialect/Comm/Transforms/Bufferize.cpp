//===- Bufferize.cpp - comm ops on tensors to comm ops on -------*- C++ -*-===//
//
// comm programs are straight-line SSA over tensors (plus loops without
// iteration arguments and calls), so bufferization needs no aliasing
// analysis: every tensor a comm op produces is a fresh buffer. The pass
// rebuilds each function body with memrefs, op by op.
//
//===----------------------------------------------------------------------===//

#include "comm/Dialect/Comm/IR/CommOps.h"
#include "comm/Dialect/Comm/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir {
namespace comm {
#define GEN_PASS_DEF_COMMBUFFERIZE
#include "comm/Dialect/Comm/CommPasses.h.inc"
} // namespace comm
} // namespace mlir

using namespace mlir;
using namespace mlir::comm;

static Type bufferTypeOf(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return MemRefType::get(tensor.getShape(), tensor.getElementType());
  return type;
}

static FunctionType bufferFunctionType(FunctionType type) {
  SmallVector<Type> inputs, results;
  for (Type t : type.getInputs())
    inputs.push_back(bufferTypeOf(t));
  for (Type t : type.getResults())
    results.push_back(bufferTypeOf(t));
  return FunctionType::get(type.getContext(), inputs, results);
}

namespace {
/// Rebuilds one function body on buffers.
class FunctionBufferizer {
public:
  explicit FunctionBufferizer(func::FuncOp function) : function(function) {}
  LogicalResult run();

private:
  /// Converts the ops of `source` into `builder`'s block. Allocations are
  /// created at `allocBuilder` (the same block, or before the enclosing
  /// comm.start) and recorded in `allocs` for freeing.
  LogicalResult convertBlock(Block &source, OpBuilder &builder,
                             OpBuilder &allocBuilder,
                             SmallVectorImpl<Value> &allocs,
                             SmallVectorImpl<Value> *yielded);
  LogicalResult convertOp(Operation *op, OpBuilder &builder,
                          OpBuilder &allocBuilder,
                          SmallVectorImpl<Value> &allocs,
                          SmallVectorImpl<Value> *yielded);
  Value alloc(OpBuilder &allocBuilder, SmallVectorImpl<Value> &allocs,
              Location loc, Type tensorType) {
    Value buffer = memref::AllocOp::create(
        allocBuilder, loc, cast<MemRefType>(bufferTypeOf(tensorType)));
    allocs.push_back(buffer);
    return buffer;
  }
  Value lookup(Value value) { return mapping.lookupOrDefault(value); }
  void freeAtEnd(Block &block, ArrayRef<Value> allocs);

  func::FuncOp function;
  IRMapping mapping;
  /// Buffers that leave the function (returned): not freed.
  llvm::SmallDenseSet<Value> escaping;
  /// The yielded buffers of each comm.start, by token.
  llvm::DenseMap<Value, SmallVector<Value>> tokenBuffers;
};
} // namespace

/// The value of a splat floating-point constant tensor, or std::nullopt.
static std::optional<double> getScaleFactor(Value value) {
  auto constant = value.getDefiningOp<arith::ConstantOp>();
  if (!constant)
    return std::nullopt;
  auto dense = dyn_cast<DenseFPElementsAttr>(constant.getValue());
  if (!dense || !dense.isSplat())
    return std::nullopt;
  return dense.getSplatValue<APFloat>().convertToDouble();
}

LogicalResult FunctionBufferizer::convertOp(Operation *op, OpBuilder &builder,
                                            OpBuilder &allocBuilder,
                                            SmallVectorImpl<Value> &allocs,
                                            SmallVectorImpl<Value> *yielded) {
  Location loc = op->getLoc();
  // Every buffer is allocated with its static shape (a dynamic one made an
  // invalid memref.alloc).
  for (auto [index, type] : llvm::enumerate(op->getResultTypes()))
    if (auto tensor = dyn_cast<RankedTensorType>(type);
        tensor && !tensor.hasStaticShape())
      return op->emitError()
             << "comm-bufferize: result " << index << " has the dynamic shape "
             << type
             << "; comm allocates every buffer with a static shape (give "
                "the op a static result type)";
  auto result = [&](Value tensor) {
    Value buffer = alloc(allocBuilder, allocs, loc, tensor.getType());
    mapping.map(tensor, buffer);
    return buffer;
  };
  auto copyAttrs = [&](Operation *from, Operation *to) {
    for (NamedAttribute attr : from->getDiscardableAttrs())
      to->setAttr(attr.getName(), attr.getValue());
  };

  if (auto ar = dyn_cast<AllReduceOp>(op)) {
    Value out = result(ar.getResult());
    copyAttrs(op, BufferAllReduceOp::create(builder, loc, lookup(ar.getInput()),
                                            out, ar.getKindAttr(),
                                            ar.getGroups(), ar.getPlanAttr()));
    return success();
  }
  if (auto rs = dyn_cast<ReduceScatterOp>(op)) {
    Value out = result(rs.getResult());
    BufferReduceScatterOp::create(builder, loc, lookup(rs.getInput()), out,
                                  rs.getKindAttr(), rs.getGroups(),
                                  rs.getDimAttr(), rs.getPlanAttr());
    return success();
  }
  if (auto ag = dyn_cast<AllGatherOp>(op)) {
    Value out = result(ag.getResult());
    BufferAllGatherOp::create(builder, loc, lookup(ag.getInput()), out,
                              ag.getGroups(), ag.getDimAttr(),
                              ag.getPlanAttr());
    return success();
  }
  if (auto a2a = dyn_cast<AllToAllOp>(op)) {
    Value out = result(a2a.getResult());
    BufferAllToAllOp::create(builder, loc, lookup(a2a.getInput()), out,
                             a2a.getGroups(), a2a.getSplitDimAttr(),
                             a2a.getConcatDimAttr(), a2a.getPlanAttr());
    return success();
  }
  if (auto bc = dyn_cast<BroadcastOp>(op)) {
    Value out = result(bc.getResult());
    BufferBroadcastOp::create(builder, loc, lookup(bc.getInput()), out,
                              bc.getGroups(), bc.getRootAttr(),
                              bc.getPlanAttr());
    return success();
  }
  if (auto red = dyn_cast<ReduceOp>(op)) {
    Value out = result(red.getResult());
    BufferReduceOp::create(builder, loc, lookup(red.getInput()), out,
                           red.getKindAttr(), red.getGroups(),
                           red.getRootAttr(), red.getPlanAttr());
    return success();
  }
  // A received tensor arrives in the memory comm-route chose for it (host
  // staging), else in the target's default.
  auto receive = [&](Value tensor) {
    Value out = result(tensor);
    if (Attribute space = op->getAttr(CommDialect::getSpaceAttrName()))
      out.getDefiningOp()->setAttr(CommDialect::getSpaceAttrName(), space);
    return out;
  };
  if (auto perm = dyn_cast<PermuteOp>(op)) {
    Value out = receive(perm.getResult());
    BufferPermuteOp::create(builder, loc, lookup(perm.getInput()), out,
                            perm.getPairsAttr(), perm.getPlanAttr());
    return success();
  }
  if (auto send = dyn_cast<SendOp>(op)) {
    BufferSendOp::create(builder, loc, lookup(send.getInput()),
                         send.getPairsAttr(), send.getTagAttr(),
                         send.getPlanAttr());
    return success();
  }
  if (auto recv = dyn_cast<RecvOp>(op)) {
    Value out = receive(recv.getResult());
    BufferRecvOp::create(builder, loc, out, recv.getPairsAttr(),
                         recv.getTagAttr(), recv.getPlanAttr());
    return success();
  }
  if (auto copy = dyn_cast<CopyOp>(op)) {
    Value out = result(copy.getResult());
    // The lowering allocates the target in the destination memory space.
    out.getDefiningOp()->setAttr(CommDialect::getSpaceAttrName(),
                                 copy.getDstAttr());
    BufferCopyOp::create(builder, loc, lookup(copy.getInput()), out,
                         copy.getSrcAttr(), copy.getDstAttr(),
                         copy.getPlanAttr());
    return success();
  }
  if (auto rotate = dyn_cast<RotateOp>(op)) {
    Value out = result(rotate.getResult());
    BufferRotateOp::create(builder, loc, lookup(rotate.getInput()), out,
                           rotate.getGroupsAttr(), rotate.getShiftAttr(),
                           rotate.getInverseAttr());
    return success();
  }
  if (auto pack = dyn_cast<PackOp>(op)) {
    Value out = result(pack.getResult());
    SmallVector<Value> inputs;
    for (Value v : pack.getInputs())
      inputs.push_back(lookup(v));
    BufferPackOp::create(builder, loc, inputs, out, pack.getOffsetsAttr(),
                         pack.getBlocksAttr());
    return success();
  }
  if (auto unpack = dyn_cast<UnpackOp>(op)) {
    SmallVector<Value> outputs;
    for (Value v : unpack.getResults())
      outputs.push_back(result(v));
    BufferUnpackOp::create(builder, loc, lookup(unpack.getInput()), outputs,
                           unpack.getOffsetsAttr(), unpack.getBlocksAttr());
    return success();
  }
  if (auto compute = dyn_cast<ComputeOp>(op)) {
    SmallVector<Value> inputs, outputs;
    for (Value v : compute.getInputs())
      inputs.push_back(lookup(v));
    for (Value v : compute.getResults())
      outputs.push_back(result(v));
    BufferComputeOp::create(builder, loc, compute.getNameAttr(), inputs,
                            outputs, compute.getFlopsAttr(),
                            compute.getBytesAttr(), compute.getTimeUsAttr(),
                            compute.getPartAttr(), compute.getRowwiseAttr(),
                            compute.getPartGroupsAttr());
    return success();
  }
  if (isa<BarrierOp>(op)) {
    builder.clone(*op, mapping);
    return success();
  }
  if (auto start = dyn_cast<StartOp>(op)) {
    // The body writes into buffers allocated before the start; it yields
    // nothing and the wait returns nothing.
    auto newStart =
        StartOp::create(builder, loc, TokenType::get(op->getContext()));
    Block *body = new Block();
    newStart.getBody().push_back(body);
    OpBuilder bodyBuilder = OpBuilder::atBlockBegin(body);
    OpBuilder beforeStart(newStart);
    SmallVector<Value> buffers;
    if (failed(convertBlock(start.getBody().front(), bodyBuilder, beforeStart,
                            allocs, &buffers)))
      return failure();
    bodyBuilder.setInsertionPointToEnd(body);
    YieldOp::create(bodyBuilder, loc, ValueRange());
    mapping.map(start.getToken(), newStart.getToken());
    tokenBuffers[newStart.getToken()] = buffers;
    return success();
  }
  if (auto yield = dyn_cast<YieldOp>(op)) {
    if (!yielded)
      return op->emitError() << "comm.yield outside a comm.start";
    for (Value v : yield.getValues()) {
      if (!isa<RankedTensorType>(v.getType()))
        return op->emitError()
               << "comm-bufferize: a comm.start may only yield tensors, got "
               << v.getType();
      yielded->push_back(lookup(v));
    }
    return success();
  }
  if (auto wait = dyn_cast<WaitOp>(op)) {
    Value token = lookup(wait.getToken());
    auto it = tokenBuffers.find(token);
    if (it == tokenBuffers.end())
      return op->emitError() << "comm-bufferize: the token does not come from "
                                "a comm.start of this function";
    WaitOp::create(builder, loc, TypeRange(), token);
    for (auto [result, buffer] : llvm::zip(wait.getResults(), it->second))
      mapping.map(result, buffer);
    return success();
  }
  // A splat constant is only the factor of a scaling (below): it needs no
  // buffer of its own.
  if (auto constant = dyn_cast<arith::ConstantOp>(op);
      constant && isa<RankedTensorType>(constant.getType())) {
    if (getScaleFactor(constant.getResult()) &&
        llvm::all_of(constant->getUsers(),
                     [&](Operation *user) { return isa<arith::MulFOp>(user); }))
      return success();
    return op->emitError()
           << "comm-bufferize: a tensor constant is supported only as the "
              "splat factor of an arith.mulf (the scaling of an average)";
  }
  if (auto mul = dyn_cast<arith::MulFOp>(op);
      mul && isa<RankedTensorType>(mul.getType())) {
    std::optional<double> factor = getScaleFactor(mul.getRhs());
    Value scaled = mul.getLhs();
    if (!factor) {
      factor = getScaleFactor(mul.getLhs());
      scaled = mul.getRhs();
    }
    if (factor) {
      Value out = result(mul.getResult());
      BufferScaleOp::create(builder, loc, lookup(scaled),
                            builder.getF64FloatAttr(*factor), out);
      return success();
    }
  }
  if (auto kind = getCombineKind(op);
      kind && isa<RankedTensorType>(op->getResult(0).getType())) {
    Value out = result(op->getResult(0));
    BufferCombineOp::create(
        builder, loc, ReductionKindAttr::get(op->getContext(), *kind),
        lookup(op->getOperand(0)), lookup(op->getOperand(1)), out);
    return success();
  }
  if (auto empty = dyn_cast<tensor::EmptyOp>(op)) {
    result(empty.getResult());
    return success();
  }
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    // A loop-carried tensor lives in one buffer for the whole loop: its
    // initial value is copied in, each trip's yield copied back, and the
    // loop's result is that buffer after the last trip.
    SmallVector<Value> carried;
    for (auto [init, res] : llvm::zip(loop.getInitArgs(), loop.getResults())) {
      auto type = dyn_cast<RankedTensorType>(init.getType());
      if (!type || !type.hasStaticShape())
        return op->emitError()
               << "comm-bufferize: a loop may carry statically shaped "
                  "tensors only, not "
               << init.getType();
      Value buffer = result(res);
      memref::CopyOp::create(builder, loc, lookup(init), buffer);
      carried.push_back(buffer);
    }
    auto newLoop = scf::ForOp::create(
        builder, loc, lookup(loop.getLowerBound()),
        lookup(loop.getUpperBound()), lookup(loop.getStep()));
    mapping.map(loop.getInductionVar(), newLoop.getInductionVar());
    mapping.map(loop.getRegionIterArgs(), carried);
    Block *body = newLoop.getBody();
    OpBuilder bodyBuilder = OpBuilder::atBlockBegin(body);
    SmallVector<Value> bodyAllocs;
    for (Operation &inner : loop.getBody()->without_terminator())
      if (failed(
              convertOp(&inner, bodyBuilder, bodyBuilder, bodyAllocs, nullptr)))
        return failure();
    // A yield that reads another carried buffer (arguments swapped between
    // trips) is read into a temporary before any carried buffer is written.
    SmallVector<Value> sources;
    for (Value value : loop.getBody()->getTerminator()->getOperands())
      sources.push_back(lookup(value));
    for (auto [index, source] : llvm::enumerate(sources))
      if (source != carried[index] && llvm::is_contained(carried, source)) {
        Value temp = alloc(bodyBuilder, bodyAllocs, loc,
                           loop.getResult(index).getType());
        memref::CopyOp::create(bodyBuilder, loc, source, temp);
        source = temp;
      }
    for (auto [source, buffer] : llvm::zip(sources, carried))
      if (source != buffer)
        memref::CopyOp::create(bodyBuilder, loc, source, buffer);
    freeAtEnd(*body, bodyAllocs);
    return success();
  }
  if (auto call = dyn_cast<func::CallOp>(op)) {
    SmallVector<Value> operands;
    for (Value v : call.getOperands())
      operands.push_back(lookup(v));
    SmallVector<Type> results;
    for (Type t : call.getResultTypes())
      results.push_back(bufferTypeOf(t));
    auto newCall = func::CallOp::create(builder, loc, call.getCalleeAttr(),
                                        results, operands);
    for (auto [from, to] : llvm::zip(call.getResults(), newCall.getResults()))
      mapping.map(from, to);
    return success();
  }
  if (auto ret = dyn_cast<func::ReturnOp>(op)) {
    SmallVector<Value> values;
    for (Value v : ret.getOperands()) {
      Value buffer = lookup(v);
      // A value returned twice: every result gets its own buffer (each
      // becomes its own out-parameter), the later ones a copy.
      if (auto type = dyn_cast<MemRefType>(buffer.getType());
          type && llvm::is_contained(values, buffer)) {
        if (!type.hasStaticShape())
          return ret.emitError()
                 << "comm-bufferize: returns the dynamically shaped value "
                    "of result "
                 << llvm::find(values, buffer) - values.begin()
                 << " again; return it once";
        Value copy = memref::AllocOp::create(
            builder, loc,
            MemRefType::get(type.getShape(), type.getElementType()));
        memref::CopyOp::create(builder, loc, buffer, copy);
        buffer = copy;
      }
      values.push_back(buffer);
      escaping.insert(values.back());
    }
    func::ReturnOp::create(builder, loc, values);
    return success();
  }
  // Scalar ops (constants, index arithmetic) carry over unchanged.
  bool touchesTensors =
      llvm::any_of(op->getOperandTypes(), llvm::IsaPred<TensorType>) ||
      llvm::any_of(op->getResultTypes(), llvm::IsaPred<TensorType>);
  if (!touchesTensors && op->getNumRegions() == 0) {
    builder.clone(*op, mapping);
    return success();
  }
  return op->emitError() << "comm-bufferize cannot bufferize '" << op->getName()
                         << "'; comm programs use comm ops, element-wise "
                            "arith ops, tensor.empty, scf.for and calls";
}

LogicalResult FunctionBufferizer::convertBlock(
    Block &source, OpBuilder &builder, OpBuilder &allocBuilder,
    SmallVectorImpl<Value> &allocs, SmallVectorImpl<Value> *yielded) {
  for (Operation &op : source)
    if (failed(convertOp(&op, builder, allocBuilder, allocs, yielded)))
      return failure();
  return success();
}

void FunctionBufferizer::freeAtEnd(Block &block, ArrayRef<Value> allocs) {
  OpBuilder builder(&block, std::prev(block.end()));
  for (Value buffer : allocs)
    if (!escaping.contains(buffer))
      memref::DeallocOp::create(builder, buffer.getLoc(), buffer);
}

LogicalResult FunctionBufferizer::run() {
  if (function.isExternal()) {
    function.setType(bufferFunctionType(function.getFunctionType()));
    return success();
  }
  Block &old = function.getBody().front();
  // The new body goes after the old one while it is built, so that it has
  // a parent region (and context) from the start.
  auto *fresh = new Block();
  function.getBody().push_back(fresh);
  for (BlockArgument arg : old.getArguments())
    mapping.map(arg,
                fresh->addArgument(bufferTypeOf(arg.getType()), arg.getLoc()));
  OpBuilder builder = OpBuilder::atBlockBegin(fresh);
  SmallVector<Value> allocs;
  if (failed(convertBlock(old, builder, builder, allocs, nullptr))) {
    fresh->dropAllDefinedValueUses();
    fresh->dropAllReferences();
    fresh->erase();
    return failure();
  }
  freeAtEnd(*fresh, allocs);
  old.dropAllDefinedValueUses();
  old.dropAllReferences();
  old.erase();
  function.setType(bufferFunctionType(function.getFunctionType()));
  return success();
}

namespace {
struct CommBufferizePass
    : public comm::impl::CommBufferizeBase<CommBufferizePass> {
  void runOnOperation() override {
    for (auto function :
         llvm::make_early_inc_range(getOperation().getOps<func::FuncOp>()))
      if (failed(FunctionBufferizer(function).run()))
        return signalPassFailure();
  }
};
} // namespace
