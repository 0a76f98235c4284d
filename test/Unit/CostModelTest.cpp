//===- CostModelTest.cpp - the cost model's arithmetic ---------*- C++ -*-===//

#include "comm/CostModel/CostModel.h"
#include "llvm/ADT/StringExtras.h"
#include "gtest/gtest.h"

#include <cmath>
#include <tuple>

using namespace mlir;
using namespace mlir::comm;

namespace {
std::unique_ptr<Topology> preset(StringRef name) {
  auto topology = buildTopologyPreset(name);
  EXPECT_TRUE(static_cast<bool>(topology));
  return std::move(*topology);
}

CollectiveRequest allReduce(unsigned ranks, uint64_t bytes,
                            std::optional<Algorithm> algorithm = {},
                            std::optional<Protocol> protocol = {}) {
  CollectiveRequest request;
  request.kind = CollectiveKind::AllReduce;
  request.bytes = bytes;
  request.algorithm = algorithm;
  request.protocol = protocol;
  SmallVector<int64_t, 8> group;
  for (unsigned r = 0; r < ranks; ++r)
    group.push_back(r);
  request.groups.push_back(group);
  return request;
}
/// The term of `p` named `name` (the last, where several are), or null.
const CostTerm *findTerm(const Prediction &p, StringRef name) {
  const CostTerm *found = nullptr;
  for (const CostTerm &term : p.terms)
    if (term.name == name)
      found = &term;
  return found;
}
} // namespace

/// A ring all_reduce over n ranks moves 2(n-1)/n of the message per rank:
/// its bandwidth term times the ring's bus bandwidth gives those bytes.
TEST(CostModel, RingAllReduceMovesTwoNMinusOneOverN) {
  auto topology = preset("dgx-h100");
  CostModel model(*topology);
  const uint64_t bytes = 1 << 30;
  for (unsigned n = 2; n <= 8; ++n) {
    auto p = model.predict(
        allReduce(n, bytes, Algorithm::ring, Protocol::simple));
    ASSERT_TRUE(static_cast<bool>(p)) << llvm::toString(p.takeError());
    double moved = p->bandwidthUs * 1e3 * p->busBandwidthGBps;
    EXPECT_NEAR(moved, 2.0 * (n - 1) / n * bytes, 1e-6 * bytes) << n;
    // The ring's 2(n-1) steps.
    double steps = 0;
    for (const CostTerm &term : p->terms)
      if (term.name == "step latency")
        steps += term.us;
    EXPECT_NEAR(steps,
                2.0 * (n - 1) *
                    model.getParams()
                        .stepLatencyUs[static_cast<unsigned>(LinkClass::NVLink)]
                                      [static_cast<unsigned>(Protocol::simple)],
                1e-9);
  }
}

/// The ring's bus bandwidth inside a DGX H100 is a GPU's NVLink at its
/// efficiency; across machines it is the node's NICs at theirs.
TEST(CostModel, RingBandwidthIsTheBottleneck) {
  auto single = preset("dgx-h100");
  CostModel model(*single);
  auto p = model.predict(allReduce(8, 1 << 30, Algorithm::ring,
                                   Protocol::simple));
  ASSERT_TRUE(static_cast<bool>(p));
  EXPECT_NEAR(p->busBandwidthGBps,
              18 * 20.6 * model.getParams().nvlinkEfficiency, 1e-6);

  auto cluster = preset("dgx-a100x4");
  CostModel clusterModel(*cluster);
  auto q = clusterModel.predict(allReduce(32, 1 << 30, Algorithm::ring,
                                          Protocol::simple));
  ASSERT_TRUE(static_cast<bool>(q));
  // Eight NICs per node, each min(200 Gbit/s, PCIe Gen4 x16 = 24 GB/s),
  // below the ring's NVLink bandwidth inside a node.
  double eff = clusterModel.getParams().networkEfficiency[static_cast<unsigned>(
      NetworkKind::InfiniBand)];
  EXPECT_NEAR(q->busBandwidthGBps, 8 * 24.0 * eff, 1e-6);
  EXPECT_NE(q->bottleneck.find("NICs"), std::string::npos) << q->bottleneck;
}

