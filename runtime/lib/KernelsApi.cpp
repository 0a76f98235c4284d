//===- lib/KernelsApi.cpp - Kernel entry points of the ABI ------*- C++ -*-===//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//
//
// Validates the arguments of the kernel entry points of commrt.h and runs
// them on the CPU (host and pinned_host memory) or as CUDA kernels (hbm).
//
//===----------------------------------------------------------------------===//

#include "Internal.h"
#include "Kernels.h"

#if COMMRT_HAVE_CUDA
#include "../cuda/Cuda.h"
#endif

#include <algorithm>
#include <cstring>

using namespace commrt;

namespace {

commrt_status invalid(const char *fn, const std::string &what) {
  return setError(COMMRT_ERROR_INVALID_ARGUMENT,
                  std::string("commrt: ") + fn + ": " + what);
}

/// Checks \p space and, for hbm, that CUDA is built in.
commrt_status checkSpace(const char *fn, commrt_memory_space space) {
  if (!isValidSpace(space))
    return invalid(fn,
                   format("unknown memory space %d", static_cast<int>(space)));
#if !COMMRT_HAVE_CUDA
  if (space == COMMRT_HBM)
    return setError(COMMRT_ERROR_UNAVAILABLE,
                    std::string("commrt: ") + fn +
                        ": hbm buffers need the cuda module, and commrt was "
                        "built without CUDA (COMMRT_ENABLE_CUDA=OFF)");
#endif
  return COMMRT_SUCCESS;
}

commrt_status checkConversion(const char *fn, commrt_dtype dst,
                              commrt_dtype src) {
  if (!isValidDtype(dst))
    return invalid(fn, format("unknown dtype %d", static_cast<int>(dst)));
  if (!isValidDtype(src))
    return invalid(fn, format("unknown dtype %d", static_cast<int>(src)));
  if (!cpu::canConvert(dst, src))
    return invalid(fn, format("cannot convert %s to %s%s",
                              commrt_dtype_name(src), commrt_dtype_name(dst),
                              src == COMMRT_F64 && isFloatDtype(dst)
                                  ? " (f64 to a 16-bit type would round twice)"
                                  : " (only floating-point types convert)"));
  return COMMRT_SUCCESS;
}

bool rangesOverlap(const void *a, size_t aBytes, const void *b, size_t bBytes) {
  auto x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
  return aBytes && bBytes && x < y + bBytes && y < x + aBytes;
}

/// Runs one conversion in \p space.
commrt_status runConvert(void *dst, commrt_dtype dstType, const void *src,
                         commrt_dtype srcType, size_t n,
                         commrt_memory_space space, commrt_stream *stream) {
  if (n == 0)
    return COMMRT_SUCCESS;
  if (space != COMMRT_HBM) {
    cpu::convert(dst, dstType, src, srcType, n);
    return COMMRT_SUCCESS;
  }
#if COMMRT_HAVE_CUDA
  return cuda::launchConvert(dst, dstType, src, srcType, n,
                             cudaStreamOf(stream));
#else
  (void)stream;
  return COMMRT_ERROR_UNAVAILABLE;
#endif
}

/// Zeroes \p bytes at \p ptr in \p space.
commrt_status runZero(void *ptr, size_t bytes, commrt_memory_space space,
                      commrt_stream *stream) {
  if (bytes == 0)
    return COMMRT_SUCCESS;
  if (space != COMMRT_HBM) {
    std::memset(ptr, 0, bytes);
    return COMMRT_SUCCESS;
  }
#if COMMRT_HAVE_CUDA
  return cuda::fill(ptr, 0, bytes, cudaStreamOf(stream), false);
#else
  (void)stream;
  return COMMRT_ERROR_UNAVAILABLE;
#endif
}

/// Ends a kernel entry point: synchronizes the default stream for hbm work
/// given no stream, and prefixes CUDA failures with the function name.
commrt_status finish(const char *fn, commrt_status status,
                     commrt_memory_space space, commrt_stream *stream) {
#if COMMRT_HAVE_CUDA
  if (status == COMMRT_SUCCESS && space == COMMRT_HBM && !cudaStreamOf(stream))
    status = cuda::streamSynchronize(nullptr);
#else
  (void)space;
  (void)stream;
#endif
  if (status != COMMRT_SUCCESS)
    return setError(status, std::string("commrt: ") + fn + ": " + lastError());
  return status;
}

/// Validates the pieces of a pack or unpack against the buffer; for a pack
/// (rejectOverlap) also puts their indices in offset order and rejects
/// pieces that overlap in the buffer.
commrt_status checkPieces(const char *fn, commrt_dtype bufferType,
                          int64_t bufferCount, const commrt_piece *pieces,
                          int64_t numPieces, bool rejectOverlap,
                          std::vector<size_t> &order) {
  if (!isValidDtype(bufferType))
    return invalid(
        fn, format("unknown buffer dtype %d", static_cast<int>(bufferType)));
  if (commrt_status s = checkCount(fn, bufferCount, bufferType, nullptr))
    return s;
  if (numPieces < 0)
    return invalid(fn, format("num_pieces %lld is negative",
                              static_cast<long long>(numPieces)));
  if (numPieces > 0 && !pieces)
    return invalid(fn, "pieces is NULL");
  for (int64_t i = 0; i < numPieces; ++i) {
    const commrt_piece &p = pieces[i];
    if (commrt_status s = checkConversion(fn, bufferType, p.dtype))
      return setError(
          s, lastError() + format(" (piece #%lld)", static_cast<long long>(i)));
    if (p.count < 0 || p.offset < 0)
      return invalid(
          fn,
          format("piece #%lld has a negative %s (%lld)",
                 static_cast<long long>(i), p.count < 0 ? "count" : "offset",
                 static_cast<long long>(p.count < 0 ? p.count : p.offset)));
    if (p.count > bufferCount || p.offset > bufferCount - p.count)
      return invalid(fn, format("piece #%lld (%lld elements at offset %lld) "
                                "does not fit in the buffer of %lld elements",
                                static_cast<long long>(i),
                                static_cast<long long>(p.count),
                                static_cast<long long>(p.offset),
                                static_cast<long long>(bufferCount)));
    if (p.count > 0 && !p.data)
      return invalid(
          fn, format("piece #%lld has NULL data", static_cast<long long>(i)));
  }
  if (!rejectOverlap)
    return COMMRT_SUCCESS;
  // By offset (generated code lists the pieces in that order already:
  // nothing to sort).
  order.resize(static_cast<size_t>(numPieces));
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  auto before = [&](size_t a, size_t b) {
    return pieces[a].offset < pieces[b].offset ||
           (pieces[a].offset == pieces[b].offset && a < b);
  };
  if (!std::is_sorted(order.begin(), order.end(), before))
    std::sort(order.begin(), order.end(), before);
  for (size_t k = 1; k < order.size(); ++k) {
    const commrt_piece &prev = pieces[order[k - 1]];
    const commrt_piece &cur = pieces[order[k]];
    if (cur.count != 0 && prev.offset + prev.count > cur.offset)
      return invalid(fn, format("pieces #%zu and #%zu overlap in the buffer",
                                std::min(order[k - 1], order[k]),
                                std::max(order[k - 1], order[k])));
  }
  return COMMRT_SUCCESS;
}

} // namespace

