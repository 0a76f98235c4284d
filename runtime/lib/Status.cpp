//===- lib/Status.cpp - Statuses, messages, type helpers --------*- C++ -*-===//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//
//
// The thread-local last error, the abort policy, names of the enumerators
// and the small helpers every other file uses to build messages.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <cstdio>
#include <cstdlib>
#include <sched.h>
#include <time.h>

using namespace commrt;

namespace {
thread_local std::string threadLastError;
/// commrt_set_site: the generated program's op this thread runs now.
thread_local const char *threadSiteLoc = nullptr;
thread_local const char *threadSiteOp = nullptr;
} // namespace

std::string commrt::format(const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  va_list copy;
  va_copy(copy, args);
  int n = std::vsnprintf(nullptr, 0, fmt, copy);
  va_end(copy);
  std::string out;
  if (n > 0) {
    out.resize(static_cast<size_t>(n) + 1);
    std::vsnprintf(&out[0], out.size(), fmt, args);
    out.resize(static_cast<size_t>(n));
  }
  va_end(args);
  return out;
}

commrt_status commrt::setError(commrt_status status,
                               const std::string &message) {
  threadLastError = message;
  return status;
}

const std::string &commrt::lastError() { return threadLastError; }

bool commrt::isFatal(commrt_status status) {
  switch (status) {
  case COMMRT_ERROR_TIMEOUT:
  case COMMRT_ERROR_BACKEND:
  case COMMRT_ERROR_REMOTE:
  case COMMRT_ERROR_INTERNAL:
    return true;
  default:
    return false;
  }
}

