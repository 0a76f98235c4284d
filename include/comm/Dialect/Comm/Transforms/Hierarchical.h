//===- Hierarchical.h - all_reduce split by machine or CPU ------*- C++ -*-===//
//
// A collective split across a slow cut (the network between machines, the
// socket link of a PCIe machine), so that less crosses it:
//  - all_reduce: a reduce_scatter among the ranks of each machine (or CPU
//    socket), an all_reduce across among the ranks with the same place,
//    an all_gather back inside;
//  - all_gather (dimension 0): across first, then inside, then the blocks
//    put in the group's order;
//  - reduce_scatter (dimension 0): the blocks put in place-major order,
//    then inside, then across.
// comm-decompose applies it on request; comm-plan decides by simulating
// the planned step.
//
//===----------------------------------------------------------------------===//

#ifndef COMM_DIALECT_COMM_TRANSFORMS_HIERARCHICAL_H
#define COMM_DIALECT_COMM_TRANSFORMS_HIERARCHICAL_H

#include "comm/CostModel/CostModel.h"
#include "comm/Dialect/Comm/IR/CommOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <optional>
#include <string>

namespace mlir {
namespace comm {

/// How an all_reduce's groups split.
struct HierarchicalSplit {
  /// The groups of the reduce_scatter and all_gather (one per machine or
  /// CPU of each group) and of the all_reduce across (one per place).
  SmallVector<SmallVector<int64_t>> inside, across;
  int64_t domains = 0, perDomain = 0;
  /// Split by CPU inside one machine, not by machine.
  bool bySocket = false;
  /// Position j * domains + i of a buffer gathered across and then inside
  /// holds the block of place j of domain i: its position in the group
  /// (the same for every group; all_gather and reduce_scatter).
  SmallVector<int64_t> blockOrder;
};

/// Whether a hierarchical split applies to `op`'s kind: all_reduce, and
/// all_gather and reduce_scatter along dimension 0 (whose blocks are
/// contiguous).
bool isHierarchicalKind(Operation *op);

/// The split of `op` (an all_reduce, or an all_gather or reduce_scatter
/// along dimension 0): by machine where its groups span machines, by CPU
/// where a group inside one machine reaches each CPU's GPUs across a link
/// they share (GroupShape::socketCuts); std::nullopt with the reason in
/// `why` where neither applies (another kind, one domain, one rank per
/// domain, unequal domains).
std::optional<HierarchicalSplit> getHierarchicalSplit(Operation *op,
                                                      const Topology &topology,
                                                      const CostModel &model,
                                                      std::string &why);

/// The model's time of `op` whole and of its parts together (the copies
/// that reorder blocks left out), in us: on `backend`'s own algorithms, or
/// with `planned` as comm-select-algorithm will plan the whole and each
/// part (predictPlannedTimeUs: the runtime's own hierarchical schedule
/// competes with the split); {-1, -1} where either cannot be timed.
std::pair<double, double>
predictHierarchicalSplit(Operation *op, const HierarchicalSplit &split,
                         const CostModel &model, Backend backend,
                         bool planned = false);

/// Replaces `op` by its parts (an all_reduce's buffer the domains do not
/// divide is padded first, as comm-decompose's split-all-reduce does).
void splitHierarchically(Operation *op, const HierarchicalSplit &split);

/// Which collectives a module-wide split takes.
enum class HierarchicalMode {
  never,
  /// Those the model predicts faster in parts than whole.
  faster,
  /// Every one that splits.
  always,
};

/// Splits the all_reduces, all_gathers and reduce_scatters of `module` that
/// `mode` takes; returns how many. `kept` counts the others; under
/// `explain` each gets a remark starting with `pass`. `planned`: the
/// collectives will be planned by comm-select-algorithm, and `faster`
/// compares them as planned (predictHierarchicalSplit).
unsigned splitHierarchically(ModuleOp module, const Topology &topology,
                             const CostModel &model, Backend backend,
                             HierarchicalMode mode, bool explain,
                             StringRef pass, unsigned *kept = nullptr,
                             bool planned = false);

} // namespace comm
} // namespace mlir

#endif // COMM_DIALECT_COMM_TRANSFORMS_HIERARCHICAL_H
