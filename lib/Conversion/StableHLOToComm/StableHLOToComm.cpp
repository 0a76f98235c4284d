//===- StableHLOToComm.cpp - the convert-stablehlo-to-comm pass -*- C++ -*-===//
//
// Imports StableHLO as JAX writes it (MLIR's generic op form, parsed with
// unregistered dialects allowed, so no StableHLO library is linked). Three
// steps: make the per-process program explicit (inline the module's private
// functions, shard_map's bodies from both the GSPMD custom calls and Shardy's
// sdy.manual_computation), turn the collectives into comm ops with the
// process groups StableHLO's spec defines for each (cross_replica,
// cross_partition, cross_replica_and_partition, flattened_ids), and turn the
// compute around them into comm.compute with cost estimates.
//
//===----------------------------------------------------------------------===//

#include "StableHLOToComm.h"
#include "comm/Conversion/Passes.h"
#include "comm/Dialect/Comm/IR/CommDialect.h"
#include "comm/Dialect/Comm/IR/CommOps.h"
#include "comm/Support/CNames.h"
#include "comm/Support/InputChecks.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

#include <functional>

namespace mlir {
namespace comm {
#define GEN_PASS_DEF_CONVERTSTABLEHLOTOCOMM
#include "comm/Conversion/Passes.h.inc"
} // namespace comm
} // namespace mlir

using namespace mlir;
using namespace mlir::comm;

/// Names of the compute ops that stand for shard_map's boundaries: taking
/// this process's shard of a global value, and the reverse. They move
/// nothing and disappear where the value is an argument or a result.
static constexpr llvm::StringLiteral kToLocal = "stablehlo.shard_to_local";
static constexpr llvm::StringLiteral kToGlobal = "stablehlo.local_to_global";

static bool isNamed(Operation *op, StringRef name) {
  return op->getName().getStringRef() == name;
}

static bool isCollective(Operation *op) {
  return llvm::is_contained({"stablehlo.all_reduce", "stablehlo.all_gather",
                             "stablehlo.reduce_scatter", "stablehlo.all_to_all",
                             "stablehlo.collective_permute",
                             "stablehlo.collective_broadcast"},
                            op->getName().getStringRef());
}

/// Why a custom call communicates between processes (XLA's
/// ragged_all_to_all, or any whose backend_config or attributes name replica
/// groups or a channel), or "" where it does not. Imported as compute, it
/// would lose its communication.
static std::string getCollectiveCustomCall(Operation *op) {
  if (!isNamed(op, "stablehlo.custom_call"))
    return "";
  Attribute config = op->getAttr("backend_config");
  for (StringRef key : {"replica_groups", "channel_id", "channel_handle",
                        "source_target_pairs"}) {
    if (op->hasAttr(key))
      return ("it has " + key).str();
    if (auto dict = dyn_cast_or_null<DictionaryAttr>(config);
        dict && dict.contains(key))
      return ("its backend_config names " + key).str();
    if (auto text = dyn_cast_or_null<StringAttr>(config);
        text && text.getValue().contains(key))
      return ("its backend_config names " + key).str();
  }
  auto target = op->getAttrOfType<StringAttr>("call_target_name");
  if (target && target.getValue().contains_insensitive("all_to_all"))
    return "XLA's " + target.getValue().str() + " is a collective";
  return "";
}

//===----------------------------------------------------------------------===//
// The per-process program
//===----------------------------------------------------------------------===//

/// Inlines every func.call to a function of the module (JAX's helpers and
/// GSPMD's shmap_body), then erases the private functions.
static LogicalResult inlineCalls(ModuleOp module) {
  SymbolTable symbols(module);
  // A function that calls itself, directly or through others, cannot be
  // inlined: found on the call graph first (inlining round by round, a
  // function calling itself twice doubled the calls each round and ran
  // out of memory long before the depth check below).
  llvm::DenseMap<Operation *, unsigned> state; // 1: on the path, 2: done
  SmallVector<func::CallOp> path;
  std::function<LogicalResult(func::FuncOp)> visit =
      [&](func::FuncOp function) -> LogicalResult {
    state[function] = 1;
    WalkResult result = function.walk([&](func::CallOp call) {
      auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
      if (!callee)
        return WalkResult::advance(); // reported when inlined
      path.push_back(call);
      unsigned seen = state.lookup(callee);
      if (seen == 1) {
        std::string cycle;
        for (func::CallOp step : path)
          if (!cycle.empty() || step->getParentOfType<func::FuncOp>() == callee)
            cycle += "@" +
                     step->getParentOfType<func::FuncOp>().getSymName().str() +
                     " -> ";
        call.emitError() << "calls @" << call.getCallee() << " back (" << cycle
                         << "@" << call.getCallee()
                         << "): recursion; comm imports programs whose "
                            "calls can be inlined";
        return WalkResult::interrupt();
      }
      if (seen == 0 && failed(visit(callee)))
        return WalkResult::interrupt();
      path.pop_back();
      return WalkResult::advance();
    });
    state[function] = 2;
    return failure(result.wasInterrupted());
  };
  for (auto function : module.getOps<func::FuncOp>())
    if (!state.count(function) && failed(visit(function)))
      return failure();
  // Inlined, each call copies its callee's operations: a chain of
  // functions each calling the next twice grows them exponentially.
  constexpr uint64_t kMaxInlinedOps = 10'000'000;
  uint64_t inlinedOps = 0;
  for (int round = 0;; ++round) {
    SmallVector<func::CallOp> calls;
    module.walk([&](func::CallOp call) { calls.push_back(call); });
    if (calls.empty())
      break;
    if (round == 64)
      return calls.front().emitError()
             << "calls @" << calls.front().getCallee()
             << " through more than 64 levels (recursion?); comm imports "
                "programs whose calls can be inlined";
    for (func::CallOp call : calls) {
      auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
      if (!callee || callee.isExternal())
        return call.emitError() << "calls @" << call.getCallee()
                                << ", which the module does not define";
      if (!callee.getBody().hasOneBlock())
        return call.emitError()
               << "calls @" << call.getCallee()
               << ", whose body has several blocks; expected one";
      Block &body = callee.getBody().front();
      // The input is not verified yet (see runOnOperation): check what
      // inlining relies on.
      if (body.empty() || !isa<func::ReturnOp>(body.back()))
        return call.emitError() << "calls @" << call.getCallee()
                                << ", whose body does not end in func.return";
      if (body.getNumArguments() != call.getNumOperands())
        return call.emitError() << "passes " << call.getNumOperands()
                                << " operands to @" << call.getCallee()
                                << ", which takes " << body.getNumArguments();
      uint64_t ops = 0;
      callee.walk([&](Operation *) { ++ops; });
      inlinedOps += ops;
      if (inlinedOps > kMaxInlinedOps)
        return call.emitError()
               << "calls @" << call.getCallee() << ": inlining the program's "
               << "calls would make more than " << kMaxInlinedOps
               << " operations; comm imports programs whose calls can be "
                  "inlined";
      IRMapping mapping;
      mapping.map(body.getArguments(), call.getOperands());
      OpBuilder builder(call);
      for (Operation &op : body.without_terminator())
        builder.clone(op, mapping);
      Operation *terminator = &body.back();
      if (terminator->getNumOperands() != call.getNumResults())
        return call.emitError()
               << "expects " << call.getNumResults() << " results of @"
               << call.getCallee() << ", which returns "
               << terminator->getNumOperands();
      SmallVector<Value> results;
      for (Value value : terminator->getOperands())
        results.push_back(mapping.lookupOrDefault(value));
      call->replaceAllUsesWith(results);
      call.erase();
    }
  }
  for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    if (func.isPrivate())
      func.erase();
  return success();
}

