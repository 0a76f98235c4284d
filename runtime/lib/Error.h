//===- lib/Error.h - The thread-local last error ----------------*- C++ -*-===//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//
//
// Setting and reading the message commrt_last_error returns. Kept apart
// from Internal.h (which needs mpi.h) so that the CUDA kernels can use it.
//
//===----------------------------------------------------------------------===//

#ifndef COMMRT_LIB_ERROR_H
#define COMMRT_LIB_ERROR_H

#include "commrt.h"

#include <string>

namespace commrt {

/// printf into a std::string.
std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/// Stores \p message as the calling thread's last error and returns
/// \p status. Used where no context applies the error policy (argument
/// checks, backend internals whose caller adds the context).
commrt_status setError(commrt_status status, const std::string &message);

/// The calling thread's last error message.
const std::string &lastError();

} // namespace commrt

#endif // COMMRT_LIB_ERROR_H
