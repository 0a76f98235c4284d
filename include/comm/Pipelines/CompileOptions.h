//===- CompileOptions.h - what a program is compiled for --------*- C++ -*-===//
//
// The one spelling of a compilation target (cpu-mpi, cuda-nccl, cuda-verbs),
// of a runtime backend (mpi, nccl, verbs) and of a planning strategy (comm
// and the baselines): the pass options of
// convert-comm-to-emitc and the pipelines, comm-compile's --target,
// comm-translate's --comm-target and comm-sim's --backend all take their
// values from the tables here. Header-only, so that the conversion pass can
// name the type of its option without linking the pipelines.
//
//===----------------------------------------------------------------------===//

#ifndef COMM_PIPELINES_COMPILEOPTIONS_H
#define COMM_PIPELINES_COMPILEOPTIONS_H

#include "comm/Dialect/Comm/IR/CommAttrs.h"
#include "comm/Support/EnumOption.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace mlir {
namespace comm {

/// What comm generates and which runtime backend the generated code calls.
enum class Target : uint8_t {
  /// C++ on host buffers, the mpi backend.
  cpu_mpi,
  /// CUDA C++ on device buffers, the nccl backend, generated kernels.
  cuda_nccl,
  /// CUDA C++ on device buffers, the verbs backend (point to point only).
  cuda_verbs,
};

/// A target with its name, its backend and whether it generates CUDA.
struct TargetInfo {
  Target target;
  llvm::StringLiteral name;
  Backend backend;
  bool cuda;
  llvm::StringLiteral description;
};

inline constexpr TargetInfo kTargets[] = {
    {Target::cpu_mpi, "cpu-mpi", Backend::mpi, false,
     "C++ on host buffers, calling the mpi backend"},
    {Target::cuda_nccl, "cuda-nccl", Backend::nccl, true,
     "CUDA C++ on device buffers, calling NCCL, with generated kernels"},
    {Target::cuda_verbs, "cuda-verbs", Backend::verbs, true,
     "CUDA C++ on device buffers, sending and receiving by GPUDirect RDMA "
     "(point to point only: send, recv, permute)"},
};

inline const TargetInfo &getTargetInfo(Target target) {
  return kTargets[static_cast<unsigned>(target)];
}
inline llvm::StringRef stringifyTarget(Target target) {
  return getTargetInfo(target).name;
}
inline std::optional<Target> symbolizeTarget(llvm::StringRef name) {
  for (const TargetInfo &info : kTargets)
    if (info.name == name)
      return info.target;
  return std::nullopt;
}
inline Backend getBackend(Target target) {
  return getTargetInfo(target).backend;
}
inline bool isCudaTarget(Target target) { return getTargetInfo(target).cuda; }

/// What each backend carries, for --help.
inline llvm::StringRef describeBackend(Backend backend) {
  switch (backend) {
  case Backend::mpi:
    return "host buffers over MPI";
  case Backend::nccl:
    return "device buffers over NCCL";
  case Backend::verbs:
    return "RDMA point to point (send, recv, permute)";
  }
  return "";
}

/// The targets as the values of a command-line or pass option:
/// `cl::opt<Target> target("target", TargetValues())`.
struct TargetValues {
  template <typename Opt> void apply(Opt &option) const {
    for (const TargetInfo &info : kTargets)
      option.getParser().addLiteralOption(info.name, info.target,
                                          info.description);
  }
};

/// The backends as the values of a command-line or pass option.
struct BackendValues {
  template <typename Opt> void apply(Opt &option) const {
    for (uint32_t i = 0; i <= getMaxEnumValForBackend(); ++i) {
      Backend backend = static_cast<Backend>(i);
      option.getParser().addLiteralOption(stringifyBackend(backend), backend,
                                          describeBackend(backend));
    }
  }
};

/// Who plans: comm's own planner or a baseline that does what a
/// framework's documented defaults do (docs/Planning.md cites each).
enum class Strategy : uint8_t {
  /// comm's planner: buckets, precision, algorithms and the schedule from
  /// the cost model on the topology.
  comm,
  /// The program as written: one blocking call per tensor, in order, with
  /// the backend's own algorithm choice.
  naive,
  /// PyTorch DDP: 25 MiB buckets with a 1 MiB first one, in gradient-ready
  /// order, overlapped with the backward.
  ddp,
  /// Horovod tensor fusion: what becomes ready within a 1 ms cycle, up to
  /// 128 MiB, overlapped.
  horovod,
  /// XLA GPU: combiners up to 30 MiB and 256 ops, latency-hiding schedule.
  xla,
};

struct StrategyInfo {
  Strategy strategy;
  llvm::StringLiteral name;
  llvm::StringLiteral description;
};

inline constexpr StrategyInfo kStrategies[] = {
    {Strategy::comm, "comm",
     "comm's planner: fusion, precision, algorithms and schedule from the "
     "cost model"},
    {Strategy::naive, "naive",
     "the program as written, blocking, the backend's own algorithms"},
    {Strategy::ddp, "ddp",
     "PyTorch DDP: 25 MiB buckets, 1 MiB first bucket, overlapped"},
    {Strategy::horovod, "horovod",
     "Horovod tensor fusion: 128 MiB, 1 ms cycle, overlapped"},
    {Strategy::xla, "xla",
     "XLA GPU combiners (30 MiB, 256 ops) and latency-hiding schedule"},
};

inline llvm::StringRef stringifyStrategy(Strategy strategy) {
  return kStrategies[static_cast<unsigned>(strategy)].name;
}
inline std::optional<Strategy> symbolizeStrategy(llvm::StringRef name) {
  for (const StrategyInfo &info : kStrategies)
    if (info.name == name)
      return info.strategy;
  return std::nullopt;
}

/// The strategies as the values of a command-line or pass option.
struct StrategyValues {
  template <typename Opt> void apply(Opt &option) const {
    for (const StrategyInfo &info : kStrategies)
      option.getParser().addLiteralOption(info.name, info.strategy,
                                          info.description);
  }
};

/// Everything comm-compile decides before it calls a compiler: the
/// pipelines it builds on one PassManager read this.
struct CompileOptions {
  /// Preset or file the program is planned for; empty: no planning.
  std::string topology;
  /// Cost model parameters file; empty: comm.cost_params, else built in.
  std::string costParams;
  Target target = Target::cpu_mpi;
  /// Who plans when a topology is given.
  Strategy strategy = Strategy::comm;
};

} // namespace comm
} // namespace mlir

// A wrong --target, --backend or --strategy lists the values.
COMM_LISTING_ENUM_OPTION(mlir::comm::Target)
COMM_LISTING_ENUM_OPTION(mlir::comm::Backend)
COMM_LISTING_ENUM_OPTION(mlir::comm::Strategy)

#endif // COMM_PIPELINES_COMPILEOPTIONS_H
