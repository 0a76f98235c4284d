//===- HostProfile.cpp - measured collectives among processes --*- C++ -*-===//
//
// The times the runtime's collectives take among MPI ranks that are
// processes of one machine, what the `host` preset plans with
// (docs/CostModel.md, "Host"). Measured with
//   mpirun -np 4 --oversubscribe comm-bench-algorithms --collective all \
//       --profile --rounds R
// (R = 20, twice) on comm's development machine (2 cores, Open MPI 4.1.4
// from Debian bookworm, 2026-12-04): each figure is the median over the
// rounds of the slowest rank's time, the lower of the two runs (the machine
// is shared; the lower median is the one least disturbed by other work).
// Calls of up to 1 MiB are timed back to back (up to 32 per round, after
// one barrier), as a program runs them. The bench prints these rows; paste
// its output to re-measure.
//
//===----------------------------------------------------------------------===//

#include "comm/CostModel/CostModel.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::comm;

const HostProfile &mlir::comm::getDefaultHostProfile() {
  static const HostProfile profile = [] {
    HostProfile p;
    p.source = "comm-bench-algorithms, 4 ranks on 2 cores, Open MPI 4.1.4, "
               "2026-12-04";
    p.ranks = 4;
    p.bytes = {256,     1 << 10, 4 << 10,  64 << 10,
               1 << 20, 4 << 20, 16 << 20, 64 << 20};
    using K = CollectiveKind;
    using A = Algorithm;
    std::optional<Algorithm> mpi;
    p.rows = {
        {K::AllReduce,
         mpi,
         {7.1, 7.3, 16.8, 60.7, 664.5, 2616.1, 15214.1, 93854.8}},
        {K::AllReduce,
         A::ring,
         {14.0, 14.4, 25.2, 85.7, 602.5, 2667.7, 15145.1, 79797.3}},
        {K::AllReduce,
         A::tree,
         {5.7, 6.7, 15.5, 48.5, 942.9, 4095.1, 21479.9, 105351.1}},
        {K::AllReduce,
         A::direct,
         {9.3, 10.0, 18.0, 67.9, 675.5, 2720.3, 16789.4, 75716.4}},
        {K::AllReduce,
         A::halving_doubling,
         {8.7, 12.9, 20.0, 64.0, 650.6, 2675.7, 15447.8, 78163.0}},
        {K::AllReduce,
         A::hierarchical,
         {14.3, 15.4, 24.3, 86.3, 612.6, 2654.3, 15701.0, 78831.3}},
        {K::ReduceScatter,
         mpi,
         {5.3, 6.0, 11.3, 28.9, 472.7, 1729.1, 21876.5, 98024.2}},
        {K::ReduceScatter,
         A::ring,
         {6.6, 7.0, 11.4, 34.3, 426.7, 1768.5, 9985.9, 61106.2}},
        {K::ReduceScatter,
         A::direct,
         {5.2, 5.6, 8.7, 31.3, 404.9, 1595.2, 10961.9, 57359.0}},
        {K::ReduceScatter,
         A::halving_doubling,
         {5.5, 7.3, 10.3, 29.3, 440.6, 1790.3, 10867.4, 58005.6}},
        {K::ReduceScatter,
         A::hierarchical,
         {6.9, 7.5, 12.4, 34.2, 414.7, 1746.8, 9876.6, 60995.2}},
        {K::AllGather,
         mpi,
         {4.6, 4.8, 7.8, 25.4, 235.8, 934.9, 4447.4, 26220.8}},
        {K::AllGather,
         A::ring,
         {5.9, 6.4, 12.0, 30.0, 224.9, 990.8, 4510.7, 27450.0}},
        {K::AllGather,
         A::direct,
         {5.0, 5.3, 8.1, 26.5, 221.6, 994.4, 4056.8, 26127.1}},
        {K::AllGather,
         A::halving_doubling,
         {5.0, 6.4, 8.3, 25.0, 227.5, 897.6, 4219.1, 27398.6}},
        {K::AllGather,
         A::hierarchical,
         {6.3, 6.7, 12.4, 30.4, 230.9, 969.0, 4530.5, 27830.0}},
        {K::Broadcast,
         mpi,
         {1.4, 3.9, 7.0, 20.8, 344.8, 1397.5, 6987.1, 34950.3}},
        {K::Broadcast,
         A::ring,
         {1.2, 3.9, 7.0, 17.1, 408.2, 1776.6, 9982.0, 47589.4}},
        {K::Broadcast,
         A::tree,
         {1.5, 4.3, 9.1, 24.1, 383.2, 1614.7, 8180.0, 40895.1}},
        {K::Broadcast,
         A::direct,
         {1.4, 3.9, 7.0, 20.8, 346.8, 1412.8, 6896.3, 34642.0}},
        {K::Broadcast,
         A::halving_doubling,
         {8.0, 9.2, 14.0, 37.6, 377.7, 1538.3, 6882.1, 38350.4}},
        {K::Broadcast,
         A::hierarchical,
         {1.8, 4.4, 9.5, 24.1, 396.4, 1612.2, 8673.3, 40881.1}},
        {K::Reduce,
         mpi,
         {7.9, 11.0, 13.0, 39.6, 635.0, 2568.3, 36043.7, 145022.2}},
        {K::Reduce,
         A::ring,
         {2.0, 4.7, 11.3, 36.9, 780.2, 3430.6, 20730.8, 97480.6}},
        {K::Reduce,
         A::tree,
         {2.5, 4.7, 9.1, 30.1, 700.3, 3022.3, 19693.6, 76967.1}},
        {K::Reduce,
         A::direct,
         {2.2, 4.9, 8.9, 29.8, 707.1, 3277.7, 23058.0, 96701.4}},
        {K::Reduce,
         A::halving_doubling,
         {8.7, 11.5, 12.4, 38.6, 630.7, 2237.5, 15803.0, 79519.2}},
        {K::Reduce,
         A::hierarchical,
         {2.9, 5.0, 9.3, 30.4, 699.8, 3021.0, 19154.8, 76322.9}},
    };
    return p;
  }();
  return profile;
}

