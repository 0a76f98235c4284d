//===- InputChecks.cpp - guards run on input before parsing ----*- C++ -*-===//

#include "comm/Support/InputChecks.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

/// More results than any op of a real program has.
static constexpr uint64_t kMaxResults = 1 << 20;
/// The most operators (`+ - *`, `floordiv`, `ceildiv`, `mod`) one
/// expression may chain between two of `, = ( ) [ ] { } < >`: MLIR's affine
/// parser recurses once per operator (a run of 20,000 unary minus signs, or
/// a sum of 100,000 terms, overflowed the stack).
static constexpr unsigned kMaxOperatorChain = 1024;

LogicalResult mlir::comm::checkInputText(llvm::SourceMgr &sourceMgr,
                                            unsigned bufferId,
                                            unsigned maxDepth) {
  const llvm::MemoryBuffer *buffer = sourceMgr.getMemoryBuffer(bufferId);
  StringRef text = buffer->getBuffer();
  // MLIR bytecode starts with "ML\xefR"; its reader does not recurse on
  // brackets.
  if (text.starts_with("ML\xef"
                       "R"))
    return success();
  // Editors on Windows may start a UTF-8 file with a byte order mark,
  // which MLIR's lexer takes for an unexpected character.
  if (text.starts_with("\xef\xbb\xbf")) {
    sourceMgr.PrintMessage(llvm::SMLoc::getFromPointer(text.data()),
                           llvm::SourceMgr::DK_Error,
                           "the file starts with a UTF-8 byte order mark, "
                           "which MLIR does not read: save it as UTF-8 "
                           "without one");
    return failure();
  }
  unsigned depth = 0;
  unsigned chain = 0;
  auto chained = [&](size_t at) {
    if (++chain <= kMaxOperatorChain)
      return true;
    sourceMgr.PrintMessage(
        llvm::SMLoc::getFromPointer(text.data() + at),
        llvm::SourceMgr::DK_Error,
        "an expression chains more than " + Twine(kMaxOperatorChain) +
            " operators here; comm does not accept expressions this long");
    return false;
  };
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    switch (c) {
    case '\0':
      sourceMgr.PrintMessage(llvm::SMLoc::getFromPointer(text.data() + i),
                             llvm::SourceMgr::DK_Error,
                             "NUL byte in a text file; the file is binary or "
                             "corrupted");
      return failure();
    case '"':
      // Skip a string literal, honouring backslash escapes.
      for (++i; i < e && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\')
          ++i;
      break;
    case '%': {
      // `%name#N` uses result N and `%name:N` defines N results: MLIR's
      // parser allocates for N before it checks anything, and aborts ("out
      // of memory") on numbers near 2^31.
      size_t j = i + 1;
      while (j < e && (llvm::isAlnum(text[j]) || text[j] == '_' ||
                       text[j] == '$' || text[j] == '.' || text[j] == '-'))
        ++j;
      // The lexer takes `#N` and `:N` as tokens of their own: blanks may
      // come between (`%0 #2147483648` aborted as well).
      size_t mark = j;
      while (mark < e && llvm::isSpace(text[mark]))
        ++mark;
      if (mark + 1 < e && (text[mark] == '#' || text[mark] == ':') &&
          llvm::isDigit(text[mark + 1])) {
        j = mark;
        size_t k = j + 1;
        uint64_t number = 0;
        while (k < e && llvm::isDigit(text[k]) && number <= kMaxResults)
          number = number * 10 + (text[k++] - '0');
        if (number > kMaxResults) {
          sourceMgr.PrintMessage(
              llvm::SMLoc::getFromPointer(text.data() + j + 1),
              llvm::SourceMgr::DK_Error,
              Twine(text[j] == '#' ? "result number" : "result count") +
                  " past " + Twine(kMaxResults) +
                  "; comm does not accept ops with this many results");
          return failure();
        }
      }
      i = j - 1;
      break;
    }
    case '/':
      if (i + 1 < e && text[i + 1] == '/')
        while (i < e && text[i] != '\n')
          ++i;
      break;
    case '+':
    case '-':
    case '*':
      if (!chained(i))
        return failure();
      break;
    case ',':
    case '=':
      chain = 0;
      break;
    case '(':
    case '[':
    case '{':
    case '<':
      chain = 0;
      if (++depth > maxDepth) {
        sourceMgr.PrintMessage(
            llvm::SMLoc::getFromPointer(text.data() + i),
            llvm::SourceMgr::DK_Error,
            "brackets nest deeper than " + Twine(maxDepth) +
                " levels here; comm does not accept input nested this "
                "deeply");
        return failure();
      }
      break;
    case '>':
      // `->` is an arrow, not a closing bracket.
      if (i > 0 && text[i - 1] == '-')
        break;
      [[fallthrough]];
    case ')':
    case ']':
    case '}':
      chain = 0;
      if (depth > 0)
        --depth;
      break;
    default:
      // The affine parser's keyword operators, as words of their own.
      if (llvm::isAlpha(c) && (i == 0 || !llvm::isAlnum(text[i - 1]))) {
        size_t end = i;
        while (end < e && (llvm::isAlnum(text[end]) || text[end] == '_'))
          ++end;
        StringRef word = text.slice(i, end);
        if ((word == "floordiv" || word == "ceildiv" || word == "mod") &&
            !chained(i))
          return failure();
        i = end - 1;
      }
      break;
    }
  }
  return success();
}

