//===- EnumOption.h - enum options that list their values -------*- C++ -*-===//
//
// LLVM's parser of an enum-valued option answers a wrong value with "Cannot
// find option named 'foo'!", which names neither the option's values nor
// what the word was taken for. COMM_LISTING_ENUM_OPTION(T) makes every
// option of type T (command-line flags and pass options alike, which share
// llvm::cl::parser<T>) answer "'foo' is not a value of --target (expected
// cpu-mpi, cuda-nccl or cuda-verbs)". It must be used before any option of
// type T is parsed, in the header that declares T's option values.
//
//===----------------------------------------------------------------------===//

#ifndef COMM_SUPPORT_ENUMOPTION_H
#define COMM_SUPPORT_ENUMOPTION_H

#include "llvm/Support/CommandLine.h"

namespace mlir {
namespace comm {

/// What llvm::cl::parser<T>::parse does, with an error that lists the
/// values `parser` knows.
template <typename T>
bool parseListingValues(const llvm::cl::parser<T> &parser,
                        llvm::cl::Option &option, llvm::StringRef argName,
                        llvm::StringRef arg, T &value) {
  llvm::StringRef word = option.hasArgStr() ? arg : argName;
  std::string expected;
  unsigned count = parser.getNumOptions();
  for (unsigned i = 0; i < count; ++i) {
    llvm::StringRef name = parser.getOption(i);
    if (name == word) {
      value = static_cast<const llvm::cl::OptionValue<T> &>(
                  parser.getOptionValue(i))
                  .getValue();
      return false;
    }
    expected += (i == 0 ? "" : i + 1 == count ? " or " : ", ") + name.str();
  }
  return option.error("'" + word + "' is not a value of --" + option.ArgStr +
                      " (expected " + expected + ")");
}

} // namespace comm
} // namespace mlir

/// Makes llvm::cl::parser<T> (T fully qualified) list its values on a
/// wrong one.
#define COMM_LISTING_ENUM_OPTION(T)                                            \
  template <>                                                                  \
  inline bool llvm::cl::parser<T>::parse(llvm::cl::Option &option,             \
                                         llvm::StringRef argName,              \
                                         llvm::StringRef arg, T &value) {      \
    return mlir::comm::parseListingValues(*this, option, argName, arg, value); \
  }

#endif // COMM_SUPPORT_ENUMOPTION_H