/// A hierarchical all_reduce on dgx-h100x4 puts the inter-node part on the
/// NICs: each GPU's shard crosses at its share of the node's NICs.
TEST(CostModel, HierarchicalPutsInterNodePartOnNICs) {
  auto cluster = preset("dgx-h100x4");
  CostModel model(*cluster);
  const uint64_t bytes = uint64_t(1) << 30;
  // One chunk: the levels one after the other, each its own term.
  CollectiveRequest request =
      allReduce(32, bytes, Algorithm::hierarchical, Protocol::simple);
  request.chunkBytes = 0;
  auto p = model.predict(request);
  ASSERT_TRUE(static_cast<bool>(p)) << llvm::toString(p.takeError());
  EXPECT_EQ(p->pipelineChunks, 1u);
  const CostTerm *across = findTerm(*p, "all_reduce across nodes");
  ASSERT_NE(across, nullptr);
  double eff = model.getParams().networkEfficiency[static_cast<unsigned>(
      NetworkKind::InfiniBand)];
  double perGpu = 8 * 48.0 * eff / 8; // the node's NICs shared by 8 GPUs
  double shard = 2.0 * 3 / 4 * bytes / 8;
  EXPECT_NEAR(across->us, shard / (perGpu * 1e3), 1e-6 * across->us);
  EXPECT_NE(across->detail.find("NICs"), std::string::npos);
}

/// Across machines the hierarchical schedule's chunks run as a pipeline
/// too: the NICs' bytes leave each GPU over PCIe while the next chunk's
/// rings use its NVLink, so m chunks take the busier level's time plus
/// the fill, less than the levels one after the other, and never less
/// than the lower bound (whose GPU cut counts all of a GPU's links).
TEST(CostModel, HierarchicalPipelinesAcrossMachines) {
  auto cluster = preset("dgx-h100x4");
  CostModel model(*cluster);
  const uint64_t bytes = uint64_t(1) << 30;
  CollectiveRequest request =
      allReduce(32, bytes, Algorithm::hierarchical, Protocol::simple);
  auto pipelined = model.predict(request);
  ASSERT_TRUE(static_cast<bool>(pipelined))
      << llvm::toString(pipelined.takeError());
  request.chunkBytes = 0;
  auto sequential = model.predict(request);
  ASSERT_TRUE(static_cast<bool>(sequential));
  EXPECT_GT(pipelined->pipelineChunks, 1u);
  EXPECT_LT(pipelined->timeUs, 0.7 * sequential->timeUs);
  EXPECT_GE(pipelined->timeUs, pipelined->boundUs);
  // The busier level is the rings inside the machine: 2 (g-1)/g of the
  // buffer over a GPU's NVLink, at its efficiency.
  const CostParams &params = model.getParams();
  double inside =
      2.0 * 7 / 8 * bytes / (18 * 20.6 * params.nvlinkEfficiency * 1e3);
  const CostTerm *bandwidth = findTerm(*pipelined, "bandwidth");
  ASSERT_NE(bandwidth, nullptr);
  EXPECT_NEAR(bandwidth->us, inside, 1e-6 * inside);
  EXPECT_NE(pipelined->bottleneck.find("nvlink"), std::string::npos)
      << pipelined->bottleneck;
  // The bound's GPU cut: NVLink and the PCIe link to the NIC together.
  SmallVector<BoundTerm, 4> terms;
  GroupShape shape = model.getGroupShape(request.groups.front());
  model.getLowerBound(request, shape, &terms);
  bool sawGpu = false;
  for (const BoundTerm &term : terms)
    if (term.resource == "gpu") {
      sawGpu = true;
      // NVLS: a GPU sends and receives the buffer once.
      double links = 18 * 20.6 + 48.0;
      double moved = shape.nvls ? bytes : 2.0 * 31 / 32 * bytes;
      EXPECT_NEAR(term.us, moved / (links * 1e3), 1e-6);
      EXPECT_NE(term.why.find("all of its links"), std::string::npos)
          << term.why;
    }
  EXPECT_TRUE(sawGpu);
}

