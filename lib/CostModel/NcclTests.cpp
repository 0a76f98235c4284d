//===- NcclTests.cpp - read nccl-tests output as calibration data -*- C++
//-*-===//
//
// A user who runs nccl-tests once on their cluster has the measurements that
// calibrate the cost model for it. This reads the tests' standard output as
// printed, rather than a normalized CSV: the column header gives the
// positions (old releases lack `root`, some logs carry mpirun's rank
// prefixes or NCCL's INFO lines), the "Rank N ... on HOST" lines give the
// ranks, and the file name gives the collective.
//
//===----------------------------------------------------------------------===//

#include "comm/CostModel/Calibration.h"
#include "comm/Topology/Topology.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cmath>
#include <map>

using namespace mlir;
using namespace mlir::comm;

/// The collective an nccl-tests binary measures, from a name that holds the
/// binary's name (all_reduce_perf.log, run-alltoall_perf-16.txt).
static std::optional<CollectiveKind> getKindFromName(StringRef name) {
  // Longest first: "all_reduce" and "reduce_scatter" hold "reduce".
  static const std::pair<StringRef, CollectiveKind> names[] = {
      {"reduce_scatter", CollectiveKind::ReduceScatter},
      {"all_reduce", CollectiveKind::AllReduce},
      {"allreduce", CollectiveKind::AllReduce},
      {"all_gather", CollectiveKind::AllGather},
      {"allgather", CollectiveKind::AllGather},
      {"alltoall", CollectiveKind::AllToAll},
      {"all_to_all", CollectiveKind::AllToAll},
      {"sendrecv", CollectiveKind::SendRecv},
      {"broadcast", CollectiveKind::Broadcast},
      {"reduce", CollectiveKind::Reduce}};
  for (const auto &[text, kind] : names)
    if (name.contains(text))
      return kind;
  return std::nullopt;
}

static constexpr CollectiveKind kMeasured[] = {
    CollectiveKind::AllReduce, CollectiveKind::ReduceScatter,
    CollectiveKind::AllGather, CollectiveKind::AllToAll,
    CollectiveKind::Broadcast, CollectiveKind::Reduce,
    CollectiveKind::SendRecv};

std::optional<CollectiveKind>
mlir::comm::lookupMeasuredCollective(StringRef name) {
  std::optional<CollectiveKind> kind = symbolizeCollectiveKind(name);
  if (kind && llvm::is_contained(kMeasured, *kind))
    return kind;
  return std::nullopt;
}

StringRef mlir::comm::getMeasuredCollectiveNames() {
  static const std::string names = [] {
    std::string text;
    for (auto [index, kind] : llvm::enumerate(kMeasured))
      text += (index == 0                          ? ""
               : index + 1 == std::size(kMeasured) ? " or "
                                                   : ", ") +
              stringifyCollectiveKind(kind).str();
    return text;
  }();
  return names;
}

namespace {
struct NamedType {
  StringRef ncclTests, shortName;
  unsigned bytes;
  bool isFloat;
};
} // namespace

static const NamedType kTypes[] = {
    {"int8", "i8", 1, false},        {"uint8", "u8", 1, false},
    {"int32", "i32", 4, false},      {"uint32", "u32", 4, false},
    {"int64", "i64", 8, false},      {"uint64", "u64", 8, false},
    {"half", "f16", 2, true},        {"float", "f32", 4, true},
    {"double", "f64", 8, true},      {"bfloat16", "bf16", 2, true},
    {"f8e4m3", "f8E4M3FN", 1, true}, {"f8e5m2", "f8E5M2", 1, true}};

std::optional<NcclTestsType> mlir::comm::lookupNcclTestsType(StringRef name) {
  for (const NamedType &type : kTypes)
    if (name == type.ncclTests || name == type.shortName)
      return NcclTestsType{type.bytes, type.isFloat, type.ncclTests};
  return std::nullopt;
}

StringRef mlir::comm::getNcclTestsTypeNames() {
  static const std::string names = [] {
    std::string text;
    for (const NamedType &type : kTypes)
      text += (text.empty() ? "" : ", ") + type.ncclTests.str() + " (" +
              type.shortName.str() + ")";
    return text;
  }();
  return names;
}