extern "C" commrt_status
commrt_pack(void *buffer, commrt_dtype buffer_dtype, int64_t buffer_count,
            const commrt_piece *pieces, int64_t num_pieces,
            commrt_memory_space space, commrt_stream *stream) {
  const char *fn = "commrt_pack";
  return guard(fn, [&]() -> commrt_status {
    std::vector<size_t> order;
    if (commrt_status s = checkPieces(fn, buffer_dtype, buffer_count, pieces,
                                      num_pieces, true, order))
      return s;
    if (commrt_status s = checkSpace(fn, space))
      return s;
    if (buffer_count > 0 && !buffer)
      return invalid(fn, "buffer is NULL");
    size_t elt = commrt_dtype_size(buffer_dtype);
    auto *base = static_cast<char *>(buffer);
    commrt_status status = COMMRT_SUCCESS;
    // Zero the gaps between pieces, then convert every piece in place.
    int64_t covered = 0;
    for (size_t k = 0; k < order.size() && !status; ++k) {
      const commrt_piece &p = pieces[order[k]];
      if (p.count == 0)
        continue;
      if (p.offset > covered)
        status = runZero(base + covered * elt, (p.offset - covered) * elt,
                         space, stream);
      covered = std::max(covered, p.offset + p.count);
    }
    if (!status && covered < buffer_count)
      status = runZero(base + covered * elt, (buffer_count - covered) * elt,
                       space, stream);
    for (int64_t i = 0; i < num_pieces && !status; ++i) {
      const commrt_piece &p = pieces[i];
      status = runConvert(base + p.offset * elt, buffer_dtype, p.data, p.dtype,
                          static_cast<size_t>(p.count), space, stream);
    }
    return finish(fn, status, space, stream);
  });
}

extern "C" commrt_status
commrt_unpack(const void *buffer, commrt_dtype buffer_dtype,
              int64_t buffer_count, const commrt_piece *pieces,
              int64_t num_pieces, commrt_memory_space space,
              commrt_stream *stream) {
  const char *fn = "commrt_unpack";
  return guard(fn, [&]() -> commrt_status {
    std::vector<size_t> order;
    if (commrt_status s = checkPieces(fn, buffer_dtype, buffer_count, pieces,
                                      num_pieces, false, order))
      return s;
    if (commrt_status s = checkSpace(fn, space))
      return s;
    if (buffer_count > 0 && !buffer)
      return invalid(fn, "buffer is NULL");
    size_t elt = commrt_dtype_size(buffer_dtype);
    const auto *base = static_cast<const char *>(buffer);
    commrt_status status = COMMRT_SUCCESS;
    for (int64_t i = 0; i < num_pieces && !status; ++i) {
      const commrt_piece &p = pieces[i];
      status = runConvert(p.data, p.dtype, base + p.offset * elt, buffer_dtype,
                          static_cast<size_t>(p.count), space, stream);
    }
    return finish(fn, status, space, stream);
  });
}

