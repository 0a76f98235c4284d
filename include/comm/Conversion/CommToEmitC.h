//===- CommToEmitC.h - C spellings of comm types ----------------*- C++ -*-===//
//
// How the lowering spells types and strings in C, shared by
// convert-comm-to-emitc, the harness generator and comm-compile's header
// writer so that they always agree with the generated entry points.
//
//===----------------------------------------------------------------------===//

#ifndef COMM_CONVERSION_COMMTOEMITC_H
#define COMM_CONVERSION_COMMTOEMITC_H

#include "mlir/IR/Types.h"
#include "mlir/Support/LLVM.h"
#include <string>

namespace mlir {
namespace comm {

/// The commrt_dtype enumerator of a buffer element type ("COMMRT_F32"), or
/// "" if commrt has none for it.
StringRef getCommrtDtypeName(Type elementType);

/// The C type holding one element or scalar of `type` ("float", "uint16_t"
/// for f16 and bf16, "size_t" for index, "int32_t", ...), or "" if none.
std::string getCTypeName(Type type);

/// `text` as a C string literal, quotes included.
std::string quoteCString(StringRef text);

} // namespace comm
} // namespace mlir

#endif // COMM_CONVERSION_COMMTOEMITC_H
