//===- CommAlgorithms.cpp - which algorithm runs where ----------*- C++ -*-===//
//
// The table below is the only place that says which algorithm exists for
// which collective and which backend runs it. Everything else derives its
// lists from it.
//
//===----------------------------------------------------------------------===//

#include "comm/Dialect/Comm/IR/CommAlgorithms.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"

#include <array>
#include <vector>

// The plan limits the runtime enforces.
#include "commrt.h"

using namespace mlir;
using namespace mlir::comm;

namespace {
/// Backends as bits.
enum : uint8_t {
  kMpi = 1u << static_cast<unsigned>(Backend::mpi),
  kNccl = 1u << static_cast<unsigned>(Backend::nccl),
  kVerbs = 1u << static_cast<unsigned>(Backend::verbs),
  kNone = 0,
};

/// One algorithm of one collective: the backends that run it when a plan
/// names it, and the backends whose own collective may choose it.
struct Row {
  CollectiveKind kind;
  Algorithm algorithm;
  uint8_t realizedOn;
  uint8_t nativeOn;
};

using K = CollectiveKind;
using A = Algorithm;

// Realized on mpi and nccl: the runtime's planned schedules
// (runtime/lib/Schedule.cpp, commrt_collective_planned); nvls: NCCL's own
// all_reduce. Native on nccl: what NCCL 2.28 chooses among (ring, tree and
// NVLS for all_reduce; ring and NVLS for reduce_scatter and all_gather;
// ring for broadcast and reduce). comm does not model Open MPI's choice, so
// mpi's native list is what it realizes.
constexpr Row kTable[] = {
    {K::AllReduce, A::ring, kMpi | kNccl, kMpi | kNccl},
    {K::AllReduce, A::tree, kMpi | kNccl, kMpi | kNccl},
    {K::AllReduce, A::nvls, kNccl, kNccl},
    {K::AllReduce, A::hierarchical, kMpi | kNccl, kMpi},
    {K::AllReduce, A::direct, kMpi | kNccl, kMpi},
    {K::AllReduce, A::halving_doubling, kMpi | kNccl, kMpi},

    {K::ReduceScatter, A::ring, kMpi | kNccl, kMpi | kNccl},
    {K::ReduceScatter, A::nvls, kNone, kNccl},
    {K::ReduceScatter, A::hierarchical, kMpi | kNccl, kMpi},
    {K::ReduceScatter, A::direct, kMpi | kNccl, kMpi},
    {K::ReduceScatter, A::halving_doubling, kMpi | kNccl, kMpi},

    {K::AllGather, A::ring, kMpi | kNccl, kMpi | kNccl},
    {K::AllGather, A::nvls, kNone, kNccl},
    {K::AllGather, A::hierarchical, kMpi | kNccl, kMpi},
    {K::AllGather, A::direct, kMpi | kNccl, kMpi},
    {K::AllGather, A::halving_doubling, kMpi | kNccl, kMpi},

    // The backends' own all_to_all is a direct exchange; a two-level
    // exchange has a formula but no implementation yet.
    {K::AllToAll, A::direct, kMpi | kNccl, kMpi | kNccl},
    {K::AllToAll, A::hierarchical, kNone, kNone},

    {K::Broadcast, A::ring, kMpi | kNccl, kMpi | kNccl},
    {K::Broadcast, A::tree, kMpi | kNccl, kMpi},
    {K::Broadcast, A::direct, kMpi | kNccl, kMpi},
    {K::Broadcast, A::halving_doubling, kMpi | kNccl, kMpi},
    {K::Broadcast, A::hierarchical, kMpi | kNccl, kMpi},

    {K::Reduce, A::ring, kMpi | kNccl, kMpi | kNccl},
    {K::Reduce, A::tree, kMpi | kNccl, kMpi},
    {K::Reduce, A::direct, kMpi | kNccl, kMpi},
    {K::Reduce, A::halving_doubling, kMpi | kNccl, kMpi},
    {K::Reduce, A::hierarchical, kMpi | kNccl, kMpi},

    // A barrier takes no algorithm; these are the models of what the
    // backend's own barrier does.
    {K::Barrier, A::halving_doubling, kNone, kMpi | kNccl},
    {K::Barrier, A::ring, kNone, kMpi | kNccl},
    {K::Barrier, A::tree, kNone, kMpi | kNccl},
    {K::Barrier, A::direct, kNone, kMpi | kNccl},

    {K::Permute, A::direct, kMpi | kNccl | kVerbs, kMpi | kNccl | kVerbs},
    {K::SendRecv, A::direct, kMpi | kNccl | kVerbs, kMpi | kNccl | kVerbs},
};

constexpr unsigned kNumBackends = 3;

/// The table's rows, gathered once per (kind, column).
struct Lists {
  std::array<std::vector<Algorithm>, kNumCollectiveKinds> applicable;
  std::array<std::array<std::vector<Algorithm>, kNumBackends>,
             kNumCollectiveKinds>
      realized, native;