/// NVLink SHARP reduces only what NCCL lets it (ncclNvlsSupported): sum,
/// min and max of integers and 16-bit floats, only sum of f32 and f64,
/// nothing of 8-bit types, no product or average. Elsewhere the model has
/// no nvls figure, so no plan names it.
TEST(CostModel, NvlsOnlyWhereNcclReduces) {
  auto topology = preset("dgx-h100");
  CostModel model(*topology);
  struct Case {
    ReductionKind op;
    unsigned elementBytes;
    bool isFloat;
    bool nvls;
  };
  for (Case c : {Case{ReductionKind::sum, 4, true, true},
                 Case{ReductionKind::max, 4, true, false},
                 Case{ReductionKind::min, 8, true, false},
                 Case{ReductionKind::max, 2, true, true},
                 Case{ReductionKind::max, 4, false, true},
                 Case{ReductionKind::sum, 8, false, true},
                 Case{ReductionKind::sum, 1, false, false},
                 Case{ReductionKind::prod, 4, true, false},
                 Case{ReductionKind::avg, 2, true, false}}) {
    CollectiveRequest request =
        allReduce(8, 64 << 20, Algorithm::nvls, Protocol::simple);
    request.reduction = c.op;
    request.elementBytes = c.elementBytes;
    request.floatElements = c.isFloat;
    EXPECT_EQ(nvlsReduces(request), c.nvls)
        << stringifyReductionKind(c.op).str() << " " << c.elementBytes;
    auto p = model.predict(request);
    EXPECT_EQ(static_cast<bool>(p), c.nvls)
        << stringifyReductionKind(c.op).str() << " " << c.elementBytes;
    if (!p)
      llvm::consumeError(p.takeError());
    // Without a fixed algorithm the search never lands on nvls there.
    request.algorithm.reset();
    auto best = model.predict(request);
    ASSERT_TRUE(static_cast<bool>(best));
    if (!c.nvls) {
      EXPECT_NE(best->algorithm, Algorithm::nvls);
    }
  }
  // A collective that does not reduce is not limited.
  CollectiveRequest gather = allReduce(8, 64 << 20, Algorithm::nvls);
  gather.kind = CollectiveKind::AllGather;
  gather.reduction.reset();
  gather.elementBytes = 1;
  EXPECT_TRUE(nvlsReduces(gather));
}

/// all_reduce's tree across machines: its bus bandwidth is the ring's or the
/// tree's share of the NICs, and its latency has 2 ceil(log2 N) levels
/// across machines, each costing treeNetworkLevelUs.
TEST(CostModel, TreeAcrossMachines) {
  const uint64_t bytes = uint64_t(1) << 32;
  for (unsigned machines : {2u, 4u, 16u, 32u}) {
    auto cluster = preset(("dgx-h100x" + Twine(machines)).str());
    CostModel model(*cluster);
    const CostParams &params = model.getParams();
    unsigned n = 8 * machines;
    auto tree =
        model.predict(allReduce(n, bytes, Algorithm::tree, Protocol::simple));
    ASSERT_TRUE(static_cast<bool>(tree)) << llvm::toString(tree.takeError());
    double levels = 0, moved = 0;
    for (const CostTerm &term : tree->terms) {
      if (term.name == "tree levels")
        levels = term.us;
      if (term.name == "bandwidth")
        moved = term.us;
    }
    unsigned depth = 0;
    while ((1u << depth) < machines)
      ++depth;
    EXPECT_NEAR(levels, 2.0 * depth * params.treeNetworkLevelUs, 1e-9)
        << machines;
    // Eight 400 Gbit/s NICs per machine, each behind a PCIe Gen5 x16.
    double eff =
        params
            .networkEfficiency[static_cast<unsigned>(NetworkKind::InfiniBand)];
    double netGBps = 8 * 48.0 * eff *
                     params.treeNetworkEfficiency[static_cast<unsigned>(
                         NetworkKind::InfiniBand)];
    double ringGBps = 18 * 20.6 * params.nvlinkEfficiency;
    double bus = std::min(netGBps, ringGBps);
    EXPECT_NEAR(moved, 2.0 * (n - 1) / n * bytes / (bus * 1e3), 1e-6 * moved)
        << machines;
  }
}

