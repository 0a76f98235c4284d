//===- Shardings.cpp - programs XLA's partitioner would still split -*- C++
//-*-===//
//
// comm imports the per-process program of a JAX step whose collectives are
// explicit: shard_map (a manual computation) or pmap. A program partitioned
// by jit shardings instead is written for the whole mesh, and XLA's SPMD
// partitioner (GSPMD or Shardy) would split its compute and insert the
// collectives it needs. comm does not run the partitioner, so it would
// import every process computing the whole batch, without a collective.
// This finds the shardings that ask for that, in both of JAX's exports.
//
// A sharding splits a value when it tiles a dimension over more than one
// device: GSPMD's `mhlo.sharding = "{devices=[8,1]<=[8]}"` (not
// `{replicated}`, `{manual}`, or tiles of 1 beside replicated or manual
// subgroups), Shardy's `#sdy.sharding<@mesh, [{"d"}, {}]>` (an axis of more
// than one device, or `unreduced`). A split value (an argument of such a
// sharding, a shard_map's result, what a sharding op splits) is what
// shard_map's boundary looks like from outside, and may only cross it: reach
// a boundary of its sharding, a sharding op of its sharding (JAX's jit
// in_shardings and with_sharding_constraint), or the return (with its
// sharding or none). Compute reading it, or another sharding for it, would
// have the partitioner split the compute or reshard the value: a located
// error. So is any other op asking for a split (a sharding on compute; in a
// manual computation, over an axis that is not manual), and a split result
// that is not a split value. Compute on values no sharding splits stays
// whole on every process, as the importer always took it; a sharding op
// splitting such a value gives each process its slice, which needs no
// collective.
//
//===----------------------------------------------------------------------===//

#include "StableHLOToComm.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::comm;

namespace {
/// A sharding as the check needs it.
struct Sharding {
  /// As the input writes it, for messages.
  std::string text;
  /// Whether it splits the value over devices (see the file comment).
  bool partitioned = false;
  /// Equal for two shardings of the same layout (GSPMD: the text without
  /// metadata; Shardy: the mesh and each dimension's axes, without `?`).
  std::string layout;
  /// Shardy only: its mesh's name and every axis it names.
  std::string mesh;
  SmallVector<std::string> axes;
};

/// The sizes of the axes of each `sdy.mesh`, by symbol name.
using Meshes = llvm::StringMap<llvm::StringMap<int64_t>>;
} // namespace

static bool isNamed(Operation *op, StringRef name) {
  return op->getName().getStringRef() == name;
}

static bool isCustomCall(Operation *op, StringRef target) {
  if (!isNamed(op, "stablehlo.custom_call"))
    return false;
  auto name = op->getAttrOfType<StringAttr>("call_target_name");
  return name && name.getValue() == target;
}

/// `op` in messages: its name, and a custom call's target.
static std::string describe(Operation *op) {
  std::string text = ("'" + op->getName().getStringRef() + "'").str();
  if (auto target = op->getAttrOfType<StringAttr>("call_target_name"))
    text += (" @" + target.getValue()).str();
  return text;
}

/// Walks `text` from `from`, skipping quoted strings, with the bracket
/// depth ([ { ( < open, ] } ) > close) after each character; stops where
/// `visit(i, c, depth)` returns true and returns that index (npos if never).
static size_t scanBrackets(StringRef text, size_t from,
                           llvm::function_ref<bool(size_t, char, int)> visit) {
  int depth = 0;
  bool quoted = false;
  for (size_t i = from; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"')
      quoted = !quoted;
    if (quoted)
      continue;
    if (c == '[' || c == '{' || c == '(' || c == '<')
      ++depth;
    else if (c == ']' || c == '}' || c == ')' || c == '>')
      --depth;
    if (visit(i, c, depth))
      return i;
  }
  return StringRef::npos;
}

/// The text inside the brackets that open at `text[open]`, without them,
/// and the rest after the closing one; quoted strings are skipped.
static std::pair<StringRef, StringRef> splitBracketed(StringRef text,
                                                      size_t open) {
  size_t close = scanBrackets(text, open, [](size_t, char c, int depth) {
    return depth == 0 && (c == ']' || c == '}' || c == ')' || c == '>');
  });
  if (close == StringRef::npos)
    return {text.drop_front(open + 1), ""};
  return {text.slice(open + 1, close), text.drop_front(close + 1)};
}

