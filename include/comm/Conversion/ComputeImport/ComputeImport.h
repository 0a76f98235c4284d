//===- ComputeImport.h - framework compute as comm.compute ------*- C++ -*-===//
//
// What the frontends (convert-shard-to-comm, convert-stablehlo-to-comm) share
// once their collectives are comm ops: the compute around them (linalg,
// tensor, arith, scf, StableHLO) becomes `comm.compute` carrying FLOP and
// byte estimates from its shapes, so that the simulator and the planner see
// what a transfer can overlap. The estimates are first-order (a matmul is
// 2*M*N*K FLOPs, an elementwise op one FLOP per element, data movement only
// bytes); ops with no known cost become opaque compute with a warning.
//
//===----------------------------------------------------------------------===//

#ifndef COMM_CONVERSION_COMPUTEIMPORT_COMPUTEIMPORT_H
#define COMM_CONVERSION_COMPUTEIMPORT_COMPUTEIMPORT_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>

namespace mlir {
namespace func {
class FuncOp;
} // namespace func
namespace comm {

/// The cost of one compute op: arithmetic and memory traffic.
struct ComputeEstimate {
  double flops = 0;
  int64_t bytes = 0;
  /// False when nothing was known of the op and only its operand and result
  /// traffic is counted.
  bool known = true;

  ComputeEstimate &operator+=(const ComputeEstimate &other) {
    flops += other.flops;
    bytes += other.bytes;
    known &= other.known;
    return *this;
  }
};

/// Bytes of a statically shaped tensor (0 for anything else).
int64_t getTensorBytes(Type type);

/// Elements of a statically shaped tensor (0 for anything else).
int64_t getTensorElements(Type type);

/// Elements of the widest tensor result of `op`.
int64_t getResultElements(Operation *op);

/// Bytes of all tensor operands and results of `op`.
int64_t getTrafficBytes(Operation *op);

/// A frontend's estimate of an op of its own dialect, or std::nullopt to use
/// the common rules.
using ComputeEstimator =
    function_ref<std::optional<ComputeEstimate>(Operation *)>;

/// Estimates `op` (and, for ops with regions, what they hold): the
/// frontend's rule first, then linalg, tensor, arith/math, scf.
ComputeEstimate estimateCompute(Operation *op, ComputeEstimator estimator);

/// Options of importCompute.
struct ComputeImportOptions {
  /// Frontend rules for its own ops.
  ComputeEstimator estimator;
  /// Ops that are neither comm nor compute and must not stay in the program
  /// (shard's rank queries, StableHLO ops the frontend did not convert):
  /// their remaining uses are located errors.
  function_ref<bool(Operation *)> isForeign;
};

/// What importCompute made, for the caller's statistics.
struct ComputeImportStats {
  int64_t compute = 0;
  int64_t opaque = 0;
};

/// Replaces every op of `func` that yields ranked tensors and holds no comm
/// op by a `comm.compute` named after it, whose inputs are the tensors it
/// reads (operands and values captured by its regions); ops with regions
/// holding comm ops (scf.for, scf.if) are kept and their bodies imported.
/// Scalar ops left without uses are erased. Fails, with a located error,
/// where a foreign op's value is still used.
LogicalResult importCompute(func::FuncOp func,
                            const ComputeImportOptions &options,
                            ComputeImportStats &stats);

} // namespace comm
} // namespace mlir

#endif // COMM_CONVERSION_COMPUTEIMPORT_COMPUTEIMPORT_H
