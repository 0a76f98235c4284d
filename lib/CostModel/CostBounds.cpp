//===- CostBounds.cpp - physical lower bounds of collectives ---*- C++ -*-===//
//
// A collective cannot finish before the bytes that must cross its tightest
// cut have crossed it at the cut's raw bandwidth (no efficiencies applied),
// nor before data has travelled the longest path once. The cuts considered:
// one GPU's own link into the machine (its injection bandwidth), one node's
// NICs, and for point-to-point transfers the path itself.
//
//===----------------------------------------------------------------------===//

#include "comm/CostModel/CostModel.h"
#include "comm/Topology/TopologyPrinter.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace mlir::comm;

std::pair<double, std::string>
CostModel::getLowerBound(const CollectiveRequest &request,
                         const GroupShape &shape) const {
  const double S = request.bytes;
  const double n = shape.ranks, N = shape.nodes, g = shape.perNode;
  double best = 0;
  std::string why = "latency of the longest path";
  auto cut = [&](double bytes, double gbps, const std::string &what) {
    if (bytes <= 0 || !(gbps > 0) || std::isinf(gbps))
      return;
    double us = bytes / (gbps * 1e3);
    if (us > best) {
      best = us;
      why = what;
    }
  };
  auto gpuCut = [&](double bytes, StringRef what) {
    cut(bytes, shape.injectRawGBps,
        llvm::formatv("{0} through a GPU's {1}", what,
                      formatBandwidth(shape.injectRawGBps))
            .str());
  };
  auto nodeCut = [&](double bytes, StringRef what) {
    if (N > 1)
      cut(bytes, shape.nodeNetworkRawGBps,
          llvm::formatv("{0} through a node's NICs ({1})", what,
                        formatBandwidth(shape.nodeNetworkRawGBps))
              .str());
  };

  switch (request.kind) {
  case CollectiveKind::AllReduce:
    if (n > 1) {
      // With in-switch reduction a GPU sends and receives the buffer once;
      // otherwise reduce-scatter and all-gather volumes.
      gpuCut(shape.nvls ? S : 2 * (n - 1) / n * S,
             shape.nvls ? "the buffer in and out" : "2(n-1)/n of the buffer");
      nodeCut(2 * (N - 1) / N * S, "2(N-1)/N of the buffer");
    }
    break;
  case CollectiveKind::ReduceScatter:
  case CollectiveKind::AllGather:
    gpuCut((n - 1) / n * S, "(n-1)/n of the buffer");
    nodeCut((N - 1) / N * S, "(N-1)/N of the buffer");
    break;
  case CollectiveKind::AllToAll:
    gpuCut((n - 1) / n * S, "(n-1)/n of the buffer");
    nodeCut(g * (n - g) / n * S, "the node's traffic to other nodes");
    break;
  case CollectiveKind::Broadcast:
  case CollectiveKind::Reduce:
    if (n > 1) {
      gpuCut(S, "the buffer");
      nodeCut(S, "the buffer");
    }
    break;
  case CollectiveKind::Permute:
  case CollectiveKind::SendRecv:
    for (auto [src, dst] : request.pairs) {
      Path path = topology.getGPUPath(src, dst);
      if (path.kind != PathKind::Local && path.isConnected())
        cut(S, path.bandwidthGBps,
            "the buffer along " + topology.getDeviceName(path.src) + " -> " +
                topology.getDeviceName(path.dst) + " at " +
                formatBandwidth(path.bandwidthGBps));
    }
    break;
  case CollectiveKind::Copy: {
    DeviceId gpu = topology.getGPU(request.copyRank);
    const Device &device = topology.getDevice(gpu);
    if (request.copySource == MemorySpace::hbm &&
        request.copyTarget == MemorySpace::hbm) {
      cut(2 * S, device.memoryGBps, "reading and writing HBM");
    } else {
      for (unsigned cpu :
           topology.getNode().getDevicesOfKind(DeviceKind::CPU)) {
        Path path = topology.getPath(
            gpu, topology.getDeviceId(topology.getNodeIndex(gpu), cpu));
        // The CPU of the GPU's own socket.
        if (path.isConnected() &&
            topology.getNode().getDevice(cpu).numa == device.numa)
          cut(S, path.bandwidthGBps,
              "the buffer over the GPU's link to its CPU (" +
                  formatBandwidth(path.bandwidthGBps) + ")");
      }
    }
    break;
  }
  case CollectiveKind::Barrier:
    break;
  }
  double latency = shape.diameterUs;
  if (request.kind == CollectiveKind::Permute ||
      request.kind == CollectiveKind::SendRecv) {
    latency = 0;
    for (auto [src, dst] : request.pairs)
      latency = std::max(latency, topology.getGPUPath(src, dst).latencyUs);
  }
  return {best + latency, why};
}
