//===- Hierarchical.h - all_reduce split by machine or CPU ------*- C++ -*-===//
//
// A hierarchical all_reduce: a reduce_scatter among the ranks of each
// machine (or, inside one PCIe machine, of each CPU socket), an all_reduce
// across them among the ranks with the same place, and an all_gather back
// inside. The traffic across the slow cut (the network, the sockets' link)
// shrinks by the ranks on each side. comm-decompose applies it on request;
// comm-plan decides by simulating the planned step.
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
};

/// The split of `op`: by machine where its groups span machines, by CPU
/// where a group inside one machine reaches each CPU's GPUs across a link
/// they share (GroupShape::socketCuts); std::nullopt with the reason in
/// `why` where neither applies (one domain, one rank per domain, unequal
/// domains).
std::optional<HierarchicalSplit> getHierarchicalSplit(AllReduceOp op,
                                                      const Topology &topology,
                                                      const CostModel &model,
                                                      std::string &why);

/// The model's time of `op` whole and of its three parts together, in us,
/// on `backend`'s own algorithms; {-1, -1} where either cannot be timed.
std::pair<double, double>
predictHierarchicalSplit(AllReduceOp op, const HierarchicalSplit &split,
                         const CostModel &model, Backend backend);

/// Replaces `op` by its three parts (a buffer the domains do not divide is
/// padded first, as comm-decompose's split-all-reduce does).
void splitHierarchically(AllReduceOp op, const HierarchicalSplit &split);

/// Which all_reduces a module-wide split takes.
enum class HierarchicalMode {
  never,
  /// Those the model predicts faster in three parts than whole.
  faster,
  /// Every one that splits.
  always,
};

/// Splits the all_reduces of `module` that `mode` takes; returns how many.
/// `kept` counts the others; under `explain` every all_reduce gets a
/// remark starting with `pass`.
unsigned splitAllReducesHierarchically(ModuleOp module,
                                       const Topology &topology,
                                       const CostModel &model, Backend backend,
                                       HierarchicalMode mode, bool explain,
                                       StringRef pass,
                                       unsigned *kept = nullptr);

} // namespace comm
} // namespace mlir

#endif // COMM_DIALECT_COMM_TRANSFORMS_HIERARCHICAL_H
