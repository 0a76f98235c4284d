//===- ShardToComm.cpp - the convert-shard-to-comm pass ---------*- C++ -*-===//
//
// Imports a partitioned shard program. The part that must be exactly right is
// the groups: a collective over `grid_axes` runs among the processes that
// differ only in those axes, ranks are grid indices linearized row-major, and
// inside a group the order is row-major over `grid_axes` as written (what a
// root multi-index and all_gather's concatenation order refer to). Upstream's
// convert-shard-to-mpi gets 3-D grids wrong, so the groups here are computed
// from that definition and checked against hand-written rank lists.
//
//===----------------------------------------------------------------------===//

#include "comm/Conversion/ComputeImport/ComputeImport.h"
#include "comm/Conversion/Passes.h"
#include "comm/Dialect/Comm/IR/CommDialect.h"
#include "comm/Dialect/Comm/IR/CommOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringMap.h"

namespace mlir {
namespace comm {
#define GEN_PASS_DEF_COMMCHECKSHARDING
#define GEN_PASS_DEF_CONVERTSHARDTOCOMM
#include "comm/Conversion/Passes.h.inc"
} // namespace comm
} // namespace mlir

using namespace mlir;
using namespace mlir::comm;

namespace {
/// The processes of a grid and how a collective's axes split them.
struct Grid {
  SmallVector<int64_t> shape;

  int64_t size() const {
    int64_t n = 1;
    for (int64_t extent : shape)
      n *= extent;
    return n;
  }

  /// Row-major linear index of a multi-index over the whole grid.
  int64_t linearize(ArrayRef<int64_t> coords) const {
    int64_t index = 0;
    for (auto [coord, extent] : llvm::zip_equal(coords, shape))
      index = index * extent + coord;
    return index;
  }

  /// The multi-index of process `rank`.
  SmallVector<int64_t> delinearize(int64_t rank) const {
    SmallVector<int64_t> coords(shape.size());
    for (int64_t d = shape.size() - 1; d >= 0; --d) {
      coords[d] = rank % shape[d];
      rank /= shape[d];
    }
    return coords;
  }

  /// The groups of a collective over `axes`: one per multi-index of the other
  /// axes (row-major), each ordered row-major over `axes` as written.
  SmallVector<SmallVector<int64_t>> groups(ArrayRef<int16_t> axes) const {
    SmallVector<int64_t> groupExtents;
    int64_t groupSize = 1;
    for (int16_t axis : axes) {
      groupExtents.push_back(shape[axis]);
      groupSize *= shape[axis];
    }
    SmallVector<SmallVector<int64_t>> result;
    SmallVector<bool> inGroup(shape.size(), false);
    for (int16_t axis : axes)
      inGroup[axis] = true;
    // The first rank of each group has zeros on `axes`; walk them in order.
    for (int64_t rank = 0, n = size(); rank < n; ++rank) {
      SmallVector<int64_t> base = delinearize(rank);
      if (llvm::any_of(axes, [&](int16_t axis) { return base[axis] != 0; }))
        continue;
      SmallVector<int64_t> group;
      for (int64_t position = 0; position < groupSize; ++position) {
        SmallVector<int64_t> coords = base;
        int64_t rest = position;
        for (int64_t i = axes.size() - 1; i >= 0; --i) {
          coords[axes[i]] = rest % groupExtents[i];
          rest /= groupExtents[i];
        }
        group.push_back(linearize(coords));
      }
      result.push_back(std::move(group));
    }
    return result;
  }
};

struct ConvertShardToCommPass
    : public comm::impl::ConvertShardToCommBase<ConvertShardToCommPass> {
  using Base::Base;
  void runOnOperation() override;

private:
  LogicalResult collectGrids(ModuleOp module);
  LogicalResult convertFunction(func::FuncOp func);
  LogicalResult convert(Operation *op, unsigned &sendIndex,
                        unsigned &recvIndex);
  FailureOr<const Grid *> lookupGrid(Operation *op);

  llvm::StringMap<Grid> grids;
};
} // namespace

/// Flattens groups for ReplicaGroupsAttr.
static ReplicaGroupsAttr getGroupsAttr(MLIRContext *ctx,
                                       ArrayRef<SmallVector<int64_t>> groups) {
  SmallVector<int64_t> ranks;
  for (const SmallVector<int64_t> &group : groups)
    llvm::append_range(ranks, group);
  return ReplicaGroupsAttr::get(ctx, ranks, groups.front().size());
}

