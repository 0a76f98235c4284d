//===- commrt_gen_cuda.cuh - kernels of comm-generated CUDA ----*- CUDA -*-===//
//
// What `comm-translate --comm-to-cuda` output adds to commrt_gen.h: the
// kernels of the fused-buffer operations, instantiated in the generated .cu
// for the element types the program uses:
//
//  - pack: copy (and convert, e.g. f32 -> bf16) many tensors into one flat
//    buffer in one launch per 64 tensors;
//  - unpack: the reverse, converting back;
//  - combine: the element-wise reduction of point-to-point schedules; f16
//    and bf16 accumulate in f32.
//
// Buffers in host memory, and type pairs without a kernel here, go to the
// runtime's own implementation (commrt_pack, commrt_reduce_local).
//
// Only the kernels a program uses are compiled: the generated file defines,
// before including this header, X-macros listing the (piece, buffer) type
// pairs of its packs and unpacks and the (type, op) pairs of its combines:
//
//   #define COMMGEN_CUDA_PACK_KERNELS(X) X(COMMRT_F32, COMMRT_BF16)
//   #define COMMGEN_CUDA_UNPACK_KERNELS(X) X(COMMRT_F32, COMMRT_BF16)
//   #define COMMGEN_CUDA_COMBINE_KERNELS(X) X(COMMRT_BF16, COMMRT_SUM)
//
// A list left undefined means every kernel here; pairs without a kernel are
// ignored (the runtime's implementation runs for them).
//
//===----------------------------------------------------------------------===//

#ifndef COMMRT_GEN_CUDA_CUH
#define COMMRT_GEN_CUDA_CUH

#include "commrt_gen.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <type_traits>