/// What an argument (or a `result`) of type `type` cannot be imported as,
/// or "" for a tensor.
static std::string whyNotImported(Type type, bool result) {
  if (isa<TensorType>(type))
    return "";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  if (StringRef(text).contains("token"))
    return "a token, which orders side effects (host callbacks such as "
           "jax.debug.print or an ordered io_callback, infeed, outfeed) that "
           "comm's programs do not have; take them out of the step";
  if (isa<TupleType>(type))
    return result ? "a tuple; comm imports tensors: return its elements as "
                    "results of their own"
                  : "a tuple; comm imports tensors: pass its elements as "
                    "arguments of their own";
  return "not a tensor; comm imports tensor arguments and results";
}

/// Fails, with an error at the function, where a public function takes or
/// returns what comm cannot carry: a token or a tuple was kept in the
/// entry's signature (a tuple argument's elements then read nothing), and
/// comm-sim and comm-compile could not parse the result.
static LogicalResult checkSignatures(ModuleOp module) {
  for (auto function : module.getOps<func::FuncOp>()) {
    if (!function.isPublic())
      continue;
    for (auto [index, type] : llvm::enumerate(function.getArgumentTypes()))
      if (std::string why = whyNotImported(type, /*result=*/false);
          !why.empty())
        return function.emitError()
               << "argument " << index << " of @" << function.getSymName()
               << " is " << type << ": " << why;
    for (auto [index, type] : llvm::enumerate(function.getResultTypes()))
      if (std::string why = whyNotImported(type, /*result=*/true); !why.empty())
        return function.emitError()
               << "result " << index << " of @" << function.getSymName()
               << " is " << type << ": " << why;
  }
  return success();
}

/// A compute op standing for a shard_map boundary.
static Value createBoundary(OpBuilder &builder, Location loc, StringRef name,
                            Value input, Type type) {
  return ComputeOp::create(builder, loc, type, builder.getStringAttr(name),
                           ValueRange{input}, FloatAttr(), IntegerAttr(),
                           FloatAttr(), DenseI64ArrayAttr(), UnitAttr(),
                           ReplicaGroupsAttr())
      ->getResult(0);
}

