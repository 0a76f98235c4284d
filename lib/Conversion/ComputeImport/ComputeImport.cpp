//===- ComputeImport.cpp - framework compute as comm.compute ----*- C++ -*-===//
//
// The frontends' shared second half: once collectives are comm ops, every op
// that computes tensors becomes a comm.compute with a cost estimated from its
// shapes. The rules are first-order on purpose (FLOPs of the loop nest and
// bytes of the tensors touched): the simulator turns them into time with the
// device's peak rates, which is what deciding an overlap needs.
//
//===----------------------------------------------------------------------===//

#include "comm/Conversion/ComputeImport/ComputeImport.h"
#include "comm/Conversion/CommToEmitC/CommToEmitC.h"
#include "comm/Dialect/Comm/IR/CommDialect.h"
#include "comm/Dialect/Comm/IR/CommOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"
#include <cstdio>
#include <cstdlib>

using namespace mlir;
using namespace mlir::comm;

int64_t mlir::comm::getTensorElements(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return 0;
  return tensor.getNumElements();
}

int64_t mlir::comm::getTensorBytes(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return 0;
  if (std::optional<int64_t> bytes = getStorageBytes(tensor))
    return *bytes;
  // What the runtime does not store (index, complex): their natural width.
  Type element = tensor.getElementType();
  int64_t width = 8;
  if (auto complex = dyn_cast<ComplexType>(element);
      complex && complex.getElementType().isIntOrFloat())
    width = 2 * getElementStorageBytes(complex.getElementType());
  return tensor.getNumElements() * width;
}

int64_t mlir::comm::getTrafficBytes(Operation *op) {
  int64_t bytes = 0;
  for (Type type : op->getOperandTypes())
    bytes += getTensorBytes(type);
  for (Type type : op->getResultTypes())
    bytes += getTensorBytes(type);
  return bytes;
}

int64_t mlir::comm::getResultElements(Operation *op) {
  int64_t elements = 0;
  for (Type type : op->getResultTypes())
    elements = std::max(elements, getTensorElements(type));
  return elements;
}

/// The sum of the estimates of the ops of `region`, terminators aside.
static ComputeEstimate estimateRegion(Region &region,
                                      ComputeEstimator estimator) {
  ComputeEstimate total;
  for (Block &block : region)
    for (Operation &op : block)
      if (!op.hasTrait<OpTrait::IsTerminator>())
        total += estimateCompute(&op, estimator);
  return total;
}

/// A linalg op: every point of its iteration space runs its payload.
static ComputeEstimate estimateLinalg(linalg::LinalgOp op) {
  ComputeEstimate estimate;
  estimate.bytes = getTrafficBytes(op);
  int64_t points = 1;
  for (int64_t range : op.getStaticLoopRanges()) {
    if (ShapedType::isDynamic(range)) {
      estimate.known = false;
      return estimate;
    }
    points *= range;
  }
  int64_t payloadOps = 0;
  for (Operation &inner : op->getRegion(0).front())
    if (!inner.hasTrait<OpTrait::IsTerminator>())
      ++payloadOps;
  estimate.flops = static_cast<double>(points) * payloadOps;
  return estimate;
}

static ComputeEstimate estimateTensorOp(Operation *op) {
  ComputeEstimate estimate;
  // Views and allocations move nothing.
  if (isa<tensor::EmptyOp, tensor::CastOp, tensor::ExpandShapeOp,
          tensor::CollapseShapeOp, tensor::ReshapeOp, tensor::BitcastOp>(op))
    return estimate;
  estimate.bytes = getTrafficBytes(op);
  return estimate;
}

ComputeEstimate mlir::comm::estimateCompute(Operation *op,
                                            ComputeEstimator estimator) {
  if (estimator)
    if (std::optional<ComputeEstimate> estimate = estimator(op))
      return *estimate;
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
    return estimateLinalg(linalgOp);
  if (isa<arith::ConstantOp>(op))
    return {};
  if (isa_and_nonnull<tensor::TensorDialect>(op->getDialect()))
    return estimateTensorOp(op);
  if (op->hasTrait<OpTrait::Elementwise>())
    return {static_cast<double>(getResultElements(op)), getTrafficBytes(op)};
  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    // One branch runs: charge the dearer of the two.
    ComputeEstimate thenCost = estimateRegion(ifOp.getThenRegion(), estimator);
    ComputeEstimate elseCost = estimateRegion(ifOp.getElseRegion(), estimator);
    return {std::max(thenCost.flops, elseCost.flops),
            std::max(thenCost.bytes, elseCost.bytes),
            thenCost.known && elseCost.known};
  }
  if (auto forOp = dyn_cast<scf::ForOp>(op)) {
    ComputeEstimate body = estimateRegion(forOp.getRegion(), estimator);
    std::optional<APInt> trips = forOp.getStaticTripCount();
    if (!trips)
      return {body.flops, body.bytes, false};
    int64_t count = trips->getSExtValue();
    return {body.flops * count, body.bytes * count, body.known};
  }
  if (op->getNumRegions() > 0 && op->isRegistered()) {
    ComputeEstimate total;
    for (Region &region : op->getRegions())
      total += estimateRegion(region, estimator);
    return total;
  }
  // Scalar arithmetic costs nothing worth simulating.
  if (op->isRegistered() && getResultElements(op) == 0 &&
      llvm::none_of(op->getOperandTypes(),
                    [](Type t) { return isa<TensorType>(t); }))
    return {};
  return {0, getTrafficBytes(op), /*known=*/false};
}