namespace commgen {
namespace cuda {

/// Every kernel of the header, for code that does not say what it uses.
#define COMMGEN_CUDA_ALL_PACK_KERNELS(X)                                       \
  X(COMMRT_F32, COMMRT_F32)                                                    \
  X(COMMRT_F32, COMMRT_BF16)                                                   \
  X(COMMRT_F32, COMMRT_F16)                                                    \
  X(COMMRT_BF16, COMMRT_BF16)                                                  \
  X(COMMRT_F16, COMMRT_F16)                                                    \
  X(COMMRT_F64, COMMRT_F64)                                                    \
  X(COMMRT_I32, COMMRT_I32)                                                    \
  X(COMMRT_I64, COMMRT_I64)                                                    \
  X(COMMRT_I8, COMMRT_I8)
#define COMMGEN_CUDA_ALL_COMBINE_KERNELS_OF(X, T)                              \
  X(T, COMMRT_SUM) X(T, COMMRT_PROD) X(T, COMMRT_MIN) X(T, COMMRT_MAX)
#define COMMGEN_CUDA_ALL_COMBINE_KERNELS(X)                                    \
  COMMGEN_CUDA_ALL_COMBINE_KERNELS_OF(X, COMMRT_F32)                           \
  COMMGEN_CUDA_ALL_COMBINE_KERNELS_OF(X, COMMRT_F64)                           \
  COMMGEN_CUDA_ALL_COMBINE_KERNELS_OF(X, COMMRT_BF16)                          \
  COMMGEN_CUDA_ALL_COMBINE_KERNELS_OF(X, COMMRT_F16)                           \
  COMMGEN_CUDA_ALL_COMBINE_KERNELS_OF(X, COMMRT_I32)                           \
  COMMGEN_CUDA_ALL_COMBINE_KERNELS_OF(X, COMMRT_I64)
#ifndef COMMGEN_CUDA_PACK_KERNELS
#define COMMGEN_CUDA_PACK_KERNELS(X) COMMGEN_CUDA_ALL_PACK_KERNELS(X)
#endif
#ifndef COMMGEN_CUDA_UNPACK_KERNELS
#define COMMGEN_CUDA_UNPACK_KERNELS(X) COMMGEN_CUDA_ALL_PACK_KERNELS(X)
#endif
#ifndef COMMGEN_CUDA_COMBINE_KERNELS
#define COMMGEN_CUDA_COMBINE_KERNELS(X) COMMGEN_CUDA_ALL_COMBINE_KERNELS(X)
#endif

/// The device type of an element type (void: none here).
template <commrt_dtype D> struct DeviceType { using type = void; };
template <> struct DeviceType<COMMRT_F32> { using type = float; };
template <> struct DeviceType<COMMRT_F64> { using type = double; };
template <> struct DeviceType<COMMRT_BF16> { using type = __nv_bfloat16; };
template <> struct DeviceType<COMMRT_F16> { using type = __half; };
template <> struct DeviceType<COMMRT_I32> { using type = int32_t; };
template <> struct DeviceType<COMMRT_I64> { using type = int64_t; };
template <> struct DeviceType<COMMRT_I8> { using type = int8_t; };

template <commrt_dtype D>
constexpr bool hasDeviceType = !std::is_void_v<typename DeviceType<D>::type>;

/// Whether a pack kernel moves pieces of type P into a buffer of type F: the
/// same type, or f32 into bf16/f16 (and back for unpack).
template <commrt_dtype P, commrt_dtype F>
constexpr bool hasPackKernel =
    hasDeviceType<P> &&
    (P == F || (P == COMMRT_F32 && (F == COMMRT_BF16 || F == COMMRT_F16)));

/// Whether a combine kernel reduces D with Op (i8 is left to the runtime's
/// commrt_reduce_local).
template <commrt_dtype D, commrt_redop Op>
constexpr bool hasCombineKernel =
    hasDeviceType<D> && D != COMMRT_I8 &&
    (Op == COMMRT_SUM || Op == COMMRT_PROD || Op == COMMRT_MIN ||
     Op == COMMRT_MAX);

/// Up to kTable pieces travel by value in the kernel's parameters.
constexpr int kTable = 64;

struct Table {
  void *data[kTable];
  int64_t count[kTable];
  int64_t offset[kTable];
  int size;
};

template <typename To, typename From> __device__ inline To convertTo(From v) {
  return static_cast<To>(v);
}
template <> __device__ inline __nv_bfloat16 convertTo(float v) {
  return __float2bfloat16_rn(v);
}
template <> __device__ inline float convertTo(__nv_bfloat16 v) {
  return __bfloat162float(v);
}
template <> __device__ inline __half convertTo(float v) {
  return __float2half_rn(v);
}
template <> __device__ inline float convertTo(__half v) {
  return __half2float(v);
}
template <> __device__ inline __nv_bfloat16 convertTo(__nv_bfloat16 v) {
  return v;
}
template <> __device__ inline __half convertTo(__half v) { return v; }

/// Pack: buffer[offset[p] + i] = piece p [i]; unpack: the reverse. One
/// block row (blockIdx.y) per piece, grid-stride over its elements.
template <typename Piece, typename Flat, bool IsPack>
__global__ void packKernel(Flat *buffer, Table table) {
  int p = blockIdx.y;
  if (p >= table.size)
    return;
  int64_t count = table.count[p];
  Flat *flat = buffer + table.offset[p];
  Piece *piece = static_cast<Piece *>(table.data[p]);
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x) {
    if (IsPack)
      flat[i] = convertTo<Flat>(piece[i]);
    else
      piece[i] = convertTo<Piece>(flat[i]);
  }
}

/// Same-type pack of 16-byte aligned pieces, four words at a time.
template <bool IsPack>
__global__ void packKernelVec4(float4 *buffer, Table table) {
  int p = blockIdx.y;
  if (p >= table.size)
    return;
  int64_t count = table.count[p];
  float4 *flat = buffer + table.offset[p];
  float4 *piece = static_cast<float4 *>(table.data[p]);
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x) {
    if (IsPack)
      flat[i] = piece[i];
    else
      piece[i] = flat[i];
  }
}

inline void launched(const char *loc, const char *op) {
  cudaError_t error = cudaGetLastError();
  if (error == cudaSuccess)
    error = cudaStreamSynchronize(0);
  if (error != cudaSuccess)
    fail(COMMRT_ERROR_BACKEND, loc, op, cudaGetErrorString(error));
}

template <typename Piece, typename Flat, bool IsPack>
void launchPack(void *buffer, const commrt_piece *pieces, int64_t n,
                const char *loc) {
  for (int64_t first = 0; first < n; first += kTable) {
    Table table;
    table.size = static_cast<int>(std::min<int64_t>(kTable, n - first));
    int64_t longest = 0;
    bool vec4 = sizeof(Piece) == sizeof(Flat);
    for (int k = 0; k < table.size; ++k) {
      const commrt_piece &piece = pieces[first + k];
      table.data[k] = piece.data;
      table.count[k] = piece.count;
      table.offset[k] = piece.offset;
      longest = std::max(longest, piece.count);
      size_t bytes = sizeof(Flat);
      vec4 =
          vec4 && (reinterpret_cast<uintptr_t>(piece.data) % 16 == 0) &&
          ((reinterpret_cast<uintptr_t>(buffer) + piece.offset * bytes) % 16 ==
           0) &&
          (piece.count * bytes) % 16 == 0;
    }
    if (vec4) {
      for (int k = 0; k < table.size; ++k) {
        table.count[k] = table.count[k] * sizeof(Flat) / 16;
        table.offset[k] = table.offset[k] * sizeof(Flat) / 16;
      }
      longest = longest * sizeof(Flat) / 16;
    }
    int threads = 256;
    int64_t blocks = std::min<int64_t>((longest + threads - 1) / threads, 1024);
    dim3 grid(static_cast<unsigned>(std::max<int64_t>(blocks, 1)),
              static_cast<unsigned>(table.size));
    if constexpr (sizeof(Piece) == sizeof(Flat)) {
      if (vec4) {
        packKernelVec4<IsPack>
            <<<grid, threads>>>(static_cast<float4 *>(buffer), table);
        continue;
      }
    }
    packKernel<Piece, Flat, IsPack>
        <<<grid, threads>>>(static_cast<Flat *>(buffer), table);
  }
  launched(loc, IsPack ? "comm.pack" : "comm.unpack");
}

