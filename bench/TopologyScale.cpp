//===- TopologyScale.cpp - topology build and path query scale -*- C++ -*-===//
//
// Builds a cluster of N machines of a preset (default 2048 x dgx-h100,
// 16,384 GPUs) and answers path queries between random GPU pairs. Prints the
// build time, the query time (median of several rounds), the time per query
// and the peak resident memory, against the targets of issue 3 (< 2 s,
// < 2 GiB).
//
//===----------------------------------------------------------------------===//

#include "comm/Topology/Topology.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <sys/resource.h>

using namespace mlir::comm;
namespace cl = llvm::cl;

static cl::OptionCategory benchOptions("comm-bench-topology options");
static cl::opt<std::string> preset("preset", cl::cat(benchOptions),
                                   cl::init("dgx-h100"),
                                   cl::desc("machine preset"));
static cl::opt<unsigned> nodes("nodes", cl::cat(benchOptions), cl::init(2048),
                               cl::desc("machines in the cluster"));
static cl::opt<unsigned> queries("queries", cl::cat(benchOptions),
                                 cl::init(1000000),
                                 cl::desc("path queries per round"));
static cl::opt<unsigned> rounds("rounds", cl::cat(benchOptions), cl::init(5),
                                cl::desc("query rounds (median reported)"));

static double seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       since)
      .count();
}

int main(int argc, char **argv) {
  cl::HideUnrelatedOptions(benchOptions);
  cl::ParseCommandLineOptions(argc, argv, "topology scale benchmark\n");
  auto start = std::chrono::steady_clock::now();
  auto topology =
      buildTopologyPreset(preset + "x" + std::to_string(nodes.getValue()));
  if (!topology) {
    llvm::errs() << llvm::toString(topology.takeError()) << "\n";
    return 1;
  }
  double buildSeconds = seconds(start);
  const Topology &t = **topology;
  uint64_t gpus = t.getNumGPUs();

  std::mt19937_64 rng(42);
  std::uniform_int_distribution<uint64_t> pick(0, gpus - 1);
  std::vector<std::pair<uint64_t, uint64_t>> pairs(queries);
  for (auto &pair : pairs)
    pair = {pick(rng), pick(rng)};

  std::vector<double> times;
  double checksum = 0;
  unsigned netPaths = 0;
  for (unsigned round = 0; round < rounds; ++round) {
    auto queryStart = std::chrono::steady_clock::now();
    for (auto [a, b] : pairs) {
      Path path = t.getGPUPath(a, b);
      // Resolve every hop, as a consumer of the path would.
      for (const PathHop &hop : path.hops) {
        LinkRef link = t.getLink(hop.link);
        checksum += link.props->bandwidthGBps * 1e-9 + (link.a ^ link.b) % 7;
      }
      netPaths += path.kind == PathKind::Net;
    }
    times.push_back(seconds(queryStart));
  }
  std::sort(times.begin(), times.end());
  double median = times[times.size() / 2];

  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  double peakGiB = usage.ru_maxrss / (1024.0 * 1024.0);

  llvm::outs() << llvm::formatv(
      "cluster: {0} x {1} = {2} GPUs, {3} devices, {4} links\n", nodes,
      preset, gpus, t.getNumDevices(), t.getNumLinks());
  llvm::outs() << llvm::formatv("build:    {0:F3} s\n", buildSeconds);
  llvm::outs() << llvm::formatv(
      "queries:  {0} random GPU pairs, median of {1} rounds {2:F3} s "
      "({3:F0} ns/query, {4:F1}% across the network)\n",
      queries, rounds, median, median / queries * 1e9,
      100.0 * netPaths / (double(queries) * rounds));
  llvm::outs() << llvm::formatv("total:    {0:F3} s (build + one round; "
                                "target < 2 s)\n",
                                buildSeconds + median);
  llvm::outs() << llvm::formatv("peak RSS: {0:F3} GiB (target < 2 GiB)\n",
                                peakGiB);
  llvm::outs() << llvm::formatv("checksum: {0:F1}\n", checksum);
  return 0;
}