static std::optional<ReductionKind> getReduction(shard::ReductionKind kind) {
  switch (kind) {
  case shard::ReductionKind::Sum:
    return ReductionKind::sum;
  case shard::ReductionKind::Max:
    return ReductionKind::max;
  case shard::ReductionKind::Min:
    return ReductionKind::min;
  case shard::ReductionKind::Product:
    return ReductionKind::prod;
  case shard::ReductionKind::Average:
    return ReductionKind::avg;
  case shard::ReductionKind::BitwiseAnd:
    return ReductionKind::band;
  case shard::ReductionKind::BitwiseOr:
    return ReductionKind::bor;
  case shard::ReductionKind::BitwiseXor:
    return ReductionKind::bxor;
  case shard::ReductionKind::Generic:
    return std::nullopt;
  }
  return std::nullopt;
}

LogicalResult ConvertShardToCommPass::collectGrids(ModuleOp module) {
  for (auto grid : module.getOps<shard::GridOp>()) {
    ArrayRef<int64_t> shape = grid.getShape();
    for (auto [axis, extent] : llvm::enumerate(shape))
      if (ShapedType::isDynamic(extent))
        return grid.emitError()
               << "grid @" << grid.getSymName() << " has a dynamic extent on "
               << "axis " << axis
               << "; comm needs the number of processes: give every axis a "
                  "static extent";
    grids[grid.getSymName()] = Grid{SmallVector<int64_t>(shape)};
  }
  return success();
}

/// The shard collectives (they share `grid` and `grid_axes`, but no C++
/// base class).
static bool isShardCollective(Operation *op) {
  return isa<shard::AllGatherOp, shard::AllReduceOp, shard::AllSliceOp,
             shard::AllToAllOp, shard::BroadcastOp, shard::GatherOp,
             shard::RecvOp, shard::ReduceOp, shard::ReduceScatterOp,
             shard::ScatterOp, shard::SendOp, shard::ShiftOp>(op);
}

static StringRef getGridName(Operation *op) {
  auto grid = dyn_cast_or_null<FlatSymbolRefAttr>(
      op->getInherentAttr("grid").value_or(Attribute()));
  return grid ? grid.getValue() : StringRef();
}

static ArrayRef<int16_t> getGridAxes(Operation *op) {
  auto axes = dyn_cast_or_null<DenseI16ArrayAttr>(
      op->getInherentAttr("grid_axes").value_or(Attribute()));
  return axes ? axes.asArrayRef() : ArrayRef<int16_t>();
}

FailureOr<const Grid *> ConvertShardToCommPass::lookupGrid(Operation *op) {
  auto it = grids.find(getGridName(op));
  if (it == grids.end())
    return op->emitError() << "names grid @" << getGridName(op)
                           << ", which no shard.grid of the module defines";
  return &it->second;
}

/// A static multi-index over `axes` as a position in the group.
static FailureOr<int64_t>
getGroupPosition(Operation *op, StringRef what, ArrayRef<int64_t> index,
                 ValueRange dynamic, ArrayRef<int16_t> axes, const Grid &grid) {
  if (!dynamic.empty() || llvm::any_of(index, ShapedType::isDynamic))
    return op->emitError() << "has a dynamic " << what
                           << "; comm needs it at compile time";
  if (index.size() != axes.size())
    return op->emitError() << "has a " << what << " of " << index.size()
                           << " coordinates for " << axes.size()
                           << " grid axes";
  int64_t position = 0;
  for (auto [coord, axis] : llvm::zip_equal(index, axes)) {
    if (coord < 0 || coord >= grid.shape[axis])
      return op->emitError() << what << " coordinate " << coord
                             << " is out of range for grid axis " << axis
                             << " of extent " << grid.shape[axis];
    position = position * grid.shape[axis] + coord;
  }
  return position;
}

/// Checks a new comm op and replaces `op` with `replacement`.
static LogicalResult finish(Operation *op, Operation *created,
                            ValueRange replacement) {
  if (created && failed(verify(created)))
    return op->emitError() << "could not be imported: the comm op it becomes "
                              "is invalid (see above)";
  op->replaceAllUsesWith(replacement);
  op->erase();
  return success();
}

