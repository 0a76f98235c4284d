//===- YamlInput.h - what comm's YAML readers share -------------*- C++ -*-===//
//
// The topology importer and the cost-parameter reader both read YAML with
// LLVM's YAMLTraits, check values as they are read (so that an error points
// at the value's line and column) and record the line of a mapping for the
// errors found after the read. Both pass a YamlParseContext as the reader's
// context.
//
//===----------------------------------------------------------------------===//

#ifndef COMM_SUPPORT_YAMLINPUT_H
#define COMM_SUPPORT_YAMLINPUT_H

#include "mlir/Support/LLVM.h"
#include "llvm/Support/YAMLTraits.h"

#include <algorithm>
#include <string>

namespace mlir {
namespace comm {

/// The text a node's line is counted in, and the message of a value out of
/// range while the reader reports it (ScalarTraits::input returns a
/// StringRef, which must outlive the call).
struct YamlParseContext {
  const char *bufferStart = nullptr;
  std::string message;
};

/// The line (from 1) the reader is at, for a mapping its first key's; 0
/// when writing, or without a context.
inline unsigned getYamlLine(llvm::yaml::IO &io) {
  if (io.outputting())
    return 0;
  auto *context = static_cast<YamlParseContext *>(io.getContext());
  const llvm::yaml::Node *node =
      static_cast<llvm::yaml::Input &>(io).getCurrentNode();
  if (!context || !context->bufferStart || !node)
    return 0;
  const char *at = node->getSourceRange().Start.getPointer();
  return 1 + std::count(context->bufferStart, at, '\n');
}

/// What a ScalarTraits::input returns for a value out of range: `message`,
/// held by the reader's context, or `withoutContext` when there is none.
inline StringRef reportYamlValue(void *context, std::string message,
                                 StringRef withoutContext) {
  auto *parse = static_cast<YamlParseContext *>(context);
  if (!parse)
    return withoutContext;
  parse->message = std::move(message);
  return parse->message;
}

} // namespace comm
} // namespace mlir

#endif // COMM_SUPPORT_YAMLINPUT_H
