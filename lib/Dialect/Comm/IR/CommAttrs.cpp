//===- CommAttrs.cpp - comm enums and attributes ---------------*- C++ -*-===//

#include "comm/Dialect/Comm/IR/CommAttrs.h"
#include "comm/Dialect/Comm/IR/CommDialect.h"
#include "comm/Dialect/Comm/IR/EnumNames.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::comm;

#include "comm/Dialect/Comm/CommEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "comm/Dialect/Comm/CommAttrs.cpp.inc"

void CommDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "comm/Dialect/Comm/CommAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

bool mlir::comm::isValidReduction(ReductionKind kind, Type elementType) {
  switch (kind) {
  case ReductionKind::band:
  case ReductionKind::bor:
  case ReductionKind::bxor:
    return isa<IntegerType>(elementType);
  case ReductionKind::avg:
    return isa<FloatType>(elementType);
  case ReductionKind::sum:
  case ReductionKind::prod:
  case ReductionKind::min:
  case ReductionKind::max:
    return isa<IntegerType, FloatType>(elementType);
  }
  return false;
}

StringRef mlir::comm::getTransferName(Operation *op) {
  StringRef name = op->getName().stripDialect();
  name.consume_front("buffer.");
  return name;
}

//===----------------------------------------------------------------------===//
// ReplicaGroupsAttr
//===----------------------------------------------------------------------===//

LogicalResult
ReplicaGroupsAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                          ArrayRef<int64_t> ranks, int64_t groupSize) {
  if (ranks.empty())
    return emitError() << "replica groups must contain at least one group";
  if (groupSize <= 0)
    return emitError() << "replica group must not be empty";
  if (ranks.size() % groupSize != 0)
    return emitError() << "replica groups must all have " << groupSize
                       << " ranks, but " << ranks.size()
                       << " ranks do not divide into groups of that size";
  llvm::SmallDenseSet<int64_t> seen;
  for (int64_t rank : ranks) {
    if (rank < 0)
      return emitError() << "rank must be non-negative, got " << rank;
    if (!seen.insert(rank).second)
      return emitError() << "rank " << rank
                         << " appears more than once in the replica groups";
  }
  return success();
}

ReplicaGroupsAttr
ReplicaGroupsAttr::get(MLIRContext *context,
                       ArrayRef<SmallVector<int64_t>> groups) {
  SmallVector<int64_t> flat;
  for (const auto &group : groups)
    llvm::append_range(flat, group);
  int64_t size = groups.empty() ? 0 : groups.front().size();
  return get(context, flat, size);
}

int64_t ReplicaGroupsAttr::getMaxRank() const {
  int64_t maxRank = -1;
  for (int64_t rank : getRanks())
    maxRank = std::max(maxRank, rank);
  return maxRank;
}

int64_t ReplicaGroupsAttr::getPositionOf(int64_t rank) const {
  ArrayRef<int64_t> ranks = getRanks();
  for (size_t i = 0, e = ranks.size(); i != e; ++i)
    if (ranks[i] == rank)
      return i % getGroupSize();
  return -1;
}

int64_t ReplicaGroupsAttr::getGroupIndexOf(int64_t rank) const {
  ArrayRef<int64_t> ranks = getRanks();
  for (size_t i = 0, e = ranks.size(); i != e; ++i)
    if (ranks[i] == rank)
      return i / getGroupSize();
  return -1;
}

void ReplicaGroupsAttr::printBare(AsmPrinter &printer) const {
  printer << '[';
  for (int64_t g = 0, e = getNumGroups(); g != e; ++g) {
    if (g)
      printer << ", ";
    printer << '[';
    llvm::interleaveComma(getGroup(g), printer);
    printer << ']';
  }
  printer << ']';
}

ReplicaGroupsAttr ReplicaGroupsAttr::parseBare(AsmParser &parser) {
  SMLoc startLoc = parser.getCurrentLocation();
  SmallVector<int64_t> ranks;
  llvm::SmallDenseMap<int64_t, int64_t> groupOfRank;
  int64_t groupSize = -1, numGroups = 0;
  auto parseGroup = [&]() -> ParseResult {
    SMLoc groupLoc = parser.getCurrentLocation();
    int64_t size = 0;
    auto parseRank = [&]() -> ParseResult {
      SMLoc rankLoc = parser.getCurrentLocation();
      int64_t rank;
      if (parser.parseInteger(rank))
        return failure();
      if (rank < 0)
        return parser.emitError(rankLoc)
               << "rank must be non-negative, got " << rank;
      auto [it, inserted] = groupOfRank.try_emplace(rank, numGroups);
      if (!inserted) {
        if (it->second == numGroups)
          return parser.emitError(rankLoc)
                 << "rank " << rank << " appears twice in replica group "
                 << numGroups;
        return parser.emitError(rankLoc)
               << "rank " << rank << " appears in replica groups "
               << it->second << " and " << numGroups
               << "; groups must be disjoint";
      }
      ranks.push_back(rank);
      ++size;
      return success();
    };
    if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square,
                                       parseRank, "in a replica group"))
      return failure();
    if (size == 0)
      return parser.emitError(groupLoc)
             << "replica group " << numGroups << " is empty";
    if (groupSize >= 0 && size != groupSize)
      return parser.emitError(groupLoc)
             << "replica group " << numGroups << " has " << size
             << " ranks, but group 0 has " << groupSize
             << "; all groups must have the same size";
    groupSize = size;
    ++numGroups;
    return success();
  };
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, parseGroup,
                                     "in the replica groups"))
    return {};
  if (numGroups == 0) {
    parser.emitError(startLoc)
        << "replica groups must contain at least one group";
    return {};
  }
  return getChecked(
      [&] { return parser.emitError(startLoc); }, parser.getContext(), ranks,
      groupSize);
}