  Lists() {
    for (const Row &row : kTable) {
      unsigned k = static_cast<unsigned>(row.kind);
      applicable[k].push_back(row.algorithm);
      for (unsigned b = 0; b < kNumBackends; ++b) {
        if (row.realizedOn & (1u << b))
          realized[k][b].push_back(row.algorithm);
        if (row.nativeOn & (1u << b))
          native[k][b].push_back(row.algorithm);
      }
    }
  }
};

const Lists &getLists() {
  static const Lists lists;
  return lists;
}
} // namespace

StringRef mlir::comm::stringifyCollectiveKind(CollectiveKind kind) {
  switch (kind) {
  case CollectiveKind::AllReduce:
    return "all_reduce";
  case CollectiveKind::ReduceScatter:
    return "reduce_scatter";
  case CollectiveKind::AllGather:
    return "all_gather";
  case CollectiveKind::AllToAll:
    return "all_to_all";
  case CollectiveKind::Broadcast:
    return "broadcast";
  case CollectiveKind::Reduce:
    return "reduce";
  case CollectiveKind::Permute:
    return "permute";
  case CollectiveKind::SendRecv:
    return "sendrecv";
  case CollectiveKind::Copy:
    return "copy";
  case CollectiveKind::Barrier:
    return "barrier";
  }
  llvm_unreachable("unknown collective");
}

std::optional<CollectiveKind>
mlir::comm::symbolizeCollectiveKind(StringRef name) {
  std::string key = name.lower();
  llvm::erase(key, '_');
  return llvm::StringSwitch<std::optional<CollectiveKind>>(key)
      .Case("allreduce", CollectiveKind::AllReduce)
      .Case("reducescatter", CollectiveKind::ReduceScatter)
      .Case("allgather", CollectiveKind::AllGather)
      .Case("alltoall", CollectiveKind::AllToAll)
      .Case("broadcast", CollectiveKind::Broadcast)
      .Case("reduce", CollectiveKind::Reduce)
      .Case("permute", CollectiveKind::Permute)
      .Cases({"sendrecv", "send", "recv"}, CollectiveKind::SendRecv)
      .Case("copy", CollectiveKind::Copy)
      .Case("barrier", CollectiveKind::Barrier)
      .Default(std::nullopt);
}

std::optional<CollectiveKind> mlir::comm::getCollectiveKind(Operation *op) {
  if (op->getName().getDialectNamespace() != "comm")
    return std::nullopt;
  return symbolizeCollectiveKind(getTransferName(op));
}

ArrayRef<Algorithm> mlir::comm::getApplicableAlgorithms(CollectiveKind kind) {
  return getLists().applicable[static_cast<unsigned>(kind)];
}

ArrayRef<Algorithm> mlir::comm::getRealizedAlgorithms(CollectiveKind kind,
                                                      Backend backend) {
  return getLists()
      .realized[static_cast<unsigned>(kind)][static_cast<unsigned>(backend)];
}

bool mlir::comm::isRealized(CollectiveKind kind, Algorithm algorithm,
                            Backend backend) {
  return llvm::is_contained(getRealizedAlgorithms(kind, backend), algorithm);
}

bool mlir::comm::isRuntimeSchedule(CollectiveKind kind, Algorithm algorithm,
                                   Backend backend) {
  // runtime/lib/Ops.cpp (startOp) runs every planned algorithm but nvls
  // as its own schedule.
  return algorithm != Algorithm::nvls && isRealized(kind, algorithm, backend);
}

