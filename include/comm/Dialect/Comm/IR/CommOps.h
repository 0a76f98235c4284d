//===- CommOps.h - comm dialect operations ----------------------*- C++ -*-===//

#ifndef COMM_DIALECT_COMM_IR_COMMOPS_H
#define COMM_DIALECT_COMM_IR_COMMOPS_H

#include "comm/Dialect/Comm/IR/CommAttrs.h"
#include "comm/Dialect/Comm/IR/CommDialect.h"
#include "comm/Dialect/Comm/IR/CommInterfaces.h"
#include "comm/Dialect/Comm/IR/CommTypes.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace comm {

/// The side-effect resource of inter-rank communication. Ops that touch it
/// keep their relative order and are not erased when their results are
/// unused, since the other ranks take part in them.
struct CommResource : public SideEffects::Resource::Base<CommResource> {
  StringRef getName() final { return "comm"; }
};

/// Number of ranks declared by the nearest enclosing `comm.world_size`, or
/// std::nullopt when none is declared.
std::optional<int64_t> getWorldSize(Operation *op);

/// Whether `groups` hold every rank of the comm.world_size in force at `op`
/// (false where none is declared). A rank in no group gets zeros from a
/// collective (and its input back from a rotate).
bool groupsCoverWorld(Operation *op, ReplicaGroupsAttr groups);

/// Size in bytes of a statically shaped tensor or buffer of integers or
/// floats as the runtime stores it (sub-byte elements take a byte each), or
/// std::nullopt when it is not one or does not fit in 63 bits.
std::optional<int64_t> getStorageBytes(ShapedType type);

/// Bytes one integer or float element takes in memory and on the wire:
/// its width rounded up to whole bytes (sub-byte elements take a byte
/// each), and 4 for tf32, whose 19 bits are stored in an f32. Every size
/// comm computes (verifiers, fusion, the cost model) reads this one rule.
unsigned getElementStorageBytes(Type element);

/// The reduction an element-wise arith op on tensors performs (arith.addf is
/// sum, ...): comm-bufferize makes it a comm.buffer.combine and the
/// simulator costs it as a local kernel. std::nullopt for any other op.
std::optional<ReductionKind> getCombineKind(Operation *op);

/// Builds the element-wise arith op that combines `lhs` and `rhs` by `kind`
/// (the inverse of getCombineKind); fails for avg and for bitwise kinds on
/// floats.
FailureOr<Value> buildCombine(OpBuilder &builder, Location loc,
                              ReductionKind kind, Value lhs, Value rhs);

} // namespace comm
} // namespace mlir

#define GET_OP_CLASSES
#include "comm/Dialect/Comm/CommOps.h.inc"

namespace mlir {
namespace comm {

/// A comm.pack of `parts` back to back (offsets 0, |p0|, |p0| + |p1|, ...)
/// into `resultType`: the join of parts cut along dimension 0.
PackOp createJoin(OpBuilder &builder, Location loc, Type resultType,
                  ValueRange parts);

/// The [source, target] pairs (flat) in which every rank of each group
/// sends to the rank `shift` places after it in its group: one ring step.
SmallVector<int64_t> getRingPairs(ReplicaGroupsAttr groups, int64_t shift);

/// The receive matching `send` (same pairs, tag and plan), started at
/// `builder`'s point inside a comm.start so that the data moves while the
/// rank goes on; createWaitedRecv takes it where it is read.
StartOp createStartedRecv(OpBuilder &builder, SendOp send);
Value createWaitedRecv(OpBuilder &builder, StartOp start);

/// The memory space recorded on the op that defines `value`
/// (`comm.space`: an allocation by comm-bufferize, or a receive staged by
/// comm-route), or std::nullopt.
std::optional<MemorySpace> getRecordedSpace(Value value);

/// The type of one of `parts` equal slices of `type` along dimension 0
/// (which `parts` must divide): what createJoin joins `parts` of.
RankedTensorType getSliceType(RankedTensorType type, int64_t parts);

/// Checks that the comm.recv `recv` of rank `rank` reads what the comm.send
/// `send` of rank `from` (tag `tag`) writes: the same tensor type and the
/// same wire type (plan precision). Else reports the mismatch at `recv`,
/// with a note at `send`. comm-verify-schedule and comm-sim run both call
/// it on the pairs they match.
LogicalResult checkTransferMatch(Operation *send, Operation *recv, int64_t rank,
                                 int64_t from, int64_t tag);

/// The stream of a transfer with no `stream` in its plan: the backend's own
/// (the lowering passes -1 to the runtime).
constexpr int64_t kBackendStream = -1;
/// The stream `op`'s plan names, or kBackendStream. A blocking collective
/// runs on it too: the lowering issues it there, then waits.
int64_t getPlanStream(Operation *op);

/// The fields of a collective's plan that the pieces a pass cuts it into
/// keep: the wire type, the route and the stream (an algorithm or protocol
/// named the whole collective's). Null when none is set.
PlanAttr getPiecePlan(PlanAttr plan);

/// While alive, gives every transfer `builder` inserts the error bound
/// comm-reduce-precision recorded on `whole` (comm.error_bound), the op a
/// pass cuts into those pieces: the pieces carry the whole op's wire type
/// (getPiecePlan) and so its bound, which is what a check of the results
/// must allow. Does nothing where `whole` has no bound.
class PieceBoundListener : public OpBuilder::Listener {
public:
  PieceBoundListener(OpBuilder &builder, Operation *whole);
  ~PieceBoundListener() override;
  void notifyOperationInserted(Operation *op,
                               OpBuilder::InsertPoint previous) override;

private:
  OpBuilder &builder;
  OpBuilder::Listener *outer;
  Attribute bound;
};

} // namespace comm
} // namespace mlir

#endif // COMM_DIALECT_COMM_IR_COMMOPS_H