extern "C" commrt_status commrt_convert(void *dst, commrt_dtype dst_dtype,
                                        const void *src, commrt_dtype src_dtype,
                                        int64_t count,
                                        commrt_memory_space space,
                                        commrt_stream *stream) {
  const char *fn = "commrt_convert";
  return guard(fn, [&]() -> commrt_status {
    if (commrt_status s = checkConversion(fn, dst_dtype, src_dtype))
      return s;
    size_t dstBytes = 0, srcBytes = 0;
    if (checkCount(fn, count, dst_dtype, &dstBytes) ||
        checkCount(fn, count, src_dtype, &srcBytes))
      return COMMRT_ERROR_INVALID_ARGUMENT;
    if (commrt_status s = checkSpace(fn, space))
      return s;
    if (count > 0 && (!dst || !src))
      return invalid(fn, !dst ? "dst is NULL" : "src is NULL");
    bool sameSize = dstBytes == srcBytes;
    if (rangesOverlap(dst, dstBytes, src, srcBytes) &&
        !(dst == src && sameSize))
      return invalid(fn, "dst and src overlap (only an exact in-place "
                         "conversion between types of the same size is "
                         "allowed)");
    return finish(fn,
                  runConvert(dst, dst_dtype, src, src_dtype,
                             static_cast<size_t>(count), space, stream),
                  space, stream);
  });
}

extern "C" commrt_status commrt_reduce_local(void *dst, const void *src,
                                             int64_t count, commrt_dtype dtype,
                                             commrt_redop op,
                                             commrt_memory_space space,
                                             commrt_stream *stream) {
  const char *fn = "commrt_reduce_local";
  return guard(fn, [&]() -> commrt_status {
    size_t bytes = 0;
    if (checkCount(fn, count, dtype, &bytes))
      return COMMRT_ERROR_INVALID_ARGUMENT;
    if (!isValidRedop(op))
      return invalid(fn,
                     format("unknown reduction op %d", static_cast<int>(op)));
    if (op == COMMRT_AVG)
      return invalid(fn, "avg is not a pairwise reduction; reduce with sum "
                         "and then commrt_scale by 1/n");
    if (op >= COMMRT_BAND && isFloatDtype(dtype))
      return invalid(fn, format("bitwise reduction %s on floating-point "
                                "dtype %s",
                                redopName(op), commrt_dtype_name(dtype)));
    if (commrt_status s = checkSpace(fn, space))
      return s;
    if (count > 0 && (!dst || !src))
      return invalid(fn, !dst ? "dst is NULL" : "src is NULL");
    if (dst != src && rangesOverlap(dst, bytes, src, bytes))
      return invalid(fn, "dst and src overlap partially");
    if (count == 0)
      return COMMRT_SUCCESS;
    commrt_status status = COMMRT_SUCCESS;
    if (space != COMMRT_HBM) {
      cpu::reduce(dst, src, static_cast<size_t>(count), dtype, op);
    } else {
#if COMMRT_HAVE_CUDA
      status = cuda::launchReduce(dst, src, static_cast<size_t>(count), dtype,
                                  op, cudaStreamOf(stream));
#endif
    }
    return finish(fn, status, space, stream);
  });
}

extern "C" commrt_status commrt_scale(void *dst, int64_t count,
                                      commrt_dtype dtype, double factor,
                                      commrt_memory_space space,
                                      commrt_stream *stream) {
  const char *fn = "commrt_scale";
  return guard(fn, [&]() -> commrt_status {
    if (checkCount(fn, count, dtype, nullptr))
      return COMMRT_ERROR_INVALID_ARGUMENT;
    if (!isFloatDtype(dtype))
      return invalid(fn, format("dtype %s is not a floating-point type",
                                commrt_dtype_name(dtype)));
    if (commrt_status s = checkSpace(fn, space))
      return s;
    if (count > 0 && !dst)
      return invalid(fn, "dst is NULL");
    if (count == 0)
      return COMMRT_SUCCESS;
    commrt_status status = COMMRT_SUCCESS;
    if (space != COMMRT_HBM) {
      cpu::scale(dst, static_cast<size_t>(count), dtype, factor);
    } else {
#if COMMRT_HAVE_CUDA
      status = cuda::launchScale(dst, static_cast<size_t>(count), dtype, factor,
                                 cudaStreamOf(stream));
#endif
    }
    return finish(fn, status, space, stream);
  });
}