/// The tree below NVLS (NVLS_TREE) moves the same 2(N-1)/N of the buffer per
/// machine, at its own share of the NICs.
TEST(CostModel, NvlsTreeAcrossMachines) {
  auto cluster = preset("dgx-h100x8");
  CostModel model(*cluster);
  const CostParams &params = model.getParams();
  const uint64_t bytes = uint64_t(1) << 32;
  auto p = model.predict(allReduce(64, bytes, Algorithm::nvls));
  ASSERT_TRUE(static_cast<bool>(p)) << llvm::toString(p.takeError());
  double eff =
      params.networkEfficiency[static_cast<unsigned>(NetworkKind::InfiniBand)];
  double netGBps = 8 * 48.0 * eff *
                   params.treeNetworkEfficiency[static_cast<unsigned>(
                       NetworkKind::InfiniBand)];
  double intraUs = bytes / (18 * 20.6 * params.getNvlsEfficiency(4) * 1e3);
  double netUs = 2.0 * 7 / 8 * bytes / (netGBps * 1e3);
  EXPECT_NEAR(p->bandwidthUs, std::max(netUs, intraUs), 1e-6 * p->bandwidthUs);
}

/// Halving-doubling broadcast and reduce (scatter or reduce_scatter, then
/// all_gather or gather) move 2(n-1)/n of the buffer at the ring's bus
/// bandwidth in 2 log2(n) steps; hierarchical needs several nodes of several
/// GPUs and sends the whole buffer across nodes at one GPU's share of the
/// NICs.
TEST(CostModel, RootedHalvingDoublingAndHierarchical) {
  auto single = preset("dgx-h100");
  CostModel model(*single);
  const uint64_t bytes = uint64_t(1) << 30;
  for (CollectiveKind kind :
       {CollectiveKind::Broadcast, CollectiveKind::Reduce}) {
    CollectiveRequest request =
        allReduce(8, bytes, Algorithm::halving_doubling, Protocol::simple);
    request.kind = kind;
    auto p = model.predict(request);
    ASSERT_TRUE(static_cast<bool>(p)) << llvm::toString(p.takeError());
    double bus = 18 * 20.6 * model.getParams().nvlinkEfficiency;
    EXPECT_NEAR(p->bandwidthUs, 2.0 * 7 / 8 * bytes / (bus * 1e3),
                1e-9 * p->bandwidthUs);
    double steps = 0;
    for (const CostTerm &term : p->terms)
      if (term.name == "step latency")
        steps += term.us;
    EXPECT_NEAR(
        steps,
        6 * model.getParams().stepLatencyUs[static_cast<unsigned>(
                LinkClass::NVLink)][static_cast<unsigned>(Protocol::simple)],
        1e-9);
    // One machine: the two levels are its CPU sockets (four GPUs on each
    // of dgx-h100's two), as the runtime splits it.
    request.algorithm = Algorithm::hierarchical;
    auto bySocket = model.predict(request);
    ASSERT_TRUE(static_cast<bool>(bySocket))
        << llvm::toString(bySocket.takeError());
    EXPECT_TRUE(llvm::any_of(bySocket->terms, [](const CostTerm &term) {
      return term.name == "across sockets";
    }));
  }

  auto cluster = preset("dgx-h100x4");
  CostModel clusterModel(*cluster);
  CollectiveRequest request =
      allReduce(32, bytes, Algorithm::hierarchical, Protocol::simple);
  request.kind = CollectiveKind::Broadcast;
  auto p = clusterModel.predict(request);
  ASSERT_TRUE(static_cast<bool>(p)) << llvm::toString(p.takeError());
  const CostTerm *across = findTerm(*p, "across nodes");
  ASSERT_NE(across, nullptr);
  double eff =
      clusterModel.getParams()
          .networkEfficiency[static_cast<unsigned>(NetworkKind::InfiniBand)];
  EXPECT_NEAR(across->us, bytes / (48.0 * eff * 1e3), 1e-6 * across->us);
  EXPECT_NE(p->bottleneck.find("NICs"), std::string::npos) << p->bottleneck;
}