/// The top-level comma-separated items of `text`.
static SmallVector<StringRef> splitItems(StringRef text) {
  SmallVector<StringRef> items;
  size_t start = 0;
  scanBrackets(text, 0, [&](size_t i, char c, int depth) {
    if (c == ',' && depth == 0) {
      items.push_back(text.slice(start, i).trim());
      start = i + 1;
    }
    return false;
  });
  if (!text.slice(start, text.size()).trim().empty())
    items.push_back(text.slice(start, text.size()).trim());
  return items;
}

/// The quoted names in `text` (`{"x", "y":(1)2, ?}` gives x and y:(1)2).
static SmallVector<std::string> getQuotedNames(StringRef text) {
  SmallVector<std::string> names;
  while (true) {
    size_t open = text.find('"');
    if (open == StringRef::npos)
      return names;
    size_t close = text.find('"', open + 1);
    if (close == StringRef::npos)
      return names;
    std::string name = text.slice(open + 1, close).str();
    text = text.drop_front(close + 1);
    // A sub-axis: `"y":(1)2`.
    if (text.starts_with(":(")) {
      size_t end = text.find_first_of(",}");
      name += text.take_front(end).str();
      text = text.drop_front(std::min(end, text.size()));
    }
    names.push_back(name);
  }
}

/// Reads GSPMD's `mhlo.sharding` text (`depth`: of tuples around it).
static Sharding readGspmd(StringRef text, unsigned depth = 0) {
  Sharding sharding;
  sharding.text = ("\"" + text + "\"").str();
  std::string layout = text.str();
  // Metadata (the op that made it) does not change the layout.
  for (size_t at; (at = layout.find(" metadata={")) != std::string::npos;) {
    std::string rest = splitBracketed(layout, at + 10).second.str();
    layout = layout.substr(0, at) + rest;
  }
  sharding.layout = layout;
  StringRef body = StringRef(layout).trim();
  // Not a sharding we know (or tuples nested deeper than XLA writes them):
  // the partitioner's to read, so the user's to check.
  sharding.partitioned = true;
  if (!body.consume_front("{") || !body.consume_back("}") || depth > 2)
    return sharding;
  body = body.trim();
  if (body.starts_with("{")) { // a tuple: one sharding per element
    sharding.partitioned = llvm::any_of(splitItems(body), [&](StringRef item) {
      return readGspmd(item, depth + 1).partitioned;
    });
    return sharding;
  }
  if (body == "replicated" || body == "manual") {
    sharding.partitioned = false;
    return sharding;
  }
  // Tiles, devices=[d0,...,dn]..., the last dimension (or the last k) a
  // subgroup that replicates or is manual: a split where a tile is not 1.
  // Anything else (maximal, unknown) is the partitioner's to place.
  if (!body.consume_front("devices=["))
    return sharding;
  SmallVector<StringRef> dims;
  body.take_until([](char c) { return c == ']'; }).split(dims, ',');
  size_t subgroups = 0;
  if (body.contains("last_tile_dim_replicate"))
    subgroups = 1;
  if (size_t at = body.find("last_tile_dims={"); at != StringRef::npos)
    subgroups = splitItems(splitBracketed(body, at + 15).first).size();
  sharding.partitioned =
      llvm::any_of(ArrayRef(dims).drop_back(std::min(subgroups, dims.size())),
                   [](StringRef dim) {
                     int64_t size;
                     return dim.trim().getAsInteger(10, size) || size != 1;
                   });
  return sharding;
}

/// Whether `axis` of `mesh` is more than one device (a sub-axis always is;
/// an axis of a mesh not known may be).
static bool splitsOver(const Meshes &meshes, StringRef mesh, StringRef axis) {
  auto it = meshes.find(mesh);
  if (axis.contains(':') || it == meshes.end() || !it->second.count(axis))
    return true;
  return it->second.lookup(axis) != 1;
}

