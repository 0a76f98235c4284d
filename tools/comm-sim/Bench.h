//===- Bench.h - nccl-tests style predictions -------------------*- C++ -*-===//

#ifndef COMM_TOOLS_COMMSIM_BENCH_H
#define COMM_TOOLS_COMMSIM_BENCH_H

#include "comm/CostModel/CostModel.h"

namespace mlir {
namespace comm {
namespace sim {

struct BenchOptions {
  CollectiveKind kind = CollectiveKind::AllReduce;
  /// Absent: every GPU of the topology. Fewer than 2 is an error.
  std::optional<uint64_t> ranks;
  uint64_t minBytes = 8, maxBytes = uint64_t(8) << 30;
  double factor = 2;
  unsigned elementBytes = 4;
  std::string typeName = "float";
  /// Whether the elements are floating point (what NCCL's NVLS reduces
  /// depends on it).
  bool floatElements = true;
  /// The reduction (nccl-tests' -o/--op): named in the redop column and
  /// passed to the model, which limits NVLS to what NCCL reduces with it.
  ReductionKind reduction = ReductionKind::sum;
  std::optional<Algorithm> algorithm;
  std::optional<Protocol> protocol;
  /// The backend the collective runs on, and whether to search its own
  /// choice (no plan) instead of what a plan may name.
  Backend backend = Backend::nccl;
  bool native = false;
  bool json = false;
  bool explain = false;
};

/// Parses "8:8G", "1M", "8:8G:4" (min:max[:factor]; K, M, G as in
/// nccl-tests' -b/-e, and T, are powers of two).
/// Warns on `os` (as `comm-sim: warning: ...`) when `topology` has GPUs a
/// PCI skeleton only places (an NCCL topology file written before NCCL
/// probed them): their NVLinks are unknown, so every figure assumes PCIe
/// between them (ND H100 v5's skeleton predicted a bus bandwidth of 18.7
/// GB/s where 475.5 GB/s were measured).
void warnAboutUndescribedGpus(const Topology &topology, llvm::raw_ostream &os);

llvm::Error parseSizeRange(StringRef text, BenchOptions &options);
/// Applies nccl-tests' -b (first size), -e (last size) and -f (step
/// factor) over what --sizes gave; empty strings leave a field alone.
llvm::Error applyNcclTestsFlags(StringRef minBytes, StringRef maxBytes,
                                StringRef factor, BenchOptions &options);
/// Parses an nccl-tests type name or its short form (lookupNcclTestsType).
llvm::Error parseDataType(StringRef text, BenchOptions &options);

struct BenchRow {
  uint64_t bytes;
  Prediction prediction;
};

/// Predicts every size of the sweep. Sizes are rounded down to whole
/// elements (and, where the collective needs it, to a multiple of the
/// ranks); an explicit single size that does not divide is an error.
llvm::Expected<std::vector<BenchRow>> runBench(const CostModel &model,
                                               const BenchOptions &options);

/// nccl-tests' table (its header comments, 13 columns and footer; the
/// algorithm, bound and efficiency after them), or with `json` a JSON
/// object naming the collective, topology, ranks and dtype with a row per
/// size (size_bytes, time_us, algbw_GBps, busbw_GBps, algorithm, protocol,
/// bound_us).
void printBench(const CostModel &model, const BenchOptions &options,
                ArrayRef<BenchRow> rows, llvm::raw_ostream &os);

/// An SVG line chart of bus bandwidth against size (log scale), with the
/// bound's bandwidth as a second line.
void plotBench(const BenchOptions &options, ArrayRef<BenchRow> rows,
               StringRef title, llvm::raw_ostream &os);

} // namespace sim
} // namespace comm
} // namespace mlir

#endif // COMM_TOOLS_COMMSIM_BENCH_H