/// NVLS exists only where the NVSwitch reduces (H100, not A100).
TEST(CostModel, NvlsNeedsAReducingSwitch) {
  auto h100 = preset("dgx-h100");
  auto a100 = preset("dgx-a100");
  EXPECT_TRUE(static_cast<bool>(CostModel(*h100).predict(
      allReduce(8, 1 << 26, Algorithm::nvls))));
  auto none = CostModel(*a100).predict(allReduce(8, 1 << 26, Algorithm::nvls));
  ASSERT_FALSE(static_cast<bool>(none));
  EXPECT_NE(llvm::toString(none.takeError()).find("no algorithm applies"),
            std::string::npos);
}

/// NVLS's efficiency follows the NVSwitch's NVLink generation: an H100's
/// (NVLink4) and a B200's (NVLink5) in-switch all_reduce move the buffer at
/// their own fraction of the GPU's NVLinks, each from its own parameter.
TEST(CostModel, NvlsEfficiencyByNVLinkGeneration) {
  CostParams params = getDefaultCostParams();
  params.nvlsEfficiency = {0.8, 0.5};
  const uint64_t bytes = uint64_t(1) << 32;
  for (auto [name, generation, linkGBps, efficiency] :
       {std::tuple<const char *, unsigned, double, double>{"dgx-h100", 4,
                                                           18 * 20.6, 0.8},
        {"dgx-b200", 5, 18 * 40.1, 0.5}}) {
    auto topology = preset(name);
    CostModel model(*topology, params);
    SmallVector<int64_t, 8> ranks = {0, 1, 2, 3, 4, 5, 6, 7};
    EXPECT_EQ(model.getGroupShape(ranks).nvlsGeneration, generation) << name;
    auto p = model.predict(allReduce(8, bytes, Algorithm::nvls));
    ASSERT_TRUE(static_cast<bool>(p)) << llvm::toString(p.takeError());
    EXPECT_NEAR(p->bandwidthUs, bytes / (linkGBps * efficiency * 1e3),
                1e-6 * p->bandwidthUs)
        << name;
  }
  EXPECT_EQ(params.getNvlsEfficiency(4), 0.8);
  EXPECT_EQ(params.getNvlsEfficiency(5), 0.5);
  EXPECT_EQ(params.getNvlsEfficiency(6), 0.5);
}

/// No prediction beats the physical lower bound, for any collective, size,
/// algorithm or topology.
TEST(CostModel, PredictionsNeverBeatTheBound) {
  for (StringRef name : {"dgx-a100", "dgx-h100x2", "pcie-4gpu", "dgx-b200x4"}) {
    auto topology = preset(name);
    CostModel model(*topology);
    unsigned ranks = topology->getNumGPUs();
    for (CollectiveKind kind :
         {CollectiveKind::AllReduce, CollectiveKind::AllGather,
          CollectiveKind::ReduceScatter, CollectiveKind::AllToAll,
          CollectiveKind::Broadcast, CollectiveKind::Reduce}) {
      for (uint64_t bytes = 1 << 12; bytes <= (uint64_t(1) << 32);
           bytes <<= 4) {
        CollectiveRequest request = allReduce(ranks, bytes * ranks);
        request.kind = kind;
        auto all = model.predictAll(request);
        ASSERT_TRUE(static_cast<bool>(all)) << llvm::toString(all.takeError());
        for (const Prediction &p : *all)
          EXPECT_GE(p.timeUs, p.boundUs * (1 - 1e-9))
              << name.str() << " " << stringifyCollectiveKind(kind).str()
              << " " << stringifyAlgorithm(p.algorithm).str() << " " << bytes;
      }
    }
  }
}

