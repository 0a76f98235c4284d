//===- Decompose.cpp - collectives into halves and point to point -*- C++ -*-//
//
// comm-decompose: all_reduce into reduce_scatter + all_gather, and
// collectives into their ring schedules of sends, receives and local
// combines. The schedules rotate the data once by the rank's place in its
// group (comm.rotate), so that the chunk every rank sends and receives at a
// step has the same index on every rank and the program stays one SPMD
// program.
//
//===----------------------------------------------------------------------===//

#include "comm/Analysis/CollectiveCost.h"
#include "comm/Analysis/TopologyAnalysis.h"
#include "comm/Dialect/Comm/IR/CommAlgorithms.h"
#include "comm/Dialect/Comm/IR/CommOps.h"
#include "comm/Dialect/Comm/Transforms/Hierarchical.h"
#include "comm/Dialect/Comm/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>

namespace mlir {
namespace comm {
#define GEN_PASS_DEF_COMMDECOMPOSE
#include "comm/Dialect/Comm/CommPasses.h.inc"
} // namespace comm
} // namespace mlir

using namespace mlir;
using namespace mlir::comm;

namespace {
enum class P2PMode { unsupported, all, none };

/// Builds the ring schedule of one collective.
class RingBuilder {
public:
  RingBuilder(OpBuilder &builder, Location loc, ReplicaGroupsAttr groups,
              int64_t tag, PlanAttr plan)
      : b(builder), loc(loc), groups(groups), n(groups.getGroupSize()),
        tag(tag), plan(plan) {}

  /// Sends `value` along `pairs` (positions in each group, offset by `base`)
  /// and returns what arrives: zeros on ranks that are the target of none.
  Value transfer(Value value, ArrayRef<std::pair<int64_t, int64_t>> positions,
                 int64_t base) {
    SmallVector<int64_t> flat;
    for (int64_t g = 0; g < groups.getNumGroups(); ++g) {
      ArrayRef<int64_t> group = groups.getGroup(g);
      for (auto [from, to] : positions) {
        flat.push_back(group[mod(base + from)]);
        flat.push_back(group[mod(base + to)]);
      }
    }
    DenseI64ArrayAttr pairs = b.getDenseI64ArrayAttr(flat);
    SendOp::create(b, loc, value, pairs, b.getI64IntegerAttr(tag), plan);
    return RecvOp::create(b, loc, value.getType(), pairs,
                          b.getI64IntegerAttr(tag), plan);
  }

  /// Every rank sends `value` to the rank `shift` places after it in its
  /// group; returns what arrives from the rank `shift` places before.
  Value exchange(Value value, int64_t shift) {
    DenseI64ArrayAttr pairs =
        b.getDenseI64ArrayAttr(getRingPairs(groups, shift));
    SendOp::create(b, loc, value, pairs, b.getI64IntegerAttr(tag), plan);
    return RecvOp::create(b, loc, value.getType(), pairs,
                          b.getI64IntegerAttr(tag), plan);
  }

  /// `value` as a flat tensor of `elements` (zero-padded at the end).
  Value flatten(Value value, int64_t elements) {
    auto type = cast<RankedTensorType>(value.getType());
    if (type.getRank() == 1 && type.getNumElements() == elements)
      return value;
    auto flat = RankedTensorType::get({elements}, type.getElementType());
    return PackOp::create(b, loc, flat, ValueRange{value},
                          b.getDenseI64ArrayAttr({0}), nullptr);
  }

  /// The first elements of flat tensor `value`, as `type`.
  Value reshape(Value value, Type type) {
    if (value.getType() == type)
      return value;
    return UnpackOp::create(b, loc, TypeRange{type}, value,
                            b.getDenseI64ArrayAttr({0}), nullptr)
        .getResult(0);
  }

  /// The n chunks of flat tensor `value`.
  SmallVector<Value> split(Value value) {
    auto type = cast<RankedTensorType>(value.getType());
    int64_t chunk = type.getNumElements() / n;
    auto chunkType = RankedTensorType::get({chunk}, type.getElementType());
    SmallVector<int64_t> offsets;
    for (int64_t i = 0; i < n; ++i)
      offsets.push_back(i * chunk);
    auto unpack =
        UnpackOp::create(b, loc, SmallVector<Type>(n, chunkType), value,
                         b.getDenseI64ArrayAttr(offsets), nullptr);
    return SmallVector<Value>(unpack.getResults());
  }

  /// The chunks, in order, as one flat tensor.
  Value join(ArrayRef<Value> chunks) {
    auto chunkType = cast<RankedTensorType>(chunks.front().getType());
    auto type = RankedTensorType::get({chunkType.getNumElements() * n},
                                      chunkType.getElementType());
    return createJoin(b, loc, type, chunks);
  }

