//===- Calibration.h - fit the cost model on measurements -------*- C++ -*-===//

#ifndef COMM_COSTMODEL_CALIBRATION_H
#define COMM_COSTMODEL_CALIBRATION_H

#include "comm/CostModel/CostModel.h"

namespace mlir {
namespace comm {

/// One measured point: nccl-tests' bus bandwidth of a collective on a
/// system, at one size.
struct MeasuredPoint {
  std::string system;   ///< short name of the system
  std::string topology; ///< topology spec (preset, file, file:N)
  CollectiveKind kind = CollectiveKind::AllReduce;
  uint64_t ranks = 0;
  uint64_t bytes = 0;
  /// The element type and reduction measured (nccl-tests' type and redop
  /// columns; f32 sum where a file does not say): NCCL's choice of
  /// algorithm depends on them (NVLS reduces neither avg nor f32 max).
  unsigned elementBytes = 4;
  bool floatElements = true;
  std::optional<ReductionKind> reduction;
  /// The type as the source names it (nccl-tests' "bfloat16"), for reports.
  std::string typeName = "float";
  double busBandwidthGBps = 0;
  std::string source;
  unsigned line = 0;
  /// Left out of the fit (a "# hold-out: <system>" line of the file, or
  /// --exclude): its error is a hold-out error.
  bool heldOut = false;
  /// Where each rank ran, as an nccl-tests log's "Rank N ... on HOST device
  /// D" lines say: (machine, in the order the hosts first appear; CUDA
  /// device). Empty: ranks 0..ranks-1 are the topology's first GPUs.
  std::vector<std::pair<unsigned, unsigned>> placement;
};

/// Reads the normalized points (bench/calibration/points.csv): columns
/// system, topology, collective, ranks, size_bytes, busbw_GBps, source.
/// Topology paths are relative to the file's directory. A comment line
/// "# hold-out: <system>" marks that system's points as held out.
llvm::Expected<std::vector<MeasuredPoint>> readMeasuredPoints(StringRef path);

/// The collective `name` names (as symbolizeCollectiveKind reads it) where
/// it is one an nccl-tests binary measures: all_reduce, reduce_scatter,
/// all_gather, all_to_all, broadcast, reduce or sendrecv (a bus bandwidth of
/// a copy, a barrier or a permute is none nccl-tests prints). The one list
/// of them, for comm-sim bench and calibration's --collective and CSV rows.
std::optional<CollectiveKind> lookupMeasuredCollective(StringRef name);
/// The names lookupMeasuredCollective takes, for error messages.
StringRef getMeasuredCollectiveNames();

/// An element type as nccl-tests names it (its test_typenames: int8, uint8,
/// int32, uint32, int64, uint64, half, float, double, bfloat16, f8e4m3,
/// f8e5m2), or by a short name (i8, u8, i32, u32, i64, u64, f16, f32,
/// f64, bf16, and MLIR's f8E4M3FN, f8E5M2): its size, whether it is floating
/// point, and nccl-tests' name. The one table of them, for the log reader and
/// comm-sim bench's --dtype.
struct NcclTestsType {
  unsigned bytes;
  bool isFloat;
  StringRef name;
};
std::optional<NcclTestsType> lookupNcclTestsType(StringRef name);
/// The names lookupNcclTestsType takes, for error messages.
StringRef getNcclTestsTypeNames();

/// The ranks (topology GPU ranks) of an nccl-tests run of `kind`, into
/// `request`: one group of all of them, or for sendrecv (and permute)
/// every rank sending to the next, as sendrecv_perf does. The one rule comm-sim
/// bench prints its rows by and calibration predicts the logs' rows by.
void setNcclTestsRanks(CollectiveRequest &request, CollectiveKind kind,
                       ArrayRef<int64_t> ranks);

/// What readNcclTestsLog needs beyond the log.
struct NcclTestsLogOptions {
  /// Topology spec the points are predicted on.
  std::string topology;
  /// The collective, when the file name does not say it (all_reduce_perf,
  /// all_gather_perf, reduce_scatter_perf, alltoall_perf, broadcast_perf,
  /// reduce_perf, sendrecv_perf).
  std::optional<CollectiveKind> kind;
  /// The number of ranks, when the log has no "# Using devices" lines.
  uint64_t ranks = 0;
};

/// Reads the standard output of an nccl-tests run, as it prints it (with or
/// without mpirun's "[1,0]<stdout>:" prefixes, NCCL's INFO lines mixed in,
/// old or new column sets): the ranks from its "Rank N ... on HOST" lines,
/// and a point per data row with its out-of-place bus bandwidth, element
/// type and reduction (rows of size 0 or without bandwidth are skipped; a
/// type or reduction nccl-tests does not print is an error). The system is
/// named after the file. Errors give the file and line.
llvm::Expected<std::vector<MeasuredPoint>>
readNcclTestsLog(StringRef path, const NcclTestsLogOptions &options);

/// The bound on a system's median relative error in the band of a size:
/// 15% from 64 MiB, 25% from 1 MiB, none below (0 returned).
double getErrorBound(uint64_t bytes);

struct PointResult {
  const MeasuredPoint *point;
  double predictedGBps;
  double relativeError; ///< (predicted - measured) / measured
  std::string algorithm;
};

/// Predicts every point with `params`. Topologies are loaded once.
llvm::Expected<std::vector<PointResult>>
evaluatePoints(ArrayRef<MeasuredPoint> points, const CostParams &params);

/// Prints the report: per system and collective, whether it was fitted or
/// held out, the median and maximum relative error in each size band, and
/// whether the medians are within the bounds. Returns whether every
/// system's median is within its band's bound.
bool printCalibrationReport(ArrayRef<PointResult> results,
                            llvm::raw_ostream &os, bool perPoint);

/// Prints the median and maximum error at >= 64 MiB and at 1-64 MiB of the
/// points the fit used and, apart, of those it did not (`heldOut`).
void printHoldOutSummary(
    ArrayRef<PointResult> results,
    llvm::function_ref<bool(const MeasuredPoint &)> heldOut,
    llvm::raw_ostream &os);

/// Fits the free parameters on `points`, starting from `start`.
llvm::Expected<CostParams> fitCostParams(ArrayRef<MeasuredPoint> points,
                                         const CostParams &start,
                                         unsigned iterations,
                                         llvm::raw_ostream *progress);

} // namespace comm
} // namespace mlir

#endif // COMM_COSTMODEL_CALIBRATION_H