/// Rewrites shard_map's boundaries in `func`: GSPMD's custom calls and
/// Shardy's manual_computation (whose body is inlined).
static LogicalResult rewriteBoundaries(func::FuncOp func) {
  if (func.isExternal())
    return success();
  SmallVector<Operation *> ops;
  func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    StringRef dialect = op->getName().getDialectNamespace();
    if (isNamed(op, "stablehlo.custom_call") || dialect == "sdy")
      ops.push_back(op);
    // A manual computation's body is walked once it is inlined.
    return isNamed(op, "sdy.manual_computation") ? WalkResult::skip()
                                                 : WalkResult::advance();
  });
  while (!ops.empty()) {
    Operation *op = ops.pop_back_val();
    OpBuilder builder(op);
    Location loc = op->getLoc();
    if (isNamed(op, "stablehlo.custom_call")) {
      auto target = op->getAttrOfType<StringAttr>("call_target_name");
      StringRef name = target ? target.getValue() : "";
      if (op->getNumOperands() != 1 || op->getNumResults() != 1 ||
          (name != "Sharding" && name != "SPMDFullToShardShape" &&
           name != "SPMDShardToFullShape"))
        continue; // another custom call: opaque compute later
      Value input = op->getOperand(0);
      Type type = op->getResult(0).getType();
      Value replacement =
          name == "Sharding"
              ? input
              : createBoundary(builder, loc,
                               name == "SPMDFullToShardShape" ? kToLocal
                                                              : kToGlobal,
                               input, type);
      op->getResult(0).replaceAllUsesWith(replacement);
      op->erase();
      continue;
    }
    if (isNamed(op, "sdy.sharding_constraint") && op->getNumOperands() == 1 &&
        op->getNumResults() == 1) {
      op->getResult(0).replaceAllUsesWith(op->getOperand(0));
      op->erase();
      continue;
    }
    if (isNamed(op, "sdy.manual_computation") && op->getNumRegions() == 1 &&
        op->getRegion(0).hasOneBlock()) {
      Block &body = op->getRegion(0).front();
      if (body.empty())
        return op->emitError()
               << "has an empty body; expected one ending in sdy.return";
      if (body.getNumArguments() != op->getNumOperands())
        return op->emitError()
               << "has " << op->getNumOperands()
               << " operands but its body takes " << body.getNumArguments();
      IRMapping mapping;
      for (auto [operand, arg] :
           llvm::zip_equal(op->getOperands(), body.getArguments()))
        mapping.map(arg, createBoundary(builder, loc, kToLocal, operand,
                                        arg.getType()));
      // Block::without_terminator keeps an unregistered terminator.
      Operation *terminator = &body.back();
      for (Operation &inner :
           llvm::make_range(body.begin(), Block::iterator(terminator))) {
        Operation *clone = builder.clone(inner, mapping);
        clone->walk([&](Operation *nested) {
          if (isNamed(nested, "stablehlo.custom_call") ||
              nested->getName().getDialectNamespace() == "sdy")
            ops.push_back(nested);
        });
      }
      if (terminator->getNumOperands() != op->getNumResults())
        return op->emitError() << "returns " << terminator->getNumOperands()
                               << " values from its body for "
                               << op->getNumResults() << " results";
      for (auto [value, result] :
           llvm::zip_equal(terminator->getOperands(), op->getResults()))
        result.replaceAllUsesWith(createBoundary(builder, loc, kToGlobal,
                                                 mapping.lookupOrDefault(value),
                                                 result.getType()));
      op->erase();
      continue;
    }
    return op->emitError() << "'" << op->getName()
                           << "' is not imported: comm reads Shardy's "
                              "manual_computation and sharding_constraint";
  }
  return success();
}

/// Where a boundary meets an argument or a result, the per-process program
/// takes or gives the shard itself: arguments and results get local types.
static void foldBoundaries(func::FuncOp func) {
  if (func.isExternal())
    return;
  Block &entry = func.getBody().front();
  auto boundaryInput = [](Operation *op, StringRef name) -> Value {
    auto compute = dyn_cast_or_null<ComputeOp>(op);
    if (!compute || compute.getName() != name)
      return {};
    return compute.getInputs().front();
  };
  for (BlockArgument arg : entry.getArguments()) {
    Type local;
    bool foldable = !arg.use_empty();
    for (Operation *user : arg.getUsers()) {
      if (!boundaryInput(user, kToLocal) ||
          (local && local != user->getResult(0).getType())) {
        foldable = false;
        break;
      }
      local = user->getResult(0).getType();
    }
    if (!foldable)
      continue;
    arg.setType(local);
    for (Operation *user : llvm::make_early_inc_range(arg.getUsers())) {
      user->getResult(0).replaceAllUsesWith(arg);
      user->erase();
    }
  }
  func.walk([&](func::ReturnOp ret) {
    for (OpOperand &operand : ret->getOpOperands()) {
      Operation *def = operand.get().getDefiningOp();
      Value local = boundaryInput(def, kToGlobal);
      if (!local || !def->getResult(0).hasOneUse())
        continue;
      operand.set(local);
      def->erase();
    }
    func.setFunctionType(FunctionType::get(
        func.getContext(), entry.getArgumentTypes(), ret.getOperandTypes()));
  });
  func.removeArgAttrsAttr();
  func.removeResAttrsAttr();
}

//===----------------------------------------------------------------------===//
// Counted loops
//===----------------------------------------------------------------------===//

/// The integer of a splat stablehlo.constant, if `value` is one.
static std::optional<APInt> getConstantInt(Value value) {
  Operation *def = value.getDefiningOp();
  if (!def || !isNamed(def, "stablehlo.constant"))
    return std::nullopt;
  auto dense = def->getAttrOfType<DenseIntElementsAttr>("value");
  if (!dense || !dense.isSplat())
    return std::nullopt;
  return dense.getSplatValue<APInt>();
}

/// Whether `op`'s attribute `name` is StableHLO's enum `#stablehlo<KEYWORD
/// value>` of that value (as the generic form carries it: an opaque
/// attribute whose data is `KEYWORD value`, no closing bracket).
static bool hasEnum(Operation *op, StringRef name, StringRef keyword,
                    StringRef value) {
  auto attr = dyn_cast_or_null<OpaqueAttr>(op->getAttr(name));
  if (!attr)
    return false;
  StringRef data = attr.getAttrData().trim();
  return data.consume_front(keyword) && data.trim() == value;
}

static bool hasDirection(Operation *compare, StringRef direction) {
  return hasEnum(compare, "comparison_direction", "comparison_direction",
                 direction);
}

namespace {
/// A stablehlo.while written as JAX's fori_loop: a counter starting at
/// `init`, compared less-than `limit`, incremented by `step` (all constants
/// of the counter's type, widened to 128 bits by its signedness so that no
/// arithmetic on them overflows).
struct CountedLoop {
  APInt init, limit, step;
  /// The largest value the counter's type holds, widened likewise.
  APInt counterMax;
  Type counterType;
};
} // namespace

