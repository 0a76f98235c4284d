//===- comm-topo.cpp - inspect hardware topologies -------------*- C++ -*-===//
//
// comm-topo <command> --topology <preset|file> [args]
//
//===----------------------------------------------------------------------===//

#include "comm/Support/OutputFile.h"
#include "comm/Support/Version.h"
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

static cl::SubCommand
    showCommand("show",
                "Devices, links, fabric and what the source did not describe");
static cl::SubCommand
    matrixCommand("matrix",
                  "nvidia-smi-topo-style matrix of path kinds and bottleneck "
                  "bandwidths between the GPUs and NICs of one machine");
static cl::SubCommand
    pathCommand("path",
                "The path from device A to device B, hop by hop (bottleneck, "
                "latency); with several pairs, also the links they share");
static cl::SubCommand
    exportCommand("export",
                  "Write the topology in another format (--format yaml|dot)");
static cl::SubCommand
    dotCommand("dot", "Write a Graphviz picture (same as export --format dot)");
static cl::SubCommand presetsCommand("presets", "List the built-in presets");
static cl::SubCommand roundtripCommand(
    "roundtrip", "Export to YAML, import it again and check that the result "
                 "describes the same hardware");

static cl::opt<std::string> topologySpec(
    "topology",
    cl::desc("A preset (dgx-h100), a cluster of a preset (dgx-h100x4), an "
             "NCCL topology XML file or a comm YAML file, or a cluster of a "
             "file's machine (topo.xml:4)"),
    cl::value_desc("preset|file"), cl::sub(showCommand), cl::sub(matrixCommand),
    cl::sub(pathCommand), cl::sub(exportCommand), cl::sub(dotCommand),
    cl::sub(roundtripCommand), cl::cat(category));
// A long alias: a one-letter option would make LLVM read a mistyped long
// option (--tpology) as a group of one-letter flags.
static cl::alias topologyAlias("topo", cl::aliasopt(topologySpec),
                               cl::desc("Alias for --topology"));
static cl::list<std::string> devices(cl::Positional,
                                     cl::desc("<device> <device> ..."),
                                     cl::sub(pathCommand), cl::cat(category));
static cl::opt<std::string> format("format",
                                   cl::desc("Export format: yaml or dot"),
                                   cl::init("yaml"), cl::sub(exportCommand),
                                   cl::cat(category));
static cl::opt<std::string>
    outputFile("o", cl::desc("Output file"), cl::value_desc("file"),
               cl::init("-"), cl::sub(showCommand), cl::sub(matrixCommand),
               cl::sub(pathCommand), cl::sub(exportCommand),
               cl::sub(dotCommand), cl::sub(roundtripCommand),
               cl::cat(category));
static cl::opt<uint64_t> nodeIndex("node",
                                   cl::desc("Machine of a cluster (default 0)"),
                                   cl::init(0), cl::sub(matrixCommand),
                                   cl::cat(category));

static const char *const kOverview =
    R"(comm-topo: inspect the hardware topologies comm plans for

devices are named gpu0, nic3, cpu1, pcie2, nvswitch; in a cluster n5.gpu3
(machine 5) and leaf.r2.g0 / core for fabric switches.

examples:
  comm-topo show --topology dgx-h100
  comm-topo matrix --topology topo.xml
  comm-topo path --topology dgx-h100x4 n0.gpu0 n3.gpu7
  comm-topo export --topology topo.xml --format yaml -o topo.yaml
)";

static int fail(const Twine &message) {
  llvm::WithColor::error(llvm::errs(), "comm-topo") << message << "\n";
  return 1;
}

/// The name of the command given, or "" for none.
static StringRef getCommand() {
  for (cl::SubCommand *sub :
       {&showCommand, &matrixCommand, &pathCommand, &exportCommand, &dotCommand,
        &presetsCommand, &roundtripCommand})
    if (*sub)
      return sub->getName();
  return "";
}

static int run() {
  StringRef command = getCommand();
  if (command.empty())
    return fail("expected a command: show, matrix, path, export, dot, "
                "roundtrip or presets (see --help)");
  if (command == "presets") {
    for (StringRef name : getTopologyPresetNames())
      llvm::outs() << llvm::left_justify(name, 12) << "  "
                   << describeTopologyPreset(name) << "\n";
    llvm::outs() << "clusters: <preset>x<N>, N machines joined by a "
                    "rail-optimized fabric (e.g. dgx-h100x4)\n"
                    "hosts: host<N>, N MPI ranks as processes of this "
                    "machine (host is host4)\n";
    if (llvm::Error error = checkOutputStream(llvm::outs(), "-"))
      return fail(llvm::toString(std::move(error)));
    return 0;
  }
  if (topologySpec.empty())
    return fail("'" + command +
                "' needs --topology=<preset|file> (see 'comm-topo presets')");

  llvm::Expected<std::unique_ptr<Topology>> loaded = loadTopology(topologySpec);
  if (!loaded) {
    // Errors from files carry "file:line: error:" already.
    std::string message = llvm::toString(loaded.takeError());
    if (StringRef(message).contains(": error:"))
      llvm::errs() << message << "\n";
    else
      fail(message);
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
    printTopologySummary(topology, os);
  } else if (command == "matrix") {
    if (nodeIndex >= topology.getNumNodes())
      return fail("--node " + Twine(nodeIndex) + " is not a machine of '" +
                  topologySpec + "', which has " +
                  Twine(topology.getNumNodes()));
    printTopologyMatrix(topology, nodeIndex, os);
  } else if (command == "path") {
    if (devices.empty() || devices.size() % 2 != 0)
      return fail("'path' takes pairs of devices: path A B [C D ...]");
    SmallVector<Path> paths;
    for (size_t i = 0; i < devices.size(); i += 2) {
      std::optional<DeviceId> src = topology.lookupDevice(devices[i]);
      std::optional<DeviceId> dst = topology.lookupDevice(devices[i + 1]);
      for (auto [name, id] :
           {std::pair{devices[i], src}, std::pair{devices[i + 1], dst}})
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
    if (topology.getNode().getNumDevices() == 0)
      return fail("'" + topologySpec +
                  "' is an NCCL graph file: it lists channels, not "
                  "hardware, so there is nothing to export; export the "
                  "topology file NCCL dumped with it (NCCL_TOPO_DUMP_FILE)");
    exportTopologyYaml(topology, os);
  } else {
    return fail("unknown export format '" + format + "'; expected yaml or dot");
  }
  if (llvm::Error error = keepOutputFile(*output, outputFile))
    return fail(llvm::toString(std::move(error)));
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  mlir::comm::registerCommVersionPrinter();
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv, kOverview);
  return run();
}
