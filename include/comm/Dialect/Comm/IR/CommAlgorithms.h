//===- CommAlgorithms.h - which algorithm runs where ------------*- C++ -*-===//
//
// The one table of collective algorithms: for every kind of collective, the
// algorithms comm knows (the verifier accepts them in a #comm.plan and the
// cost model has a formula for each), the ones each runtime backend realizes
// when a plan names them, and the ones a backend's own collective chooses
// among when no plan names one. The verifier, the cost model, the simulator
// and the lowering read it; a lit test holds the runtime to it.
//
//===----------------------------------------------------------------------===//

#ifndef COMM_DIALECT_COMM_IR_COMMALGORITHMS_H
#define COMM_DIALECT_COMM_IR_COMMALGORITHMS_H

#include "comm/Dialect/Comm/IR/CommAttrs.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

namespace mlir {
class Operation;
namespace comm {

/// What an op moves, as the cost model and the algorithm table see it.
enum class CollectiveKind : uint8_t {
  AllReduce,
  ReduceScatter,
  AllGather,
  AllToAll,
  Broadcast,
  Reduce,
  Permute,
  SendRecv,
  Copy,
  Barrier,
};
constexpr unsigned kNumCollectiveKinds = 10;

/// "all_reduce", ..., "sendrecv", "copy", "barrier".
StringRef stringifyCollectiveKind(CollectiveKind kind);
/// Accepts the dialect's op names (all_reduce, send, recv) and nccl-tests'
/// (allreduce, sendrecv).
std::optional<CollectiveKind> symbolizeCollectiveKind(StringRef name);
/// The kind of a comm op on tensors or buffers, or std::nullopt for ops
/// that move nothing between ranks or memories.
std::optional<CollectiveKind> getCollectiveKind(Operation *op);

/// Every algorithm comm knows for `kind`: what a #comm.plan may name (the
/// verifier's list) and what the cost model has a formula for.
ArrayRef<Algorithm> getApplicableAlgorithms(CollectiveKind kind);

/// The algorithms `backend` runs when a plan names them (the runtime's
/// commrt_collective_planned schedules, NCCL's NVLS, the backend's own
/// point to point). Empty when a plan cannot name an algorithm there.
ArrayRef<Algorithm> getRealizedAlgorithms(CollectiveKind kind, Backend backend);
bool isRealized(CollectiveKind kind, Algorithm algorithm, Backend backend);

/// Whether `algorithm`, named in a plan, runs as the runtime's own schedule
/// of point-to-point transfers over `backend` (commrt_collective_planned):
/// every realized algorithm except nvls, which is NCCL's own all_reduce.
/// On nccl such a schedule's transfers are ncclSend/ncclRecv, whose
/// protocol NCCL chooses by size (getPointToPointProtocol), never a plan.
bool isRuntimeSchedule(CollectiveKind kind, Algorithm algorithm,
                       Backend backend);

/// The most channels a plan may cut a buffer into, and the most chunks
/// its chunk_bytes may cut one channel's slice into: the runtime's limits
/// (COMMRT_MAX_CHANNELS and COMMRT_MAX_CHUNKS_PER_CHANNEL in commrt.h),
/// which the verifier and the passes' options check.
int64_t getMaxPlanChannels();
int64_t getMaxPlanChunksPerChannel();
/// The chunks a plan's `chunkBytes` cuts each of `channels` slices of
/// `elements` elements of `elementBytes` bytes into, counted as the runtime
/// counts them (commrt_plan_chunks_per_channel).
int64_t getPlanChunksPerChannel(int64_t elements, int64_t channels,
                                int64_t chunkBytes, int64_t elementBytes);

/// NCCL_P2P_LL_THRESHOLD's default (NCCL 2.14 and later; src/enqueue.cc):
/// NCCL sends a point-to-point transfer up to this many bytes in LL.
constexpr uint64_t kNcclP2pLlThresholdBytes = 16384;

/// NCCL's protocol for a point-to-point transfer of `bytes`: LL up to
/// kNcclP2pLlThresholdBytes, Simple above; never LL128.
Protocol getPointToPointProtocol(uint64_t bytes);

/// The algorithms the backend's own collective chooses among when no plan
/// names one (NCCL's ring, tree and NVLS; for mpi, whose choice comm does
/// not model, the schedules it realizes).
ArrayRef<Algorithm> getNativeAlgorithms(CollectiveKind kind, Backend backend);

/// Whether `backend` can run `kind` at all (verbs carries point to point
/// only).
bool isCarriedBy(CollectiveKind kind, Backend backend);

/// Writes why `algorithm` cannot run `kind` on `backend` ("plan algorithm
/// 'hierarchical' of comm.all_to_all is not realized on the mpi backend
/// (expected direct)"), for the diagnostics of every component that checks
/// it. `opName` is the op's name without the dialect ("send").
void describeUnrealized(CollectiveKind kind, StringRef opName,
                        Algorithm algorithm, Backend backend,
                        llvm::raw_ostream &os);
/// Writes why `backend` cannot run `kind` at all ("comm.all_reduce cannot
/// run on the verbs backend, which carries point to point only (send, recv,
/// permute)").
void describeNotCarried(StringRef opName, Backend backend,
                        llvm::raw_ostream &os);

//===----------------------------------------------------------------------===//
// Routes
//===----------------------------------------------------------------------===//

/// The routes `backend` realizes (the one route table, read by comm-route
/// and the lowering):
/// - mpi: every route, moot: its buffers are host memory;
/// - nccl: nvlink, pcie, gdr and host_staged, as NCCL's own transports (P2P
///   over NVLink or PCIe, SHM through host memory, NET with or without
///   GPUDirect RDMA), which NCCL chooses by the rules comm-route applies;
/// - verbs: gdr (GPU memory registered with the NIC) and host_staged
///   (copies through pinned host memory around the transfer); everything
///   goes through the NIC, so nvlink and pcie cannot be taken.
ArrayRef<Route> getRealizedRoutes(Backend backend);
bool isRouteRealized(Route route, Backend backend);
/// Writes why `backend` cannot take `route` ("plan route 'nvlink' of
/// comm.send is not realized on the verbs backend, which moves data through
/// the NIC (expected gdr or host_staged)").
void describeUnrealizedRoute(StringRef opName, Route route, Backend backend,
                             llvm::raw_ostream &os);
/// Orders routes from the closest to the farthest: nvlink, pcie, gdr,
/// host_staged. The route of a transfer with several pairs is its farthest
/// pair's.
unsigned getRouteDistance(Route route);

} // namespace comm
} // namespace mlir

#endif // COMM_DIALECT_COMM_IR_COMMALGORITHMS_H
