//===- EnumNames.h - the spellings of a comm enum ---------------*- C++ -*-===//
//
// What an error lists after "expected": every case of one of the dialect's
// ODS enums, spelled as the IR spells it, read from the enum itself so that
// a new case appears in every message.
//
//===----------------------------------------------------------------------===//

#ifndef COMM_DIALECT_COMM_IR_ENUMNAMES_H
#define COMM_DIALECT_COMM_IR_ENUMNAMES_H

#include "comm/Dialect/Comm/IR/CommAttrs.h"
#include <string>

namespace mlir {
namespace comm {

/// "ring, tree, direct, ...": the cases of `EnumT` (an ODS enum numbered
/// from 0, whose stringifyEnum answers "" past its last case), as an error
/// lists them after "expected one of".
template <typename EnumT> std::string getEnumNames() {
  std::string text;
  for (uint32_t i = 0;; ++i) {
    llvm::StringRef name = stringifyEnum(static_cast<EnumT>(i));
    if (name.empty())
      return text;
    text += (i ? ", " : "") + name.str();
  }
}

} // namespace comm
} // namespace mlir

#endif // COMM_DIALECT_COMM_IR_ENUMNAMES_H