void commrt::abortWorld(commrt_context *ctx, const std::string &message,
                        int code) {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  int rank = -1;
  if (ctx)
    rank = ctx->rank;
  else if (initialized && !finalized)
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::fprintf(stderr, "[commrt rank %d] %s\n", rank, message.c_str());
  std::fflush(stderr);
  std::fflush(stdout);
  if (initialized && !finalized)
    MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

commrt_status commrt::raise(commrt_context *ctx, commrt_status status,
                            const std::string &message) {
  return raise(ctx, status, message, isFatal(status));
}

commrt_status commrt::raise(commrt_context *ctx, commrt_status status,
                            const std::string &message, bool fatal) {
  setError(status, message);
  if (ctx && fatal && ctx->opts.on_error == COMMRT_ON_ERROR_ABORT) {
    // The caller never sees this status: name its op here, as generated
    // code does for the errors it returns.
    std::string site;
    if (threadSiteLoc && threadSiteOp)
      site = std::string(threadSiteLoc) + ": " + threadSiteOp + ": ";
    abortWorld(ctx,
               site + message +
                   " (aborting all ranks; set COMMRT_ON_ERROR=return "
                   "to handle errors instead)",
               static_cast<int>(status));
  }
  return status;
}

std::string commrt::mpiErrorString(const char *call, int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
    return format("%s failed with MPI error %d", call, code);
  return format("%s failed: %.*s", call, length, text);
}

//===----------------------------------------------------------------------===//
// Names and sizes
//===----------------------------------------------------------------------===//

bool commrt::isValidDtype(commrt_dtype dtype) {
  return static_cast<int>(dtype) >= COMMRT_F32 &&
         static_cast<int>(dtype) <= COMMRT_U64;
}

bool commrt::isFloatDtype(commrt_dtype dtype) {
  return dtype == COMMRT_F32 || dtype == COMMRT_F64 || dtype == COMMRT_F16 ||
         dtype == COMMRT_BF16;
}

bool commrt::isValidRedop(commrt_redop op) {
  return static_cast<int>(op) >= COMMRT_SUM &&
         static_cast<int>(op) <= COMMRT_BXOR;
}

const char *commrt::redopName(commrt_redop op) {
  switch (op) {
  case COMMRT_SUM:
    return "sum";
  case COMMRT_PROD:
    return "prod";
  case COMMRT_MIN:
    return "min";
  case COMMRT_MAX:
    return "max";
  case COMMRT_AVG:
    return "avg";
  case COMMRT_BAND:
    return "band";
  case COMMRT_BOR:
    return "bor";
  case COMMRT_BXOR:
    return "bxor";
  }
  return "unknown";
}

const char *commrt::backendName(commrt_backend backend) {
  switch (backend) {
  case COMMRT_BACKEND_AUTO:
    return "auto";
  case COMMRT_BACKEND_MPI:
    return "mpi";
  case COMMRT_BACKEND_NCCL:
    return "nccl";
  case COMMRT_BACKEND_VERBS:
    return "verbs";
  }
  return "unknown";
}

const char *commrt::spaceName(commrt_memory_space space) {
  switch (space) {
  case COMMRT_HBM:
    return "hbm";
  case COMMRT_HOST:
    return "host";
  case COMMRT_PINNED_HOST:
    return "pinned_host";
  }
  return "unknown";
}

bool commrt::isValidSpace(commrt_memory_space space) {
  return space == COMMRT_HBM || space == COMMRT_HOST ||
         space == COMMRT_PINNED_HOST;
}

commrt_status commrt::checkCount(const char *what, int64_t count,
                                 commrt_dtype dtype, size_t *bytes) {
  if (!isValidDtype(dtype))
    return setError(
        COMMRT_ERROR_INVALID_ARGUMENT,
        format("commrt: %s: unknown dtype %d", what, static_cast<int>(dtype)));
  if (count < 0)
    return setError(COMMRT_ERROR_INVALID_ARGUMENT,
                    format("commrt: %s: count %lld is negative", what,
                           static_cast<long long>(count)));
  size_t size = commrt_dtype_size(dtype);
  // Keep byte counts below 2^62 so that offsets and sums of them can never
  // overflow an int64_t either.
  if (static_cast<uint64_t>(count) > (uint64_t(1) << 62) / size)
    return setError(
        COMMRT_ERROR_INVALID_ARGUMENT,
        format("commrt: %s: count %lld of %s overflows the byte size", what,
               static_cast<long long>(count), commrt_dtype_name(dtype)));
  if (bytes)
    *bytes = static_cast<size_t>(count) * size;
  return COMMRT_SUCCESS;
}

const char *commrt::opName(OpKind kind) {
  switch (kind) {
  case OpKind::AllReduce:
    return "all_reduce";
  case OpKind::ReduceScatter:
    return "reduce_scatter";
  case OpKind::AllGather:
    return "all_gather";
  case OpKind::AllToAll:
    return "all_to_all";
  case OpKind::Broadcast:
    return "broadcast";
  case OpKind::Reduce:
    return "reduce";
  case OpKind::Barrier:
    return "barrier";
  case OpKind::Send:
    return "send";
  case OpKind::Recv:
    return "recv";
  case OpKind::Permute:
    return "permute";
  }
  return "unknown op";
}

std::string commrt::describe(const OpArgs &args) {
  switch (args.kind) {
  case OpKind::Send:
    return format("send to rank %d (tag %d)", args.peer, args.tag);
  case OpKind::Recv:
    return format("recv from rank %d (tag %d)", args.peer, args.tag);
  case OpKind::Permute:
    return "permute over the world";
  default:
    return format("%s on group %s", opName(args.kind),
                  args.comm ? args.comm->name.c_str() : "(none)");
  }
}

//===----------------------------------------------------------------------===//
// Backoff
//===----------------------------------------------------------------------===//

void Backoff::pause() {
  auto now = Clock::now();
  if (polls++ == 0)
    since = now;
  auto waited = now - since;
  long sleepNs = 0;
  if (oversubscribed) {
    // Peers need this core: yield it between polls, as Open MPI's own
    // blocking calls do when oversubscribed (a sleep here would add its
    // length to every collective's latency); sleep only once the wait is
    // clearly long.
    if (polls < 16)
      return;
    if (waited < std::chrono::milliseconds(20)) {
      sched_yield();
      return;
    }
    sleepNs = waited < std::chrono::milliseconds(200) ? 50000 : 200000;
  } else {
    // Like MPI's blocking calls: a small collective completes within tens
    // of microseconds when every rank has a core.
    if (waited < std::chrono::microseconds(50))
      return;
    if (waited < std::chrono::milliseconds(10)) {
      sched_yield();
      return;
    }
    sleepNs = waited < std::chrono::milliseconds(200) ? 50000 : 500000;
  }
  struct timespec ts = {0, sleepNs};
  nanosleep(&ts, nullptr);
}

//===----------------------------------------------------------------------===//
// C ABI
//===----------------------------------------------------------------------===//

extern "C" const char *commrt_status_string(commrt_status status) {
  switch (status) {
  case COMMRT_SUCCESS:
    return "COMMRT_SUCCESS";
  case COMMRT_ERROR_INVALID_ARGUMENT:
    return "COMMRT_ERROR_INVALID_ARGUMENT";
  case COMMRT_ERROR_TIMEOUT:
    return "COMMRT_ERROR_TIMEOUT";
  case COMMRT_ERROR_UNAVAILABLE:
    return "COMMRT_ERROR_UNAVAILABLE";
  case COMMRT_ERROR_BACKEND:
    return "COMMRT_ERROR_BACKEND";
  case COMMRT_ERROR_REMOTE:
    return "COMMRT_ERROR_REMOTE";
  case COMMRT_ERROR_INTERNAL:
    return "COMMRT_ERROR_INTERNAL";
  case COMMRT_ERROR_OUT_OF_MEMORY:
    return "COMMRT_ERROR_OUT_OF_MEMORY";
  case COMMRT_ERROR_INVALID_STATE:
    return "COMMRT_ERROR_INVALID_STATE";
  }
  return "COMMRT_ERROR_UNKNOWN";
}

extern "C" const char *commrt_last_error(void) {
  return threadLastError.c_str();
}

extern "C" void commrt_set_site(const char *loc, const char *op) {
  threadSiteLoc = loc;
  threadSiteOp = op;
}

extern "C" int commrt_abi_version(void) { return COMMRT_ABI_VERSION; }

extern "C" size_t commrt_dtype_size(commrt_dtype dtype) {
  switch (dtype) {
  case COMMRT_F64:
  case COMMRT_I64:
  case COMMRT_U64:
    return 8;
  case COMMRT_F32:
  case COMMRT_I32:
  case COMMRT_U32:
    return 4;
  case COMMRT_F16:
  case COMMRT_BF16:
    return 2;
  case COMMRT_I8:
  case COMMRT_U8:
    return 1;
  }
  return 0;
}

extern "C" const char *commrt_dtype_name(commrt_dtype dtype) {
  switch (dtype) {
  case COMMRT_F32:
    return "f32";
  case COMMRT_F64:
    return "f64";
  case COMMRT_F16:
    return "f16";
  case COMMRT_BF16:
    return "bf16";
  case COMMRT_I8:
    return "i8";
  case COMMRT_U8:
    return "u8";
  case COMMRT_I32:
    return "i32";
  case COMMRT_U32:
    return "u32";
  case COMMRT_I64:
    return "i64";
  case COMMRT_U64:
    return "u64";
  }
  return "unknown";
}
