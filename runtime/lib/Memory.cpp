//===- lib/Memory.cpp - Allocation, copies, streams and events --*- C++ -*-===//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//
//
// Host memory is handled here; everything that touches a GPU goes through
// the cuda module (cuda/Cuda.h) when commrt is built with CUDA, and is
// COMMRT_ERROR_UNAVAILABLE with the reason otherwise. Without a CUDA device,
// streams and events are host objects: work runs when it is enqueued.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#if COMMRT_HAVE_CUDA
#include "../cuda/Cuda.h"
#endif

#include <cstdlib>
#include <cstring>

using namespace commrt;

namespace {

commrt_status invalid(const char *fn, const std::string &what) {
  return setError(COMMRT_ERROR_INVALID_ARGUMENT,
                  std::string("commrt: ") + fn + ": " + what);
}

/// UNAVAILABLE unless \p ctx has a CUDA device.
commrt_status needCuda(const char *fn, commrt_context *ctx,
                       const char *purpose) {
  if (ctx->cudaDevice >= 0)
    return COMMRT_SUCCESS;
  return setError(COMMRT_ERROR_UNAVAILABLE,
                  format("commrt: %s: %s needs a CUDA device, and there is "
                         "none: %s",
                         fn, purpose, ctx->cudaMissing.c_str()));
}

/// Prefixes a failure of the cuda module with the function name and
/// applies the error policy.
[[maybe_unused]] commrt_status cudaFailed(const char *fn, commrt_context *ctx,
                                          commrt_status status) {
  if (status == COMMRT_SUCCESS)
    return status;
  return raise(
      ctx, status,
      format("commrt: %s on rank %d: %s", fn, ctx->rank, lastError().c_str()));
}

bool isHostSpace(commrt_memory_space space) { return space != COMMRT_HBM; }

#if COMMRT_HAVE_CUDA
/// Polls \p query until done or the context's timeout.
template <typename Query>
commrt_status pollCuda(const char *fn, commrt_context *ctx, Query query) {
  Deadline deadline(ctx->opts.timeout_ms);
  Backoff backoff(ctx->oversubscribed);
  for (;;) {
    bool done = false;
    if (commrt_status s = query(done))
      return cudaFailed(fn, ctx, s);
    if (done)
      return COMMRT_SUCCESS;
    if (deadline.expired())
      return raise(ctx, COMMRT_ERROR_TIMEOUT,
                   format("commrt: %s timed out after %lld ms on rank %d "
                          "(the GPU work did not finish)",
                          fn, static_cast<long long>(deadline.timeout()),
                          ctx->rank));
    backoff.pause();
  }
}
#endif

} // namespace

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

extern "C" commrt_status commrt_alloc(commrt_context *ctx, int64_t bytes,
                                      commrt_memory_space space, void **ptr) {
  const char *fn = "commrt_alloc";
  return guard(fn, [&]() -> commrt_status {
    if (!ctx)
      return invalid(fn, "ctx is NULL");
    if (!ptr)
      return invalid(fn, "ptr is NULL");
    *ptr = nullptr;
    if (bytes < 0)
      return invalid(
          fn, format("bytes %lld is negative", static_cast<long long>(bytes)));
    if (!isValidSpace(space))
      return invalid(
          fn, format("unknown memory space %d", static_cast<int>(space)));
    size_t size = bytes ? static_cast<size_t>(bytes) : 1;
    if (space == COMMRT_HOST) {
      // Round up to the alignment as aligned_alloc requires.
      size_t rounded = (size + 63) & ~size_t(63);
      if (rounded < size || !(*ptr = std::aligned_alloc(64, rounded)))
        return setError(COMMRT_ERROR_OUT_OF_MEMORY,
                        format("commrt: commrt_alloc: cannot allocate %lld "
                               "bytes of host memory",
                               static_cast<long long>(bytes)));
      return COMMRT_SUCCESS;
    }
    if (commrt_status s = needCuda(fn, ctx, spaceName(space)))
      return s;
#if COMMRT_HAVE_CUDA
    commrt_status s = space == COMMRT_HBM ? cuda::deviceMalloc(ptr, size)
                                          : cuda::hostMalloc(ptr, size);
    if (s)
      return setError(s, format("commrt: commrt_alloc of %lld bytes of %s on "
                                "rank %d: %s",
                                static_cast<long long>(bytes), spaceName(space),
                                ctx->rank, lastError().c_str()));
#endif
    return COMMRT_SUCCESS;
  });
}

