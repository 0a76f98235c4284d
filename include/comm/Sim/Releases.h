//===- Releases.h - when transfers can start, what must follow --*- C++ -*-===//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//
//
// For the step's cut bound (SimResult::cutBoundUs): a transfer cannot start
// before the compute that produces its operands has run, and the step cannot
// end before the compute that consumes its result has. On a compute stream
// that runs the comm.compute ops back to back in program order (no plan
// moves them), both follow from the program's data flow.
//
//===----------------------------------------------------------------------===//

#ifndef COMM_SIM_RELEASES_H
#define COMM_SIM_RELEASES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir {
namespace comm {
namespace sim {

/// A compute op that runs once in the step: when it ends on a compute stream
/// that never waits, and the compute from its start to the step's end.
struct ComputeSpan {
  double endUs = 0;
  double fromUs = 0;
};

/// When an op's operands are ready at the earliest (`releaseUs`), and the
/// least compute that must run after it ends (`tailUs`): the compute
/// stream's time from the first compute op that reads its results, directly
/// or through other ops, to the step's end.
struct OpTiming {
  double releaseUs = 0;
  double tailUs = 0;
};

/// Every op of `function` (nested ones too) with its timing; `compute`
/// holds the compute ops that run once. A comm.start's yielded values
/// reach its waits' results. Where the data flow leaves the function's
/// straight-line code otherwise (block arguments, other region
/// terminators, ops that run several times) the timing stays at 0, which
/// keeps any bound built on it a bound.
llvm::DenseMap<Operation *, OpTiming>
getOpTimings(func::FuncOp function,
             const llvm::DenseMap<Operation *, ComputeSpan> &compute);

} // namespace sim
} // namespace comm
} // namespace mlir

#endif // COMM_SIM_RELEASES_H
