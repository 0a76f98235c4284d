//===- CostBounds.cpp - physical lower bounds of collectives ---*- C++ -*-===//
//
// A collective cannot finish before the bytes that must cross its tightest
// cut have crossed it at the cut's raw bandwidth (no efficiencies applied),
// nor before data has travelled the longest path once. The cuts considered:
// one GPU's own link into the machine (its injection bandwidth; across
// machines all of its links, since the NICs' bytes cross its PCIe), one node's
// NICs, the link every path into one CPU's GPUs crosses (a PCIe
// machine's socket interconnect), and for point-to-point transfers the
// path itself.
//
//===----------------------------------------------------------------------===//

#include "comm/CostModel/CostModel.h"
#include "comm/Topology/TopologyPrinter.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace mlir::comm;

SmallVector<BoundTerm, 4>
CostModel::getBoundTerms(const CollectiveRequest &request,
                         const GroupShape &shape) const {
  const double S = request.bytes;
  const double n = shape.ranks, N = shape.nodes, g = shape.perNode;
  SmallVector<BoundTerm, 4> terms;
  auto cut = [&](StringRef resource, double bytes, double gbps,
                 const std::string &what) {
    if (bytes <= 0 || !(gbps > 0) || std::isinf(gbps))
      return;
    terms.push_back({resource.str(), bytes / (gbps * 1e3), what});
  };
  // Across machines the bytes to and from the NICs cross the GPU's PCIe
  // (or C2C) link, not its NVLink: the cut is all of its links together.
  auto gpuCut = [&](double bytes, StringRef what) {
    double gbps = N > 1 ? shape.gpuLinksRawGBps : shape.injectRawGBps;
    cut("gpu", bytes, gbps,
        llvm::formatv(
            "{0} through a GPU's {1}{2}", what, formatBandwidth(gbps),
            N > 1 && gbps > shape.injectRawGBps ? " (all of its links)" : "")
            .str());
  };
  auto nodeCut = [&](double bytes, StringRef what) {
    if (N > 1)
      cut("node", bytes, shape.nodeNetworkRawGBps,
          llvm::formatv("{0} through a node's NICs ({1})", what,
                        formatBandwidth(shape.nodeNetworkRawGBps))
              .str());
  };
  // What must enter the group's GPUs of one CPU from the others': `a` of
  // the n ranks are inside; `hasRoot`: the root is one of them.
  auto socketCuts = [&](auto bytesInto) {
    int64_t root = request.groups.empty() || request.root < 0 ||
                           static_cast<size_t>(request.root) >=
                               request.groups.front().size()
                       ? -1
                       : request.groups.front()[request.root];
    for (const GroupShape::SocketCut &side : shape.socketCuts) {
      double a = side.ranks.size();
      bool hasRoot = llvm::is_contained(side.ranks, root);
      auto [bytes, what] = bytesInto(a, hasRoot);
      cut("cpu" + std::to_string(side.cpu), bytes, side.rawGBps,
          llvm::formatv("{0} into the GPUs of {1} across {2}", what,
                        topology.getDeviceName(side.cpu), side.link)
              .str());
    }
  };
  using Into = std::pair<double, const char *>;

  switch (request.kind) {
  case CollectiveKind::AllReduce:
    if (n > 1) {
      // With in-switch reduction a GPU sends and receives the buffer once;
      // otherwise reduce-scatter and all-gather volumes.
      gpuCut(shape.nvls ? S : 2 * (n - 1) / n * S,
             shape.nvls ? "the buffer in and out" : "2(n-1)/n of the buffer");
      nodeCut(2 * (N - 1) / N * S, "2(N-1)/N of the buffer");
      // The other side's sum of every element.
      socketCuts([&](double, bool) { return Into{S, "the buffer"}; });
    }
    break;
  case CollectiveKind::ReduceScatter:
  case CollectiveKind::AllGather:
    gpuCut((n - 1) / n * S, "(n-1)/n of the buffer");
    nodeCut((N - 1) / N * S, "(N-1)/N of the buffer");
    // A reduce_scatter's side needs its a/n of the others' sums; an
    // all_gather's side the others' (n-a)/n.
    if (request.kind == CollectiveKind::ReduceScatter)
      socketCuts([&](double a, bool) {
        return Into{a / n * S, "a/n of the buffer"};
      });
    else
      socketCuts([&](double a, bool) {
        return Into{(n - a) / n * S, "(n-a)/n of the buffer"};
      });
    break;
  case CollectiveKind::AllToAll:
    gpuCut((n - 1) / n * S, "(n-1)/n of the buffer");
    nodeCut(g * (n - g) / n * S, "the node's traffic to other nodes");
    socketCuts([&](double a, bool) {
      return Into{a * (n - a) / n * S, "the others' blocks for the side"};
    });
    break;
  case CollectiveKind::Broadcast:
  case CollectiveKind::Reduce:
    if (n > 1) {
      gpuCut(S, "the buffer");
      nodeCut(S, "the buffer");
      // A broadcast's buffer enters every side without the root; a
      // reduce's partial sum enters the root's.
      bool broadcast = request.kind == CollectiveKind::Broadcast;
      socketCuts([&](double, bool hasRoot) {
        return Into{hasRoot != broadcast ? S : 0, "the buffer"};
      });
    }
    break;
  case CollectiveKind::Permute:
  case CollectiveKind::SendRecv:
    for (auto [src, dst] : request.pairs) {
      Path path = topology.getGPUPath(src, dst);
      if (path.kind == PathKind::Local || !path.isConnected())
        continue;
      cut(("path" + Twine(src) + ">" + Twine(dst)).str(), S, path.bandwidthGBps,
          "the buffer along " + topology.getDeviceName(path.src) + " -> " +
              topology.getDeviceName(path.dst) + " at " +
              formatBandwidth(path.bandwidthGBps));
      // Every byte leaves the sender's GPU and enters the receiver's
      // through their links, by whatever route: a rank's sends to
      // different peers add up there (and so do its receives), which the
      // path of each alone does not see. All of a GPU's links count
      // (NVLink and PCIe), so that no routing beats it.
      auto end = [&](StringRef what, int64_t rank) {
        double gbps = getGroupShape({rank}).gpuLinksRawGBps;
        cut((what + Twine(rank)).str(), S, gbps,
            llvm::formatv("the buffer {0} {1} through its links ({2})",
                          what == "send" ? "out of" : "into",
                          topology.getDeviceName(topology.getGPU(rank)),
                          formatBandwidth(gbps))
                .str());
      };
      end("send", src);
      end("recv", dst);
    }
    break;
  case CollectiveKind::Copy: {
    DeviceId gpu = topology.getGPU(request.copyRank);
    const Device &device = topology.getDevice(gpu);
    if (request.copySource == MemorySpace::hbm &&
        request.copyTarget == MemorySpace::hbm) {
      cut("hbm", 2 * S, getMemoryGBps(device), "reading and writing HBM");
    } else {
      for (unsigned cpu :
           topology.getNode().getDevicesOfKind(DeviceKind::CPU)) {
        Path path = topology.getPath(
            gpu, topology.getDeviceId(topology.getNodeIndex(gpu), cpu));
        // The CPU of the GPU's own socket.
        if (path.isConnected() &&
            topology.getNode().getDevice(cpu).numa == device.numa)
          cut(request.copySource == MemorySpace::hbm ? "to-host" : "from-host",
              S, path.bandwidthGBps,
              "the buffer over the GPU's link to its CPU (" +
                  formatBandwidth(path.bandwidthGBps) + ")");
      }
    }
    break;
  }
  case CollectiveKind::Barrier:
    break;
  }
  return terms;
}

std::pair<double, std::string>
CostModel::getLowerBound(const CollectiveRequest &request,
                         const GroupShape &shape,
                         SmallVectorImpl<BoundTerm> *terms) const {
  // An empty tensor moves nothing and is predicted at no time (predictAll):
  // its bound is no time either, not a path's latency above the prediction.
  if (request.bytes == 0 && request.kind != CollectiveKind::Barrier) {
    if (terms)
      terms->clear();
    return {0.0, "nothing to move (0 bytes)"};
  }
  double best = 0;
  std::string why = "latency of the longest path";
  SmallVector<BoundTerm, 4> all = getBoundTerms(request, shape);
  for (const BoundTerm &term : all)
    if (term.us > best) {
      best = term.us;
      why = term.why;
    }
  double latency = shape.diameterUs;
  if (request.kind == CollectiveKind::Permute ||
      request.kind == CollectiveKind::SendRecv) {
    latency = 0;
    for (auto [src, dst] : request.pairs)
      latency = std::max(latency, topology.getGPUPath(src, dst).latencyUs);
  }
  if (terms)
    terms->assign(all.begin(), all.end());
  return {best + latency, why};
}