/// Each process's own chunk of `input` along `axis` (its position in its
/// group picks the chunk): a rotation that puts the chunk first and an
/// unpack of it, exact where the chunks are contiguous (no larger dimension
/// before `axis`). Null otherwise.
static Operation *sliceOwnChunk(OpBuilder &b, Location loc, Value input,
                                ReplicaGroupsAttr groups, int64_t axis,
                                Type resultType) {
  auto type = cast<RankedTensorType>(input.getType());
  if (axis < 0 || axis >= type.getRank() || type.getDimSize(axis) == 0)
    return nullptr;
  for (int64_t d = 0; d < axis; ++d)
    if (type.getDimSize(d) != 1)
      return nullptr;
  int64_t n = groups.getGroupSize();
  if (type.getDimSize(axis) % n != 0)
    return nullptr;
  // Rotation cuts dimension 0; with only 1s before `axis`, a flat view cuts
  // the same chunks.
  Value flat = input;
  if (type.getRank() != 1)
    flat = PackOp::create(
        b, loc,
        RankedTensorType::get({type.getNumElements()}, type.getElementType()),
        ValueRange{input}, b.getDenseI64ArrayAttr({0}), nullptr);
  Value rotated = RotateOp::create(b, loc, flat.getType(), flat, groups,
                                   b.getI64IntegerAttr(0), UnitAttr());
  return UnpackOp::create(b, loc, TypeRange{resultType}, rotated,
                          b.getDenseI64ArrayAttr({0}), nullptr);
}

/// Each process's slice of `input` along `axis`: exact where the chunks are
/// contiguous, else an opaque copy named `name`, with a warning on `op`.
static Operation *importSlice(Operation *op, OpBuilder &b, Value input,
                              ReplicaGroupsAttr groups, int64_t axis,
                              Type resultType, StringRef name) {
  Location loc = op->getLoc();
  if (Operation *own = sliceOwnChunk(b, loc, input, groups, axis, resultType))
    return own;
  op->emitWarning() << "the slice along axis " << axis
                    << " is not contiguous: imported as an opaque copy, "
                       "which a compiled program runs as a stand-in";
  return ComputeOp::create(
      b, loc, resultType, b.getStringAttr(name), ValueRange{input}, FloatAttr(),
      b.getI64IntegerAttr(2 * getTensorBytes(resultType)), FloatAttr(),
      DenseI64ArrayAttr(), UnitAttr(), ReplicaGroupsAttr());
}