extern "C" commrt_status commrt_free(commrt_context *ctx, void *ptr,
                                     commrt_memory_space space) {
  const char *fn = "commrt_free";
  return guard(fn, [&]() -> commrt_status {
    if (!ptr)
      return COMMRT_SUCCESS;
    if (!ctx)
      return invalid(fn, "ctx is NULL");
    if (!isValidSpace(space))
      return invalid(
          fn, format("unknown memory space %d", static_cast<int>(space)));
    if (space == COMMRT_HOST) {
      std::free(ptr);
      return COMMRT_SUCCESS;
    }
    if (commrt_status s = needCuda(fn, ctx, spaceName(space)))
      return s;
#if COMMRT_HAVE_CUDA
    return cudaFailed(fn, ctx,
                      space == COMMRT_HBM ? cuda::deviceFree(ptr)
                                          : cuda::hostFree(ptr));
#else
    return COMMRT_SUCCESS;
#endif
  });
}

extern "C" commrt_status commrt_copy(commrt_context *ctx, void *dst,
                                     commrt_memory_space dst_space,
                                     const void *src,
                                     commrt_memory_space src_space,
                                     int64_t bytes, commrt_stream *stream) {
  const char *fn = "commrt_copy";
  return guard(fn, [&]() -> commrt_status {
    if (!ctx)
      return invalid(fn, "ctx is NULL");
    if (bytes < 0)
      return invalid(
          fn, format("bytes %lld is negative", static_cast<long long>(bytes)));
    if (!isValidSpace(dst_space) || !isValidSpace(src_space))
      return invalid(fn, "unknown memory space");
    if (bytes && (!dst || !src))
      return invalid(fn, !dst ? "dst is NULL" : "src is NULL");
    if (bytes == 0)
      return COMMRT_SUCCESS;
    if (isHostSpace(dst_space) && isHostSpace(src_space)) {
      std::memmove(dst, src, static_cast<size_t>(bytes));
      return COMMRT_SUCCESS;
    }
    if (commrt_status s =
            needCuda(fn, ctx,
                     format("a copy from %s to %s", spaceName(src_space),
                            spaceName(dst_space))
                         .c_str()))
      return s;
#if COMMRT_HAVE_CUDA
    void *cs = cudaStreamOf(stream);
    return cudaFailed(
        fn, ctx, cuda::copy(dst, src, static_cast<size_t>(bytes), cs, !cs));
#else
    (void)stream;
    return COMMRT_SUCCESS;
#endif
  });
}

extern "C" commrt_status commrt_copy_peer(commrt_context *ctx, void *dst,
                                          int64_t dst_device, const void *src,
                                          int64_t src_device, int64_t bytes,
                                          commrt_stream *stream) {
  const char *fn = "commrt_copy_peer";
  return guard(fn, [&]() -> commrt_status {
    if (!ctx)
      return invalid(fn, "ctx is NULL");
    if (bytes < 0)
      return invalid(
          fn, format("bytes %lld is negative", static_cast<long long>(bytes)));
    if (dst_device < 0 || src_device < 0 || dst_device > INT32_MAX ||
        src_device > INT32_MAX)
      return invalid(fn, "device ids must be non-negative");
    if (bytes && (!dst || !src))
      return invalid(fn, !dst ? "dst is NULL" : "src is NULL");
    if (commrt_status s = needCuda(fn, ctx, "a peer copy"))
      return s;
    if (bytes == 0)
      return COMMRT_SUCCESS;
#if COMMRT_HAVE_CUDA
    void *cs = cudaStreamOf(stream);
    return cudaFailed(fn, ctx,
                      cuda::copyPeer(dst, static_cast<int>(dst_device), src,
                                     static_cast<int>(src_device),
                                     static_cast<size_t>(bytes), cs, !cs));
#else
    (void)stream;
    return COMMRT_SUCCESS;
#endif
  });
}

extern "C" commrt_status commrt_memset(commrt_context *ctx, void *ptr,
                                       commrt_memory_space space, int64_t value,
                                       int64_t bytes, commrt_stream *stream) {
  const char *fn = "commrt_memset";
  return guard(fn, [&]() -> commrt_status {
    if (!ctx)
      return invalid(fn, "ctx is NULL");
    if (bytes < 0)
      return invalid(
          fn, format("bytes %lld is negative", static_cast<long long>(bytes)));
    if (value < 0 || value > 255)
      return invalid(fn, format("value %lld is not a byte",
                                static_cast<long long>(value)));
    if (!isValidSpace(space))
      return invalid(fn, "unknown memory space");
    if (bytes && !ptr)
      return invalid(fn, "ptr is NULL");
    if (bytes == 0)
      return COMMRT_SUCCESS;
    if (isHostSpace(space)) {
      std::memset(ptr, static_cast<int>(value), static_cast<size_t>(bytes));
      return COMMRT_SUCCESS;
    }
    if (commrt_status s = needCuda(fn, ctx, "hbm"))
      return s;
#if COMMRT_HAVE_CUDA
    void *cs = cudaStreamOf(stream);
    return cudaFailed(fn, ctx,
                      cuda::fill(ptr, static_cast<int>(value),
                                 static_cast<size_t>(bytes), cs, !cs));
#else
    (void)stream;
    return COMMRT_SUCCESS;
#endif
  });
}