/// Matches a counted loop (see CountedLoop).
static std::optional<CountedLoop> matchCountedLoop(Operation *loop) {
  if (loop->getNumRegions() != 2 || !loop->getRegion(0).hasOneBlock() ||
      !loop->getRegion(1).hasOneBlock())
    return std::nullopt;
  Block &cond = loop->getRegion(0).front();
  Block &body = loop->getRegion(1).front();
  if (cond.empty() || body.empty())
    return std::nullopt;
  // The condition is dropped for the trip count: a collective in it is not.
  if (cond.walk([](Operation *op) {
            return isCollective(op) ? WalkResult::interrupt()
                                    : WalkResult::advance();
          })
          .wasInterrupted())
    return std::nullopt;
  Operation *condReturn = &cond.back();
  Operation *bodyReturn = &body.back();
  unsigned carried = loop->getNumOperands();
  if (condReturn->getNumOperands() != 1 || loop->getNumResults() != carried ||
      cond.getNumArguments() != carried || body.getNumArguments() != carried ||
      bodyReturn->getNumOperands() != carried)
    return std::nullopt;
  Operation *compare = condReturn->getOperand(0).getDefiningOp();
  if (!compare || !isNamed(compare, "stablehlo.compare") ||
      compare->getNumOperands() != 2)
    return std::nullopt;
  // counter < limit, or limit > counter.
  Value counter, limitValue;
  if (hasDirection(compare, "LT")) {
    counter = compare->getOperand(0);
    limitValue = compare->getOperand(1);
  } else if (hasDirection(compare, "GT")) {
    counter = compare->getOperand(1);
    limitValue = compare->getOperand(0);
  } else {
    return std::nullopt;
  }
  auto arg = dyn_cast<BlockArgument>(counter);
  std::optional<APInt> limit = getConstantInt(limitValue);
  if (!arg || arg.getOwner() != &cond || !limit)
    return std::nullopt;
  unsigned index = arg.getArgNumber();
  std::optional<APInt> init = getConstantInt(loop->getOperand(index));
  Operation *next = bodyReturn->getOperand(index).getDefiningOp();
  if (!init || !next || !isNamed(next, "stablehlo.add") ||
      next->getNumOperands() != 2)
    return std::nullopt;
  Value bodyCounter = body.getArgument(index);
  std::optional<APInt> step;
  if (next->getOperand(0) == bodyCounter)
    step = getConstantInt(next->getOperand(1));
  else if (next->getOperand(1) == bodyCounter)
    step = getConstantInt(next->getOperand(0));
  auto counterType = dyn_cast<ShapedType>(counter.getType());
  if (!step || !counterType || !counterType.getElementType().isInteger())
    return std::nullopt;
  Type element = counterType.getElementType();
  unsigned width = element.getIntOrFloatBitWidth();
  if (width > 64 || init->getBitWidth() != width ||
      limit->getBitWidth() != width || step->getBitWidth() != width)
    return std::nullopt;
  // The comparison is unsigned on an unsigned type or where it says so.
  bool isUnsigned =
      element.isUnsignedInteger() ||
      hasEnum(compare, "compare_type", "comparison_type", "UNSIGNED");
  auto widen = [&](const APInt &value) {
    return isUnsigned ? value.zext(128) : value.sext(128);
  };
  CountedLoop result{widen(*init), widen(*limit), widen(*step),
                     widen(isUnsigned ? APInt::getMaxValue(width)
                                      : APInt::getSignedMaxValue(width)),
                     element};
  if (!result.step.isStrictlyPositive())
    return std::nullopt;
  return result;
}

/// The number of trips of a counted loop, exactly; a located error where it
/// does not fit the index of the scf.for it becomes (64 bits), or where the
/// counter's last increment overflows its type (the counter would wrap and
/// the loop go on).
static FailureOr<int64_t> getTripCount(Operation *loop,
                                       const CountedLoop &counted) {
  const APInt &init = counted.init, &limit = counted.limit,
              &step = counted.step;
  if (limit.sle(init))
    return 0;
  // Operands below 2^64 in magnitude: nothing here overflows 128 bits.
  APInt trips = (limit - init + step - 1).sdiv(step);
  APInt last = init + trips * step;
  auto text = [](const APInt &value) {
    return llvm::toString(value, 10, true);
  };
  if (last.sgt(counted.counterMax))
    return loop->emitError()
           << "'stablehlo.while' counts from " << text(init) << " to below "
           << text(limit) << " by " << text(step) << ", but its "
           << counted.counterType
           << " counter overflows on the last increment (" << text(init)
           << " + " << text(trips) << " x " << text(step) << " = " << text(last)
           << "): it would wrap around instead of ending the loop, which comm "
              "does not import";
  if (trips.sgt(APInt::getSignedMaxValue(64).sext(128)))
    return loop->emitError()
           << "'stablehlo.while' counts " << text(trips) << " trips (from "
           << text(init) << " to below " << text(limit) << " by " << text(step)
           << "), more than a 64-bit trip count holds; comm imports counted "
              "loops of at most "
           << std::numeric_limits<int64_t>::max() << " trips";
  return trips.getSExtValue();
}