/// Runs the kernel for (P, F) if there is one here.
template <commrt_dtype P, commrt_dtype F, bool IsPack>
bool packCase(void *buffer, const commrt_piece *pieces, int64_t n,
              const char *loc) {
  if constexpr (hasPackKernel<P, F>) {
    if (buffer)
      launchPack<typename DeviceType<P>::type, typename DeviceType<F>::type,
                 IsPack>(buffer, pieces, n, loc);
    return true;
  } else {
    return false;
  }
}

/// Runs the kernel for (piece type, buffer type) if the program compiled
/// one; with a null buffer only says whether it did.
template <bool IsPack>
bool dispatchPack(void *buffer, commrt_dtype flat, const commrt_piece *pieces,
                  int64_t n, commrt_dtype piece, const char *loc) {
#define COMMGEN_PACK_CASE(P, F)                                                \
  if (piece == P && flat == F)                                                 \
    return packCase<P, F, IsPack>(buffer, pieces, n, loc);
  if constexpr (IsPack) {
    COMMGEN_CUDA_PACK_KERNELS(COMMGEN_PACK_CASE)
  } else {
    COMMGEN_CUDA_UNPACK_KERNELS(COMMGEN_PACK_CASE)
  }
#undef COMMGEN_PACK_CASE
  return false;
}

/// Groups the pieces by type and runs one kernel per group; false if some
/// type pair has no kernel here (nothing has run then).
template <bool IsPack>
bool packPieces(void *buffer, commrt_dtype flat, const commrt_piece *pieces,
                int64_t n, const char *loc) {
  std::map<int, std::vector<commrt_piece>> groups;
  for (int64_t k = 0; k < n; ++k)
    groups[pieces[k].dtype].push_back(pieces[k]);
  for (auto &[dtype, list] : groups)
    if (!dispatchPack<IsPack>(nullptr, flat, nullptr, 0,
                              static_cast<commrt_dtype>(dtype), loc))
      return false;
  for (auto &[dtype, list] : groups)
    dispatchPack<IsPack>(buffer, flat, list.data(),
                         static_cast<int64_t>(list.size()),
                         static_cast<commrt_dtype>(dtype), loc);
  return true;
}

/// The kernels index without bounds checks: every piece must lie in the
/// buffer.
inline void checkFits(const commrt_piece *list, size_t n, int64_t bufferCount,
                      const char *loc, const char *op) {
  for (size_t k = 0; k < n; ++k) {
    const commrt_piece &p = list[k];
    if (p.offset < 0 || p.count < 0 || p.offset + p.count > bufferCount)
      fail(COMMRT_ERROR_INVALID_ARGUMENT, loc, op,
           "a piece lies outside the buffer");
  }
}

// Like the host versions in commrt_gen.h, the kernels run through
// runLocal: inside a comm.start, one that reads what a transfer of the body
// still writes is deferred until that transfer ends, instead of stopping
// the host there (until 2026-12-06 they waited where they stood, and the
// body's transfers overlapped nothing after it); and each first completes
// what still reads what it writes.

template <typename... Pieces>
void pack(Async *async, void *buffer, commrt_dtype bufferType,
          int64_t bufferCount, commrt_memory_space space, const char *loc,
          Pieces... pieces) {
  if (space != COMMRT_HBM) {
    commgen::pack(async, buffer, bufferType, bufferCount, space, loc,
                  pieces...);
    return;
  }
  std::vector<commrt_piece> list{pieces...};
  checkFits(list.data(), list.size(), bufferCount, loc, "comm.pack");
  commrt_context *ctx = current();
  auto run = [=]() {
    // What no piece covers is zero, as commrt_pack and the host path make
    // it (a buffer padded to a multiple of the group is reduced and sent
    // whole).
    int64_t covered = 0;
    for (const commrt_piece &p : list)
      covered += p.count;
    if (covered < bufferCount)
      check(
          commrt_memset(ctx, buffer, space, 0,
                        static_cast<int64_t>(bytesOf(bufferCount, bufferType)),
                        nullptr),
          loc, "comm.pack");
    if (!packPieces<true>(buffer, bufferType, list.data(),
                          static_cast<int64_t>(list.size()), loc))
      check(commrt_pack(buffer, bufferType, bufferCount, list.data(),
                        static_cast<int64_t>(list.size()), space, nullptr),
            loc, "comm.pack");
  };
  runLocal(async, ranges(list),
           {range(buffer, bytesOf(bufferCount, bufferType))}, run, loc);
}