/// True if `op` or anything nested in it is a comm op.
static bool holdsComm(Operation *op) {
  return op
      ->walk([](Operation *nested) {
        return isa_and_nonnull<CommDialect>(nested->getDialect())
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

static bool isImportable(Operation *op) {
  return op->getNumResults() > 0 &&
         llvm::all_of(op->getResultTypes(),
                      [](Type t) { return isa<RankedTensorType>(t); });
}

/// Replaces `op` by a comm.compute of the same results.
static void outline(Operation *op, const ComputeImportOptions &options,
                    ComputeImportStats &stats) {
  // A tensor.empty is only the shape of a destination, not data read.
  auto isRead = [](Value value) {
    return isa<RankedTensorType>(value.getType()) &&
           !value.getDefiningOp<tensor::EmptyOp>();
  };
  llvm::SetVector<Value> inputs;
  for (Value operand : op->getOperands())
    if (isRead(operand))
      inputs.insert(operand);
  llvm::SetVector<Value> captured;
  getUsedValuesDefinedAbove(op->getRegions(), captured);
  for (Value value : captured)
    if (isRead(value))
      inputs.insert(value);

  ComputeEstimate estimate = estimateCompute(op, options.estimator);
  if (!estimate.known) {
    InFlightDiagnostic diag = op->emitWarning() << "'" << op->getName() << "'";
    if (auto target = op->getAttrOfType<StringAttr>("call_target_name"))
      diag << " @" << target.getValue();
    diag << " has no cost rule; imported as opaque compute that counts only "
            "its memory traffic ("
         << estimate.bytes << " bytes)";
    ++stats.opaque;
  }
  OpBuilder builder(op);
  MLIRContext *ctx = op->getContext();
  // Six significant digits: an estimate, printed readably.
  char text[32];
  std::snprintf(text, sizeof(text), "%.5e", estimate.flops);
  double flops = std::strtod(text, nullptr);
  auto compute = ComputeOp::create(
      builder, op->getLoc(), op->getResultTypes(),
      builder.getStringAttr(op->getName().getStringRef()), inputs.getArrayRef(),
      flops > 0 ? builder.getF64FloatAttr(flops) : FloatAttr(),
      estimate.bytes > 0
          ? IntegerAttr::get(IntegerType::get(ctx, 64), estimate.bytes)
          : IntegerAttr(),
      FloatAttr(), DenseI64ArrayAttr(), UnitAttr(), ReplicaGroupsAttr());
  op->replaceAllUsesWith(compute->getResults());
  op->erase();
  ++stats.compute;
}

/// Replaces `op` by the operand its folder gives for its one result (a
/// tensor.cast to its own type, an identity reshape): it moves nothing, and
/// a compute stand-in in its place would change the data (the harness's
/// stand-ins write new values; shard-partition leaves such casts around
/// every collective of a reshard).
static bool foldToOperand(Operation &op) {
  SmallVector<OpFoldResult> folded;
  if (op.getNumResults() != 1 || failed(op.fold(folded)) || folded.size() != 1)
    return false;
  auto value = dyn_cast<Value>(folded.front());
  if (!value || value.getType() != op.getResult(0).getType())
    return false;
  op.getResult(0).replaceAllUsesWith(value);
  op.erase();
  return true;
}

static void importRegion(Region &region, const ComputeImportOptions &options,
                         ComputeImportStats &stats) {
  for (Block &block : region)
    for (Operation &op : llvm::make_early_inc_range(block)) {
      // Destinations vanish with their users; see importCompute.
      if (isa<tensor::EmptyOp>(op) || op.hasTrait<OpTrait::IsTerminator>() ||
          (options.isForeign && options.isForeign(&op)))
        continue;
      if (isa_and_nonnull<CommDialect>(op.getDialect())) {
        for (Region &nested : op.getRegions())
          importRegion(nested, options, stats);
        continue;
      }
      if (op.getNumRegions() > 0 && holdsComm(&op)) {
        for (Region &nested : op.getRegions())
          importRegion(nested, options, stats);
        continue;
      }
      if (isImportable(&op) && !foldToOperand(op))
        outline(&op, options, stats);
    }
}

/// Erases ops whose results all went unused once their users became
/// comm.compute (rank queries, scalar constants, conditions).
static void eraseDeadScalars(func::FuncOp func) {
  bool changed = true;
  while (changed) {
    changed = false;
    SmallVector<Operation *> dead;
    func.walk<WalkOrder::PostOrder>([&](Operation *op) {
      if (op == func || op->getNumResults() == 0 ||
          isa_and_nonnull<CommDialect>(op->getDialect()) || holdsComm(op))
        return;
      if (llvm::all_of(op->getResults(), [](Value v) { return v.use_empty(); }))
        dead.push_back(op);
    });
    for (Operation *op : llvm::reverse(dead)) {
      op->erase();
      changed = true;
    }
  }
}

/// True if the runtime can hold a buffer of `type` (commrt's dtypes).
static bool isCarried(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && !getCommrtDtypeName(tensor.getElementType()).empty();
}

/// Folds each comm.compute whose result the runtime cannot hold (the i1
/// masks of StableHLO's compare and select) into the compute ops that read
/// it: such values live only inside compute, and the program must compile.
static void foldUncarried(func::FuncOp func) {
  SmallVector<ComputeOp> computes;
  func.walk([&](ComputeOp op) { computes.push_back(op); });
  for (ComputeOp producer : llvm::reverse(computes)) {
    if (llvm::all_of(producer->getResultTypes(), isCarried) ||
        llvm::any_of(producer->getUsers(),
                     [](Operation *user) { return !isa<ComputeOp>(user); }))
      continue;
    llvm::SetVector<Operation *> users(producer->getUsers().begin(),
                                       producer->getUsers().end());
    bool charged = false;
    for (Operation *user : users) {
      llvm::SetVector<Value> inputs;
      for (Value input : user->getOperands())
        if (input.getDefiningOp() != producer)
          inputs.insert(input);
      inputs.insert(producer.getInputs().begin(), producer.getInputs().end());
      user->setOperands(inputs.getArrayRef());
      if (charged)
        continue;
      // The producer's cost moves to its first reader.
      auto reader = cast<ComputeOp>(user);
      OpBuilder builder(reader);
      double flops =
          (reader.getFlops() ? reader.getFlops()->convertToDouble() : 0) +
          (producer.getFlops() ? producer.getFlops()->convertToDouble() : 0);
      int64_t bytes =
          (reader.getBytesAttr() ? reader.getBytesAttr().getInt() : 0) +
          (producer.getBytesAttr() ? producer.getBytesAttr().getInt() : 0);
      if (flops > 0)
        reader.setFlopsAttr(builder.getF64FloatAttr(flops));
      if (bytes > 0)
        reader.setBytesAttr(builder.getI64IntegerAttr(bytes));
      charged = true;
    }
    producer.erase();
  }
}

LogicalResult mlir::comm::importCompute(func::FuncOp func,
                                        const ComputeImportOptions &options,
                                        ComputeImportStats &stats) {
  if (func.isExternal())
    return success();
  importRegion(func.getBody(), options, stats);
  eraseDeadScalars(func);
  // A tensor.empty that a comm op or the return still reads is data (of
  // undefined content) after all.
  func.walk([&](tensor::EmptyOp empty) { outline(empty, options, stats); });
  foldUncarried(func);
  if (!options.isForeign)
    return success();
  WalkResult result = func.walk([&](Operation *op) {
    if (!options.isForeign(op))
      return WalkResult::advance();
    InFlightDiagnostic diag = op->emitError() << "'" << op->getName() << "'";
    // A custom call by its target, as the cost rules name it.
    if (auto target = op->getAttrOfType<StringAttr>("call_target_name"))
      diag << " @" << target.getValue();
    diag << " has no comm equivalent";
    if (op->getNumResults() == 0)
      diag << "; it returns nothing, so it runs for a side effect (a host "
              "callback such as jax.debug.print or io_callback), which "
              "comm's programs do not have: take it out of the step";
    for (Operation *user : op->getUsers()) {
      diag << ", and its result is used by '" << user->getName()
           << "', which comm cannot express without it";
      diag.attachNote(user->getLoc()) << "used here";
      break;
    }
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}