/// Reads one of Shardy's tensor shardings: the text inside `sharding<...>`
/// (`@mesh, [{"d"}, {}], replicated={"e"}`).
static Sharding readShardy(StringRef body, const Meshes &meshes) {
  Sharding sharding;
  sharding.text = ("#sdy.sharding<" + body + ">").str();
  SmallVector<StringRef> items = splitItems(body);
  StringRef mesh = items.empty() ? "" : items.front();
  sharding.mesh = mesh.consume_front("@") ? mesh.str() : "";
  auto splits = [&](StringRef axis) {
    return splitsOver(meshes, sharding.mesh, axis);
  };
  sharding.layout = items.empty() ? "" : items.front().str();
  if (items.size() > 1 && items[1].starts_with("[")) {
    for (StringRef dim : splitItems(splitBracketed(items[1], 0).first)) {
      sharding.layout += ";";
      for (const std::string &axis : getQuotedNames(dim)) {
        sharding.layout += axis + ",";
        sharding.axes.push_back(axis);
        sharding.partitioned |= splits(axis);
      }
    }
  }
  // Partial sums the partitioner would still reduce.
  for (StringRef item :
       ArrayRef(items).drop_front(std::min<size_t>(2, items.size())))
    if (item.starts_with("unreduced="))
      for (const std::string &axis : getQuotedNames(item)) {
        sharding.axes.push_back(axis);
        sharding.partitioned |= splits(axis);
      }
  return sharding;
}

/// The shardings an attribute holds: GSPMD's string, Shardy's
/// `#sdy.sharding<...>` or `#sdy.sharding_per_value<[<...>, ...]>`; none
/// for anything else.
static SmallVector<Sharding> readShardings(Attribute attr,
                                           const Meshes &meshes) {
  SmallVector<Sharding> shardings;
  if (auto text = dyn_cast_or_null<StringAttr>(attr)) {
    shardings.push_back(readGspmd(text.getValue()));
    return shardings;
  }
  auto opaque = dyn_cast_or_null<OpaqueAttr>(attr);
  if (!opaque || opaque.getDialectNamespace() != "sdy")
    return shardings;
  StringRef data = opaque.getAttrData();
  if (data.starts_with("sharding<")) {
    shardings.push_back(
        readShardy(splitBracketed(data, data.find('<')).first, meshes));
  } else if (data.starts_with("sharding_per_value<")) {
    StringRef list = splitBracketed(data, data.find('<')).first;
    for (StringRef item : splitItems(splitBracketed(list, 0).first))
      if (item.starts_with("<"))
        shardings.push_back(readShardy(splitBracketed(item, 0).first, meshes));
  }
  return shardings;
}

/// The sharding of an argument or a result (its attributes `attrs`), if any.
static std::optional<Sharding> getSharding(DictionaryAttr attrs,
                                           const Meshes &meshes) {
  if (!attrs)
    return std::nullopt;
  for (StringRef name : {"mhlo.sharding", "sdy.sharding"}) {
    SmallVector<Sharding> shardings = readShardings(attrs.get(name), meshes);
    if (shardings.size() == 1)
      return shardings.front();
  }
  return std::nullopt;
}

/// What the message of every error here ends with.
static constexpr llvm::StringLiteral kNotPartitioned =
    ": this program is not partitioned yet. XLA's SPMD partitioner (GSPMD "
    "or Shardy) would split it over the devices (or place a value on one "
    "device, {maximal device=N}) and insert the collectives it needs; comm "
    "does not run the partitioner, so every process would "
    "compute the whole program without them. Write the step with "
    "jax.shard_map, whose collectives are explicit (see docs/Frontends.md)";

namespace {
/// A value outside every manual computation that a sharding splits: an
/// argument, a shard_map's result, or a value a sharding op (JAX's
/// with_sharding_constraint, `origin`) splits.
struct SplitValue {
  Sharding sharding;
  std::string description;
  Operation *origin = nullptr;
};
} // namespace