/// Bad requests are errors with messages, not predictions.
TEST(CostModel, BadRequests) {
  auto topology = preset("dgx-h100");
  CostModel model(*topology);
  auto check = [&](CollectiveRequest request, StringRef expected) {
    auto p = model.predict(request);
    ASSERT_FALSE(static_cast<bool>(p));
    std::string message = llvm::toString(p.takeError());
    EXPECT_NE(message.find(expected.str()), std::string::npos) << message;
  };
  // An empty tensor is no error: it moves nothing, in no time.
  auto empty = model.predict(allReduce(8, 0));
  ASSERT_TRUE(static_cast<bool>(empty)) << llvm::toString(empty.takeError());
  EXPECT_EQ(empty->timeUs, 0);
  EXPECT_NE(empty->bottleneck.find("0 bytes"), std::string::npos);
  check(allReduce(9, 1024), "rank 8 is beyond the 8 GPUs");
  CollectiveRequest gather = allReduce(8, 12);
  gather.kind = CollectiveKind::AllGather;
  check(gather, "does not divide among 8 ranks");
  CollectiveRequest odd = allReduce(8, 6);
  check(odd, "whole number of 4-byte elements");
}

/// Parameters survive a YAML round trip.
TEST(CostModel, ParamsRoundTrip) {
  std::string text;
  llvm::raw_string_ostream os(text);
  printCostParams(getDefaultCostParams(), os);
  auto parsed = parseCostParams(text, "params.yaml");
  ASSERT_TRUE(static_cast<bool>(parsed)) << llvm::toString(parsed.takeError());
  const CostParams &a = getDefaultCostParams(), &b = *parsed;
  EXPECT_NEAR(a.nvlinkEfficiency, b.nvlinkEfficiency, 1e-5);
  EXPECT_NEAR(a.nvlsNetworkStepUs, b.nvlsNetworkStepUs, 1e-3);
  for (unsigned c = 0; c < kNumLinkClasses; ++c)
    for (unsigned p = 0; p < kNumProtocols; ++p)
      EXPECT_NEAR(a.stepLatencyUs[c][p], b.stepLatencyUs[c][p], 1e-4);
  EXPECT_NEAR(a.treeNetworkLevelUs, b.treeNetworkLevelUs, 1e-3);
  for (unsigned k = 0; k < 4; ++k)
    EXPECT_NEAR(a.treeNetworkEfficiency[k], b.treeNetworkEfficiency[k], 1e-5);
  // A file written before the tree terms existed keeps their defaults.
  std::string old;
  for (StringRef line : llvm::split(text, '\n'))
    if (!line.starts_with("tree_") || line.starts_with("tree_efficiency"))
      old += line.str() + "\n";
  auto older = parseCostParams(old, "old.yaml");
  ASSERT_TRUE(static_cast<bool>(older)) << llvm::toString(older.takeError());
  EXPECT_EQ(older->treeNetworkLevelUs, a.treeNetworkLevelUs);
  EXPECT_NEAR(a.nvlsEfficiency[1], b.nvlsEfficiency[1], 1e-5);
  // One written before NVLS had an efficiency per NVLink generation meant
  // its one figure for both.
  std::string single;
  for (StringRef line : llvm::split(text, '\n'))
    if (!line.starts_with("nvls_nvlink5_efficiency"))
      single += line.str() + "\n";
  auto oneNvls = parseCostParams(single, "single.yaml");
  ASSERT_TRUE(static_cast<bool>(oneNvls))
      << llvm::toString(oneNvls.takeError());
  EXPECT_EQ(oneNvls->nvlsEfficiency[1], oneNvls->nvlsEfficiency[0]);
  EXPECT_NEAR(oneNvls->nvlsEfficiency[0], a.nvlsEfficiency[0], 1e-5);
  auto bad = parseCostParams("nvlink_efficiency: 2\n", "bad.yaml");
  EXPECT_FALSE(static_cast<bool>(bad));
  llvm::consumeError(bad.takeError());
}