/// Rewrites counted stablehlo.while loops as scf.for (the counter stays an
/// iteration argument, so the body is unchanged), innermost first, so that
/// the planner and the simulator see their trip counts.
static LogicalResult convertCountedLoops(func::FuncOp func) {
  SmallVector<Operation *> loops;
  func.walk([&](Operation *op) {
    if (isNamed(op, "stablehlo.while"))
      loops.push_back(op);
  });
  for (Operation *loop : loops) {
    std::optional<CountedLoop> counted = matchCountedLoop(loop);
    if (!counted)
      continue;
    FailureOr<int64_t> trips = getTripCount(loop, *counted);
    if (failed(trips))
      return failure();
    OpBuilder builder(loop);
    Location loc = loop->getLoc();
    Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
    Value upper = arith::ConstantIndexOp::create(builder, loc, *trips);
    Value one = arith::ConstantIndexOp::create(builder, loc, 1);
    Block &body = loop->getRegion(1).front();
    auto forOp = scf::ForOp::create(
        builder, loc, zero, upper, one, loop->getOperands(),
        [&](OpBuilder &b, Location bodyLoc, Value, ValueRange iterArgs) {
          IRMapping mapping;
          mapping.map(body.getArguments(), iterArgs);
          Operation *terminator = &body.back();
          for (Operation &op :
               llvm::make_range(body.begin(), Block::iterator(terminator)))
            b.clone(op, mapping);
          SmallVector<Value> yielded;
          for (Value value : terminator->getOperands())
            yielded.push_back(mapping.lookupOrDefault(value));
          scf::YieldOp::create(b, bodyLoc, yielded);
        });
    loop->replaceAllUsesWith(forOp.getResults());
    loop->erase();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

namespace {
/// How a collective's ids name processes (StableHLO spec, "collective ops").
enum class GroupMode {
  CrossReplica,
  CrossPartition,
  CrossReplicaAndPartition,
  FlattenedIds
};

struct Importer {
  int64_t replicas = 1, partitions = 1;

  int64_t worldSize() const { return replicas * partitions; }

  FailureOr<GroupMode> getMode(Operation *op, bool permuteLike);
  FailureOr<SmallVector<SmallVector<int64_t>>> readIdGroups(Operation *op,
                                                            StringRef attrName,
                                                            int64_t idSpace,
                                                            int64_t width);
  FailureOr<ReplicaGroupsAttr> getGroups(Operation *op, bool permuteLike);
  FailureOr<DenseI64ArrayAttr> getPairs(Operation *op);
  FailureOr<ReductionKindAttr> getReduction(Operation *op);
  LogicalResult convert(Operation *op);
};
} // namespace

static int64_t getChannelHandle(Operation *op) {
  Attribute attr = op->getAttr("channel_handle");
  if (!attr)
    return 0;
  StringRef text;
  if (auto opaque = dyn_cast<OpaqueAttr>(attr))
    text = opaque.getAttrData();
  size_t at = text.find("handle = ");
  int64_t handle = 0;
  if (at == StringRef::npos ||
      text.drop_front(at + 9)
          .take_while([](char c) { return c == '-' || llvm::isDigit(c); })
          .getAsInteger(10, handle))
    return 1; // a channel whose handle we cannot read is still a channel
  return handle;
}

FailureOr<GroupMode> Importer::getMode(Operation *op, bool permuteLike) {
  bool channel = getChannelHandle(op) > 0;
  bool global = op->hasAttr("use_global_device_ids");
  if (permuteLike)
    return channel ? GroupMode::CrossPartition : GroupMode::CrossReplica;
  if (global && !channel)
    return op->emitError() << "sets use_global_device_ids without a "
                              "channel_handle; StableHLO needs a channel for "
                              "global device ids";
  if (!channel)
    return GroupMode::CrossReplica;
  return global ? GroupMode::FlattenedIds : GroupMode::CrossReplicaAndPartition;
}

/// Reads a 2-D integer attribute as rows of `width` ids below `idSpace`
/// (width 0: any row length, all equal).
FailureOr<SmallVector<SmallVector<int64_t>>>
Importer::readIdGroups(Operation *op, StringRef attrName, int64_t idSpace,
                       int64_t width) {
  auto attr = op->getAttrOfType<DenseIntElementsAttr>(attrName);
  if (!attr)
    return op->emitError() << "has no " << attrName
                           << "; expected a 2-D integer tensor";
  auto type = cast<ShapedType>(attr.getType());
  SmallVector<SmallVector<int64_t>> rows;
  if (type.getNumElements() == 0)
    return rows;
  if (type.getRank() != 2 || (width && type.getDimSize(1) != width))
    return op->emitError() << attrName << " has type " << type
                           << "; expected a 2-D tensor"
                           << (width ? " of pairs" : "");
  int64_t cols = type.getDimSize(1);
  SmallVector<int64_t> values;
  for (const APInt &value : attr.getValues<APInt>())
    values.push_back(value.getSExtValue());
  for (int64_t row = 0; row < type.getDimSize(0); ++row)
    rows.emplace_back(values.begin() + row * cols,
                      values.begin() + (row + 1) * cols);
  for (const SmallVector<int64_t> &row : rows)
    for (int64_t id : row) {
      if (id == -1)
        return op->emitError()
               << attrName << " pads a group with -1: groups of unequal "
               << "size, which comm cannot express";
      if (id < 0 || id >= idSpace)
        return op->emitError()
               << attrName << " names id " << id << ", but there are only "
               << idSpace << " (mhlo.num_replicas = " << replicas
               << ", mhlo.num_partitions = " << partitions << ")";
    }
  return rows;
}

FailureOr<ReplicaGroupsAttr> Importer::getGroups(Operation *op,
                                                 bool permuteLike) {
  FailureOr<GroupMode> mode = getMode(op, permuteLike);
  if (failed(mode))
    return failure();
  int64_t idSpace = *mode == GroupMode::FlattenedIds     ? worldSize()
                    : *mode == GroupMode::CrossPartition ? partitions
                                                         : replicas;
  FailureOr<SmallVector<SmallVector<int64_t>>> ids =
      readIdGroups(op, "replica_groups", idSpace, 0);
  if (failed(ids))
    return failure();
  if (ids->empty()) // no groups: one group of every id
    ids->push_back(llvm::to_vector(llvm::seq<int64_t>(0, idSpace)));
  SmallVector<SmallVector<int64_t>> groups;
  switch (*mode) {
  case GroupMode::FlattenedIds:
    groups = *ids;
    break;
  case GroupMode::CrossReplica:
    for (int64_t p = 0; p < partitions; ++p)
      for (const SmallVector<int64_t> &g : *ids)
        groups.push_back(llvm::map_to_vector(
            g, [&](int64_t r) { return r * partitions + p; }));
    break;
  case GroupMode::CrossPartition:
    for (int64_t r = 0; r < replicas; ++r)
      for (const SmallVector<int64_t> &g : *ids)
        groups.push_back(llvm::map_to_vector(
            g, [&](int64_t p) { return r * partitions + p; }));
    break;
  case GroupMode::CrossReplicaAndPartition:
    // Each replica group times every partition, partitions outer: the
    // spec's order, which all_gather's and reduce_scatter's chunks follow.
    for (const SmallVector<int64_t> &g : *ids) {
      SmallVector<int64_t> group;
      for (int64_t p = 0; p < partitions; ++p)
        for (int64_t r : g)
          group.push_back(r * partitions + p);
      groups.push_back(std::move(group));
    }
    break;
  }
  llvm::DenseSet<int64_t> seen;
  SmallVector<int64_t> flat;
  for (const SmallVector<int64_t> &group : groups) {
    if (group.size() != groups.front().size())
      return op->emitError() << "replica_groups has groups of "
                             << groups.front().size() << " and " << group.size()
                             << " processes; comm needs groups of one size";
    for (int64_t rank : group) {
      if (!seen.insert(rank).second)
        return op->emitError() << "replica_groups puts process " << rank
                               << " in more than one group (or twice in one)";
      flat.push_back(rank);
    }
  }
  return ReplicaGroupsAttr::get(op->getContext(), flat, groups.front().size());
}

FailureOr<DenseI64ArrayAttr> Importer::getPairs(Operation *op) {
  FailureOr<GroupMode> mode = getMode(op, /*permuteLike=*/true);
  if (failed(mode))
    return failure();
  bool crossPartition = *mode == GroupMode::CrossPartition;
  FailureOr<SmallVector<SmallVector<int64_t>>> ids = readIdGroups(
      op, "source_target_pairs", crossPartition ? partitions : replicas, 2);
  if (failed(ids))
    return failure();
  if (ids->empty())
    return op->emitError() << "has no source_target_pairs; comm needs at "
                              "least one [source, target] pair";
  SmallVector<int64_t> pairs;
  int64_t copies = crossPartition ? replicas : partitions;
  for (int64_t other = 0; other < copies; ++other)
    for (const SmallVector<int64_t> &pair : *ids)
      for (int64_t id : pair)
        pairs.push_back(crossPartition ? other * partitions + id
                                       : id * partitions + other);
  return DenseI64ArrayAttr::get(op->getContext(), pairs);
}

FailureOr<ReductionKindAttr> Importer::getReduction(Operation *op) {
  auto unknown =
      [&](StringRef found) {
        return op->emitError()
               << "reduces with a body comm does not know (" << found
               << "); expected one stablehlo.add, multiply, maximum, minimum, "
                  "and, or or xor of the body's two arguments, returned";
      };
  if (op->getNumRegions() != 1 || !op->getRegion(0).hasOneBlock())
    return unknown("no single-block body");
  Block &body = op->getRegion(0).front();
  if (body.getNumArguments() != 2 || body.getOperations().size() != 2)
    return unknown(body.getNumArguments() != 2
                       ? "a body without two arguments"
                       : "a body of more than one operation");
  Operation &combine = body.front();
  Operation *ret = &body.back();
  if (!isNamed(ret, "stablehlo.return") || ret->getNumOperands() != 1 ||
      ret->getOperand(0) != combine.getResult(0) ||
      combine.getNumOperands() != 2 ||
      !llvm::is_contained(combine.getOperands(), body.getArgument(0)) ||
      !llvm::is_contained(combine.getOperands(), body.getArgument(1)))
    return unknown("'" + combine.getName().getStringRef().str() +
                   "' not of the two arguments");
  std::optional<ReductionKind> kind =
      llvm::StringSwitch<std::optional<ReductionKind>>(
          combine.getName().getStringRef())
          .Case("stablehlo.add", ReductionKind::sum)
          .Case("stablehlo.multiply", ReductionKind::prod)
          .Case("stablehlo.maximum", ReductionKind::max)
          .Case("stablehlo.minimum", ReductionKind::min)
          .Case("stablehlo.and", ReductionKind::band)
          .Case("stablehlo.or", ReductionKind::bor)
          .Case("stablehlo.xor", ReductionKind::bxor)
          .Default(std::nullopt);
  if (!kind)
    return unknown("'" + combine.getName().getStringRef().str() + "'");
  return ReductionKindAttr::get(op->getContext(), *kind);
}

static FailureOr<int64_t> getIndexAttr(Operation *op, StringRef name) {
  auto attr = op->getAttrOfType<IntegerAttr>(name);
  if (!attr)
    return op->emitError() << "has no integer " << name;
  return attr.getInt();
}

LogicalResult Importer::convert(Operation *op) {
  StringRef name = op->getName().getStringRef();
  // Every op up to the function counts: a counted loop inside a case is
  // still inside the case.
  for (Operation *parent = op->getParentOp(); !isa<func::FuncOp>(parent);
       parent = parent->getParentOp()) {
    if (isa<scf::ForOp>(parent))
      continue;
    InFlightDiagnostic diag =
        op->emitError() << "'" << name << "' inside '" << parent->getName()
                        << "' is not imported: comm takes collectives "
                           "in functions and in counted loops (a "
                           "fori_loop: a counter from a constant, "
                           "compared less-than a constant, incremented "
                           "by a positive constant)";
    if (isNamed(parent, "stablehlo.while"))
      diag << (op->getParentRegion() == &parent->getRegion(0)
                   ? ", and this one is in the loop's condition"
                   : ", and this loop is not one");
    diag.attachNote(parent->getLoc())
        << "the '" << parent->getName() << "' is here";
    return diag;
  }
  if (op->getNumOperands() != op->getNumResults())
    return op->emitError() << "has " << op->getNumOperands() << " operands and "
                           << op->getNumResults()
                           << " results; expected one result per operand";
  for (auto [input, result] :
       llvm::zip_equal(op->getOperands(), op->getResults())) {
    Type element = getElementTypeOrSelf(input.getType());
    if (!element.isSignlessInteger() && !isa<FloatType>(element))
      return op->emitError()
             << "moves " << input.getType()
             << "; comm carries signless integers and floating-point values "
                "only, not "
             << (isa<ComplexType>(element)
                     ? "complex numbers (send the real and imaginary parts, "
                       "jnp.real and jnp.imag, as two floating-point "
                       "tensors)"
                 : element.isUnsignedInteger()
                     ? "unsigned integers (jax.lax.bitcast_convert_type to "
                       "the signed type of the same width moves the same "
                       "bits, and sums, products and bitwise reductions of "
                       "them are the same bits; max and min are not)"
                     : "this element type");
    Type resultElement = getElementTypeOrSelf(result.getType());
    if (resultElement != element) {
      InFlightDiagnostic diag = op->emitError()
                                << "changes the element type from " << element
                                << " to " << resultElement;
      if (op->getNumRegions())
        diag << " (its reduction body computes in " << resultElement << ")";
      return diag << "; comm reduces and moves values in the input's type";
    }
  }
  OpBuilder b(op);
  Location loc = op->getLoc();
  auto i64 = [&](int64_t v) { return b.getI64IntegerAttr(v); };
  SmallVector<Value> results;
  SmallVector<Operation *> created;

  if (name == "stablehlo.collective_permute") {
    FailureOr<DenseI64ArrayAttr> pairs = getPairs(op);
    if (failed(pairs))
      return failure();
    for (auto [input, result] :
         llvm::zip_equal(op->getOperands(), op->getResults()))
      created.push_back(
          PermuteOp::create(b, loc, result.getType(), input, *pairs, {}));
  } else {
    bool permuteLike = name == "stablehlo.all_to_all" ||
                       name == "stablehlo.collective_broadcast";
    FailureOr<ReplicaGroupsAttr> groups = getGroups(op, permuteLike);
    if (failed(groups))
      return failure();
    FailureOr<ReductionKindAttr> kind = ReductionKindAttr();
    if (name == "stablehlo.all_reduce" || name == "stablehlo.reduce_scatter")
      kind = getReduction(op);
    if (failed(kind))
      return failure();
    FailureOr<int64_t> dim = 0, concat = 0;
    if (name == "stablehlo.all_gather")
      dim = getIndexAttr(op, "all_gather_dim");
    else if (name == "stablehlo.reduce_scatter")
      dim = getIndexAttr(op, "scatter_dimension");
    else if (name == "stablehlo.all_to_all") {
      dim = getIndexAttr(op, "split_dimension");
      concat = getIndexAttr(op, "concat_dimension");
      FailureOr<int64_t> count = getIndexAttr(op, "split_count");
      if (succeeded(count) && *count != groups->getGroupSize())
        return op->emitError()
               << "splits into " << *count << " parts over groups of "
               << groups->getGroupSize() << "; expected one part per process";
      if (failed(count))
        return failure();
    }
    if (failed(dim) || failed(concat))
      return failure();
    for (auto [input, result] :
         llvm::zip_equal(op->getOperands(), op->getResults())) {
      Type type = result.getType();
      if (name == "stablehlo.all_reduce")
        created.push_back(
            AllReduceOp::create(b, loc, type, input, *kind, *groups, {}));
      else if (name == "stablehlo.all_gather")
        created.push_back(
            AllGatherOp::create(b, loc, type, input, *groups, i64(*dim), {}));
      else if (name == "stablehlo.reduce_scatter")
        created.push_back(ReduceScatterOp::create(b, loc, type, input, *kind,
                                                  *groups, i64(*dim), {}));
      else if (name == "stablehlo.all_to_all")
        created.push_back(AllToAllOp::create(b, loc, type, input, *groups,
                                             i64(*dim), i64(*concat), {}));
      else // collective_broadcast: the first process of a group sends
        created.push_back(
            BroadcastOp::create(b, loc, type, input, *groups, i64(0), {}));
    }
  }
  for (Operation *newOp : created) {
    if (failed(verify(newOp)))
      return op->emitError() << "could not be imported: the comm op it "
                                "becomes is invalid (see above)";
    results.push_back(newOp->getResult(0));
  }
  op->replaceAllUsesWith(results);
  op->erase();
  return success();
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// The name JAX's entry `main` takes, which the compiled program's C entry
/// point cannot: the jitted function's (`jit_step` gives `step`), made a C
/// identifier: every other character becomes '_', a run of them one, and
/// none is left at either end (`jit__lambda` gives `lambda`; "__" is
/// reserved in C); "step" where nothing is left, and `step_` in front of a
/// digit. Where comm-compile would reject that name for an entry point
/// (`jit_main` gives `main`; a keyword, a C library function: whyNotCName)
/// or another symbol has it, `jit_` and the name, then that with `_1`,
/// `_2`, ... appended, the first that neither holds for (one is: the
/// `jit_` name has no "__", no reserved prefix, and a suffix ends it with
/// a digit).
static std::string getEntryName(ModuleOp module, func::FuncOp entry) {
  StringRef name = module.getSymName().value_or("");
  name.consume_front("jit_");
  std::string base;
  for (char c : name) {
    if (llvm::isAlnum(c))
      base += c;
    else if (!base.empty() && base.back() != '_')
      base += '_';
  }
  if (!base.empty() && base.back() == '_')
    base.pop_back();
  if (base.empty())
    base = "step";
  if (llvm::isDigit(base.front()))
    base = "step_" + base;
  auto isFree = [&](StringRef candidate) {
    Operation *other = module.lookupSymbol(candidate);
    return (!other || other == entry) &&
           whyNotCName(candidate, /*entryPoint=*/true).empty();
  };
  if (isFree(base))
    return base;
  std::string prefixed = "jit_" + base;
  std::string candidate = prefixed;
  for (unsigned suffix = 1; !isFree(candidate); ++suffix)
    candidate = prefixed + "_" + std::to_string(suffix);
  return candidate;
}

namespace {
struct ConvertStableHLOToCommPass
    : public comm::impl::ConvertStableHLOToCommBase<
          ConvertStableHLOToCommPass> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

static FailureOr<int64_t> getCount(ModuleOp module, StringRef name) {
  Attribute attr = module->getAttr(name);
  if (!attr)
    return 1;
  auto integer = dyn_cast<IntegerAttr>(attr);
  if (!integer || integer.getInt() < 1)
    return module.emitError()
           << name << " is " << attr << "; expected a positive integer";
  return integer.getInt();
}

void ConvertStableHLOToCommPass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *ctx = &getContext();
  Importer importer;
  FailureOr<int64_t> partitions = getCount(module, "mhlo.num_partitions");
  FailureOr<int64_t> replicas = getCount(module, "mhlo.num_replicas");
  if (failed(partitions) || failed(replicas))
    return signalPassFailure();
  importer.partitions = *partitions;
  importer.replicas = *replicas;

  // comm-opt parses this pass's input without verifying it (see below), so
  // every op's own invariants are checked first, each alone: what inlining
  // reads (a call's callee, a function's type) must be there. Only the
  // symbol uses are left for the whole-module check after inlining.
  if (failed(verifyEachOpAlone(module)))
    return signalPassFailure();
  if (failed(inlineCalls(module)))
    return signalPassFailure();
  if (failed(checkSignatures(module)))
    return signalPassFailure();
  // A program XLA's partitioner would still split (jit shardings instead of
  // shard_map) has no collectives to import yet.
  if (failed(checkPartitioned(module)))
    return signalPassFailure();
  for (Operation &op : llvm::make_early_inc_range(module.getOps())) {
    if (isNamed(&op, "sdy.mesh"))
      op.erase();
    else if (!isa<func::FuncOp>(op)) {
      op.emitError() << "'" << op.getName()
                     << "' at the top level of the module is not imported";
      return signalPassFailure();
    }
  }
  // An empty file parses to an empty module, which imported to a program
  // of nothing that failed only later ("no public function ... to
  // simulate").
  if (module.getOps<func::FuncOp>().empty()) {
    module.emitError() << "holds no function to import (JAX writes its "
                          "program as @main)";
    return signalPassFailure();
  }
  // JAX names its entry `main`, which a compiled program's cannot be.
  if (auto entry = module.lookupSymbol<func::FuncOp>("main"))
    entry.setSymName(getEntryName(module, entry));
  for (auto func : module.getOps<func::FuncOp>()) {
    if (failed(rewriteBoundaries(func)))
      return signalPassFailure();
    foldBoundaries(func);
  }
  // comm-opt parses this pass's input without verifying it (Shardy's calls
  // inside sdy ops do not resolve while sdy is unregistered); with the calls
  // inlined, the whole input is checked now.
  if (failed(verify(module)))
    return signalPassFailure();

  // The world is what JAX declared. A module that declares none but has a
  // comm.world_size (one imported before, or written by hand) keeps it: it
  // became 1, and its collectives' ranks were then refused ("the world has
  // only 1 ranks"). Where both are given they must agree: a larger
  // comm.world_size was rewritten silently.
  int64_t world = importer.worldSize();
  bool declaredByJax = module->hasAttr("mhlo.num_partitions") ||
                       module->hasAttr("mhlo.num_replicas");
  std::optional<int64_t> declared = getWorldSize(module);
  if (declared && !declaredByJax)
    world = *declared;
  if (declared && *declared != world) {
    module.emitError() << "comm.world_size is " << *declared
                       << ", but mhlo.num_replicas * mhlo.num_partitions is "
                       << world;
    return signalPassFailure();
  }
  module->setAttr(CommDialect::getWorldSizeAttrName(),
                  IntegerAttr::get(IntegerType::get(ctx, 64), world));
  for (StringRef name : {"mhlo.num_partitions", "mhlo.num_replicas"})
    module->removeAttr(name);

  for (auto func : module.getOps<func::FuncOp>()) {
    if (failed(convertCountedLoops(func)))
      return signalPassFailure();
    SmallVector<Operation *> collectives;
    WalkResult walked = func.walk([&](Operation *op) {
      if (isCollective(op))
        collectives.push_back(op);
      std::string why = getCollectiveCustomCall(op);
      if (why.empty())
        return WalkResult::advance();
      auto target = op->getAttrOfType<StringAttr>("call_target_name");
      op->emitError() << "'stablehlo.custom_call' @"
                      << (target ? target.getValue() : "?")
                      << " communicates between processes (" << why
                      << "), which comm does not import: as compute it "
                         "would drop the communication";
      return WalkResult::interrupt();
    });
    if (walked.wasInterrupted())
      return signalPassFailure();
    for (Operation *op : collectives) {
      if (failed(importer.convert(op)))
        return signalPassFailure();
      ++numCollectives;
    }
    auto isForeign = [](Operation *op) {
      if (op->isRegistered())
        return false;
      return op->getNumResults() == 0 ||
             llvm::any_of(op->getResultTypes(),
                          [](Type t) { return !isa<RankedTensorType>(t); });
    };
    ComputeImportStats stats;
    LogicalResult imported =
        importCompute(func, {estimateStableHLO, isForeign}, stats);
    numCompute += stats.compute;
    numOpaque += stats.opaque;
    if (failed(imported))
      return signalPassFailure();
  }
}