/// The sharding a sharding op (`custom_call @Sharding`,
/// `sdy.sharding_constraint`) asks for, if `op` is one.
static std::optional<Sharding> getShardingOpSharding(Operation *op,
                                                     const Meshes &meshes) {
  StringRef name;
  if (isCustomCall(op, "Sharding"))
    name = "mhlo.sharding";
  else if (isNamed(op, "sdy.sharding_constraint"))
    name = "sharding";
  else
    return std::nullopt;
  SmallVector<Sharding> shardings = readShardings(op->getAttr(name), meshes);
  if (shardings.size() != 1 || op->getNumOperands() != 1 ||
      op->getNumResults() != 1)
    return std::nullopt;
  return shardings.front();
}

/// Checks that a manual computation `op` is manual over every axis its
/// shardings split (else XLA partitions its body over the others).
static LogicalResult checkManualAxes(Operation *op, const Meshes &meshes) {
  llvm::StringSet<> manual;
  if (auto axes = dyn_cast_or_null<OpaqueAttr>(op->getAttr("manual_axes")))
    for (const std::string &axis : getQuotedNames(axes.getAttrData()))
      manual.insert(axis);
  SmallVector<Sharding> shardings =
      readShardings(op->getAttr("in_shardings"), meshes);
  shardings.append(readShardings(op->getAttr("out_shardings"), meshes));
  for (const Sharding &sharding : shardings)
    for (const std::string &axis : sharding.axes)
      if (!manual.contains(StringRef(axis).split(':').first) &&
          splitsOver(meshes, sharding.mesh, axis))
        return emitError(op->getLoc())
               << "'sdy.manual_computation' is manual over "
               << op->getAttr("manual_axes") << " only, but its sharding "
               << sharding.text << " also splits over \"" << axis
               << "\", over which XLA would partition its body"
               << kNotPartitioned;
  return success();
}

