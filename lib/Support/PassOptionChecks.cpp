//===- PassOptionChecks.cpp - pass options given twice ---------*- C++ -*-===//
//
// MLIR splits a pass's option string at blanks outside quotes and braces
// and keeps the last value of a repeated key. These checks split it the
// same way and refuse a repeated key before MLIR reads it.
//
//===----------------------------------------------------------------------===//

#include "comm/Support/InputChecks.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;

/// Past the quoted text whose quote is at `pos`: after its closing quote,
/// or the text's end where it has none.
static size_t skipQuoted(StringRef text, size_t pos) {
  size_t close = text.find(text[pos], pos + 1);
  return close == StringRef::npos ? text.size() : close + 1;
}

static bool isQuote(char c) { return c == '\'' || c == '"'; }

/// Where the text from `pos` ends: the first blank outside quotes and
/// braces (a value such as `{a=1 b=2}` or `'x y'` holds blanks).
static size_t findOptionEnd(StringRef text, size_t pos) {
  unsigned depth = 0;
  while (pos < text.size()) {
    char c = text[pos];
    if (isQuote(c)) {
      pos = skipQuoted(text, pos);
      continue;
    }
    if (c == '{')
      ++depth;
    else if (c == '}' && depth)
      --depth;
    else if (!depth && llvm::isSpace(c))
      break;
    ++pos;
  }
  return pos;
}

/// Reports the first key of `options` given twice, for the pass or
/// pipeline `name`.
static LogicalResult checkOptionString(StringRef name, StringRef options,
                                       StringRef tool) {
  llvm::StringMap<StringRef> seen;
  size_t pos = 0;
  while (true) {
    while (pos < options.size() && llvm::isSpace(options[pos]))
      ++pos;
    if (pos == options.size())
      return success();
    size_t keyEnd = pos;
    while (keyEnd < options.size() && options[keyEnd] != '=' &&
           !llvm::isSpace(options[keyEnd]))
      ++keyEnd;
    size_t end = keyEnd < options.size() && options[keyEnd] == '='
                     ? findOptionEnd(options, keyEnd + 1)
                     : keyEnd;
    StringRef key = options.slice(pos, keyEnd);
    StringRef whole = options.slice(pos, end);
    auto [it, inserted] = seen.try_emplace(key, whole);
    if (!inserted) {
      llvm::WithColor::error(llvm::errs(), tool)
          << name << "'s option '" << key << "' is given twice ('" << it->second
          << "', then '" << whole
          << "'): give it once (MLIR would keep the last without a word)\n";
      return failure();
    }
    pos = end;
  }
}

/// Checks each `{...}` option list of a textual pipeline, named by the
/// pass or pipeline before it.
static LogicalResult checkPipelineText(StringRef pipeline, StringRef tool) {
  size_t pos = 0;
  while (pos < pipeline.size()) {
    char c = pipeline[pos];
    if (isQuote(c)) {
      pos = skipQuoted(pipeline, pos);
      continue;
    }
    if (c != '{') {
      ++pos;
      continue;
    }
    size_t nameStart = pos;
    while (nameStart && (llvm::isAlnum(pipeline[nameStart - 1]) ||
                         StringRef("-_.").contains(pipeline[nameStart - 1])))
      --nameStart;
    // The list ends at its matching brace.
    size_t end = pos + 1;
    for (unsigned depth = 1; end < pipeline.size();) {
      char d = pipeline[end];
      if (isQuote(d)) {
        end = skipQuoted(pipeline, end);
        continue;
      }
      if (d == '{')
        ++depth;
      else if (d == '}' && --depth == 0)
        break;
      ++end;
    }
    if (failed(checkOptionString(pipeline.slice(nameStart, pos),
                                 pipeline.slice(pos + 1, end), tool)))
      return failure();
    pos = end + 1;
  }
  return success();
}

LogicalResult mlir::comm::checkRepeatedPassOptions(ArrayRef<char *> arguments,
                                                   StringRef tool) {
  for (char *argument : arguments) {
    if (!argument)
      continue;
    StringRef text(argument);
    if (!text.consume_front("-"))
      continue;
    text.consume_front("-");
    auto [name, options] = text.split('=');
    if (options.empty())
      continue;
    if (name == "pass-pipeline" || name == "p") {
      if (failed(checkPipelineText(options, tool)))
        return failure();
    } else if (PassInfo::lookup(name) || PassPipelineInfo::lookup(name)) {
      if (failed(checkOptionString(name, options, tool)))
        return failure();
    }
  }
  return success();
}