  /// `value`, whose elements in row-major order are `outer` rows of n
  /// chunks (what a collective cuts along a dimension with larger ones
  /// before it), as one flat tensor of the n chunks, each its `outer` row
  /// parts in order.
  Value chunksFirst(Value value, int64_t outer) {
    auto type = cast<RankedTensorType>(value.getType());
    int64_t elements = type.getNumElements();
    if (outer == 1 || elements == 0)
      return flatten(value, elements);
    int64_t inner = elements / (outer * n);
    auto chunkType =
        RankedTensorType::get({outer * inner}, type.getElementType());
    auto chunks = UnpackOp::create(
        b, loc, SmallVector<Type>(n, chunkType), value,
        b.getDenseI64ArrayAttr(rowOffsets(inner)), b.getI64IntegerAttr(outer));
    return join(SmallVector<Value>(chunks.getResults()));
  }

  /// The inverse of chunksFirst: flat `value`, n chunks of `outer` row
  /// parts each, as `type`, whose rows hold one part of every chunk.
  Value chunksInRows(Value value, int64_t outer, Type type) {
    int64_t elements = cast<RankedTensorType>(value.getType()).getNumElements();
    if (outer == 1 || elements == 0)
      return reshape(value, type);
    return PackOp::create(
        b, loc, type, split(value),
        b.getDenseI64ArrayAttr(rowOffsets(elements / (outer * n))),
        b.getI64IntegerAttr(outer));
  }

  /// `value` with a dimension 0 that `parts` divides: itself, or a flat copy
  /// zero-padded to a multiple of `parts`.
  Value divisible(Value value, int64_t parts) {
    auto type = cast<RankedTensorType>(value.getType());
    if (type.getRank() >= 1 && type.getDimSize(0) % parts == 0)
      return value;
    return flatten(value, (type.getNumElements() + parts - 1) / parts * parts);
  }

  /// Where each of the n chunks' parts lies in a row of n parts of
  /// `inner` elements.
  SmallVector<int64_t> rowOffsets(int64_t inner) {
    return llvm::map_to_vector(llvm::seq<int64_t>(0, n),
                               [&](int64_t r) { return r * inner; });
  }

  Value rotate(Value value, bool inverse) {
    return RotateOp::create(b, loc, value.getType(), value, groups,
                            b.getI64IntegerAttr(0),
                            inverse ? b.getUnitAttr() : UnitAttr());
  }

  /// Reduce-scatter steps on the rotated chunks: afterwards chunk 0 holds
  /// the reduction of the group's chunk p on the rank at position p. An
  /// average is a sum scaled by 1/n at the end (floating point only).
  LogicalResult reduceScatter(SmallVectorImpl<Value> &chunks,
                              ReductionKind kind) {
    ReductionKind pairwise =
        kind == ReductionKind::avg ? ReductionKind::sum : kind;
    if (pieces > 1) {
      SmallVector<SmallVector<Value>> cut = cutChunks(chunks);
      if (failed(pipelinedSteps(cut, -1, pairwise)))
        return failure();
      chunks[0] = joinPieces(cut[0]);
    }
    for (int64_t s = 0; pieces == 1 && s + 1 < n; ++s) {
      int64_t send = mod(-1 - s), into = mod(-2 - s);
      Value received = exchange(chunks[send], 1);
      FailureOr<Value> combined =
          buildCombine(b, loc, pairwise, chunks[into], received);
      if (failed(combined))
        return failure();
      chunks[into] = *combined;
    }
    if (kind == ReductionKind::avg) {
      auto type = cast<RankedTensorType>(chunks[0].getType());
      auto element = cast<FloatType>(type.getElementType());
      Value factor = arith::ConstantOp::create(
          b, loc,
          DenseElementsAttr::get(type, FloatAttr::get(element, 1.0 / n)));
      chunks[0] = arith::MulFOp::create(b, loc, chunks[0], factor);
    }
    return success();
  }

  /// All-gather steps: from chunk 0 on every rank, fills all the others.
  void allGather(SmallVectorImpl<Value> &chunks) {
    if (pieces > 1) {
      SmallVector<Value> own(n);
      own[0] = chunks[0];
      SmallVector<SmallVector<Value>> cut = cutChunks(own);
      (void)pipelinedSteps(cut, 0, std::nullopt); // no combine can fail
      for (int64_t c = 0; c < n; ++c)
        chunks[c] = joinPieces(cut[c]);
      return;
    }
    for (int64_t s = 0; s + 1 < n; ++s)
      chunks[mod(-1 - s)] = exchange(chunks[mod(-s)], 1);
  }

  int64_t mod(int64_t value) const { return ((value % n) + n) % n; }

  /// Sends `value` to the next rank of each group and starts the receive
  /// from the previous one (a ring step in flight; finish() takes it).
  StartOp startStep(Value value) {
    auto send = SendOp::create(b, loc, value,
                               b.getDenseI64ArrayAttr(getRingPairs(groups, 1)),
                               b.getI64IntegerAttr(tag), plan);
    return createStartedRecv(b, send);
  }

