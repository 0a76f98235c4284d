//===- HostProfile.cpp - measured collectives among processes --*- C++ -*-===//
//
// The times the runtime's collectives take among MPI ranks that are
// processes of one machine, what the `host` preset plans with
// (docs/CostModel.md, "Host"). Measured with
//   mpirun -np 4 --oversubscribe comm-bench-algorithms --collective all \
//       --profile --rounds R
// (R = 10, then 20) on comm's development machine (2 cores, Open MPI 4.1.4
// from Debian bookworm, 2026-12-04): each figure is the median over the
// rounds of the slowest rank's time, the lower of the two runs (the machine
// is shared; the lower median is the one least disturbed by other work).
// The bench prints these rows; paste its output to re-measure.
//
//===----------------------------------------------------------------------===//

#include "comm/CostModel/CostModel.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::comm;

const HostProfile &mlir::comm::getDefaultHostProfile() {
  static const HostProfile profile = [] {
    HostProfile p;
    p.source = "comm-bench-algorithms, 4 ranks on 2 cores, Open MPI 4.1.4, "
               "2026-12-04";
    p.ranks = 4;
    p.bytes = {4 << 10, 64 << 10, 1 << 20, 4 << 20, 16 << 20, 64 << 20};
    using K = CollectiveKind;
    using A = Algorithm;
    std::optional<Algorithm> mpi;
    p.rows = {
        {K::AllReduce, mpi, {21.7, 53.4, 660.7, 2738.1, 12171.0, 85411.2}},
        {K::AllReduce, A::ring, {21.3, 52.4, 590.7, 2595.3, 11498.4, 73909.8}},
        {K::AllReduce, A::tree, {17.8, 44.5, 954.6, 3667.9, 16014.6, 96224.7}},
        {K::AllReduce,
         A::direct,
         {15.6, 48.4, 733.2, 2633.1, 13406.5, 68207.9}},
        {K::AllReduce,
         A::halving_doubling,
         {17.9, 47.0, 655.2, 2536.1, 12102.6, 69328.5}},
        {K::AllReduce,
         A::hierarchical,
         {20.9, 54.0, 593.1, 2585.3, 11465.3, 74261.0}},
        {K::ReduceScatter, mpi, {16.7, 32.0, 374.9, 1624.1, 17360.0, 81207.1}},
        {K::ReduceScatter,
         A::ring,
         {11.6, 33.4, 362.0, 1706.1, 8784.0, 55330.1}},
        {K::ReduceScatter,
         A::direct,
         {8.3, 27.4, 366.4, 1505.4, 9385.0, 51631.9}},
        {K::ReduceScatter,
         A::halving_doubling,
         {9.8, 29.1, 385.8, 1686.8, 8668.2, 52866.8}},
        {K::ReduceScatter,
         A::hierarchical,
         {11.9, 33.0, 363.6, 1688.9, 7974.9, 55850.1}},
        {K::AllGather, mpi, {7.7, 21.9, 194.4, 833.2, 3283.5, 22271.4}},
        {K::AllGather, A::ring, {13.0, 25.5, 186.8, 790.4, 3327.6, 23819.8}},
        {K::AllGather, A::direct, {8.1, 23.1, 207.1, 849.9, 3253.3, 21170.7}},
        {K::AllGather,
         A::halving_doubling,
         {8.9, 21.3, 191.6, 763.5, 3091.1, 23261.5}},
        {K::AllGather,
         A::hierarchical,
         {11.8, 25.4, 189.8, 799.8, 3255.6, 24520.7}},
        {K::Broadcast, mpi, {7.6, 16.8, 285.3, 1169.0, 5251.7, 31760.2}},
        {K::Broadcast, A::ring, {11.1, 22.9, 345.0, 1492.9, 7258.7, 45873.0}},
        {K::Broadcast, A::tree, {7.5, 22.7, 351.9, 1435.7, 5813.6, 39534.6}},
        {K::Broadcast, A::direct, {7.1, 17.0, 281.4, 1121.9, 5494.7, 30711.7}},
        {K::Broadcast,
         A::halving_doubling,
         {12.0, 31.1, 270.9, 1361.7, 5352.3, 34432.6}},
        {K::Broadcast,
         A::hierarchical,
         {7.6, 21.2, 340.4, 1452.1, 6382.7, 39382.6}},
        {K::Reduce, mpi, {14.3, 39.0, 530.8, 2143.3, 29559.4, 133657.9}},
        {K::Reduce, A::ring, {10.2, 31.4, 697.0, 2850.8, 19305.5, 87291.9}},
        {K::Reduce, A::tree, {8.4, 26.1, 576.1, 2303.3, 13815.3, 72095.4}},
        {K::Reduce, A::direct, {7.8, 25.8, 693.3, 2913.5, 21766.8, 91286.1}},
        {K::Reduce,
         A::halving_doubling,
         {13.1, 38.1, 525.6, 2188.2, 14523.7, 75598.0}},
        {K::Reduce,
         A::hierarchical,
         {8.5, 24.8, 594.1, 2332.0, 14351.2, 71872.5}},
    };
    return p;
  }();
  return profile;
}

const HostProfile::Row *
HostProfile::lookup(CollectiveKind kind,
                    std::optional<Algorithm> algorithm) const {
  for (const Row &row : rows)
    if (row.kind == kind && row.algorithm == algorithm)
      return &row;
  return nullptr;
}

static unsigned ceilLog2(uint64_t n) {
  unsigned bits = 0;
  while ((uint64_t(1) << bits) < n)
    ++bits;
  return bits;
}

/// Sequential steps of a schedule on n ranks (MPI's own: a logarithmic
/// tree, what Open MPI's tuned component uses at these sizes).
static double stepsOf(std::optional<Algorithm> algorithm, CollectiveKind kind,
                      uint64_t n) {
  if (n < 2)
    return 0;
  double rounds = kind == CollectiveKind::AllReduce ? 2 : 1;
  if (!algorithm)
    return rounds * ceilLog2(n);
  switch (*algorithm) {
  case Algorithm::ring:
    return rounds * (n - 1);
  case Algorithm::direct:
    return n - 1; // one message per peer
  default:
    return rounds * ceilLog2(n);
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
  if (prediction.native)
    return "native";
  if (prediction.measured) // MPI has no protocols
    return stringifyAlgorithm(prediction.algorithm).str();
  return (stringifyAlgorithm(prediction.algorithm) + "/" +
          stringifyProtocol(prediction.protocol))
      .str();
}