LogicalResult ConvertShardToCommPass::convert(Operation *op,
                                              unsigned &sendIndex,
                                              unsigned &recvIndex) {
  FailureOr<const Grid *> maybeGrid = lookupGrid(op);
  if (failed(maybeGrid))
    return failure();
  const Grid &grid = **maybeGrid;
  for (Type type : op->getOperandTypes())
    if (isa<MemRefType>(type))
      return op->emitError()
             << "operates on a memref; comm imports tensor programs (bufferize "
                "after importing, with comm-bufferize)";
  ArrayRef<int16_t> axes = getGridAxes(op);
  MLIRContext *ctx = op->getContext();
  SmallVector<SmallVector<int64_t>> groups = grid.groups(axes);
  ReplicaGroupsAttr groupsAttr = getGroupsAttr(ctx, groups);
  OpBuilder b(op);
  Location loc = op->getLoc();
  auto i64 = [&](int64_t v) { return b.getI64IntegerAttr(v); };
  auto reduction =
      [&](shard::ReductionKind kind) -> FailureOr<ReductionKindAttr> {
    std::optional<ReductionKind> converted = getReduction(kind);
    if (!converted)
      return op->emitError()
             << "uses the 'generic' reduction, which comm cannot express; "
                "expected sum, max, min, product, average or a bitwise one";
    return ReductionKindAttr::get(ctx, *converted);
  };
  ++numCollectives;

  if (auto ar = dyn_cast<shard::AllReduceOp>(op)) {
    if (ar.getInput().getType() != ar.getResult().getType())
      return op->emitError()
             << "changes the type from " << ar.getInput().getType() << " to "
             << ar.getResult().getType()
             << "; comm reduces in the input's type";
    FailureOr<ReductionKindAttr> kind = reduction(ar.getReduction());
    if (failed(kind))
      return failure();
    auto created = AllReduceOp::create(b, loc, ar.getResult().getType(),
                                       ar.getInput(), *kind, groupsAttr, {});
    return finish(op, created, created->getResults());
  }
  if (auto ag = dyn_cast<shard::AllGatherOp>(op)) {
    auto created = AllGatherOp::create(
        b, loc, ag.getResult().getType(), ag.getInput(), groupsAttr,
        i64(ag.getGatherAxis().getSExtValue()), {});
    return finish(op, created, created->getResults());
  }
  if (auto rs = dyn_cast<shard::ReduceScatterOp>(op)) {
    FailureOr<ReductionKindAttr> kind = reduction(rs.getReduction());
    if (failed(kind))
      return failure();
    auto created = ReduceScatterOp::create(
        b, loc, rs.getResult().getType(), rs.getInput(), *kind, groupsAttr,
        i64(rs.getScatterAxis().getSExtValue()), {});
    return finish(op, created, created->getResults());
  }
  if (auto a2a = dyn_cast<shard::AllToAllOp>(op)) {
    auto created =
        AllToAllOp::create(b, loc, a2a.getResult().getType(), a2a.getInput(),
                           groupsAttr, i64(a2a.getSplitAxis().getSExtValue()),
                           i64(a2a.getConcatAxis().getSExtValue()), {});
    return finish(op, created, created->getResults());
  }
  if (auto bc = dyn_cast<shard::BroadcastOp>(op)) {
    FailureOr<int64_t> root = getGroupPosition(op, "root", bc.getRoot(),
                                               bc.getRootDynamic(), axes, grid);
    if (failed(root))
      return failure();
    auto created =
        BroadcastOp::create(b, loc, bc.getResult().getType(), bc.getInput(),
                            groupsAttr, i64(*root), {});
    return finish(op, created, created->getResults());
  }
  if (auto red = dyn_cast<shard::ReduceOp>(op)) {
    if (red.getInput().getType() != red.getResult().getType())
      return op->emitError()
             << "changes the type from " << red.getInput().getType() << " to "
             << red.getResult().getType()
             << "; comm reduces in the input's type";
    FailureOr<ReductionKindAttr> kind = reduction(red.getReduction());
    FailureOr<int64_t> root =
        failed(kind) ? FailureOr<int64_t>(failure())
                     : getGroupPosition(op, "root", red.getRoot(),
                                        red.getRootDynamic(), axes, grid);
    if (failed(root))
      return failure();
    auto created =
        ReduceOp::create(b, loc, red.getResult().getType(), red.getInput(),
                         *kind, groupsAttr, i64(*root), {});
    return finish(op, created, created->getResults());
  }
  if (auto gather = dyn_cast<shard::GatherOp>(op)) {
    FailureOr<int64_t> root = getGroupPosition(
        op, "root", gather.getRoot(), gather.getRootDynamic(), axes, grid);
    if (failed(root))
      return failure();
    op->emitWarning() << "comm has no rooted gather: imported as "
                         "comm.all_gather, which gives root "
                      << *root
                      << " of each group the same result and the other "
                         "processes a copy";
    auto created = AllGatherOp::create(
        b, loc, gather.getResult().getType(), gather.getInput(), groupsAttr,
        i64(gather.getGatherAxis().getSExtValue()), {});
    return finish(op, created, created->getResults());
  }
  if (auto scatter = dyn_cast<shard::ScatterOp>(op)) {
    FailureOr<int64_t> root = getGroupPosition(
        op, "root", scatter.getRoot(), scatter.getRootDynamic(), axes, grid);
    if (failed(root))
      return failure();
    op->emitWarning() << "comm has no scatter: imported as comm.broadcast "
                         "from root "
                      << *root
                      << " followed by each process's slice, which moves the "
                         "whole tensor to every process";
    auto bcast =
        BroadcastOp::create(b, loc, scatter.getInput().getType(),
                            scatter.getInput(), groupsAttr, i64(*root), {});
    if (failed(verify(bcast)))
      return failure();
    Operation *slice =
        importSlice(op, b, bcast.getResult(), groupsAttr,
                    scatter.getScatterAxis().getSExtValue(),
                    scatter.getResult().getType(), "shard.scatter_slice");
    return finish(op, slice, slice->getResults());
  }
  if (auto slice = dyn_cast<shard::AllSliceOp>(op)) {
    // Each process crops its own data: no transfer, a copy of the slice.
    --numCollectives;
    Operation *created =
        importSlice(op, b, slice.getInput(), groupsAttr,
                    slice.getSliceAxis().getSExtValue(),
                    slice.getResult().getType(), "shard.all_slice");
    return finish(op, created, created->getResults());
  }
  if (auto shift = dyn_cast<shard::ShiftOp>(op)) {
    int64_t axis = shift.getShiftAxis().getSExtValue();
    if (axis < 0 || axis >= static_cast<int64_t>(grid.shape.size()))
      return op->emitError()
             << "shifts along axis " << axis << ", but the grid has "
             << grid.shape.size() << " axes";
    int64_t extent = grid.shape[axis], offset = shift.getOffset();
    SmallVector<int64_t> pairs;
    for (int64_t rank = 0, n = grid.size(); rank < n; ++rank) {
      SmallVector<int64_t> coords = grid.delinearize(rank);
      int64_t target = coords[axis] + offset;
      if (shift.getRotate())
        target = ((target % extent) + extent) % extent;
      else if (target < 0 || target >= extent)
        continue;
      coords[axis] = target;
      pairs.append({rank, grid.linearize(coords)});
    }
    if (pairs.empty())
      return op->emitError() << "shifts by " << offset << " along axis " << axis
                             << " of extent " << extent
                             << " without rotate: no process receives "
                                "anything, which comm cannot express";
    auto created =
        PermuteOp::create(b, loc, shift.getResult().getType(), shift.getInput(),
                          b.getDenseI64ArrayAttr(pairs), {});
    return finish(op, created, created->getResults());
  }
  if (isa<shard::SendOp, shard::RecvOp>(op)) {
    bool isSend = isa<shard::SendOp>(op);
    FailureOr<int64_t> peer =
        isSend
            ? getGroupPosition(
                  op, "destination", cast<shard::SendOp>(op).getDestination(),
                  cast<shard::SendOp>(op).getDestinationDynamic(), axes, grid)
        : cast<shard::RecvOp>(op).getSource()
            ? getGroupPosition(
                  op, "source", *cast<shard::RecvOp>(op).getSource(),
                  cast<shard::RecvOp>(op).getSourceDynamic(), axes, grid)
            : FailureOr<int64_t>(op->emitError()
                                 << "receives from any source; comm pairs "
                                    "every receive with one sender: give a "
                                    "source");
    if (failed(peer))
      return failure();
    if (groups.front().size() > 2)
      return op->emitError()
             << (isSend ? "sends to one process from each of the other "
                        : "receives from one process into each of the other ")
             << groups.front().size() - 1
             << " processes of its group; comm pairs every sender with one "
                "receiver, so shard's send and recv are imported only on "
                "groups of two";
    SmallVector<int64_t> pairs;
    for (const SmallVector<int64_t> &group : groups) {
      if (group.size() < 2)
        continue;
      int64_t fixed = group[*peer], other = group[1 - *peer];
      if (isSend)
        pairs.append({other, fixed});
      else
        pairs.append({fixed, other});
    }
    Value input = op->getOperand(0);
    if (pairs.empty()) // every group is one process: nothing moves
      return finish(op, nullptr, input);
    if (isSend) {
      auto created = SendOp::create(
          b, loc, input, b.getDenseI64ArrayAttr(pairs), i64(sendIndex++), {});
      return finish(op, created, input);
    }
    auto created =
        RecvOp::create(b, loc, op->getResult(0).getType(),
                       b.getDenseI64ArrayAttr(pairs), i64(recvIndex++), {});
    return finish(op, created, created->getResults());
  }
  --numCollectives;
  return op->emitError() << "has no comm equivalent";
}