  /// The ring steps with every chunk cut into `pieces`, software-pipelined:
  /// piece q of step s + 1 leaves as soon as piece q of step s has arrived
  /// (and been combined), while the other pieces of step s are in flight.
  /// `combine` (null for an all-gather) folds an arriving piece into the
  /// rank's own. `first` and `step` give the chunk sent at step s and the
  /// one it lands in: mod(first - s) and mod(first - 1 - s).
  LogicalResult pipelinedSteps(SmallVectorImpl<SmallVector<Value>> &cut,
                               int64_t first,
                               std::optional<ReductionKind> combine) {
    int64_t steps = n - 1;
    SmallVector<StartOp> inFlight(pieces);
    for (int64_t q = 0; q < pieces; ++q)
      inFlight[q] = startStep(cut[mod(first)][q]);
    for (int64_t s = 0; s < steps; ++s) {
      int64_t into = mod(first - 1 - s);
      for (int64_t q = 0; q < pieces; ++q) {
        Value arrived = createWaitedRecv(b, inFlight[q]);
        if (combine) {
          FailureOr<Value> combined =
              buildCombine(b, loc, *combine, cut[into][q], arrived);
          if (failed(combined))
            return failure();
          cut[into][q] = *combined;
        } else {
          cut[into][q] = arrived;
        }
        if (s + 1 < steps)
          inFlight[q] = startStep(cut[into][q]);
      }
    }
    return success();
  }

  /// Each chunk cut into `pieces` flat pieces, and joined back.
  SmallVector<SmallVector<Value>> cutChunks(ArrayRef<Value> chunks) {
    SmallVector<SmallVector<Value>> cut;
    for (Value chunk : chunks) {
      if (!chunk) {
        cut.push_back(SmallVector<Value>(pieces));
        continue;
      }
      RingBuilder sub(b, loc, groups, tag, plan);
      sub.n = pieces;
      cut.push_back(sub.split(chunk));
    }
    return cut;
  }
  Value joinPieces(ArrayRef<Value> cut) {
    if (cut.size() == 1)
      return cut.front();
    auto piece = cast<RankedTensorType>(cut.front().getType());
    auto type = RankedTensorType::get({piece.getNumElements() * pieces},
                                      piece.getElementType());
    return createJoin(b, loc, type, cut);
  }

  OpBuilder &b;
  Location loc;
  ReplicaGroupsAttr groups;
  int64_t n;
  int64_t tag;
  PlanAttr plan;
  /// Pieces each chunk travels in (the plan's chunk_bytes): 1 sends whole
  /// chunks one step after the other.
  int64_t pieces = 1;
};

struct DecomposePass : public comm::impl::CommDecomposeBase<DecomposePass> {
  using CommDecomposeBase::CommDecomposeBase;
  void runOnOperation() override;

private:
  /// Why `op` has no ring schedule here, or "" when it has one.
  std::string whyNotP2P(Operation *op);
  LogicalResult writeP2P(Operation *op, int64_t tag);
  void split(AllReduceOp op);
};
} // namespace

/// Elements of `shape` before dimension `dim`.
static int64_t outerElements(ArrayRef<int64_t> shape, int64_t dim) {
  int64_t outer = 1;
  for (int64_t i = 0; i < dim; ++i)
    outer *= shape[i];
  return outer;
}

static ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

std::string DecomposePass::whyNotP2P(Operation *op) {
  auto collective = cast<CollectiveOpInterface>(op);
  if (isa<PermuteOp>(op))
    return "";
  ReplicaGroupsAttr groups = collective.getReplicaGroups();
  if (isa<BarrierOp>(op))
    return groups.getGroupSize() < 2 ? "has groups of one rank" : "";
  // A rank in no group receives nothing, so a broadcast's tree leaves it
  // the zeros it must return; the other schedules start from each rank's
  // own data, which such a rank would keep.
  if (!isa<BroadcastOp>(op) && !groupsCoverWorld(op, groups))
    return "has groups that leave ranks of comm.world_size out (or no "
           "comm.world_size): its schedule would leave those ranks their "
           "own data where they must get zeros";
  if (groups.getGroupSize() < 2)
    return "has groups of one rank";
  return "";
}