/// With a backend, every prediction uses an algorithm the backend realizes
/// (what a plan may name there), for every collective that takes one; with
/// `native`, only what the backend's own collective picks.
TEST(CostModel, SearchStaysInTheAlgorithmTable) {
  for (StringRef name : {"dgx-h100", "dgx-h100x4", "pcie-4gpu"}) {
    auto topology = preset(name);
    CostModel model(*topology);
    unsigned ranks = topology->getNumGPUs();
    for (CollectiveKind kind :
         {CollectiveKind::AllReduce, CollectiveKind::AllGather,
          CollectiveKind::ReduceScatter, CollectiveKind::AllToAll,
          CollectiveKind::Broadcast, CollectiveKind::Reduce}) {
      for (Backend backend : {Backend::mpi, Backend::nccl}) {
        for (bool native : {false, true}) {
          for (uint64_t bytes = 1 << 10; bytes <= (uint64_t(1) << 30);
               bytes <<= 5) {
            CollectiveRequest request = allReduce(ranks, bytes * ranks);
            request.kind = kind;
            request.backend = backend;
            request.native = native;
            auto all = model.predictAll(request);
            ASSERT_TRUE(static_cast<bool>(all))
                << llvm::toString(all.takeError());
            ArrayRef<Algorithm> allowed =
                native ? getNativeAlgorithms(kind, backend)
                       : getRealizedAlgorithms(kind, backend);
            for (const Prediction &p : *all)
              EXPECT_TRUE(llvm::is_contained(allowed, p.algorithm))
                  << name.str() << " " << stringifyCollectiveKind(kind).str()
                  << " on " << stringifyBackend(backend).str() << ": "
                  << stringifyAlgorithm(p.algorithm).str();
          }
        }
      }
    }
  }
}

/// A backend that cannot carry the collective, or a fixed algorithm it does
/// not realize, is an error naming what it does realize.
TEST(CostModel, BackendErrors) {
  auto topology = preset("dgx-h100");
  CostModel model(*topology);
  CollectiveRequest onVerbs = allReduce(8, 1 << 20);
  onVerbs.backend = Backend::verbs;
  auto verbs = model.predict(onVerbs);
  ASSERT_FALSE(static_cast<bool>(verbs));
  EXPECT_EQ(llvm::toString(verbs.takeError()),
            "comm.all_reduce cannot run on the verbs backend, which carries "
            "point to point only (send, recv, permute)");

  CollectiveRequest nvls = allReduce(8, 1 << 20, Algorithm::nvls);
  nvls.backend = Backend::mpi;
  auto mpi = model.predict(nvls);
  ASSERT_FALSE(static_cast<bool>(mpi));
  EXPECT_EQ(
      llvm::toString(mpi.takeError()),
      "plan algorithm 'nvls' of comm.all_reduce is not realized on the mpi "
      "backend (expected ring, tree, hierarchical, direct, "
      "halving_doubling); NVLink SHARP needs the nccl backend (the "
      "cuda-nccl target)");
  nvls.backend = Backend::nccl;
  EXPECT_TRUE(static_cast<bool>(model.predict(nvls)));
}

/// The bandwidth of a path inside a machine is its slowest link at that
/// link's efficiency; between machines, at the network's.
TEST(CostModel, PathBandwidth) {
  auto topology = preset("dgx-h100x2");
  CostModel model(*topology);
  const CostParams &p = model.getParams();
  Path inside = topology->getGPUPath(0, 1);
  EXPECT_NEAR(model.getPathBandwidth(inside),
              inside.bandwidthGBps * p.nvlinkEfficiency, 1e-9);
  Path across = topology->getGPUPath(0, 8);
  EXPECT_NEAR(model.getPathBandwidth(across),
              across.bandwidthGBps * p.networkEfficiency[static_cast<unsigned>(
                                         topology->getFabric().network)],
              1e-9);
  EXPECT_EQ(p.getProtocolBandwidth(Protocol::simple), 1.0);
  EXPECT_EQ(p.getProtocolBandwidth(Protocol::ll), p.llBandwidth);
  EXPECT_EQ(p.getProtocolBandwidth(Protocol::ll128), p.ll128Bandwidth);
}

