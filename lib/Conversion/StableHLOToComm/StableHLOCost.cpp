//===- StableHLOCost.cpp - cost rules for StableHLO ops ---------*- C++ -*-===//
//
// FLOP and byte estimates of StableHLO ops in generic form (unregistered ops,
// read by name and attribute), for the compute that convert-stablehlo-to-comm
// turns into comm.compute. Contractions count 2 FLOPs per multiply-add,
// elementwise ops one per element, data movement only bytes.
//
//===----------------------------------------------------------------------===//

#include "StableHLOToComm.h"
#include "comm/Conversion/ComputeImport/ComputeImport.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::comm;

/// The integers of `key = [a, b, ...]` in the text of an opaque attribute.
static SmallVector<int64_t> parseList(StringRef text, StringRef key) {
  SmallVector<int64_t> values;
  size_t at = text.find(key);
  if (at == StringRef::npos)
    return values;
  StringRef rest = text.drop_front(at + key.size()).ltrim(" =");
  if (!rest.consume_front("["))
    return values;
  rest = rest.take_until([](char c) { return c == ']'; });
  SmallVector<StringRef> items;
  rest.split(items, ',', -1, false);
  for (StringRef item : items) {
    int64_t value;
    if (!item.trim().getAsInteger(10, value))
      values.push_back(value);
  }
  return values;
}

static StringRef getAttrText(Operation *op, StringRef name) {
  Attribute attr = op->getAttr(name);
  if (auto opaque = dyn_cast_or_null<OpaqueAttr>(attr))
    return opaque.getAttrData();
  return {};
}

static ArrayRef<int64_t> getShape(Value value) {
  if (auto tensor = dyn_cast<RankedTensorType>(value.getType()))
    if (tensor.hasStaticShape())
      return tensor.getShape();
  return {};
}

/// dot_general: 2 * (result elements) * (contracted extent of lhs).
static ComputeEstimate estimateDot(Operation *op, bool general) {
  ComputeEstimate estimate{0, getTrafficBytes(op)};
  if (op->getNumOperands() != 2) {
    estimate.known = false;
    return estimate;
  }
  ArrayRef<int64_t> lhs = getShape(op->getOperand(0));
  if (lhs.empty() && getTensorElements(op->getOperand(0).getType()) != 1) {
    estimate.known = false;
    return estimate;
  }
  int64_t contracted = 1;
  if (general) {
    SmallVector<int64_t> dims = parseList(
        getAttrText(op, "dot_dimension_numbers"), "lhs_contracting_dimensions");
    for (int64_t dim : dims)
      if (dim >= 0 && dim < static_cast<int64_t>(lhs.size()))
        contracted *= lhs[dim];
  } else if (!lhs.empty()) {
    contracted = lhs.back();
  }
  estimate.flops = 2.0 * getResultElements(op) * contracted;
  return estimate;
}

/// convolution: 2 * (result elements) * (kernel elements per output feature).
static ComputeEstimate estimateConvolution(Operation *op) {
  ComputeEstimate estimate{0, getTrafficBytes(op)};
  ArrayRef<int64_t> kernel = op->getNumOperands() == 2
                                 ? getShape(op->getOperand(1))
                                 : ArrayRef<int64_t>();
  if (kernel.empty()) {
    estimate.known = false;
    return estimate;
  }
  // `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`: the kernel's `o` dimension.
  StringRef text = getAttrText(op, "dimension_numbers");
  size_t x = text.find("]x[");
  int64_t outputFeatures = kernel.back();
  if (x != StringRef::npos) {
    StringRef spec =
        text.drop_front(x + 3).take_until([](char c) { return c == ']'; });
    SmallVector<StringRef> dims;
    spec.split(dims, ',');
    for (auto [index, dim] : llvm::enumerate(dims))
      if (dim.trim() == "o" && index < kernel.size())
        outputFeatures = kernel[index];
  }
  int64_t kernelElements = 1;
  for (int64_t extent : kernel)
    kernelElements *= extent;
  estimate.flops = 2.0 * getResultElements(op) * kernelElements /
                   std::max<int64_t>(outputFeatures, 1);
  return estimate;
}

std::optional<ComputeEstimate> mlir::comm::estimateStableHLO(Operation *op) {
  StringRef name = op->getName().getStringRef();
  if (!name.consume_front("stablehlo."))
    return std::nullopt;
  static const llvm::StringSet<> elementwise = {"abs",
                                                "add",
                                                "and",
                                                "atan2",
                                                "cbrt",
                                                "ceil",
                                                "clamp",
                                                "compare",
                                                "complex",
                                                "convert",
                                                "cosine",
                                                "count_leading_zeros",
                                                "divide",
                                                "exponential",
                                                "exponential_minus_one",
                                                "floor",
                                                "imag",
                                                "is_finite",
                                                "log",
                                                "log_plus_one",
                                                "logistic",
                                                "maximum",
                                                "minimum",
                                                "multiply",
                                                "negate",
                                                "not",
                                                "or",
                                                "popcnt",
                                                "power",
                                                "real",
                                                "reduce_precision",
                                                "remainder",
                                                "round_nearest_afz",
                                                "round_nearest_even",
                                                "rsqrt",
                                                "select",
                                                "shift_left",
                                                "shift_right_arithmetic",
                                                "shift_right_logical",
                                                "sign",
                                                "sine",
                                                "sqrt",
                                                "subtract",
                                                "tan",
                                                "tanh",
                                                "xor"};
  static const llvm::StringSet<> movement = {"broadcast_in_dim",
                                             "broadcast",
                                             "concatenate",
                                             "copy",
                                             "dynamic_slice",
                                             "dynamic_update_slice",
                                             "gather",
                                             "iota",
                                             "pad",
                                             "reverse",
                                             "scatter",
                                             "slice",
                                             "sort",
                                             "transpose",
                                             "real_dynamic_slice",
                                             "dynamic_pad",
                                             "dynamic_broadcast_in_dim",
                                             "dynamic_iota"};
  if (name == "constant" || name == "reshape" || name == "bitcast_convert" ||
      name == "dynamic_reshape" || name == "optimization_barrier" ||
      name == "partition_id" || name == "replica_id")
    return ComputeEstimate{};
  if (name == "dot_general" || name == "dot")
    return estimateDot(op, name == "dot_general");
  if (name == "convolution")
    return estimateConvolution(op);
  if (elementwise.contains(name))
    return ComputeEstimate{static_cast<double>(getResultElements(op)),
                           getTrafficBytes(op)};
  if (movement.contains(name))
    return ComputeEstimate{0, getTrafficBytes(op)};
  if (name == "reduce") {
    // Variadic: inputs then init values; one combine per input element.
    double flops = 0;
    for (Value input : op->getOperands().take_front(op->getNumOperands() / 2))
      flops += getTensorElements(input.getType());
    return ComputeEstimate{flops, getTrafficBytes(op)};
  }
  if (name == "reduce_window") {
    auto window =
        dyn_cast_or_null<DenseI64ArrayAttr>(op->getAttr("window_dimensions"));
    int64_t size = 1;
    if (window)
      for (int64_t extent : window.asArrayRef())
        size *= extent;
    return ComputeEstimate{static_cast<double>(getResultElements(op)) * size,
                           getTrafficBytes(op), window != nullptr};
  }
  return std::nullopt;
}