LogicalResult DecomposePass::writeP2P(Operation *op, int64_t tag) {
  OpBuilder b(op);
  PieceBoundListener bounds(b, op);
  auto plan = op->getAttrOfType<PlanAttr>("plan");
  Value result;
  if (auto permute = dyn_cast<PermuteOp>(op)) {
    PlanAttr sendPlan = getPiecePlan(plan);
    SendOp::create(b, op->getLoc(), permute.getInput(), permute.getPairsAttr(),
                   b.getI64IntegerAttr(tag), sendPlan);
    result = RecvOp::create(b, op->getLoc(), permute.getType(),
                            permute.getPairsAttr(), b.getI64IntegerAttr(tag),
                            sendPlan);
    permute.replaceAllUsesWith(result);
    permute.erase();
    return success();
  }
  auto collective = cast<CollectiveOpInterface>(op);
  RingBuilder ring(b, op->getLoc(), collective.getReplicaGroups(), tag,
                   getPiecePlan(plan));
  int64_t n = ring.n;
  if (isa<BarrierOp>(op)) {
    // A dissemination barrier (Hensgen, Finkel and Manber, 1988): in round
    // k every rank sends a byte to the rank 2^k places after it and waits
    // for the one from 2^k places before; after ceil(log2 n) rounds every
    // rank has heard, directly or not, from every other.
    auto token = RankedTensorType::get({1}, b.getIntegerType(8));
    Value byte = tensor::EmptyOp::create(b, op->getLoc(), token.getShape(),
                                         token.getElementType());
    for (int64_t shift = 1; shift < n; shift *= 2)
      ring.exchange(byte, shift);
    op->erase();
    return success();
  }
  Value input = op->getOperand(0);
  Type resultType = op->getResult(0).getType();
  auto inputType = cast<RankedTensorType>(input.getType());
  int64_t elements = inputType.getNumElements();
  // The plan's chunk_bytes: each ring chunk travels in pieces of that size
  // (an all_reduce pads to whole pieces; the others take the most pieces
  // that divide their chunk), at most 64.
  int64_t wanted = 1;
  if (plan && plan.getChunkBytes() &&
      isa<AllReduceOp, ReduceScatterOp, AllGatherOp>(op)) {
    int64_t chunkElements = (elements + n - 1) / n;
    if (auto ag = dyn_cast<AllGatherOp>(op))
      chunkElements = elements;
    int64_t elementBytes = getElementStorageBytes(inputType.getElementType());
    wanted = std::clamp<int64_t>(
        (chunkElements * elementBytes + *plan.getChunkBytes() - 1) /
            *plan.getChunkBytes(),
        1, 64);
    if (!isa<AllReduceOp>(op))
      while (wanted > 1 && chunkElements % wanted != 0)
        --wanted;
  }
  ring.pieces = wanted;
  if (auto ar = dyn_cast<AllReduceOp>(op)) {
    int64_t padded =
        (elements + n * ring.pieces - 1) / (n * ring.pieces) * n * ring.pieces;
    SmallVector<Value> chunks =
        ring.split(ring.rotate(ring.flatten(input, padded), false));
    if (failed(ring.reduceScatter(chunks, ar.getKind())))
      return failure();
    ring.allGather(chunks);
    result = ring.reshape(ring.rotate(ring.join(chunks), true), resultType);
  } else if (auto rs = dyn_cast<ReduceScatterOp>(op)) {
    // Along a dimension with larger ones before it, each rank's part is
    // in pieces, one per row: they are put together first.
    SmallVector<Value> chunks = ring.split(ring.rotate(
        ring.chunksFirst(input, outerElements(shapeOf(input), rs.getDim())),
        false));
    if (failed(ring.reduceScatter(chunks, rs.getKind())))
      return failure();
    result = ring.reshape(chunks.front(), resultType);
  } else if (auto bcast = dyn_cast<BroadcastOp>(op)) {
    // The root keeps its data (a send to itself; every other rank receives
    // zeros), then a binomial tree: at step k the 2^k ranks that hold it
    // send to the ranks 2^k places further from the root, which add what
    // they receive to their zeros.
    int64_t root = bcast.getRoot();
    Value held = ring.transfer(input, {{0, 0}}, root);
    for (int64_t span = 1; span < n; span *= 2) {
      SmallVector<std::pair<int64_t, int64_t>> positions;
      for (int64_t q = 0; q < span && q + span < n; ++q)
        positions.push_back({q, q + span});
      Value received = ring.transfer(held, positions, root);
      FailureOr<Value> sum =
          buildCombine(b, op->getLoc(), ReductionKind::sum, held, received);
      if (failed(sum))
        return failure();
      held = *sum;
    }
    result = held;
  } else if (auto reduce = dyn_cast<ReduceOp>(op)) {
    // Rabenseifner's reduce: the ring's reduce-scatter, then every rank
    // sends its reduced chunk to the root, which joins them. The root keeps
    // the join and every other rank its input: each receives the one it
    // keeps from itself (zeros arrive on the others) and adds the two.
    int64_t root = reduce.getRoot();
    int64_t padded = (elements + n - 1) / n * n;
    SmallVector<Value> chunks =
        ring.split(ring.rotate(ring.flatten(input, padded), false));
    if (failed(ring.reduceScatter(chunks, reduce.getKind())))
      return failure();
    SmallVector<Value> gathered(n);
    for (int64_t p = 0; p < n; ++p)
      gathered[p] =
          p == root ? chunks[0] : ring.transfer(chunks[0], {{p, root}}, 0);
    Value joined = ring.reshape(ring.join(gathered), resultType);
    SmallVector<std::pair<int64_t, int64_t>> others;
    for (int64_t p = 0; p < n; ++p)
      if (p != root)
        others.push_back({p, p});
    Value kept = ring.transfer(joined, {{root, root}}, 0);
    Value unchanged = ring.transfer(input, others, 0);
    FailureOr<Value> selected =
        buildCombine(b, op->getLoc(), ReductionKind::sum, kept, unchanged);
    if (failed(selected))
      return failure();
    result = *selected;
  } else if (auto ag = dyn_cast<AllGatherOp>(op)) {
    SmallVector<Value> chunks(n);
    chunks[0] = ring.flatten(input, elements);
    ring.allGather(chunks);
    result = ring.chunksInRows(
        ring.rotate(ring.join(chunks), true),
        outerElements(shapeOf(ag.getResult()), ag.getDim()), resultType);
  } else if (auto a2a = dyn_cast<AllToAllOp>(op)) {
    // Rotated, chunk j is the one for the rank j places after this one;
    // what arrives from the rank s places before is its chunk for this
    // rank, output chunk p - s, so the output rotated by p is
    // received[0], received[n - 1], ..., received[1].
    SmallVector<Value> chunks = ring.split(
        ring.rotate(ring.chunksFirst(input, outerElements(shapeOf(input),
                                                          a2a.getSplitDim())),
                    false));
    SmallVector<Value> received(n);
    received[0] = chunks[0];
    for (int64_t s = 1; s < n; ++s)
      received[s] = ring.exchange(chunks[s], s);
    SmallVector<Value> rotated(n);
    for (int64_t j = 0; j < n; ++j)
      rotated[j] = received[ring.mod(-j)];
    result = ring.chunksInRows(
        ring.rotate(ring.join(rotated), true),
        outerElements(shapeOf(a2a.getResult()), a2a.getConcatDim()),
        resultType);
  } else {
    return failure();
  }
  op->getResult(0).replaceAllUsesWith(result);
  op->erase();
  return success();
}

