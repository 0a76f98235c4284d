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
    p.bytes = {256,     1 << 10, 4 << 10,  64 << 10,
               1 << 20, 4 << 20, 16 << 20, 64 << 20};
    using K = CollectiveKind;
    using A = Algorithm;
    std::optional<Algorithm> mpi;
    p.rows = {
        {K::AllReduce,
         mpi,
         {9.9, 11.0, 20.4, 60.8, 596.5, 2449.5, 12525.6, 85428.0}},
        {K::AllReduce,
         A::ring,
         {15.4, 15.6, 22.8, 59.6, 555.3, 2373.2, 11281.4, 70835.4}},
        {K::AllReduce,
         A::tree,
         {6.8, 9.5, 17.6, 47.4, 804.8, 3293.5, 16768.0, 98623.6}},
        {K::AllReduce,
         A::direct,
         {12.0, 10.1, 16.9, 53.0, 598.5, 2511.7, 12866.0, 67326.2}},
        {K::AllReduce,
         A::halving_doubling,
         {9.9, 13.6, 20.1, 54.7, 593.6, 2388.0, 11335.5, 70426.6}},
        {K::AllReduce,
         A::hierarchical,
         {15.4, 15.7, 23.1, 59.8, 546.3, 2388.0, 10878.0, 73629.1}},
        {K::ReduceScatter,
         mpi,
         {6.6, 7.4, 13.6, 33.0, 383.1, 1601.8, 17344.3, 84590.5}},
        {K::ReduceScatter,
         A::ring,
         {8.6, 8.3, 11.8, 33.6, 413.7, 1661.1, 9926.4, 56010.5}},
        {K::ReduceScatter,
         A::direct,
         {6.9, 7.1, 8.5, 28.7, 393.4, 1511.0, 10780.8, 53606.2}},
        {K::ReduceScatter,
         A::halving_doubling,
         {5.5, 7.8, 8.6, 25.2, 404.2, 1664.4, 10081.7, 55221.2}},
        {K::ReduceScatter,
         A::hierarchical,
         {7.2, 7.9, 11.9, 34.1, 402.9, 1623.9, 9277.6, 56720.0}},
        {K::AllGather,
         mpi,
         {5.7, 5.7, 7.6, 22.8, 197.9, 824.7, 3240.4, 21768.0}},
        {K::AllGather,
         A::ring,
         {9.4, 8.6, 11.3, 25.3, 194.3, 829.0, 3171.2, 23933.0}},
        {K::AllGather,
         A::direct,
         {6.8, 6.4, 7.6, 23.2, 214.2, 863.8, 3113.3, 21991.5}},
        {K::AllGather,
         A::halving_doubling,
         {7.3, 8.6, 9.0, 22.0, 195.8, 783.2, 3076.6, 22660.6}},
        {K::AllGather,
         A::hierarchical,
         {9.6, 8.8, 11.5, 25.1, 196.9, 845.8, 3076.3, 23306.5}},
        {K::Broadcast,
         mpi,
         {0.8, 4.5, 7.3, 17.1, 286.2, 1107.4, 5336.1, 33482.9}},
        {K::Broadcast,
         A::ring,
         {3.3, 4.2, 9.3, 20.0, 313.5, 1440.2, 7054.9, 46432.9}},
        {K::Broadcast,
         A::tree,
         {2.7, 4.0, 6.9, 19.3, 323.8, 1115.2, 6247.3, 39331.5}},
        {K::Broadcast,
         A::direct,
         {1.0, 4.2, 6.7, 17.0, 262.6, 1017.0, 4949.4, 30682.9}},
        {K::Broadcast,
         A::halving_doubling,
         {9.6, 8.8, 11.5, 32.6, 307.3, 1199.7, 5494.1, 34263.9}},
        {K::Broadcast,
         A::hierarchical,
         {1.4, 4.2, 7.1, 19.4, 317.7, 1104.2, 6146.7, 39458.6}},
        {K::Reduce,
         mpi,
         {8.0, 12.5, 15.2, 44.6, 588.1, 2411.6, 32479.2, 137416.0}},
        {K::Reduce,
         A::ring,
         {6.1, 8.3, 14.8, 40.2, 721.9, 3060.9, 20079.4, 92571.1}},
        {K::Reduce,
         A::tree,
         {6.3, 6.5, 10.0, 31.6, 649.6, 2851.0, 16006.0, 72580.9}},
        {K::Reduce,
         A::direct,
         {4.4, 4.7, 8.4, 27.1, 704.4, 3056.3, 21842.0, 91096.2}},
        {K::Reduce,
         A::halving_doubling,
         {8.6, 10.5, 13.2, 39.2, 563.2, 2095.4, 14753.8, 73848.0}},
        {K::Reduce,
         A::hierarchical,
         {6.5, 6.6, 10.9, 31.7, 639.6, 2892.4, 14526.5, 73039.6}},
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