llvm::Error mlir::comm::checkYamlNesting(StringRef text, StringRef fileName,
                                         unsigned maxDepth) {
  unsigned depth = 0, line = 1;
  size_t lineStart = 0;
  // The last character that is not blank on this line ('\0': none yet): a
  // quote opens a scalar only where a token starts.
  char previous = '\0';
  auto error = [&](size_t at, const Twine &problem) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   fileName + ":" + Twine(line) + ":" +
                                       Twine(at - lineStart + 1) +
                                       ": error: " + problem);
  };
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    if (i == lineStart) {
      size_t indent = text.find_first_not_of(' ', i);
      indent = (indent == StringRef::npos ? e : indent) - i;
      if (indent > 8 * static_cast<size_t>(maxDepth))
        return error(i, "the line is indented " + Twine(indent) +
                            " columns, nested deeper than " + Twine(maxDepth) +
                            " levels; comm does not accept input nested "
                            "this deeply");
    }
    switch (c) {
    case '\n':
      ++line;
      lineStart = i + 1;
      previous = '\0';
      continue;
    case '#':
      if (i == lineStart || llvm::isSpace(text[i - 1])) {
        while (i + 1 < e && text[i + 1] != '\n')
          ++i;
        continue;
      }
      break;
    case '"':
    case '\'':
      if (previous != '\0' && !StringRef(":,[{-?").contains(previous))
        break;
      // To the closing quote ('' in single quotes is a quote, read as two
      // scalars here; \" in double quotes is skipped).
      for (++i; i < e && text[i] != c; ++i) {
        if (c == '"' && text[i] == '\\')
          ++i;
        else if (text[i] == '\n') {
          ++line;
          lineStart = i + 1;
        }
      }
      break;
    case '[':
    case '{':
      if (++depth > maxDepth)
        return error(i, "brackets nest deeper than " + Twine(maxDepth) +
                            " levels here; comm does not accept input "
                            "nested this deeply");
      break;
    case ']':
    case '}':
      if (depth > 0)
        --depth;
      break;
    default:
      break;
    }
    if (!llvm::isSpace(c))
      previous = c;
  }
  return llvm::Error::success();
}

LogicalResult mlir::comm::checkInputText(const llvm::MemoryBuffer &buffer,
                                            unsigned maxDepth) {
  llvm::SourceMgr sourceMgr;
  unsigned id = sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(buffer.getMemBufferRef(),
                                       /*RequiresNullTerminator=*/false),
      llvm::SMLoc());
  return checkInputText(sourceMgr, id, maxDepth);
}

LogicalResult mlir::comm::verifyEachOpAlone(Operation *root) {
  // Parents first: a func.return's verifier reads its function's type.
  WalkResult result = root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op == root)
      return WalkResult::advance();
    return failed(verify(op, /*verifyRecursively=*/false))
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// The name that marks the parser's implicit module once it is moved to the
/// file's first line.
static constexpr StringLiteral kImplicitModuleName = "implicit module";

bool mlir::comm::isImplicitModule(Operation *module) {
  Location loc = module->getLoc();
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return file.getLine() == 0;
  auto name = dyn_cast<NameLoc>(loc);
  return name && name.getName() == kImplicitModuleName;
}

void mlir::comm::locateImplicitModule(Operation *module) {
  auto file = dyn_cast<FileLineColLoc>(module->getLoc());
  if (!file || file.getLine() != 0)
    return;
  MLIRContext *context = module->getContext();
  module->setLoc(NameLoc::get(
      StringAttr::get(context, kImplicitModuleName),
      FileLineColLoc::get(file.getFilename(), /*line=*/1, /*column=*/1)));
}

namespace {
struct LocateImplicitModule : public PassInstrumentation {
  void runBeforePass(Pass *, Operation *op) override {
    // The root op runs its first pass (or pass adaptor) before anything
    // nested starts, on this thread.
    if (!op->getParentOp())
      comm::locateImplicitModule(op);
  }
};
} // namespace

std::unique_ptr<PassInstrumentation>
mlir::comm::createLocateImplicitModuleInstrumentation() {
  return std::make_unique<LocateImplicitModule>();
}

InFlightDiagnostic mlir::comm::emitNoEntryError(Operation *module,
                                                const Twine &what) {
  bool implicit = isImplicitModule(module);
  locateImplicitModule(module);
  InFlightDiagnostic diag = emitError(module->getLoc()) << what;
  bool empty = module->getNumRegions() == 1 &&
               module->getRegion(0).hasOneBlock() &&
               module->getRegion(0).front().empty();
  if (implicit && empty)
    diag << " (the file holds no operation: expected a module of functions)";
  // The output of comm-lower-to-emitc (or comm-compile's .mlir) given back.
  bool lowered = module->getNumRegions() == 1 &&
                 llvm::any_of(module->getRegion(0).getOps(), [](Operation &op) {
                   return op.getName().getStringRef() == "emitc.func";
                 });
  if (lowered)
    diag << " (the module is already lowered to EmitC: give the comm program "
            "as it was before comm-lower-to-emitc, or print this one as C++ "
            "with comm-translate)";
  return diag;
}

SmallVector<char *> mlir::comm::getArgumentsWithoutOpDumps(int argc,
                                                           char **argv) {
  static char quiet[] = "--mlir-print-op-on-diagnostic=false";
  SmallVector<char *> arguments(argv, argv + argc);
  if (llvm::none_of(arguments, [](StringRef argument) {
        return argument.ltrim('-').starts_with("mlir-print-op-on-diagnostic");
      }))
    arguments.push_back(quiet);
  arguments.push_back(nullptr);
  return arguments;
}
