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
  double busBandwidthGBps = 0;
  std::string source;
  unsigned line = 0;
};

/// Reads the normalized points (bench/calibration/points.csv): columns
/// system, topology, collective, ranks, size_bytes, busbw_GBps, source.
/// Topology paths are relative to the file's directory.
llvm::Expected<std::vector<MeasuredPoint>> readMeasuredPoints(StringRef path);

/// The relative error bound the issue sets for a size: 15% from 64 MiB, 35%
/// from 1 MiB, none below (0 returned).
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

/// Prints the report: per system and collective, the median and maximum
/// relative error in each size band, against the bounds. Returns whether
/// every banded point is within its bound.
bool printCalibrationReport(ArrayRef<PointResult> results,
                            llvm::raw_ostream &os, bool perPoint);

/// Fits the free parameters on `points`, starting from `start`.
llvm::Expected<CostParams> fitCostParams(ArrayRef<MeasuredPoint> points,
                                         const CostParams &start,
                                         unsigned iterations,
                                         llvm::raw_ostream *progress);

} // namespace comm
} // namespace mlir

#endif // COMM_COSTMODEL_CALIBRATION_H