/// Among the processes of a host, collectives are timed from the measured
/// profile: the measured figure at a measured size, linear between sizes,
/// the last segment's slope beyond them; MPI's own collective is predicted
/// only when asked for (native), and other group sizes scale the profile's
/// latency by the schedule's steps and the rest by the bytes a rank moves.
TEST(CostModel, HostIsPredictedFromTheMeasuredProfile) {
  auto topology = preset("host8");
  CostModel model(*topology);
  const HostProfile &profile = getDefaultHostProfile();
  const HostProfile::Row *ring =
      profile.lookup(CollectiveKind::AllReduce, Algorithm::ring);
  const HostProfile::Row *mpi =
      profile.lookup(CollectiveKind::AllReduce, std::nullopt);
  ASSERT_TRUE(ring && mpi);
  ASSERT_EQ(profile.ranks, 4u);
  for (auto [index, bytes] : llvm::enumerate(profile.bytes)) {
    auto p = model.predict(allReduce(4, bytes, Algorithm::ring));
    ASSERT_TRUE(static_cast<bool>(p)) << llvm::toString(p.takeError());
    EXPECT_TRUE(p->measured && !p->native);
    EXPECT_NEAR(p->timeUs, ring->us[index], 1e-9);
    EXPECT_LE(p->boundUs, p->timeUs);
  }
  size_t last = profile.bytes.size() - 1;
  ASSERT_EQ(profile.bytes[last - 3], 1u << 20);
  ASSERT_EQ(profile.bytes[last - 2], 4u << 20);
  ASSERT_EQ(profile.bytes[last], 64u << 20);
  // Halfway between 1 and 4 MiB: halfway between their times.
  auto mid = model.predict(allReduce(4, (5u << 20) / 2, Algorithm::ring));
  ASSERT_TRUE(static_cast<bool>(mid));
  EXPECT_NEAR(mid->timeUs, (ring->us[last - 3] + ring->us[last - 2]) / 2, 1e-6);
  // Twice the largest size: the last segment's slope.
  auto past = model.predict(allReduce(4, 128u << 20, Algorithm::ring));
  ASSERT_TRUE(static_cast<bool>(past));
  EXPECT_NEAR(past->timeUs,
              ring->us[last] +
                  (ring->us[last] - ring->us[last - 1]) * 64.0 / 48.0,
              1e-3);
  // MPI's own collective: only with native, and labelled as such.
  CollectiveRequest own = allReduce(4, 4096);
  own.backend = Backend::mpi;
  own.native = true;
  own.bytes = profile.bytes[0];
  auto native = model.predict(own);
  ASSERT_TRUE(static_cast<bool>(native));
  EXPECT_TRUE(native->native);
  EXPECT_EQ(describeAlgorithm(*native), "native");
  EXPECT_NEAR(native->timeUs, mpi->us[0], 1e-9);
  own.native = false;
  auto schedule = model.predict(own);
  ASSERT_TRUE(static_cast<bool>(schedule));
  EXPECT_FALSE(schedule->native);
  // Eight ranks: a ring's 2(n-1) steps and 2(n-1)/n of the buffer.
  auto eight = model.predict(allReduce(8, 64u << 20, Algorithm::ring));
  ASSERT_TRUE(static_cast<bool>(eight));
  double latency = ring->us[0] * 14.0 / 6.0;
  double bandwidth = (ring->us[last] - ring->us[0]) * (14.0 / 8) / (6.0 / 4);
  EXPECT_NEAR(eight->timeUs, latency + bandwidth, 1e-6);
  // NCCL cannot run processes.
  CollectiveRequest nccl = allReduce(4, 4096);
  nccl.backend = Backend::nccl;
  auto refused = model.predict(nccl);
  ASSERT_FALSE(static_cast<bool>(refused));
  EXPECT_NE(llvm::toString(refused.takeError()).find("mpi backend"),
            std::string::npos);
}