void DecomposePass::split(AllReduceOp op) {
  OpBuilder b(op);
  PieceBoundListener bounds(b, op);
  Location loc = op.getLoc();
  ReplicaGroupsAttr groups = op.getGroups();
  int64_t n = groups.getGroupSize();
  auto type = op.getType();
  RingBuilder shapes(b, loc, groups, 0, nullptr);
  Value input = shapes.divisible(op.getInput(), n);
  auto inputType = cast<RankedTensorType>(input.getType());
  RankedTensorType shardType = getSliceType(inputType, n);
  PlanAttr plan = getPiecePlan(op.getPlanAttr());
  auto rs = ReduceScatterOp::create(b, loc, shardType, input, op.getKindAttr(),
                                    groups, b.getI64IntegerAttr(0), plan);
  Value gathered = AllGatherOp::create(b, loc, inputType, rs.getResult(),
                                       groups, b.getI64IntegerAttr(0), plan);
  op.replaceAllUsesWith(shapes.reshape(gathered, type));
  op.erase();
}

bool mlir::comm::isHierarchicalKind(Operation *op) {
  if (auto gather = dyn_cast<AllGatherOp>(op))
    return gather.getDim() == 0;
  if (auto scatter = dyn_cast<ReduceScatterOp>(op))
    return scatter.getDim() == 0;
  return isa<AllReduceOp>(op);
}