/// Checks one list of grid axes against its grid. `seen` collects the axes
/// of a whole sharding, which may not repeat across dimensions.
static LogicalResult checkAxes(Operation *op, StringRef what,
                               ArrayRef<int16_t> axes, shard::GridOp grid,
                               llvm::SmallDenseSet<int16_t> &seen) {
  int64_t rank = grid.getShape().size();
  for (int16_t axis : axes) {
    if (axis < 0 || axis >= rank)
      return op->emitError() << what << " names grid axis " << axis
                             << ", but grid @" << grid.getSymName() << " has "
                             << rank << " axes (0-" << rank - 1 << ")";
    if (!seen.insert(axis).second)
      return op->emitError() << what << " names grid axis " << axis
                             << " twice; an axis splits one dimension";
  }
  return success();
}

LogicalResult mlir::comm::checkShardAnnotations(Operation *root) {
  WalkResult result = root->walk([](Operation *op) {
    auto gridRef = dyn_cast_or_null<FlatSymbolRefAttr>(
        op->getInherentAttr("grid").value_or(Attribute()));
    if (!gridRef || !isa_and_nonnull<shard::ShardDialect>(op->getDialect()))
      return WalkResult::advance();
    auto grid =
        SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(op, gridRef);
    if (!grid) {
      op->emitError() << "names grid @" << gridRef.getValue()
                      << ", which no shard.grid defines";
      return WalkResult::interrupt();
    }
    if (auto sharding = dyn_cast<shard::ShardingOp>(op)) {
      llvm::SmallDenseSet<int16_t> seen;
      for (shard::GridAxesAttr axes : sharding.getSplitAxes().getAxes())
        if (failed(checkAxes(op, "split_axes", axes.asArrayRef(), grid, seen)))
          return WalkResult::interrupt();
      return WalkResult::advance();
    }
    llvm::SmallDenseSet<int16_t> seen;
    if (failed(checkAxes(op, "grid_axes", getGridAxes(op), grid, seen)))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

namespace {
struct CommCheckShardingPass
    : public comm::impl::CommCheckShardingBase<CommCheckShardingPass> {
  void runOnOperation() override {
    if (failed(checkShardAnnotations(getOperation())))
      signalPassFailure();
  }
};
} // namespace

LogicalResult ConvertShardToCommPass::convertFunction(func::FuncOp func) {
  if (failed(checkShardAnnotations(func)))
    return failure();
  // Annotations left by the user mean the program was not partitioned.
  WalkResult annotated = func.walk([](Operation *op) {
    if (isa<shard::ShardOp, shard::ShardingOp, shard::GetShardingOp>(op)) {
      op->emitError() << "'" << op->getName()
                      << "' is a sharding annotation: partition the program "
                         "first (comm-opt --sharding-propagation "
                         "--shard-partition) so that every collective is "
                         "explicit";
      return WalkResult::interrupt();
    }
    if (isa<shard::UpdateHaloOp, shard::NeighborsLinearIndicesOp>(op)) {
      op->emitError() << "'" << op->getName()
                      << "' is part of a halo exchange (a sharding with "
                         "halo_sizes), which comm does not import yet: it "
                         "has no op for exchanging halos with neighbours";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (annotated.wasInterrupted())
    return failure();

  SmallVector<Operation *> collectives;
  SmallVector<shard::GridShapeOp> shapes;
  func.walk([&](Operation *op) {
    if (isShardCollective(op))
      collectives.push_back(op);
    else if (auto shape = dyn_cast<shard::GridShapeOp>(op))
      shapes.push_back(shape);
  });
  unsigned sendIndex = 0, recvIndex = 0;
  for (Operation *op : collectives)
    if (failed(convert(op, sendIndex, recvIndex)))
      return failure();
  // The grid's shape is known: its queries are constants.
  for (shard::GridShapeOp shape : shapes) {
    auto it = grids.find(shape.getGrid());
    if (it == grids.end())
      return shape.emitError() << "names grid @" << shape.getGrid()
                               << ", which no shard.grid of the module defines";
    OpBuilder b(shape);
    ArrayRef<int16_t> axes = shape.getAxes();
    SmallVector<Value> extents;
    for (size_t i = 0, e = shape.getNumResults(); i < e; ++i) {
      int64_t axis = axes.empty() ? i : axes[i];
      extents.push_back(arith::ConstantIndexOp::create(b, shape.getLoc(),
                                                       it->second.shape[axis]));
    }
    shape->replaceAllUsesWith(extents);
    shape.erase();
  }

  auto isShard = [](Operation *op) {
    return isa_and_nonnull<shard::ShardDialect>(op->getDialect());
  };
  ComputeImportStats stats;
  LogicalResult result = importCompute(func, {nullptr, isShard}, stats);
  numCompute += stats.compute;
  numOpaque += stats.opaque;
  return result;
}

void ConvertShardToCommPass::runOnOperation() {
  ModuleOp module = getOperation();
  if (failed(collectGrids(module)))
    return signalPassFailure();
  int64_t worldSize = 0;
  for (auto &entry : grids)
    worldSize = std::max(worldSize, entry.second.size());
  if (worldSize > 0) {
    if (std::optional<int64_t> declared = getWorldSize(module)) {
      if (*declared < worldSize) {
        module.emitError() << "comm.world_size is " << *declared
                           << ", but the program's grids have " << worldSize
                           << " processes";
        return signalPassFailure();
      }
    } else {
      module->setAttr(
          CommDialect::getWorldSizeAttrName(),
          IntegerAttr::get(IntegerType::get(&getContext(), 64), worldSize));
    }
  }
  for (auto func : module.getOps<func::FuncOp>())
    if (failed(convertFunction(func)))
      return signalPassFailure();
  for (auto grid : llvm::make_early_inc_range(module.getOps<shard::GridOp>()))
    grid.erase();
}
