//===- lib/Unbuilt.cpp - Factories of backends not built --------*- C++ -*-===//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//
//
// When a backend is not built (its COMMRT_ENABLE_* option is OFF, usually
// because its toolkit was not found), asking for it at commrt_init gives
// COMMRT_ERROR_UNAVAILABLE saying so instead of a link error.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

using namespace commrt;

#if !COMMRT_HAVE_NCCL
commrt_status commrt::createNcclBackend(commrt_context *,
                                        std::unique_ptr<Backend> &) {
  return setError(COMMRT_ERROR_UNAVAILABLE,
                  "nccl backend: commrt was built without NCCL "
                  "(COMMRT_ENABLE_NCCL=OFF; it needs CUDA and nccl.h)");
}
#endif

#if !COMMRT_HAVE_VERBS
commrt_status commrt::createVerbsBackend(commrt_context *,
                                         std::unique_ptr<Backend> &) {
  return setError(COMMRT_ERROR_UNAVAILABLE,
                  "verbs backend: commrt was built without ibverbs "
                  "(COMMRT_ENABLE_VERBS=OFF; it needs libibverbs-dev)");
}
#endif