int64_t mlir::comm::getMaxPlanChannels() { return COMMRT_MAX_CHANNELS; }

int64_t mlir::comm::getMaxPlanChunksPerChannel() {
  return COMMRT_MAX_CHUNKS_PER_CHANNEL;
}

int64_t mlir::comm::getPlanChunksPerChannel(int64_t elements, int64_t channels,
                                            int64_t chunkBytes,
                                            int64_t elementBytes) {
  return commrt_plan_chunks_per_channel(
      elements, std::max<int64_t>(1, channels),
      std::max<int64_t>(1, chunkBytes), std::max<int64_t>(1, elementBytes));
}

Protocol mlir::comm::getPointToPointProtocol(uint64_t bytes) {
  return bytes <= kNcclP2pLlThresholdBytes ? Protocol::ll : Protocol::simple;
}

ArrayRef<Algorithm> mlir::comm::getNativeAlgorithms(CollectiveKind kind,
                                                    Backend backend) {
  return getLists()
      .native[static_cast<unsigned>(kind)][static_cast<unsigned>(backend)];
}

bool mlir::comm::isCarriedBy(CollectiveKind kind, Backend backend) {
  if (kind == CollectiveKind::Copy)
    return true;
  return !getNativeAlgorithms(kind, backend).empty();
}

void mlir::comm::describeUnrealized(CollectiveKind kind, StringRef opName,
                                    Algorithm algorithm, Backend backend,
                                    llvm::raw_ostream &os) {
  os << "plan algorithm '" << stringifyAlgorithm(algorithm) << "' of comm."
     << opName << " is not realized on the " << stringifyBackend(backend)
     << " backend";
  ArrayRef<Algorithm> realized = getRealizedAlgorithms(kind, backend);
  if (realized.empty()) {
    os << "; it takes no algorithm";
  } else {
    os << " (expected ";
    llvm::interleaveComma(realized, os,
                          [&](Algorithm a) { os << stringifyAlgorithm(a); });
    os << ")";
  }
  if (backend != Backend::nccl && isRealized(kind, algorithm, Backend::nccl) &&
      !isRealized(kind, algorithm, Backend::mpi))
    os << "; NVLink SHARP needs the nccl backend (the cuda-nccl target)";
  else if (llvm::is_contained(getNativeAlgorithms(kind, backend), algorithm))
    os << "; the backend's own comm." << opName
       << " may choose it (a plan without an algorithm), but a plan cannot "
          "ask for it";
}

void mlir::comm::describeNotCarried(StringRef opName, Backend backend,
                                    llvm::raw_ostream &os) {
  os << "comm." << opName << " cannot run on the " << stringifyBackend(backend)
     << " backend";
  if (backend == Backend::verbs)
    os << ", which carries point to point only (send, recv, permute)";
}

ArrayRef<Route> mlir::comm::getRealizedRoutes(Backend backend) {
  static const Route kAll[] = {Route::nvlink, Route::pcie, Route::gdr,
                               Route::host_staged};
  static const Route kThroughNIC[] = {Route::gdr, Route::host_staged};
  switch (backend) {
  case Backend::mpi:
  case Backend::nccl:
    return kAll;
  case Backend::verbs:
    return kThroughNIC;
  }
  return {};
}

bool mlir::comm::isRouteRealized(Route route, Backend backend) {
  return llvm::is_contained(getRealizedRoutes(backend), route);
}

void mlir::comm::describeUnrealizedRoute(StringRef opName, Route route,
                                         Backend backend,
                                         llvm::raw_ostream &os) {
  os << "plan route '" << stringifyRoute(route) << "' of comm." << opName
     << " is not realized on the " << stringifyBackend(backend) << " backend";
  if (backend == Backend::verbs)
    os << ", which moves data through the NIC";
  os << " (expected ";
  llvm::interleave(
      getRealizedRoutes(backend), os, [&](Route r) { os << stringifyRoute(r); },
      " or ");
  os << ")";
}

unsigned mlir::comm::getRouteDistance(Route route) {
  switch (route) {
  case Route::nvlink:
    return 0;
  case Route::pcie:
    return 1;
  case Route::gdr:
    return 2;
  case Route::host_staged:
    return 3;
  }
  return 3;
}
