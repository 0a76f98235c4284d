//===- ReshardInSteps.cpp - the comm-reshard-in-steps pass ------*- C++ -*-===//
//
// Upstream's shard-partition (MLIR 22) turns a reshard (a shard.shard whose
// source is another shard.shard of a different sharding) into collectives
// one step at a time, and knows three steps only, each on the last grid axis
// of one tensor dimension: move it to another dimension (an all_to_all),
// append one (a slice), or remove one (an all_gather). A reshard that is
// not one of them ([[0, 1]] to [[]], [[0]] to [[1]]) makes it dereference
// a null value and crash. This pass splits such a reshard into steps it
// takes: remove, one at a time, the grid axes of each dimension past what
// the two shardings share, then append the target's. Reshards upstream
// already takes are left alone (a move stays one all_to_all).
//
//===----------------------------------------------------------------------===//

#include "comm/Conversion/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/Builders.h"

namespace mlir {
namespace comm {
#define GEN_PASS_DEF_COMMRESHARDINSTEPS
#include "comm/Conversion/Passes.h.inc"
} // namespace comm
} // namespace mlir

using namespace mlir;
using namespace mlir::comm;

namespace {
/// A sharding's split axes: the grid axes splitting each tensor dimension,
/// without trailing empty dimensions (which shardings compare equal
/// without).
using SplitAxes = SmallVector<SmallVector<int16_t>>;
} // namespace

static SplitAxes trimmed(SplitAxes axes) {
  while (!axes.empty() && axes.back().empty())
    axes.pop_back();
  return axes;
}

static SplitAxes getSplitAxes(const shard::Sharding &sharding) {
  SplitAxes axes;
  for (shard::GridAxesAttr dim : sharding.getSplitAxes())
    axes.emplace_back(dim.asArrayRef());
  return trimmed(std::move(axes));
}

/// `axes` with at least `size` dimensions.
static SplitAxes padded(SplitAxes axes, size_t size) {
  if (axes.size() < size)
    axes.resize(size);
  return axes;
}

/// Whether `a` without its last axis is `b` (or `b` without its last).
static bool equalBeforeLast(ArrayRef<int16_t> a, ArrayRef<int16_t> b,
                            bool dropLastOfB) {
  return a.drop_back() == (dropLastOfB ? b.drop_back() : b);
}

/// The sharding upstream's shard-partition reshards `from` into when asked
/// for `to`, trying its three steps in its order (move, append, remove),
/// each taking the first dimension that fits; nullopt where none fits.
static std::optional<SplitAxes> upstreamStep(const SplitAxes &from,
                                             const SplitAxes &to) {
  // Move the last axis of one dimension to the end of another.
  for (size_t s = 0; s < from.size(); ++s)
    for (size_t t = 0; t < to.size(); ++t) {
      if (s == t || from[s].empty() || to[t].empty() ||
          from[s].back() != to[t].back() ||
          !equalBeforeLast(from[s], to[t], /*dropLastOfB=*/true))
        continue;
      SplitAxes result = padded(from, t + 1);
      int16_t axis = result[s].pop_back_val();
      result[t].push_back(axis);
      return trimmed(std::move(result));
    }
  // Append one axis to a dimension.
  for (size_t t = 0; t < to.size(); ++t) {
    bool fits = t < from.size() ? from[t].size() + 1 == to[t].size() &&
                                      equalBeforeLast(to[t], from[t], false)
                                : to[t].size() == 1;
    if (!fits)
      continue;
    SplitAxes result = padded(from, t + 1);
    result[t].push_back(to[t].back());
    return trimmed(std::move(result));
  }
  // Remove the last axis of a dimension.
  for (size_t s = 0; s < from.size(); ++s) {
    bool fits = s < to.size() ? from[s].size() == to[s].size() + 1 &&
                                    equalBeforeLast(from[s], to[s], false)
                              : from[s].size() == 1;
    if (!fits)
      continue;
    SplitAxes result = from;
    result[s].pop_back();
    return trimmed(std::move(result));
  }
  return std::nullopt;
}

/// The shardings between `from` and `to` (both excluded) of a path of steps
/// upstream takes: the axes of each dimension past the longest prefix the
/// two share removed one at a time, last first, then the target's appended
/// in order. Each step removes or appends one axis of one dimension and
/// changes nothing else, so upstream recognizes it as that step: no axis
/// appears in two dimensions of a sharding, so no step looks like a move.
static SmallVector<SplitAxes> stepsBetween(const SplitAxes &from,
                                           const SplitAxes &to) {
  size_t dims = std::max(from.size(), to.size());
  SplitAxes current = padded(from, dims), target = padded(to, dims);
  SmallVector<SplitAxes> steps;
  for (size_t d = 0; d < dims; ++d) {
    size_t common = 0;
    while (common < current[d].size() && common < target[d].size() &&
           current[d][common] == target[d][common])
      ++common;
    while (current[d].size() > common) {
      current[d].pop_back();
      steps.push_back(trimmed(current));
    }
  }
  for (size_t d = 0; d < dims; ++d)
    while (current[d].size() < target[d].size()) {
      current[d].push_back(target[d][current[d].size()]);
      steps.push_back(trimmed(current));
    }
  // The last step is the target itself, which the original op keeps.
  if (!steps.empty())
    steps.pop_back();
  return steps;
}

