//===- FlowNetworkTest.cpp - max-min fair link sharing ---------*- C++ -*-===//

#include "comm/Sim/FlowNetwork.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::comm;
using namespace mlir::comm::sim;

namespace {
/// A chain a - b - c with links of 10 and 20 GB/s.
std::unique_ptr<Topology> chain() {
  auto topology = std::make_unique<Topology>();
  NodeGraph &g = topology->getNode();
  for (const char *name : {"gpu0", "sw", "gpu1"}) {
    Device d;
    d.kind = StringRef(name) == "sw" ? DeviceKind::PCIeSwitch : DeviceKind::GPU;
    d.name = name;
    d.index = StringRef(name) == "gpu1" ? 1 : 0;
    d.computeCapability = 90;
    g.addDevice(d);
  }
  Link ab;
  ab.a = 0;
  ab.b = 1;
  ab.bandwidthGBps = 10;
  Link bc;
  bc.a = 1;
  bc.b = 2;
  bc.bandwidthGBps = 20;
  g.addLink(ab);
  g.addLink(bc);
  EXPECT_FALSE(static_cast<bool>(topology->finalize()));
  return topology;
}
} // namespace

TEST(FlowNetwork, SharedLinkSplitsEvenly) {
  auto topology = chain();
  FlowNetwork network(*topology);
  Path path = topology->getPath(0, 2);
  network.addFlow(path, 1e6, 1e9, 1);
  network.addFlow(path, 1e6, 1e9, 2);
  network.recomputeRates();
  // Both share the 10 GB/s link: 5 GB/s = 5e3 bytes/us each.
  EXPECT_NEAR(network.timeToNextCompletion(), 1e6 / 5e3, 1e-6);
  auto done = network.advance(network.timeToNextCompletion());
  EXPECT_EQ(done.size(), 2u);
  EXPECT_EQ(network.getNumActiveFlows(), 0u);
  EXPECT_NEAR(network.getTotalBytes(), 2e6, 1);
}

TEST(FlowNetwork, CapsAndMaxMinFairness) {
  auto topology = chain();
  FlowNetwork network(*topology);
  // A capped flow over both links, and an uncapped one over the 20 GB/s
  // link only: the capped flow gets its 4 GB/s, the other the remaining 16.
  network.addFlow(topology->getPath(0, 2), 4e6, 4, 1);
  network.addFlow(topology->getPath(1, 2), 16e6, 1e9, 2);
  network.recomputeRates();
  EXPECT_NEAR(network.timeToNextCompletion(), 4e6 / 4e3, 1e-6);
  auto done = network.advance(network.timeToNextCompletion());
  EXPECT_EQ(done.size(), 2u); // both finish at 1000 us
}

TEST(FlowNetwork, OppositeDirectionsDoNotShare) {
  auto topology = chain();
  FlowNetwork network(*topology);
  network.addFlow(topology->getPath(0, 2), 1e6, 1e9, 1);
  network.addFlow(topology->getPath(2, 0), 1e6, 1e9, 2);
  network.recomputeRates();
  EXPECT_NEAR(network.timeToNextCompletion(), 1e6 / 10e3, 1e-6);
}

TEST(FlowNetwork, RatesRiseWhenAFlowLeaves) {
  auto topology = chain();
  FlowNetwork network(*topology);
  network.addFlow(topology->getPath(0, 2), 1e6, 1e9, 1); // short
  network.addFlow(topology->getPath(0, 2), 3e6, 1e9, 2); // long
  network.recomputeRates();
  double first = network.timeToNextCompletion(); // 1e6 at 5e3/us
  EXPECT_NEAR(first, 200, 1e-6);
  EXPECT_EQ(network.advance(first).size(), 1u);
  network.recomputeRates();
  // 2e6 bytes left alone at 10e3/us.
  EXPECT_NEAR(network.timeToNextCompletion(), 200, 1e-6);
}
