//===- Bench.cpp - nccl-tests style predictions ----------------*- C++ -*-===//

#include "Bench.h"
#include "comm/CostModel/Calibration.h"
#include "comm/Topology/TopologyPrinter.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/WithColor.h"

#include <cmath>

using namespace mlir;
using namespace mlir::comm;
using namespace mlir::comm::sim;

static llvm::Error benchError(const Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// A size in bytes with an optional suffix K, M, G or T (powers of two).
static std::optional<uint64_t> parseSize(StringRef text) {
  text = text.trim();
  uint64_t scale = 1;
  if (!text.empty()) {
    switch (std::toupper(text.back())) {
    case 'K':
      scale = uint64_t(1) << 10;
      break;
    case 'M':
      scale = uint64_t(1) << 20;
      break;
    case 'G':
      scale = uint64_t(1) << 30;
      break;
    case 'T':
      scale = uint64_t(1) << 40;
      break;
    default:
      break;
    }
    if (scale != 1)
      text = text.drop_back();
  }
  uint64_t value;
  if (text.getAsInteger(10, value))
    return std::nullopt;
  if (value && scale > UINT64_MAX / value)
    return std::nullopt;
  return value * scale;
}

void mlir::comm::sim::warnAboutUndescribedGpus(const Topology &topology,
                                               llvm::raw_ostream &os) {
  unsigned undescribed = 0;
  for (uint64_t rank = 0; rank < topology.getNumGPUs(); ++rank)
    undescribed += !topology.getDevice(topology.getGPU(rank)).described;
  if (!undescribed)
    return;
  llvm::WithColor::warning(os, "comm-sim")
      << "topology '" << topology.getName() << "' places " << undescribed
      << " GPU(s) only as PCI devices (a PCI skeleton): their NVLinks and "
         "architecture are unknown, so these figures assume PCIe between "
         "them; give the topology NCCL dumps at run time "
         "(NCCL_TOPO_DUMP_FILE) or a preset\n";
}

llvm::Error mlir::comm::sim::parseSizeRange(StringRef text,
                                            BenchOptions &options) {
  SmallVector<StringRef, 3> parts;
  text.split(parts, ':');
  if (parts.empty() || parts.size() > 3)
    return benchError("--sizes '" + text +
                      "' must be <size>, <min>:<max> or <min>:<max>:<factor>");
  std::optional<uint64_t> lo = parseSize(parts[0]);
  std::optional<uint64_t> hi = parts.size() > 1 ? parseSize(parts[1]) : lo;
  if (!lo || !hi)
    return benchError("--sizes '" + text +
                      "': sizes are integers with an optional K, M, G or T "
                      "suffix (powers of two)");
  if (*lo == 0 || *hi == 0)
    return benchError("--sizes '" + text +
                      "': a size of 0 bytes moves nothing");
  if (*lo > *hi)
    return benchError("--sizes '" + text +
                      "': the minimum exceeds the maximum");
  double factor = 2;
  if (parts.size() == 3 && (parts[2].getAsDouble(factor) || !(factor > 1)))
    return benchError("--sizes '" + text + "': the factor must be above 1");
  options.minBytes = *lo;
  options.maxBytes = *hi;
  options.factor = factor;
  return llvm::Error::success();
}

llvm::Error mlir::comm::sim::applyNcclTestsFlags(StringRef minBytes,
                                                 StringRef maxBytes,
                                                 StringRef factor,
                                                 BenchOptions &options) {
  auto size = [&](StringRef flag, StringRef text,
                  uint64_t &out) -> llvm::Error {
    if (text.empty())
      return llvm::Error::success();
    std::optional<uint64_t> value = parseSize(text);
    if (!value || *value == 0)
      return benchError(
          "-" + flag + " '" + text +
          "' is not a size in bytes (K, M, G, T are powers of two)");
    out = *value;
    return llvm::Error::success();
  };
  if (llvm::Error e = size("b", minBytes, options.minBytes))
    return e;
  if (llvm::Error e = size("e", maxBytes, options.maxBytes))
    return e;
  if (!factor.empty()) {
    double value;
    if (factor.getAsDouble(value) || !(value > 1))
      return benchError("-f '" + factor +
                        "' is not a step factor above 1 (nccl-tests' -f)");
    options.factor = value;
  }
  if (options.minBytes > options.maxBytes)
    return benchError(llvm::formatv("-b {0} is above -e {1}", options.minBytes,
                                    options.maxBytes)
                          .str());
  return llvm::Error::success();
}

llvm::Error mlir::comm::sim::parseDataType(StringRef text,
                                           BenchOptions &options) {
  // nccl-tests' names (-d) and MLIR's, one table for the bench and the
  // log reader (Calibration.h).
  std::optional<NcclTestsType> type = lookupNcclTestsType(text);
  if (!type)
    return benchError("unknown --dtype '" + text + "'; expected one of " +
                      getNcclTestsTypeNames());
  options.elementBytes = type->bytes;
  options.typeName = type->name.str();
  options.floatElements = type->isFloat;
  return llvm::Error::success();
}

llvm::Expected<std::vector<BenchRow>>
mlir::comm::sim::runBench(const CostModel &model, const BenchOptions &options) {
  const Topology &topology = model.getTopology();
  uint64_t ranks = options.ranks.value_or(topology.getNumGPUs());
  if (ranks > topology.getNumGPUs())
    return benchError(llvm::formatv("--ranks {0} is more than the {1} GPUs of "
                                    "topology '{2}'",
                                    ranks, topology.getNumGPUs(),
                                    topology.getName())
                          .str());
  if (ranks < 2 && options.kind != CollectiveKind::Copy)
    return benchError("a collective needs at least 2 ranks, got " +
                      Twine(ranks));
  bool mustDivide = options.kind == CollectiveKind::AllGather ||
                    options.kind == CollectiveKind::ReduceScatter ||
                    options.kind == CollectiveKind::AllToAll;
  uint64_t unit = options.elementBytes * (mustDivide ? ranks : 1);
  bool single = options.minBytes == options.maxBytes;
  if (single && options.minBytes % options.elementBytes != 0)
    return benchError(llvm::formatv("{0} of {1} bytes is not a whole number "
                                    "of {2}-byte elements; use a multiple of "
                                    "{3} bytes",
                                    stringifyCollectiveKind(options.kind),
                                    options.minBytes, options.elementBytes,
                                    unit)
                          .str());
  if (single && options.minBytes % unit != 0)
    return benchError(
        llvm::formatv(
            "{0} of {1} bytes does not divide into {2} ranks of {3}-byte "
            "elements; use a multiple of {4} bytes",
            stringifyCollectiveKind(options.kind), options.minBytes, ranks,
            options.elementBytes, unit)
            .str());

  CollectiveRequest request;
  request.kind = options.kind;
  request.elementBytes = options.elementBytes;
  request.algorithm = options.algorithm;
  request.protocol = options.protocol;
  request.backend = options.backend;
  request.native = options.native;
  request.reduction = options.reduction;
  request.floatElements = options.floatElements;
  setNcclTestsRanks(request, options.kind,
                    llvm::to_vector(llvm::seq<int64_t>(0, ranks)));

  std::vector<BenchRow> rows;
  double size = options.minBytes;
  uint64_t last = 0;
  while (size <= options.maxBytes * (1 + 1e-9)) {
    uint64_t bytes = static_cast<uint64_t>(size) / unit * unit;
    size *= options.factor;
    if (bytes == 0 || bytes == last)
      continue;
    last = bytes;
    request.bytes = bytes;
    llvm::Expected<Prediction> prediction = model.predict(request);
    if (!prediction)
      return prediction.takeError();
    rows.push_back({bytes, *prediction});
  }
  if (rows.empty())
    return benchError(llvm::formatv("no size of --sizes {0}:{1} holds a whole "
                                    "element per rank (multiples of {2} "
                                    "bytes)",
                                    options.minBytes, options.maxBytes, unit)
                          .str());
  return rows;
}

void mlir::comm::sim::printBench(const CostModel &model,
                                 const BenchOptions &options,
                                 ArrayRef<BenchRow> rows,
                                 llvm::raw_ostream &os) {
  // The ranks the bench ran (a sendrecv's prediction counts one pair's).
  const Topology &topology = model.getTopology();
  uint64_t ranks = options.ranks.value_or(topology.getNumGPUs());
  if (options.json) {
    llvm::json::Array array;
    for (const BenchRow &row : rows) {
      const Prediction &p = row.prediction;
      array.push_back(llvm::json::Object{
          {"size_bytes", static_cast<int64_t>(row.bytes)},
          {"count", static_cast<int64_t>(row.bytes / options.elementBytes)},
          {"time_us", p.timeUs},
          {"algbw_GBps", p.algBandwidthGBps()},
          {"busbw_GBps", p.busBandwidthAchievedGBps()},
          {"algorithm", p.native ? std::string("native")
                                 : stringifyAlgorithm(p.algorithm).str()},
          {"protocol", p.native ? std::string("native")
                                : stringifyProtocol(p.protocol).str()},
          {"bound_us", p.boundUs},
          // The chunk size a pipelined schedule was timed with (what a
          // plan's chunk_bytes should say); 0: one chunk.
          {"chunk_bytes", static_cast<int64_t>(p.chunkBytes)}});
    }
    llvm::json::Object result{
        {"collective", stringifyCollectiveKind(options.kind).str()},
        {"topology", model.getTopology().getName()},
        {"ranks", static_cast<int64_t>(ranks)},
        {"dtype", options.typeName},
        {"backend", stringifyBackend(options.backend).str()},
        {"native", options.native},
        {"rows", std::move(array)}};
    os << llvm::formatv("{0:2}", llvm::json::Value(std::move(result))) << "\n";
    return;
  }
  // nccl-tests' own layout (common.cu of NVIDIA/nccl-tests), so that what
  // parses its output parses this: the same header comments, the same 13
  // columns in the same order (out-of-place, then in-place, which the model
  // does not tell apart), the same footer. comm's columns come after them.
  os << llvm::formatv("# nThread 1 nGpus 1 minBytes {0} maxBytes {1} step: "
                      "{2}(factor) warmup iters: 0 iters: 0 agg iters: 1 "
                      "validation: 0 graph: 0\n",
                      options.minBytes, options.maxBytes,
                      options.factor == std::floor(options.factor)
                          ? std::to_string(static_cast<int64_t>(options.factor))
                          : llvm::formatv("{0}", options.factor).str());
  os << "#\n# comm-sim bench: " << stringifyCollectiveKind(options.kind)
     << " on " << topology.getName() << ", " << ranks << " ranks ("
     << topology.getNumNodes() << " node(s)), "
     << stringifyBackend(options.backend) << " backend"
     << (options.native ? " (its own choice)" : "")
     << ": predicted by the cost model, not measured\n";
  os << "#\n# Using devices\n";
  for (uint64_t rank = 0; rank < ranks; ++rank) {
    const Device &gpu = topology.getDevice(topology.getGPU(rank));
    uint64_t node = rank / std::max(1u, topology.getGPUsPerNode());
    os << llvm::formatv("#  Rank {0,2} Group  0 Pid {1,6} on {2,10} device "
                        "{3,2} [{4}] {5}\n",
                        rank, 0, "node" + std::to_string(node),
                        gpu.index < 0 ? 0 : gpu.index,
                        gpu.busId.empty() ? "0x00" : gpu.busId,
                        gpu.model.empty() ? gpu.name : gpu.model);
  }
  bool reduces = options.kind == CollectiveKind::AllReduce ||
                 options.kind == CollectiveKind::ReduceScatter ||
                 options.kind == CollectiveKind::Reduce;
  bool rooted = options.kind == CollectiveKind::Broadcast ||
                options.kind == CollectiveKind::Reduce;
  os << "#\n#                                                              "
        "out-of-place                       in-place          \n";
  os << "#       size         count      type   redop    root     time   algbw"
        "   busbw #wrong     time   algbw   busbw #wrong  algorithm/protocol "
        "   bound      eff\n";
  os << "#        (B)    (elements)                               (us)  (GB/s)"
        "  (GB/s)            (us)  (GB/s)  (GB/s)                             "
        " (us)\n";
  double busSum = 0;
  for (const BenchRow &row : rows) {
    const Prediction &p = row.prediction;
    // nccl-tests prints fewer decimals as times grow.
    double t = p.timeUs;
    std::string time = t >= 10000   ? llvm::formatv("{0,7:F0}", t).str()
                       : t >= 100.0 ? llvm::formatv("{0,7:F1}", t).str()
                                    : llvm::formatv("{0,7:F2}", t).str();
    std::string half =
        llvm::formatv("  {0}  {1,6:F2}  {2,6:F2}  {3,5}", time,
                      p.algBandwidthGBps(), p.busBandwidthAchievedGBps(), "N/A")
            .str();
    os << llvm::formatv("{0,12}  {1,12}  {2,8}  {3,6}  {4,6}", row.bytes,
                        row.bytes / options.elementBytes, options.typeName,
                        reduces ? stringifyReductionKind(options.reduction)
                                : "none",
                        rooted ? 0 : -1)
       << half << half
       << llvm::formatv("  {0,-20} {1,8:F2} {2,7:P0}\n", describeAlgorithm(p),
                        p.boundUs, p.efficiency);
    busSum += 2 * p.busBandwidthAchievedGBps();
    if (options.explain) {
      std::string text;
      llvm::raw_string_ostream stream(text);
      CostModel::explain(p, stream);
      for (StringRef line : llvm::split(StringRef(text).rtrim(), '\n'))
        os << "#     " << line << "\n";
    }
  }
  os << "# Out of bounds values : 0 OK\n";
  os << llvm::formatv("# Avg bus bandwidth    : {0:F4} \n#\n",
                      busSum / (2.0 * rows.size()));
}

void mlir::comm::sim::plotBench(const BenchOptions &options,
                                ArrayRef<BenchRow> rows, StringRef title,
                                llvm::raw_ostream &os) {
  const double width = 760, height = 420, left = 70, right = 20, top = 40,
               bottom = 60;
  double maxBw = 1;
  for (const BenchRow &row : rows) {
    maxBw = std::max(maxBw, row.prediction.busBandwidthAchievedGBps());
    double boundBw =
        row.prediction.boundUs > 0
            ? row.bytes / (row.prediction.boundUs * 1e3) *
                  getBusBandwidthFactor(options.kind, row.prediction.ranks)
            : 0;
    maxBw = std::max(maxBw, boundBw);
  }
  double lo = std::log2(double(rows.front().bytes));
  double hi = std::log2(double(rows.back().bytes));
  if (hi <= lo)
    hi = lo + 1;
  auto x = [&](double bytes) {
    return left + (std::log2(bytes) - lo) / (hi - lo) * (width - left - right);
  };
  auto y = [&](double bw) {
    return top + (1 - bw / (maxBw * 1.1)) * (height - top - bottom);
  };
  os << llvm::formatv("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" "
                      "height=\"{1}\" font-family=\"Helvetica\" "
                      "font-size=\"12\">\n",
                      width, height);
  os << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  os << llvm::formatv("<text x=\"{0}\" y=\"22\" font-size=\"14\">{1}</text>\n",
                      left, escapeXml(title));
  // Axes and ticks.
  os << llvm::formatv("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" "
                      "stroke=\"black\"/>\n",
                      left, height - bottom, width - right);
  os << llvm::formatv("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" "
                      "stroke=\"black\"/>\n",
                      left, top, height - bottom);
  for (double e = std::ceil(lo); e <= hi; e += 2) {
    double bytes = std::exp2(e);
    std::string label =
        bytes >= (1 << 30)   ? llvm::formatv("{0}G", bytes / (1 << 30)).str()
        : bytes >= (1 << 20) ? llvm::formatv("{0}M", bytes / (1 << 20)).str()
        : bytes >= 1024      ? llvm::formatv("{0}K", bytes / 1024).str()
                             : llvm::formatv("{0}", bytes).str();
    os << llvm::formatv("<text x=\"{0}\" y=\"{1}\" text-anchor=\"middle\">"
                        "{2}</text>\n",
                        x(bytes), height - bottom + 18, label);
  }
  for (int i = 0; i <= 5; ++i) {
    double bw = maxBw * 1.1 * i / 5;
    os << llvm::formatv("<text x=\"{0}\" y=\"{1}\" text-anchor=\"end\">"
                        "{2:F0}</text>\n",
                        left - 6, y(bw) + 4, bw);
    os << llvm::formatv("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" "
                        "stroke=\"#ddd\"/>\n",
                        left, y(bw), width - right);
  }
  os << llvm::formatv("<text x=\"{0}\" y=\"{1}\" text-anchor=\"middle\">"
                      "message size (bytes)</text>\n",
                      (left + width - right) / 2, height - 20);
  os << llvm::formatv("<text x=\"18\" y=\"{0}\" transform=\"rotate(-90 18 "
                      "{0})\" text-anchor=\"middle\">bus bandwidth "
                      "(GB/s)</text>\n",
                      (top + height - bottom) / 2);
  auto polyline = [&](auto value, StringRef color, StringRef dash) {
    os << "<polyline fill=\"none\" stroke=\"" << color
       << "\" stroke-width=\"2\" stroke-dasharray=\"" << dash << "\" points=\"";
    for (const BenchRow &row : rows)
      os << llvm::formatv("{0:F1},{1:F1} ", x(row.bytes), y(value(row)));
    os << "\"/>\n";
  };
  polyline(
      [](const BenchRow &r) { return r.prediction.busBandwidthAchievedGBps(); },
      "#1f77b4", "");
  polyline(
      [&](const BenchRow &r) {
        return r.prediction.boundUs > 0
                   ? r.bytes / (r.prediction.boundUs * 1e3) *
                         getBusBandwidthFactor(options.kind, r.prediction.ranks)
                   : 0;
      },
      "#d62728", "6,4");
  os << llvm::formatv("<text x=\"{0}\" y=\"{1}\" fill=\"#1f77b4\">predicted "
                      "busbw</text>\n",
                      left + 10, top + 14);
  os << llvm::formatv(
      "<text x=\"{0}\" y=\"{1}\" fill=\"#d62728\">bound</text>\n", left + 130,
      top + 14);
  os << "</svg>\n";
}