std::optional<HierarchicalSplit>
mlir::comm::getHierarchicalSplit(Operation *op, const Topology &topology,
                                 const CostModel &model, std::string &why) {
  auto fail = [&](std::string reason) -> std::optional<HierarchicalSplit> {
    why = std::move(reason);
    return std::nullopt;
  };
  if (!isHierarchicalKind(op))
    return fail("is not an all_reduce, or an all_gather or reduce_scatter "
                "along dimension 0");
  ReplicaGroupsAttr groups = cast<CollectiveOpInterface>(op).getReplicaGroups();
  HierarchicalSplit split;
  int64_t perMachine = -1, machines = -1;
  bool bySocket = false;
  for (int64_t g = 0; g < groups.getNumGroups(); ++g) {
    ArrayRef<int64_t> group = groups.getGroup(g);
    // The group's ranks by machine, in the group's order.
    std::map<uint64_t, SmallVector<int64_t>> byMachine;
    for (int64_t rank : group) {
      if (rank < 0 || static_cast<uint64_t>(rank) >= topology.getNumGPUs())
        return fail("names rank " + std::to_string(rank) +
                    ", which the topology does not have");
      byMachine[topology.getNodeIndex(topology.getGPU(rank))].push_back(rank);
    }
    // A group inside one machine whose paths into each CPU's GPUs share a
    // link (a PCIe machine's socket link) is split by CPU instead.
    if (byMachine.size() == 1) {
      // The shape's socket cuts list each CPU's ranks; they cover the
      // group when every CPU's GPUs are reached across a shared link.
      GroupShape shape = model.getGroupShape(group);
      size_t covered = 0;
      for (const GroupShape::SocketCut &side : shape.socketCuts)
        covered += side.ranks.size();
      if (!shape.socketCuts.empty() && covered == group.size()) {
        if (g > 0 && !bySocket)
          return fail("has groups split by machine and by CPU");
        byMachine.clear();
        for (const GroupShape::SocketCut &side : shape.socketCuts)
          byMachine[side.cpu].assign(side.ranks.begin(), side.ranks.end());
        bySocket = true;
      } else if (bySocket) {
        return fail("has groups split by machine and by CPU");
      }
    }
    for (auto &[machine, ranks] : byMachine) {
      if (perMachine < 0)
        perMachine = ranks.size();
      if (static_cast<int64_t>(ranks.size()) != perMachine)
        return fail(bySocket
                        ? "has a different number of ranks on each CPU"
                        : "has a different number of ranks on each machine");
      split.inside.push_back(ranks);
    }
    if (machines < 0)
      machines = byMachine.size();
    if (static_cast<int64_t>(byMachine.size()) != machines)
      return fail("has groups on different numbers of machines");
    // Position j * domains + i of the buffer gathered across, then inside,
    // holds the block of place j of domain i: where the group wants it.
    llvm::DenseMap<int64_t, int64_t> positionOf;
    for (auto [position, rank] : llvm::enumerate(group))
      positionOf.try_emplace(rank, position);
    SmallVector<int64_t> order;
    for (int64_t j = 0; j < perMachine; ++j) {
      SmallVector<int64_t> rail;
      for (auto &[machine, ranks] : byMachine) {
        rail.push_back(ranks[j]);
        order.push_back(positionOf.lookup(ranks[j]));
      }
      split.across.push_back(rail);
    }
    if (g == 0)
      split.blockOrder = order;
    else if (split.blockOrder != order && !isa<AllReduceOp>(op))
      return fail("has groups whose ranks lie on their " +
                  std::string(bySocket ? "CPUs" : "machines") +
                  " in different orders");
  }
  if (machines < 2)
    return fail("stays inside one machine, where no link joins its CPUs' "
                "GPUs alone");
  if (perMachine < 2)
    return fail(bySocket ? "has one rank per CPU" : "has one rank per machine");
  split.domains = machines;
  split.perDomain = perMachine;
  split.bySocket = bySocket;
  return split;
}

std::pair<double, double> mlir::comm::predictHierarchicalSplit(
    Operation *op, const HierarchicalSplit &split, const CostModel &model,
    Backend backend, bool planned) {
  std::optional<CollectiveRequest> whole = getCollectiveRequest(op);
  if (!whole)
    return {-1, -1};
  auto predict = [&](const CollectiveRequest &request) {
    return (planned ? predictPlannedTimeUs(request, model, backend)
                    : predictTimeUs(request, model, backend, /*native=*/true))
        .value_or(-1);
  };
  auto part = [&](CollectiveKind kind, ArrayRef<SmallVector<int64_t>> groups,
                  uint64_t bytes) {
    CollectiveRequest request = *whole;
    request.kind = kind;
    request.algorithm.reset();
    request.protocol.reset();
    request.groups.clear();
    for (const auto &group : groups)
      request.groups.emplace_back(group.begin(), group.end());
    request.bytes = bytes;
    return predict(request);
  };
  // Sizes as nccl-tests counts them (CollectiveRequest::bytes): the
  // all_reduce's buffer padded to whole shards; the gathered result; the
  // scattered input.
  uint64_t p = split.perDomain;
  SmallVector<double, 3> parts;
  if (isa<AllReduceOp>(op)) {
    uint64_t unit = whole->elementBytes * p;
    uint64_t padded = (whole->bytes + unit - 1) / unit * unit;
    parts = {part(CollectiveKind::ReduceScatter, split.inside, padded),
             part(CollectiveKind::AllReduce, split.across, padded / p),
             part(CollectiveKind::AllGather, split.inside, padded)};
  } else if (isa<AllGatherOp>(op)) {
    parts = {part(CollectiveKind::AllGather, split.across, whole->bytes / p),
             part(CollectiveKind::AllGather, split.inside, whole->bytes)};
  } else {
    parts = {
        part(CollectiveKind::ReduceScatter, split.inside, whole->bytes),
        part(CollectiveKind::ReduceScatter, split.across, whole->bytes / p)};
  }
  double wholeUs = predict(*whole), sum = 0;
  for (double us : parts) {
    if (us < 0)
      return {-1, -1};
    sum += us;
  }
  if (wholeUs < 0)
    return {-1, -1};
  return {wholeUs, sum};
}

/// `value`'s blocks along dimension 0 (one per position of a group of
/// blocks.size()), placed so that block k lands at position `to[k]`.
static Value permuteBlocks(OpBuilder &b, Location loc, RingBuilder &shapes,
                           Value value, ArrayRef<int64_t> to) {
  auto type = cast<RankedTensorType>(value.getType());
  int64_t n = to.size(), elements = type.getNumElements();
  Value flat = shapes.flatten(value, elements);
  SmallVector<Value> blocks = shapes.split(flat);
  SmallVector<int64_t> offsets;
  for (int64_t k = 0; k < n; ++k)
    offsets.push_back(to[k] * (elements / n));
  Value placed = PackOp::create(b, loc, flat.getType(), blocks,
                                b.getDenseI64ArrayAttr(offsets), nullptr);
  return shapes.reshape(placed, type);
}