template <typename... Pieces>
void unpack(Async *async, const void *buffer, commrt_dtype bufferType,
            int64_t bufferCount, commrt_memory_space space, const char *loc,
            Pieces... pieces) {
  if (space != COMMRT_HBM) {
    commgen::unpack(async, buffer, bufferType, bufferCount, space, loc,
                    pieces...);
    return;
  }
  std::vector<commrt_piece> list{pieces...};
  checkFits(list.data(), list.size(), bufferCount, loc, "comm.unpack");
  auto run = [=]() {
    if (!packPieces<false>(const_cast<void *>(buffer), bufferType, list.data(),
                           static_cast<int64_t>(list.size()), loc))
      check(commrt_unpack(buffer, bufferType, bufferCount, list.data(),
                          static_cast<int64_t>(list.size()), space, nullptr),
            loc, "comm.unpack");
  };
  runLocal(async, {range(buffer, bytesOf(bufferCount, bufferType))},
           ranges(list), run, loc);
}

/// The accumulation type of an element type: f32 for f16/bf16.
template <typename T> struct Acc { using type = T; };
template <> struct Acc<__half> { using type = float; };
template <> struct Acc<__nv_bfloat16> { using type = float; };

template <typename T, commrt_redop Op>
__global__ void combineKernel(T *target, const T *lhs, const T *rhs,
                              int64_t count) {
  using A = typename Acc<T>::type;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x) {
    A a = convertTo<A>(lhs[i]), b = convertTo<A>(rhs[i]);
    A r;
    if (Op == COMMRT_SUM)
      r = a + b;
    else if (Op == COMMRT_PROD)
      r = a * b;
    else if (Op == COMMRT_MIN)
      r = b < a ? b : a;
    else
      r = a < b ? b : a;
    target[i] = convertTo<T>(r);
  }
}

template <typename T, commrt_redop Op>
void launchCombine(void *target, const void *lhs, const void *rhs,
                   int64_t count) {
  int threads = 256;
  int64_t blocks = std::max<int64_t>(
      1, std::min<int64_t>((count + threads - 1) / threads, 4096));
  combineKernel<T, Op><<<blocks, threads>>>(static_cast<T *>(target),
                                            static_cast<const T *>(lhs),
                                            static_cast<const T *>(rhs), count);
}

/// Runs the kernel for (D, Op) if there is one here.
template <commrt_dtype D, commrt_redop Op>
bool combineCase(void *target, const void *lhs, const void *rhs,
                 int64_t count) {
  if constexpr (hasCombineKernel<D, Op>) {
    launchCombine<typename DeviceType<D>::type, Op>(target, lhs, rhs, count);
    return true;
  } else {
    return false;
  }
}

inline void combine(Async *async, void *target, const void *lhs,
                    const void *rhs, int64_t count, commrt_dtype dtype,
                    commrt_redop op, commrt_memory_space space,
                    const char *loc) {
  if (space != COMMRT_HBM) {
    commgen::combine(async, target, lhs, rhs, count, dtype, op, space, loc);
    return;
  }
  size_t bytes = bytesOf(count, dtype);
  auto run = [=]() {
    bool done = false;
#define COMMGEN_COMBINE_CASE(D, O)                                             \
  if (!done && dtype == D && op == O)                                          \
    done = combineCase<D, O>(target, lhs, rhs, count);
    COMMGEN_CUDA_COMBINE_KERNELS(COMMGEN_COMBINE_CASE)
#undef COMMGEN_COMBINE_CASE
    if (done) {
      launched(loc, "comm.buffer.combine");
      return;
    }
    // No kernel for this pair: the runtime's, in order here.
    commgen::combine(nullptr, target, lhs, rhs, count, dtype, op, space, loc);
  };
  runLocal(async, {range(lhs, bytes), range(rhs, bytes)},
           {range(target, bytes)}, run, loc);
}

} // namespace cuda
} // namespace commgen

#endif // COMMRT_GEN_CUDA_CUH