static LogicalResult checkFunction(func::FuncOp func, const Meshes &meshes) {
  std::string funcName = ("@" + func.getSymName()).str();
  auto getResultSharding = [&](unsigned index) {
    return getSharding(func.getResultAttrDict(index), meshes);
  };
  llvm::DenseMap<Value, SplitValue> splitValues;
  for (BlockArgument arg : func.getArguments())
    if (std::optional<Sharding> sharding =
            getSharding(func.getArgAttrDict(arg.getArgNumber()), meshes);
        sharding && sharding->partitioned)
      splitValues[arg] = {*sharding, "argument " +
                                         std::to_string(arg.getArgNumber()) +
                                         " of " + funcName};

  // In program order, each split value reaches only what passes it on
  // unchanged (a sharding op of its sharding), shard_map's boundary (of its
  // sharding) and the return (with its sharding or none); and only sharding
  // ops and boundaries ask for a split.
  WalkResult walked =
      func.walk<WalkOrder::PreOrder>([&](Operation *op) -> WalkResult {
        std::optional<Sharding> asked = getShardingOpSharding(op, meshes);
        for (OpOperand &operand : op->getOpOperands()) {
          auto it = splitValues.find(operand.get());
          if (it == splitValues.end())
            continue;
          SplitValue split = it->second;
          std::optional<Sharding> as = asked;
          if (isCustomCall(op, "SPMDFullToShardShape"))
            continue;
          if (isNamed(op, "sdy.manual_computation")) {
            SmallVector<Sharding> ins =
                readShardings(op->getAttr("in_shardings"), meshes);
            if (operand.getOperandNumber() < ins.size())
              as = ins[operand.getOperandNumber()];
          } else if (isa<func::ReturnOp>(op)) {
            as = getResultSharding(operand.getOperandNumber());
            // The caller takes a shard_map's result or an argument as it
            // is; a value a sharding op split would be returned as each
            // process's slice, which the partitioner computes.
            if (!as && !split.origin)
              continue;
            if (split.origin) {
              InFlightDiagnostic diag =
                  emitError(op->getLoc())
                  << "result " << operand.getOperandNumber() << " of "
                  << funcName << " is " << split.description << " ("
                  << split.sharding.text
                  << "), which each process returns only its slice of"
                  << kNotPartitioned;
              diag.attachNote(split.origin->getLoc())
                  << "the " << describe(split.origin) << " splitting it";
              return diag;
            }
          }
          if (as && as->layout == split.sharding.layout) {
            if (asked)
              splitValues[op->getResult(0)] = split;
            continue;
          }
          InFlightDiagnostic diag =
              emitError(op->getLoc())
              << describe(op) << " reads " << split.description
              << ", which has sharding " << split.sharding.text;
          if (as)
            diag << ", as " << as->text;
          diag << kNotPartitioned;
          if (split.origin)
            diag.attachNote(split.origin->getLoc())
                << "the " << describe(split.origin) << " splitting it";
          return diag;
        }
        if (asked) {
          // A value no sharding splits yet: each process takes its slice.
          if (asked->partitioned && !splitValues.count(op->getResult(0)))
            splitValues[op->getResult(0)] = {
                *asked, "the value a " + describe(op) + " splits", op};
          return WalkResult::advance();
        }
        if (isCustomCall(op, "SPMDShardToFullShape")) {
          SmallVector<Sharding> shardings =
              readShardings(op->getAttr("mhlo.sharding"), meshes);
          if (shardings.size() == 1 && shardings.front().partitioned &&
              op->getNumResults() == 1)
            splitValues[op->getResult(0)] = {shardings.front(),
                                             "a result of a shard_map"};
          return WalkResult::advance();
        }
        if (isNamed(op, "sdy.manual_computation")) {
          if (failed(checkManualAxes(op, meshes)))
            return WalkResult::interrupt();
          SmallVector<Sharding> outs =
              readShardings(op->getAttr("out_shardings"), meshes);
          for (auto [index, result] : llvm::enumerate(op->getResults()))
            if (index < outs.size() && outs[index].partitioned)
              splitValues[result] = {outs[index], "a result of a shard_map"};
          return WalkResult::advance();
        }
        // Any other op asking for a split is compute the partitioner would
        // split (in a manual computation: over the axes not manual).
        for (StringRef name : {"mhlo.sharding", "sdy.sharding"})
          for (const Sharding &sharding :
               readShardings(op->getAttr(name), meshes))
            if (sharding.partitioned)
              return emitError(op->getLoc())
                     << describe(op) << " asks for sharding " << sharding.text
                     << kNotPartitioned;
        return WalkResult::advance();
      });
  if (walked.wasInterrupted())
    return failure();

  // A result the caller takes split is a split value of that sharding (the
  // return checked that the layouts agree).
  for (Block &block : func.getBody()) {
    auto ret = dyn_cast_or_null<func::ReturnOp>(block.empty() ? nullptr
                                                              : &block.back());
    if (!ret)
      continue;
    for (OpOperand &operand : ret->getOpOperands()) {
      std::optional<Sharding> sharding =
          getResultSharding(operand.getOperandNumber());
      if (sharding && sharding->partitioned &&
          !splitValues.count(operand.get()))
        return emitError(ret->getLoc())
               << "result " << operand.getOperandNumber() << " of " << funcName
               << " has sharding " << sharding->text
               << ", but is not a result of a shard_map" << kNotPartitioned;
    }
  }
  return success();
}

LogicalResult mlir::comm::checkPartitioned(ModuleOp module) {
  Meshes meshes;
  for (Operation &op : module.getOps()) {
    if (!isNamed(&op, "sdy.mesh"))
      continue;
    auto name = op.getAttrOfType<StringAttr>("sym_name");
    auto mesh = dyn_cast_or_null<OpaqueAttr>(op.getAttr("mesh"));
    if (!name || !mesh)
      continue;
    llvm::StringMap<int64_t> &sizes = meshes[name.getValue()];
    // mesh<["x"=2, "y"=4], device_ids=[...]>
    StringRef data = mesh.getAttrData();
    size_t open = data.find('[');
    if (open == StringRef::npos)
      continue;
    for (StringRef axis : splitItems(splitBracketed(data, open).first)) {
      auto [quotedName, size] = axis.split('=');
      int64_t value;
      if (!size.trim().getAsInteger(10, value))
        sizes[quotedName.trim().trim('"')] = value;
    }
  }
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal() && failed(checkFunction(func, meshes)))
      return failure();
  return success();
}