void mlir::comm::splitHierarchically(Operation *op,
                                     const HierarchicalSplit &split) {
  OpBuilder b(op);
  PieceBoundListener bounds(b, op);
  Location loc = op->getLoc();
  MLIRContext *ctx = op->getContext();
  ReplicaGroupsAttr inside = ReplicaGroupsAttr::get(ctx, split.inside);
  ReplicaGroupsAttr across = ReplicaGroupsAttr::get(ctx, split.across);
  auto collective = cast<CollectiveOpInterface>(op);
  PlanAttr plan = getPiecePlan(collective.getPlanAttr());
  IntegerAttr dim0 = b.getI64IntegerAttr(0);
  Value result;
  if (auto allReduce = dyn_cast<AllReduceOp>(op)) {
    RingBuilder shapes(b, loc, inside, 0, nullptr);
    Value input = shapes.divisible(allReduce.getInput(), split.perDomain);
    auto inputType = cast<RankedTensorType>(input.getType());
    RankedTensorType shardType = getSliceType(inputType, split.perDomain);
    // An average of averages over equal counts is the average.
    auto scatter = ReduceScatterOp::create(
        b, loc, shardType, input, allReduce.getKindAttr(), inside, dim0, plan);
    auto reduce = AllReduceOp::create(b, loc, shardType, scatter.getResult(),
                                      allReduce.getKindAttr(), across, plan);
    auto gather = AllGatherOp::create(b, loc, inputType, reduce.getResult(),
                                      inside, dim0, plan);
    result = shapes.reshape(gather.getResult(), allReduce.getType());
  } else if (auto gather = dyn_cast<AllGatherOp>(op)) {
    // Across first, so that only each rank's own block crosses the cut;
    // the blocks then come in place-major order and are put in the group's.
    RingBuilder shapes(b, loc, gather.getGroups(), 0, nullptr);
    auto type = cast<RankedTensorType>(gather.getType());
    auto inputType = cast<RankedTensorType>(gather.getInput().getType());
    SmallVector<int64_t> acrossShape(inputType.getShape());
    acrossShape[0] *= split.domains;
    auto first = AllGatherOp::create(
        b, loc, RankedTensorType::get(acrossShape, type.getElementType()),
        gather.getInput(), across, dim0, plan);
    auto second = AllGatherOp::create(b, loc, type, first.getResult(), inside,
                                      dim0, plan);
    result =
        permuteBlocks(b, loc, shapes, second.getResult(), split.blockOrder);
  } else {
    // Inside first, so that the cut carries sums; the blocks go in
    // place-major order first, so that each rank keeps its own.
    auto scatter = cast<ReduceScatterOp>(op);
    RingBuilder shapes(b, loc, scatter.getGroups(), 0, nullptr);
    SmallVector<int64_t> from(split.blockOrder.size());
    for (auto [position, block] : llvm::enumerate(split.blockOrder))
      from[block] = position;
    Value input = permuteBlocks(b, loc, shapes, scatter.getInput(), from);
    auto type = cast<RankedTensorType>(scatter.getType());
    SmallVector<int64_t> insideShape(type.getShape());
    insideShape[0] *= split.domains;
    auto first = ReduceScatterOp::create(
        b, loc, RankedTensorType::get(insideShape, type.getElementType()),
        input, scatter.getKindAttr(), inside, dim0, plan);
    result = ReduceScatterOp::create(b, loc, type, first.getResult(),
                                     scatter.getKindAttr(), across, dim0, plan)
                 .getResult();
  }
  op->getResult(0).replaceAllUsesWith(result);
  op->erase();
}

unsigned mlir::comm::splitHierarchically(ModuleOp module,
                                         const Topology &topology,
                                         const CostModel &model,
                                         Backend backend, HierarchicalMode mode,
                                         bool explain, StringRef pass,
                                         unsigned *kept, bool planned) {
  SmallVector<Operation *> ops;
  module.walk([&](Operation *op) {
    if (isa<AllReduceOp, AllGatherOp, ReduceScatterOp>(op))
      ops.push_back(op);
  });
  unsigned numSplit = 0;
  for (Operation *op : ops) {
    std::string why;
    std::optional<HierarchicalSplit> split =
        getHierarchicalSplit(op, topology, model, why);
    double whole = -1, parts = -1;
    if (split && (explain || mode == HierarchicalMode::faster))
      std::tie(whole, parts) =
          predictHierarchicalSplit(op, *split, model, backend, planned);
    if (split && mode == HierarchicalMode::faster &&
        !(parts >= 0 && parts < whole)) {
      why = parts < 0 ? "cannot be timed by the cost model"
                      : llvm::formatv("is predicted faster whole ({0:F2} us "
                                      "against {1:F2} us split)",
                                      whole, parts)
                            .str();
      split.reset();
    }
    if (!split || mode == HierarchicalMode::never) {
      if (kept)
        ++*kept;
      if (explain && !why.empty())
        mlir::emitRemark(op->getLoc()) << pass << ": kept whole: it " << why;
      continue;
    }
    if (explain && whole >= 0)
      mlir::emitRemark(op->getLoc()) << llvm::formatv(
          "{5}: split by {0} ({1} {0}s of {2} ranks): {3:F2} us "
          "predicted against {4:F2} us whole",
          split->bySocket ? "CPU" : "machine", split->domains, split->perDomain,
          parts, whole, pass);
    splitHierarchically(op, *split);
    ++numSplit;
  }
  return numSplit;
}