static std::string describe(const SplitAxes &axes) {
  std::string text = "[";
  for (auto [i, dim] : llvm::enumerate(axes)) {
    text += i ? ", [" : "[";
    for (auto [j, axis] : llvm::enumerate(dim))
      text += (j ? ", " : "") + std::to_string(axis);
    text += "]";
  }
  return text + "]";
}

static bool hasHalosOrOffsets(const shard::Sharding &sharding) {
  return !sharding.getStaticHaloSizes().empty() ||
         !sharding.getDynamicHaloSizes().empty() ||
         !sharding.getStaticShardedDimsOffsets().empty() ||
         !sharding.getDynamicShardedDimsOffsets().empty();
}

namespace {
struct CommReshardInStepsPass
    : public comm::impl::CommReshardInStepsBase<CommReshardInStepsPass> {
  void runOnOperation() override;
};
} // namespace

void CommReshardInStepsPass::runOnOperation() {
  SmallVector<shard::ShardOp> reshards;
  getOperation().walk([&](shard::ShardOp op) {
    if (op.getSrc().getDefiningOp<shard::ShardOp>())
      reshards.push_back(op);
  });
  for (shard::ShardOp target : reshards) {
    auto source = target.getSrc().getDefiningOp<shard::ShardOp>();
    auto sourceDef = source.getSharding().getDefiningOp<shard::ShardingOp>();
    auto targetDef = target.getSharding().getDefiningOp<shard::ShardingOp>();
    if (!sourceDef || !targetDef) {
      target.emitError()
          << "reshards a value whose sharding is not a shard.sharding op's "
             "result; upstream's shard-partition needs both shardings of a "
             "reshard written as shard.sharding ops";
      return signalPassFailure();
    }
    shard::Sharding from(source.getSharding()), to(target.getSharding());
    if (from.getGridAttr() != to.getGridAttr()) {
      target.emitError() << "reshards from grid @" << from.getGrid()
                         << " to grid @" << to.getGrid()
                         << "; upstream's shard-partition reshards within "
                            "one grid";
      return signalPassFailure();
    }
    SplitAxes fromAxes = getSplitAxes(from), toAxes = getSplitAxes(to);
    if (hasHalosOrOffsets(from) || hasHalosOrOffsets(to)) {
      // Upstream changes halo sizes alone (an update_halo); anything else
      // with halos or offsets it cannot do.
      if (fromAxes == toAxes && from.getStaticShardedDimsOffsets().empty() &&
          to.getStaticShardedDimsOffsets().empty())
        continue;
      target.emitError()
          << "reshards from split_axes " << describe(fromAxes) << " to "
          << describe(toAxes)
          << " with halo sizes or sharded_dims_offsets, which upstream's "
             "shard-partition cannot do (it changes halo sizes only where "
             "the split axes stay the same)";
      return signalPassFailure();
    }
    if (fromAxes == toAxes)
      continue;
    if (std::optional<SplitAxes> step = upstreamStep(fromAxes, toAxes);
        step && *step == toAxes)
      continue;
    SmallVector<SplitAxes> steps = stepsBetween(fromAxes, toAxes);
    // Each step must be one upstream takes as it is (see stepsBetween).
    SplitAxes previous = fromAxes;
    for (const SplitAxes &next :
         llvm::concat<const SplitAxes>(steps, ArrayRef<SplitAxes>(toAxes))) {
      std::optional<SplitAxes> step = upstreamStep(previous, next);
      if (!step || *step != next) {
        target.emitError() << "reshards from split_axes " << describe(fromAxes)
                           << " to " << describe(toAxes)
                           << ", which comm could not split into steps "
                              "upstream's shard-partition takes (stuck at "
                           << describe(previous) << " to " << describe(next)
                           << ")";
        return signalPassFailure();
      }
      previous = next;
    }
    OpBuilder builder(target);
    Value current = source.getResult();
    for (const SplitAxes &axes : steps) {
      SmallVector<shard::GridAxesAttr> attrs;
      for (const SmallVector<int16_t> &dim : axes)
        attrs.push_back(shard::GridAxesAttr::get(&getContext(), dim));
      auto sharding = shard::ShardingOp::create(builder, target.getLoc(),
                                                from.getGridAttr(), attrs);
      current = shard::ShardOp::create(builder, target.getLoc(), current,
                                       sharding.getResult(),
                                       target.getAnnotateForUsers())
                    .getResult();
    }
    target.getSrcMutable().assign(current);
    ++numReshardsSplit;
    numSteps += steps.size() + 1;
  }
}