//===----------------------------------------------------------------------===//
// Streams
//===----------------------------------------------------------------------===//

extern "C" commrt_status commrt_stream_create(commrt_context *ctx,
                                              commrt_stream **stream) {
  const char *fn = "commrt_stream_create";
  return guard(fn, [&]() -> commrt_status {
    if (!ctx)
      return invalid(fn, "ctx is NULL");
    if (!stream)
      return invalid(fn, "stream is NULL");
    *stream = nullptr;
    auto handle = std::make_unique<commrt_stream>();
    handle->ctx = ctx;
#if COMMRT_HAVE_CUDA
    if (ctx->cudaDevice >= 0) {
      if (commrt_status s = cuda::streamCreate(&handle->cuda))
        return cudaFailed(fn, ctx, s);
      handle->owned = true;
    }
#endif
    *stream = handle.release();
    return COMMRT_SUCCESS;
  });
}

extern "C" commrt_status commrt_stream_wrap_cuda(commrt_context *ctx,
                                                 void *cuda_stream,
                                                 commrt_stream **stream) {
  const char *fn = "commrt_stream_wrap_cuda";
  return guard(fn, [&]() -> commrt_status {
    if (!ctx)
      return invalid(fn, "ctx is NULL");
    if (!stream)
      return invalid(fn, "stream is NULL");
    *stream = nullptr;
    if (commrt_status s = needCuda(fn, ctx, "a CUDA stream"))
      return s;
    auto handle = std::make_unique<commrt_stream>();
    handle->ctx = ctx;
    handle->cuda = cuda_stream;
    handle->owned = false;
    *stream = handle.release();
    return COMMRT_SUCCESS;
  });
}

extern "C" commrt_status commrt_stream_cuda_handle(commrt_stream *stream,
                                                   void **cuda_stream) {
  if (!stream || !cuda_stream)
    return invalid("commrt_stream_cuda_handle",
                   !stream ? "stream is NULL" : "cuda_stream is NULL");
  *cuda_stream = stream->cuda;
  return COMMRT_SUCCESS;
}

extern "C" commrt_status commrt_stream_destroy(commrt_stream *stream) {
  const char *fn = "commrt_stream_destroy";
  return guard(fn, [&]() -> commrt_status {
    if (!stream)
      return COMMRT_SUCCESS;
    commrt_status status = COMMRT_SUCCESS;
#if COMMRT_HAVE_CUDA
    if (stream->owned && stream->cuda)
      status = cudaFailed(fn, stream->ctx, cuda::streamDestroy(stream->cuda));
#endif
    delete stream;
    return status;
  });
}

extern "C" commrt_status commrt_stream_synchronize(commrt_stream *stream) {
  const char *fn = "commrt_stream_synchronize";
  return guard(fn, [&]() -> commrt_status {
    if (!stream)
      return invalid(fn, "stream is NULL");
    if (!stream->cuda)
      return COMMRT_SUCCESS; // Host work ran when it was enqueued.
#if COMMRT_HAVE_CUDA
    void *cs = stream->cuda;
    return pollCuda(fn, stream->ctx,
                    [&](bool &done) { return cuda::streamQuery(cs, done); });
#else
    return COMMRT_ERROR_INTERNAL;
#endif
  });
}

extern "C" commrt_status commrt_stream_wait_event(commrt_stream *stream,
                                                  commrt_event *event) {
  const char *fn = "commrt_stream_wait_event";
  return guard(fn, [&]() -> commrt_status {
    if (!stream || !event)
      return invalid(fn, !stream ? "stream is NULL" : "event is NULL");
    if (!event->cuda)
      return COMMRT_SUCCESS; // Host events complete when recorded.
#if COMMRT_HAVE_CUDA
    if (stream->cuda)
      return cudaFailed(fn, stream->ctx,
                        cuda::streamWaitEvent(stream->cuda, event->cuda));
    // Work on a host stream runs now: wait for the event on the host.
    void *ev = event->cuda;
    return pollCuda(fn, stream->ctx,
                    [&](bool &done) { return cuda::eventQuery(ev, done); });
#else
    return COMMRT_ERROR_INTERNAL;
#endif
  });
}

//===----------------------------------------------------------------------===//
// Events
//===----------------------------------------------------------------------===//

