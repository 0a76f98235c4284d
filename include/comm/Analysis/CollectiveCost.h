//===- CollectiveCost.h - from an op to a cost-model request ----*- C++ -*-===//
//
// The one bridge between the IR and the cost model, as CIRCT's
// SchedulingAnalysis bridges its IR and its scheduling problems: what an op
// moves, between which ranks, with which of its plan's decisions fixed. The
// simulator, comm-check-topology and the planning passes read ops through
// it, so they agree on what every op costs and which ranks it names.
//
//===----------------------------------------------------------------------===//

#ifndef COMM_ANALYSIS_COLLECTIVECOST_H
#define COMM_ANALYSIS_COLLECTIVECOST_H

#include "comm/CostModel/CostModel.h"

#include "mlir/IR/Operation.h"
#include <functional>

#include <optional>

namespace mlir {
namespace comm {

/// The cost-model request of `op`: a collective (its groups, element type,
/// the size nccl-tests reports and its root), a point-to-point op (its
/// pairs; a permute also its members as one group) or a copy (its memory
/// spaces), with what its #comm.plan fixes: the algorithm, the protocol and
/// the wire precision (a narrower type moves proportionally fewer bytes).
/// Groups and pairs are as written; the backend is left to the caller.
/// std::nullopt for ops that move nothing between ranks or memories.
std::optional<CollectiveRequest> getCollectiveRequest(Operation *op);

/// The model's time for `request` on `backend`, in us, or std::nullopt
/// where it has none: with `native`, the backend's own collective (what
/// runs when no plan names an algorithm); otherwise the fastest schedule
/// the backend realizes when a plan names one.
std::optional<double> predictTimeUs(CollectiveRequest request,
                                    const CostModel &model, Backend backend,
                                    bool native);

/// The backend's own collective (what runs when no plan names an
/// algorithm) where comm-select-algorithm leaves a collective to it rather
/// than naming the fastest schedule, `fastestUs`: on NCCL among GPUs, its
/// own ring, tree or NVLS in any protocol where faster (the runtime's
/// schedules send with ncclSend/ncclRecv, in the protocol NCCL gives
/// point-to-point transfers); among a host's processes, MPI's own where no
/// schedule is faster by more than the measurements' noise
/// (HostProfile::kNoise). `request`'s protocol is kept; std::nullopt where
/// a schedule is the choice. `withinNoise`, if given, is set where a
/// schedule is faster, but by no more than the noise.
std::optional<Prediction> getOwnCollectiveChoice(CollectiveRequest request,
                                                 const CostModel &model,
                                                 Backend backend,
                                                 double fastestUs,
                                                 bool *withinNoise = nullptr);

/// What comm-select-algorithm will get for `request` on `backend`, in us:
/// the fastest schedule the backend realizes when a plan names one, or the
/// backend's own collective where getOwnCollectiveChoice prefers it (a
/// request naming an algorithm gets that). std::nullopt where the model
/// has neither.
std::optional<double> predictPlannedTimeUs(const CollectiveRequest &request,
                                           const CostModel &model,
                                           Backend backend);

/// How long `op` occupies a rank without communicating, in us: a
/// comm.compute its `time_us`, else the larger of its flops at the GPU's
/// dense peak and its bytes at the GPU's HBM bandwidth; a comm.pack or
/// comm.unpack a kernel launch plus reading and writing the buffer once.
/// std::nullopt for every other op.
std::optional<double> getLocalTimeUs(Operation *op, const Topology &topology);

/// How long packing or unpacking `bytes` takes: a kernel launch plus
/// reading and writing them once in HBM.
double getPackTimeUs(double bytes, const Topology &topology);
/// The same with the HBM bandwidth, in GB/s, given (for callers that ask
/// many times: comm-fuse, hundreds of millions of times in a block of
/// 100,000 collectives).
inline double getPackTimeUs(double bytes, double hbmGBps) {
  // A local kernel that reads and writes the buffer once.
  return 3.0 + 2.0 * bytes / (hbmGBps * 1e3);
}
/// The HBM bandwidth getPackTimeUs assumes on `topology`, in GB/s.
double getPackMemoryGBps(const Topology &topology);

/// The ranks a program runs on, and what bounds them.
struct ProgramRanks {
  uint64_t ranks = 0;
  /// Set when the program declares comm.world_size (else: every GPU).
  bool declared = false;
  std::string topologyName;
  uint64_t gpus = 0;
  /// "GPU" or, on a host, "rank".
  std::string rankNoun = "GPU";
  /// For a preset, the preset that has `count` ranks ("dgx-h100x2",
  /// "host16"); empty for topologies from files.
  std::function<std::string(uint64_t count)> presetFor;
};

/// The ranks of the program around `op` on `topology`: its
/// comm.world_size, else every GPU. Fails, with an error at the op that
/// declares it, when the program declares more ranks than the topology has
/// GPUs. `topologyName` names the topology in messages.
FailureOr<ProgramRanks> getProgramRanks(Operation *op, const Topology &topology,
                                        StringRef topologyName);

/// Checks that every rank `request` names (of `op`) is one of `ranks`;
/// emits an error at `op` naming the first that is not.
LogicalResult checkRanks(Operation *op, const CollectiveRequest &request,
                         const ProgramRanks &ranks);

} // namespace comm
} // namespace mlir

#endif // COMM_ANALYSIS_COLLECTIVECOST_H