Attribute ReplicaGroupsAttr::parse(AsmParser &parser, Type) {
  if (parser.parseLess())
    return {};
  ReplicaGroupsAttr attr = parseBare(parser);
  if (!attr || parser.parseGreater())
    return {};
  return attr;
}

void ReplicaGroupsAttr::print(AsmPrinter &printer) const {
  printer << '<';
  printBare(printer);
  printer << '>';
}

//===----------------------------------------------------------------------===//
// PlanAttr
//===----------------------------------------------------------------------===//

LogicalResult PlanAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               std::optional<Algorithm> algorithm,
                               std::optional<Protocol> protocol,
                               std::optional<int64_t> channels,
                               std::optional<int64_t> chunkBytes,
                               Type precision, std::optional<Route> route,
                               std::optional<int64_t> stream) {
  if (channels && *channels < 1)
    return emitError() << "plan 'channels' must be at least 1, got "
                       << *channels;
  if (chunkBytes && *chunkBytes < 1)
    return emitError() << "plan 'chunk_bytes' must be at least 1, got "
                       << *chunkBytes;
  if (stream && *stream < 0)
    return emitError() << "plan 'stream' must be non-negative, got "
                       << *stream;
  if (precision && !isa<FloatType>(precision))
    return emitError() << "plan 'precision' must be a floating-point type, got "
                       << precision;
  return success();
}

/// Parses a keyword naming a case of an enum, with an error listing the
/// valid spellings.
template <typename EnumT>
static ParseResult parseEnumKeyword(AsmParser &parser, StringRef what,
                                    std::optional<EnumT> &result) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  result = symbolizeEnum<EnumT>(keyword);
  if (result)
    return success();
  return parser.emitError(loc)
         << "unknown " << what << " '" << keyword << "'; expected one of "
         << getEnumNames<EnumT>();
}

Attribute PlanAttr::parse(AsmParser &parser, Type) {
  static const char *const fieldNames[] = {
      "algorithm", "protocol", "channels", "chunk_bytes",
      "precision", "route",    "stream"};
  std::optional<Algorithm> algorithm;
  std::optional<Protocol> protocol;
  std::optional<int64_t> channels, chunkBytes, stream;
  std::optional<Route> route;
  Type precision;
  llvm::StringSet<> seen;
  SMLoc startLoc = parser.getCurrentLocation();

  auto parseField = [&]() -> ParseResult {
    SMLoc keyLoc = parser.getCurrentLocation();
    StringRef key;
    if (parser.parseKeyword(&key))
      return failure();
    if (!llvm::is_contained(fieldNames, key)) {
      auto diag = parser.emitError(keyLoc)
                  << "unknown plan field '" << key << "'; expected one of ";
      llvm::interleaveComma(fieldNames, diag);
      return diag;
    }
    if (!seen.insert(key).second)
      return parser.emitError(keyLoc)
             << "plan field '" << key << "' is given more than once";
    if (parser.parseEqual())
      return failure();
    if (key == "algorithm")
      return parseEnumKeyword(parser, "algorithm", algorithm);
    if (key == "protocol")
      return parseEnumKeyword(parser, "protocol", protocol);
    if (key == "route")
      return parseEnumKeyword(parser, "route", route);
    if (key == "precision")
      return parser.parseType(precision);
    int64_t value;
    if (parser.parseInteger(value))
      return failure();
    if (key == "channels")
      channels = value;
    else if (key == "chunk_bytes")
      chunkBytes = value;
    else
      stream = value;
    return success();
  };
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::LessGreater,
                                     parseField, "in a plan"))
    return {};
  return getChecked([&] { return parser.emitError(startLoc); },
                    parser.getContext(), algorithm, protocol, channels,
                    chunkBytes, precision, route, stream);
}

void PlanAttr::print(AsmPrinter &printer) const {
  SmallVector<std::string> fields;
  auto add = [&](StringRef key, const Twine &value) {
    fields.push_back((key + " = " + value).str());
  };
  if (auto algorithm = getAlgorithm())
    add("algorithm", stringifyAlgorithm(*algorithm));
  if (auto protocol = getProtocol())
    add("protocol", stringifyProtocol(*protocol));
  if (auto channels = getChannels())
    add("channels", Twine(*channels));
  if (auto chunkBytes = getChunkBytes())
    add("chunk_bytes", Twine(*chunkBytes));
  if (Type precision = getPrecision()) {
    std::string text;
    llvm::raw_string_ostream os(text);
    precision.print(os);
    add("precision", text);
  }
  if (auto route = getRoute())
    add("route", stringifyRoute(*route));
  if (auto stream = getStream())
    add("stream", Twine(*stream));
  printer << '<';
  llvm::interleaveComma(fields, printer);
  printer << '>';
}

PlanAttr
mlir::comm::getPlanWith(MLIRContext *context, PlanAttr plan,
                        llvm::function_ref<void(PlanFields &)> update) {
  PlanFields fields;
  if (plan)
    fields = {plan.getAlgorithm(),  plan.getProtocol(),  plan.getChannels(),
              plan.getChunkBytes(), plan.getPrecision(), plan.getRoute(),
              plan.getStream()};
  update(fields);
  return PlanAttr::get(context, fields.algorithm, fields.protocol,
                       fields.channels, fields.chunkBytes, fields.precision,
                       fields.route, fields.stream);
}
