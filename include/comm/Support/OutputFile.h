//===- OutputFile.h - checked writes of the tools ---------------*- C++ -*-===//
//
// raw_fd_ostream records a failed write (a full disk, /dev/full) and, when
// it is destroyed still holding the error, ends the process with "LLVM
// ERROR: IO failure on output stream". The tools check every file they
// write before they keep it and report a failure as an error of their own.
//
//===----------------------------------------------------------------------===//

#ifndef COMM_SUPPORT_OUTPUTFILE_H
#define COMM_SUPPORT_OUTPUTFILE_H

#include "mlir/Support/LLVM.h"
#include "llvm/Support/Error.h"

namespace llvm {
class ToolOutputFile;
class raw_fd_ostream;
} // namespace llvm

namespace mlir {
namespace comm {

/// Flushes `os` and returns "cannot write <path>: <reason>" (`<stdout>` for
/// "-") if a write failed, clearing the stream's error so that destroying
/// it does not end the process.
llvm::Error checkOutputStream(llvm::raw_fd_ostream &os, StringRef path);

/// Keeps `file` if every write reached it; otherwise returns the error of
/// checkOutputStream and leaves the file to be removed.
llvm::Error keepOutputFile(llvm::ToolOutputFile &file, StringRef path);

} // namespace comm
} // namespace mlir

#endif // COMM_SUPPORT_OUTPUTFILE_H
