//===- TopologyPrinter.h - human-readable views of a topology ---*- C++ -*-===//

#ifndef COMM_TOPOLOGY_TOPOLOGYPRINTER_H
#define COMM_TOPOLOGY_TOPOLOGYPRINTER_H

#include "comm/Topology/Topology.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir {
namespace comm {

/// Devices, links and what the source did or did not describe.
void printTopologySummary(const Topology &topology, llvm::raw_ostream &os);

/// An `nvidia-smi topo -m` style matrix of path kinds between the GPUs and
/// NICs of one machine (`node`), then their bottleneck bandwidths.
void printTopologyMatrix(const Topology &topology, uint64_t node,
                         llvm::raw_ostream &os);

/// A path hop by hop with its kind, bottleneck and latency.
void printTopologyPath(const Topology &topology, const Path &path,
                       llvm::raw_ostream &os);

/// The directed links that several of `paths` share.
void printSharedLinks(const Topology &topology, ArrayRef<Path> paths,
                      llvm::raw_ostream &os);

/// A Graphviz graph of one machine (and, for a cluster, a summary of the
/// fabric).
void printTopologyDot(const Topology &topology, llvm::raw_ostream &os);

/// "370.8 GB/s" style formatting.
std::string formatBandwidth(double gbps);

/// `text` escaped for XML content and attributes (SVG, Graphviz HTML-like
/// labels): names come from programs and topology files ("attn<q&k>").
std::string escapeXml(StringRef text);

} // namespace comm
} // namespace mlir

#endif // COMM_TOPOLOGY_TOPOLOGYPRINTER_H
