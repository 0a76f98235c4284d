//===- Releases.cpp - when transfers can start, what must follow -*- C++ -*-=//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//

#include "comm/Sim/Releases.h"
#include "comm/Dialect/Comm/IR/CommOps.h"

#include <algorithm>
#include <limits>

using namespace mlir;
using namespace mlir::comm;
using namespace mlir::comm::sim;

llvm::DenseMap<Operation *, OpTiming> mlir::comm::sim::getOpTimings(
    func::FuncOp function,
    const llvm::DenseMap<Operation *, ComputeSpan> &compute) {
  llvm::DenseMap<Operation *, OpTiming> timings;
  // Definitions come before their uses in a pre-order walk: one pass
  // forward for releases, one backward for tails, no recursion (a
  // 100,000-op chain is no deeper than a flat list).
  SmallVector<Operation *> order;
  function.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op != function.getOperation())
      order.push_back(op);
  });
  auto readyAt = [&](Value value) -> double {
    Operation *def = value.getDefiningOp();
    if (!def)
      return 0; // a block argument: ready at the start
    auto it = timings.find(def);
    if (it == timings.end())
      return 0;
    auto span = compute.find(def);
    return span != compute.end() ? span->second.endUs : it->second.releaseUs;
  };
  for (Operation *op : order) {
    double release = 0;
    for (Value operand : op->getOperands())
      release = std::max(release, readyAt(operand));
    // A wait's results are what its start's body yielded.
    if (auto wait = dyn_cast<WaitOp>(op))
      if (auto start = wait.getToken().getDefiningOp<StartOp>())
        for (Block &body : start.getBody()) // one block (SingleBlock)
          if (!body.empty())
            if (auto yield = dyn_cast<YieldOp>(body.back()))
              for (Value yielded : yield.getOperands())
                release = std::max(release, readyAt(yielded));
    timings[op].releaseUs = release;
  }
  for (Operation *op : llvm::reverse(order)) {
    auto span = compute.find(op);
    if (span != compute.end()) {
      timings[op].tailUs = span->second.fromUs;
      continue;
    }
    // The earliest consumer decides; a result nobody reads, or one that
    // leaves through a terminator or the return, needs no compute after.
    double tail = std::numeric_limits<double>::infinity();
    bool read = false;
    for (Operation *user : op->getUsers()) {
      read = true;
      // What a start's body yields leaves at its waits (after it in
      // program order: their tails are known).
      if (isa<YieldOp>(user)) {
        auto start = cast<StartOp>(user->getParentOp());
        bool waited = false;
        for (Operation *wait : start.getToken().getUsers())
          if (isa<WaitOp>(wait) && timings.count(wait)) {
            waited = true;
            tail = std::min(tail, timings[wait].tailUs);
          }
        if (!waited)
          tail = 0;
        continue;
      }
      auto it = timings.find(user);
      if (user->hasTrait<OpTrait::IsTerminator>() || it == timings.end()) {
        tail = 0;
        break;
      }
      tail = std::min(tail, it->second.tailUs);
    }
    timings[op].tailUs = read ? tail : 0;
  }
  return timings;
}