void DecomposePass::runOnOperation() {
  ModuleOp module = getOperation();
  P2PMode mode;
  if (toP2P == "unsupported")
    mode = P2PMode::unsupported;
  else if (toP2P == "all")
    mode = P2PMode::all;
  else if (toP2P == "none")
    mode = P2PMode::none;
  else {
    emitError(module.getLoc())
        << "comm-decompose: to-p2p='" << toP2P
        << "' is not a mode: expected unsupported, all or none";
    return signalPassFailure();
  }

  // Whether anything was split or rewritten (what is left alone need not
  // be verified again).
  bool changed = false;
  if (hierarchical) {
    FailureOr<std::shared_ptr<const Topology>> loaded =
        getTopologyFor(module, topology);
    FailureOr<CostParams> params = getCostParamsFor(module, "");
    if (failed(loaded) || failed(params))
      return signalPassFailure();
    CostModel model(**loaded, *params);
    unsigned kept = 0;
    unsigned split =
        splitHierarchically(module, **loaded, model, backend,
                            hierarchicalIfFaster ? HierarchicalMode::faster
                                                 : HierarchicalMode::always,
                            explain, "comm-decompose", &kept);
    numHierarchical += split;
    numKept += kept;
    changed |= split > 0;
  }
  if (splitAllReduce) {
    SmallVector<AllReduceOp> allReduces;
    module.walk([&](AllReduceOp op) { allReduces.push_back(op); });
    for (AllReduceOp op : allReduces) {
      if (op.getGroups().getGroupSize() < 2) {
        ++numKept;
        if (explain)
          mlir::emitRemark(op.getLoc())
              << "comm-decompose: kept: groups of one rank";
        continue;
      }
      split(op);
      ++numSplit;
      changed = true;
    }
  }
  if (mode == P2PMode::none) {
    if (!changed)
      markAllAnalysesPreserved();
    return;
  }

  // One tag per decomposed op, above every tag the module uses.
  int64_t tag = 0;
  module.walk([&](PointToPointOpInterface op) {
    if (std::optional<int64_t> used = op.getTransferTag())
      tag = std::max(tag, *used + 1);
  });
  SmallVector<Operation *> collectives;
  module.walk([&](CollectiveOpInterface op) {
    if (isa<CopyOp>(op))
      return;
    collectives.push_back(op);
  });
  bool failedAny = false;
  for (Operation *op : collectives) {
    // Groups of one rank move nothing: the op's folder gives its input as
    // its result (foldSingletonGroups), a barrier waits for nobody.
    auto groups = cast<CollectiveOpInterface>(op).getReplicaGroups();
    SmallVector<OpFoldResult> folded;
    if (groups && groups.getGroupSize() == 1 &&
        (isa<BarrierOp>(op) ||
         (succeeded(op->fold(folded)) && folded.size() == 1 &&
          isa<Value>(folded.front())))) {
      if (explain)
        mlir::emitRemark(op->getLoc())
            << "comm-decompose: removed: its groups are of one rank, so "
               "it moves nothing";
      if (!folded.empty())
        op->getResult(0).replaceAllUsesWith(cast<Value>(folded.front()));
      op->erase();
      ++numToP2P;
      changed = true;
      continue;
    }
    std::optional<CollectiveKind> kind = getCollectiveKind(op);
    bool carried = kind && isCarriedBy(*kind, backend);
    if (mode == P2PMode::unsupported && carried)
      continue;
    std::string why = whyNotP2P(op);
    if (why.empty() && succeeded(writeP2P(op, tag))) {
      ++tag;
      ++numToP2P;
      changed = true;
      continue;
    }
    if (why.empty())
      why = "could not be combined locally";
    ++numKept;
    if (!carried) {
      std::string message;
      llvm::raw_string_ostream os(message);
      describeNotCarried(op->getName().stripDialect(), backend, os);
      op->emitError() << message << ", and comm-decompose cannot write it "
                      << "as sends and receives: it " << why;
      failedAny = true;
    } else if (explain) {
      mlir::emitRemark(op->getLoc()) << "comm-decompose: kept: it " << why;
    }
  }
  if (failedAny)
    return signalPassFailure();
  if (!changed)
    markAllAnalysesPreserved();
}
