//===- comm-topo.cpp - inspect hardware topologies -------------*- C++ -*-===//
//
// comm-topo <command> --topology <preset|file> [args]
//
//===----------------------------------------------------------------------===//

#include "comm/Topology/Topology.h"
#include "comm/Topology/TopologyPrinter.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::comm;
namespace cl = llvm::cl;

static cl::OptionCategory category("comm-topo options");

static cl::opt<std::string> command(cl::Positional, cl::Required,
                                    cl::desc("<command>"), cl::cat(category));
static cl::list<std::string> arguments(cl::Positional, cl::desc("[args...]"),
                                       cl::cat(category));
static cl::opt<std::string>
    topologySpec("topology",
                 cl::desc("A preset (dgx-h100), a cluster of a preset "
                          "(dgx-h100x4), an NCCL topology XML file or a comm "
                          "YAML file"),
                 cl::value_desc("preset|file"), cl::cat(category));
static cl::alias topologyAlias("t", cl::aliasopt(topologySpec),
                               cl::desc("Alias for --topology"));
static cl::opt<std::string> format("format",
                                   cl::desc("export format: yaml or dot"),
                                   cl::init("yaml"), cl::cat(category));
static cl::opt<std::string> outputFile("o", cl::desc("Output file"),
                                       cl::value_desc("file"), cl::init("-"),
                                       cl::cat(category));
static cl::opt<uint64_t> nodeIndex("node",
                                   cl::desc("Machine of a cluster for "
                                            "'matrix' (default 0)"),
                                   cl::init(0), cl::cat(category));

static const char *const kOverview = R"(comm-topo: inspect the hardware topologies comm plans for

commands:
  show            devices, links, fabric and what the source did not describe
  matrix          nvidia-smi-topo-style matrix of path kinds and bottleneck
                  bandwidths between the GPUs and NICs of one machine
  path A B [C D]  the path from device A to device B, hop by hop (bottleneck,
                  latency); with several pairs, also the links they share
  export          write the topology in another format (--format yaml|dot)
  dot             write a Graphviz picture (same as export --format dot)
  presets         list the built-in presets
  roundtrip       export to YAML, import it again and check that the result
                  describes the same hardware (a self-check of the format)

devices are named gpu0, nic3, cpu1, pcie2, nvswitch; in a cluster n5.gpu3
(machine 5) and leaf.r2.g0 / core for fabric switches.

examples:
  comm-topo show -t dgx-h100
  comm-topo matrix -t topo.xml
  comm-topo path -t dgx-h100x4 n0.gpu0 n3.gpu7
  comm-topo export -t topo.xml --format yaml -o topo.yaml
)";

static int fail(const Twine &message) {
  llvm::WithColor::error(llvm::errs(), "comm-topo") << message << "\n";
  return 1;
}

static int run() {
  if (command == "presets") {
    for (StringRef name : getTopologyPresetNames())
      llvm::outs() << llvm::left_justify(name, 12) << "  "
                   << describeTopologyPreset(name) << "\n";
    llvm::outs() << "clusters: <preset>x<N>, N machines joined by a "
                    "rail-optimized fabric (e.g. dgx-h100x4)\n";
    return 0;
  }
  static const StringRef known[] = {"show", "matrix",   "path",
                                    "export", "dot", "roundtrip"};
  if (!llvm::is_contained(known, StringRef(command)))
    return fail("unknown command '" + command +
                "'; expected show, matrix, path, export, dot, roundtrip or "
                "presets (see --help)");
  if (topologySpec.empty())
    return fail("'" + command +
                "' needs --topology=<preset|file> (see 'comm-topo presets')");

  llvm::Expected<std::unique_ptr<Topology>> loaded = loadTopology(topologySpec);
  if (!loaded) {
    llvm::errs() << llvm::toString(loaded.takeError()) << "\n";
    return 1;
  }
  const Topology &topology = **loaded;

  std::string error;
  auto output = mlir::openOutputFile(outputFile, &error);
  if (!output)
    return fail(error);
  llvm::raw_ostream &os = output->os();

  bool needsHardware = command != "show" && command != "export";
  if (needsHardware && topology.getNode().getNumDevices() == 0)
    return fail("'" + topologySpec +
                "' describes no hardware (an NCCL graph file?); '" + command +
                "' needs a topology");

  if (command == "show") {
    if (!arguments.empty())
      return fail("'show' takes no arguments");
    printTopologySummary(topology, os);
  } else if (command == "matrix") {
    if (!arguments.empty())
      return fail("'matrix' takes no arguments (use --node for a cluster)");
    if (nodeIndex >= topology.getNumNodes())
      return fail("--node " + Twine(nodeIndex) + " is not a machine of '" +
                  topologySpec + "', which has " +
                  Twine(topology.getNumNodes()));
    printTopologyMatrix(topology, nodeIndex, os);
  } else if (command == "path") {
    if (arguments.empty() || arguments.size() % 2 != 0)
      return fail("'path' takes pairs of devices: path A B [C D ...]");
    SmallVector<Path> paths;
    for (size_t i = 0; i < arguments.size(); i += 2) {
      std::optional<DeviceId> src = topology.lookupDevice(arguments[i]);
      std::optional<DeviceId> dst = topology.lookupDevice(arguments[i + 1]);
      for (auto [name, id] : {std::pair{arguments[i], src},
                              std::pair{arguments[i + 1], dst}})
        if (!id)
          return fail("no device '" + name + "' in '" + topologySpec +
                      "' (devices are named like gpu0, nic1, cpu0; in a "
                      "cluster n2.gpu0)");
      paths.push_back(topology.getPath(*src, *dst));
      printTopologyPath(topology, paths.back(), os);
    }
    if (paths.size() > 1)
      printSharedLinks(topology, paths, os);
  } else if (command == "roundtrip") {
    std::string yaml;
    llvm::raw_string_ostream yamlStream(yaml);
    exportTopologyYaml(topology, yamlStream);
    llvm::Expected<std::unique_ptr<Topology>> again =
        importTopologyYaml(yaml, "<exported>");
    if (!again)
      return fail("the exported YAML does not import: " +
                  llvm::toString(again.takeError()));
    std::string why;
    if (!topology.isEquivalentTo(**again, &why))
      return fail("round trip changed the topology: " + why);
    os << "round trip: " << topology.getNode().getNumDevices()
       << " devices and " << topology.getNode().getNumLinks()
       << " links per machine, " << topology.getNumNodes()
       << " machine(s): equivalent\n";
  } else if (command == "dot" || (command == "export" && format == "dot")) {
    printTopologyDot(topology, os);
  } else if (format == "yaml") {
    exportTopologyYaml(topology, os);
  } else {
    return fail("unknown export format '" + format + "'; expected yaml or dot");
  }
  output->keep();
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv, kOverview);
  return run();
}
