//===- OutputFile.cpp - checked writes of the tools -------------*- C++ -*-===//

#include "comm/Support/OutputFile.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

llvm::Error mlir::comm::checkOutputStream(llvm::raw_fd_ostream &os,
                                          StringRef path) {
  os.flush();
  if (!os.has_error())
    return llvm::Error::success();
  std::error_code error = os.error();
  os.clear_error();
  return llvm::createStringError(error, "cannot write " +
                                            (path == "-" ? "<stdout>" : path) +
                                            ": " + error.message());
}

llvm::Error mlir::comm::keepOutputFile(llvm::ToolOutputFile &file,
                                       StringRef path) {
  if (llvm::Error error = checkOutputStream(file.os(), path))
    return error;
  file.keep();
  return llvm::Error::success();
}