const HostProfile &mlir::comm::getHostProfile(const CostParams &params) {
  return params.hostProfile ? *params.hostProfile : getDefaultHostProfile();
}

const HostProfile::Row *
HostProfile::lookup(CollectiveKind kind,
                    std::optional<Algorithm> algorithm) const {
  for (const Row &row : rows)
    if (row.kind == kind && row.algorithm == algorithm)
      return &row;
  return nullptr;
}

/// Sequential steps of a schedule on n ranks (MPI's own: a logarithmic
/// tree, what Open MPI's tuned component uses at these sizes).
static double stepsOf(std::optional<Algorithm> algorithm, CollectiveKind kind,
                      uint64_t n) {
  if (n < 2)
    return 0;
  double rounds = kind == CollectiveKind::AllReduce ? 2 : 1;
  if (!algorithm)
    return rounds * llvm::Log2_64_Ceil(n);
  switch (*algorithm) {
  case Algorithm::ring:
    return rounds * (n - 1);
  case Algorithm::direct:
    return n - 1; // one message per peer
  default:
    return rounds * llvm::Log2_64_Ceil(n);
  }
}

/// Bytes a rank moves, as a multiple of the buffer.
static double volumeOf(std::optional<Algorithm> algorithm, CollectiveKind kind,
                       uint64_t n) {
  if (n < 2)
    return 0;
  if (algorithm == Algorithm::direct &&
      (kind == CollectiveKind::Broadcast || kind == CollectiveKind::Reduce))
    return n - 1; // the root exchanges the buffer with every rank
  return getBusBandwidthFactor(kind, n);
}

std::pair<double, double>
HostProfile::interpolate(const Row &row, uint64_t size, uint64_t n) const {
  ArrayRef<uint64_t> xs = bytes;
  ArrayRef<double> ys = row.us;
  double latency = ys.front();
  double total;
  if (size <= xs.front()) {
    total = latency;
  } else {
    size_t i = 1;
    while (i + 1 < xs.size() && xs[i] < size)
      ++i;
    double slope = (ys[i] - ys[i - 1]) / double(xs[i] - xs[i - 1]);
    total = ys[i - 1] + slope * (double(size) - double(xs[i - 1]));
  }
  double bandwidth = std::max(total - latency, 0.0);
  if (n != ranks) {
    double steps = stepsOf(row.algorithm, row.kind, ranks);
    double volume = volumeOf(row.algorithm, row.kind, ranks);
    latency *= steps > 0 ? stepsOf(row.algorithm, row.kind, n) / steps : 1;
    bandwidth *= volume > 0 ? volumeOf(row.algorithm, row.kind, n) / volume : 1;
  }
  return {latency, bandwidth};
}

std::string mlir::comm::describeAlgorithm(const Prediction &prediction) {
  if (prediction.native && prediction.measured)
    return "native";
  if (prediction.measured) // MPI has no protocols
    return stringifyAlgorithm(prediction.algorithm).str();
  std::string schedule = (stringifyAlgorithm(prediction.algorithm) + "/" +
                          stringifyProtocol(prediction.protocol))
                             .str();
  // NCCL's own collective, with what the model expects it to choose.
  if (prediction.native)
    return "native (" + schedule + ")";
  return schedule;
}
