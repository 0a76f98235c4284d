//===- HostProfile.cpp - measured collectives among processes --*- C++ -*-===//
//
// The times the runtime's collectives take among MPI ranks that are
// processes of one machine, what the `host` preset plans with
// (docs/CostModel.md, "Host"). Measured with
//   mpirun -np 4 --oversubscribe comm-bench-algorithms --collective all \
//       --rounds 20
// on comm's development machine (2 cores, Open MPI 4.1.4 from Debian
// bookworm, 2026-12-04): each figure is the median of 20 rounds of the
// slowest rank, the lower of two or three runs (the machine is shared; the
// lower median is the one least disturbed by other work).
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
    p.bytes = {4096, 1 << 20, 64 << 20};
    using K = CollectiveKind;
    using A = Algorithm;
    std::optional<Algorithm> mpi;
    p.rows = {
        {K::AllReduce, mpi, {17.9, 518.5, 82014.3}},
        {K::AllReduce, A::ring, {24.1, 585.4, 74137.0}},
        {K::AllReduce, A::tree, {14.5, 762.9, 91662.1}},
        {K::AllReduce, A::direct, {15.7, 581.0, 64559.6}},
        {K::AllReduce, A::halving_doubling, {14.7, 561.4, 67969.9}},
        {K::AllReduce, A::hierarchical, {21.5, 576.5, 67285.7}},
        {K::ReduceScatter, mpi, {16.1, 371.0, 80643.1}},
        {K::ReduceScatter, A::ring, {11.8, 338.2, 54424.9}},
        {K::ReduceScatter, A::direct, {8.3, 359.1, 53806.2}},
        {K::ReduceScatter, A::halving_doubling, {10.7, 396.2, 54620.7}},
        {K::ReduceScatter, A::hierarchical, {12.2, 355.4, 55020.1}},
        {K::AllGather, mpi, {8.9, 196.6, 22062.6}},
        {K::AllGather, A::ring, {13.9, 210.2, 23332.1}},
        {K::AllGather, A::direct, {8.6, 237.5, 22241.7}},
        {K::AllGather, A::halving_doubling, {10.0, 209.9, 22960.6}},
        {K::AllGather, A::hierarchical, {13.2, 201.1, 23279.3}},
        {K::Broadcast, mpi, {8.0, 273.6, 32788.9}},
        {K::Broadcast, A::ring, {9.8, 291.2, 45713.1}},
        {K::Broadcast, A::tree, {6.9, 308.9, 38854.2}},
        {K::Broadcast, A::direct, {7.7, 284.9, 29980.3}},
        {K::Broadcast, A::halving_doubling, {11.9, 287.9, 32899.5}},
        {K::Broadcast, A::hierarchical, {6.9, 321.8, 38332.8}},
        {K::Reduce, mpi, {16.5, 560.5, 139839.8}},
        {K::Reduce, A::ring, {13.9, 832.3, 89734.5}},
        {K::Reduce, A::tree, {9.4, 627.3, 72237.9}},
        {K::Reduce, A::direct, {8.0, 840.1, 90313.4}},
        {K::Reduce, A::halving_doubling, {13.1, 588.5, 74186.9}},
        {K::Reduce, A::hierarchical, {9.2, 620.9, 71056.7}},
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
  return (stringifyAlgorithm(prediction.algorithm) + "/" +
          stringifyProtocol(prediction.protocol))
      .str();
}