/// A reduction as nccl-tests names it (its test_opnames): false for a
/// name it does not print; "none" (the collectives that do not reduce)
/// leaves `reduction` empty. "mulsum" is ncclRedOpCreatePreMulSum, which
/// NCCL runs as it runs a floating-point avg (a sum of pre-scaled inputs):
/// the model sees it as avg.
static bool getNcclTestsReduction(StringRef name,
                                  std::optional<ReductionKind> &reduction) {
  if (name == "none") {
    reduction.reset();
    return true;
  }
  reduction = name == "mulsum" ? std::optional(ReductionKind::avg)
                               : symbolizeReductionKind(name);
  // comm's bitwise reductions are not nccl-tests'.
  return reduction && llvm::is_contained(
                          {"sum", "prod", "max", "min", "avg", "mulsum"}, name);
}

/// Drops mpirun's "[1,0]<stdout>:" and similar rank prefixes.
static StringRef stripRankPrefix(StringRef line) {
  if (line.starts_with("[")) {
    size_t close = line.find("]<stdout>:");
    if (close != StringRef::npos)
      return line.drop_front(close + 10);
  }
  return line;
}

llvm::Expected<std::vector<MeasuredPoint>>
mlir::comm::readNcclTestsLog(StringRef path,
                             const NcclTestsLogOptions &options) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return makeTopologyError(path, 0,
                             "cannot read: " + buffer.getError().message());
  StringRef fileName = llvm::sys::path::filename(path);
  std::optional<CollectiveKind> kind = options.kind;
  if (!kind)
    kind = getKindFromName(fileName);
  if (!kind)
    return makeTopologyError(
        path, 0,
        "cannot tell which collective this log measured: name the file after "
        "the nccl-tests binary (all_reduce_perf.log, all_gather_perf.log, "
        "reduce_scatter_perf.log, alltoall_perf.log, broadcast_perf.log, "
        "reduce_perf.log, sendrecv_perf.log) or pass --collective");

  // Columns of the data rows, from the header line that names them.
  int sizeColumn = -1, busbwColumn = -1, typeColumn = -1, redopColumn = -1;
  unsigned headerLine = 0;
  llvm::StringSet<> ranks;
  std::map<unsigned, std::pair<std::string, unsigned>> placedOn;
  std::vector<MeasuredPoint> points;
  SmallVector<StringRef> lines;
  (*buffer)->getBuffer().split(lines, '\n');
  for (auto [index, raw] : llvm::enumerate(lines)) {
    unsigned lineNo = index + 1;
    StringRef line = stripRankPrefix(raw).trim();
    bool comment = line.consume_front("#");
    SmallVector<StringRef> words;
    llvm::SplitString(line, words);
    if (words.empty())
      continue;
    // "Rank  3 Group  0 Pid 1890 on worker-1 device  3 [0x99] NVIDIA H100".
    if (words.size() >= 2 && words[0] == "Rank" &&
        llvm::all_of(words[1], llvm::isDigit)) {
      ranks.insert(words[1]);
      // "... on HOST device D": where it ran (unknown where either is
      // missing, as in logs cut short).
      auto on = llvm::find(words, "on"), device = llvm::find(words, "device");
      unsigned rank, index;
      if (on + 1 < words.end() && device + 1 < words.end() &&
          !words[1].getAsInteger(10, rank) &&
          !device[1].getAsInteger(10, index))
        placedOn[rank] = {on[1].str(), index};
      continue;
    }
    if (words[0] == "size" && llvm::is_contained(words, "busbw")) {
      // "size count type redop root time algbw busbw #wrong time ...": the
      // first busbw is the out-of-place one.
      sizeColumn = 0;
      busbwColumn = llvm::find(words, "busbw") - words.begin();
      auto columnOf = [&](StringRef name) {
        auto it = llvm::find(words, name);
        return it == words.end() ? -1 : int(it - words.begin());
      };
      typeColumn = columnOf("type");
      redopColumn = columnOf("redop");
      headerLine = lineNo;
      continue;
    }
    if (comment || busbwColumn < 0)
      continue;
    uint64_t bytes;
    if (words[sizeColumn].getAsInteger(10, bytes))
      continue; // NCCL's INFO lines and other output between the rows
    if (static_cast<int>(words.size()) <= busbwColumn)
      return makeTopologyError(
          path, lineNo,
          "a data row with " + Twine(words.size()) +
              " columns; the header on line " + Twine(headerLine) +
              " puts busbw in column " + Twine(busbwColumn + 1));
    double busbw;
    // A NaN or infinite figure made every fit's objective NaN.
    if (words[busbwColumn].getAsDouble(busbw) || !std::isfinite(busbw) ||
        busbw < 0)
      return makeTopologyError(path, lineNo,
                               "busbw '" + words[busbwColumn] +
                                   "' is not a bandwidth in GB/s (a finite, "
                                   "non-negative number)");
    if (bytes == 0 || busbw == 0)
      continue; // nothing moved, or nothing measured
    MeasuredPoint point;
    // `-d all` and `-o all` print a row per type and reduction: each is its
    // own point, predicted for what it measured.
    if (typeColumn >= 0 && typeColumn < int(words.size())) {
      auto type = lookupNcclTestsType(words[typeColumn]);
      if (!type)
        return makeTopologyError(path, lineNo,
                                 "unknown element type '" + words[typeColumn] +
                                     "' in the type column; expected one of " +
                                     getNcclTestsTypeNames());
      point.elementBytes = type->bytes;
      point.floatElements = type->isFloat;
      point.typeName = type->name.str();
    }
    if (redopColumn >= 0 && redopColumn < int(words.size())) {
      if (!getNcclTestsReduction(words[redopColumn], point.reduction))
        return makeTopologyError(
            path, lineNo,
            "unknown reduction '" + words[redopColumn] +
                "' in the redop column; expected one nccl-tests prints: "
                "sum, prod, max, min, avg, mulsum or none");
    }
    point.system = llvm::sys::path::stem(fileName).str();
    point.topology = options.topology;
    point.kind = *kind;
    point.bytes = bytes;
    point.busBandwidthGBps = busbw;
    point.source = path.str();
    point.line = lineNo;
    points.push_back(std::move(point));
  }
  if (busbwColumn < 0)
    return makeTopologyError(path, 0,
                             "no nccl-tests column header (a line naming "
                             "size ... busbw) in this file: is it the "
                             "output of an nccl-tests binary?");
  if (points.empty())
    return makeTopologyError(path, 0, "no data row with a bandwidth");
  if (options.ranks && !ranks.empty() && options.ranks != ranks.size())
    return makeTopologyError(
        path, 0,
        "--ranks " + Twine(options.ranks) + " contradicts the log's " +
            Twine(ranks.size()) +
            " 'Rank' lines (--ranks is for a log without them)");
  uint64_t rankCount = options.ranks ? options.ranks : ranks.size();
  if (rankCount < 2)
    return makeTopologyError(
        path, 0,
        rankCount ? "the log names one rank; a collective needs two"
                  : "the log has no '# Using devices' rank lines: pass "
                    "--ranks");
  // Where each rank ran, when every rank 0..n-1 says: machines numbered in
  // the order their hosts first appear (a 4 + 4 run over two machines was
  // predicted as 8 GPUs of one, over NVLink instead of the network).
  std::vector<std::pair<unsigned, unsigned>> placement;
  if (placedOn.size() == rankCount &&
      placedOn.rbegin()->first + 1 == rankCount) {
    std::vector<std::string> hosts;
    for (auto &[rank, where] : placedOn) {
      auto it = llvm::find(hosts, where.first);
      if (it == hosts.end())
        it = hosts.insert(hosts.end(), where.first);
      placement.push_back({unsigned(it - hosts.begin()), where.second});
    }
  }
  for (MeasuredPoint &point : points) {
    point.ranks = rankCount;
    point.placement = placement;
  }
  return points;
}