extern "C" commrt_status commrt_event_create(commrt_context *ctx,
                                             commrt_event **event) {
  const char *fn = "commrt_event_create";
  return guard(fn, [&]() -> commrt_status {
    if (!ctx)
      return invalid(fn, "ctx is NULL");
    if (!event)
      return invalid(fn, "event is NULL");
    *event = nullptr;
    auto handle = std::make_unique<commrt_event>();
    handle->ctx = ctx;
#if COMMRT_HAVE_CUDA
    if (ctx->cudaDevice >= 0)
      if (commrt_status s = cuda::eventCreate(&handle->cuda))
        return cudaFailed(fn, ctx, s);
#endif
    *event = handle.release();
    return COMMRT_SUCCESS;
  });
}

extern "C" commrt_status commrt_event_destroy(commrt_event *event) {
  const char *fn = "commrt_event_destroy";
  return guard(fn, [&]() -> commrt_status {
    if (!event)
      return COMMRT_SUCCESS;
    commrt_status status = COMMRT_SUCCESS;
#if COMMRT_HAVE_CUDA
    if (event->cuda)
      status = cudaFailed(fn, event->ctx, cuda::eventDestroy(event->cuda));
#endif
    delete event;
    return status;
  });
}

extern "C" commrt_status commrt_event_record(commrt_event *event,
                                             commrt_stream *stream) {
  const char *fn = "commrt_event_record";
  return guard(fn, [&]() -> commrt_status {
    if (!event)
      return invalid(fn, "event is NULL");
#if COMMRT_HAVE_CUDA
    if (event->cuda) {
      if (commrt_status s =
              cuda::eventRecord(event->cuda, cudaStreamOf(stream)))
        return cudaFailed(fn, event->ctx, s);
      event->recorded = true;
      return COMMRT_SUCCESS;
    }
    if (stream && stream->cuda) {
      // A host event marks the point where the stream's work is done.
      void *cs = stream->cuda;
      if (commrt_status s = pollCuda(fn, event->ctx, [&](bool &done) {
            return cuda::streamQuery(cs, done);
          }))
        return s;
    }
#else
    (void)stream;
#endif
    event->when = Clock::now();
    event->recorded = true;
    return COMMRT_SUCCESS;
  });
}

extern "C" commrt_status commrt_event_synchronize(commrt_event *event) {
  const char *fn = "commrt_event_synchronize";
  return guard(fn, [&]() -> commrt_status {
    if (!event)
      return invalid(fn, "event is NULL");
    if (!event->cuda)
      return COMMRT_SUCCESS;
#if COMMRT_HAVE_CUDA
    void *ev = event->cuda;
    return pollCuda(fn, event->ctx,
                    [&](bool &done) { return cuda::eventQuery(ev, done); });
#else
    return COMMRT_ERROR_INTERNAL;
#endif
  });
}

extern "C" commrt_status commrt_event_query(commrt_event *event, int *done) {
  const char *fn = "commrt_event_query";
  return guard(fn, [&]() -> commrt_status {
    if (!event || !done)
      return invalid(fn, !event ? "event is NULL" : "done is NULL");
    *done = 1;
#if COMMRT_HAVE_CUDA
    if (event->cuda) {
      bool finished = false;
      if (commrt_status s = cuda::eventQuery(event->cuda, finished))
        return cudaFailed(fn, event->ctx, s);
      *done = finished ? 1 : 0;
    }
#endif
    return COMMRT_SUCCESS;
  });
}

extern "C" commrt_status
commrt_event_elapsed_ms(commrt_event *start, commrt_event *end, double *ms) {
  const char *fn = "commrt_event_elapsed_ms";
  return guard(fn, [&]() -> commrt_status {
    if (!start || !end || !ms)
      return invalid(fn, "start, end and ms must not be NULL");
    if (!start->recorded || !end->recorded)
      return setError(COMMRT_ERROR_INVALID_STATE,
                      "commrt: commrt_event_elapsed_ms: an event was never "
                      "recorded");
    if ((start->cuda == nullptr) != (end->cuda == nullptr))
      return invalid(fn, "one event is a CUDA event and the other a host "
                         "event");
    if (!start->cuda) {
      *ms = std::chrono::duration<double, std::milli>(end->when - start->when)
                .count();
      return COMMRT_SUCCESS;
    }
#if COMMRT_HAVE_CUDA
    float elapsed = 0;
    if (commrt_status s = cuda::eventElapsedMs(start->cuda, end->cuda, elapsed))
      return cudaFailed(fn, start->ctx, s);
    *ms = elapsed;
    return COMMRT_SUCCESS;
#else
    return COMMRT_ERROR_INTERNAL;
#endif
  });
}

bool commrt::isGpuMemory(const commrt_context *ctx, const void *ptr) {
#if COMMRT_HAVE_CUDA
  return ctx->cudaDevice >= 0 && ptr && cuda::isDevicePointer(ptr);
#else
  (void)ctx;
  (void)ptr;
  return false;
#endif
}
