//===- cuda/Kernels.cu - Conversion and reduction kernels -------*- C++ -*-===//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//
//
// The GPU versions of the CPU loops in lib/Kernels.cpp, used by
// commrt_pack/unpack/convert/reduce_local/scale on hbm buffers. They share
// the bit-exact conversions of lib/Half.h, so GPU and CPU round the same
// way. Grid-stride loops, one element per thread per iteration; compiled for
// sm_80 and sm_90 (see cuda/CMakeLists.txt).
//
//===----------------------------------------------------------------------===//

#include "../lib/Error.h"
#include "../lib/Half.h"
#include "Cuda.h"

#include <cuda_runtime.h>

#include <cstdio>

using namespace commrt;

namespace {

/// Storage type and widening/narrowing of each dtype. Floats widen to
/// float (f64 to double); integers stay themselves.
template <commrt_dtype T> struct Elem;

template <> struct Elem<COMMRT_F32> {
  using Storage = float;
  __device__ static float load(float x) { return x; }
  __device__ static float store(float x) { return x; }
  __device__ static float store(double x) { return static_cast<float>(x); }
};
template <> struct Elem<COMMRT_F64> {
  using Storage = double;
  __device__ static double load(double x) { return x; }
  __device__ static double store(double x) { return x; }
  __device__ static double store(float x) { return x; }
};
template <> struct Elem<COMMRT_BF16> {
  using Storage = uint16_t;
  __device__ static float load(uint16_t x) { return half::bf16ToF32(x); }
  __device__ static uint16_t store(float x) { return half::f32ToBf16(x); }
};
template <> struct Elem<COMMRT_F16> {
  using Storage = uint16_t;
  __device__ static float load(uint16_t x) { return half::f16ToF32(x); }
  __device__ static uint16_t store(float x) { return half::f32ToF16(x); }
};

#define COMMRT_INT_ELEM(DT, T)                                                 \
  template <> struct Elem<DT> {                                                \
    using Storage = T;                                                         \
    __device__ static T load(T x) { return x; }                                \
    __device__ static T store(T x) { return x; }                               \
  };
COMMRT_INT_ELEM(COMMRT_I8, int8_t)
COMMRT_INT_ELEM(COMMRT_U8, uint8_t)
COMMRT_INT_ELEM(COMMRT_I32, int32_t)
COMMRT_INT_ELEM(COMMRT_U32, uint32_t)
COMMRT_INT_ELEM(COMMRT_I64, int64_t)
COMMRT_INT_ELEM(COMMRT_U64, uint64_t)
#undef COMMRT_INT_ELEM

template <commrt_dtype D, commrt_dtype S>
__global__ void convertKernel(typename Elem<D>::Storage *__restrict__ dst,
                              const typename Elem<S>::Storage *__restrict__ src,
                              size_t n) {
  size_t stride = static_cast<size_t>(blockDim.x) * gridDim.x;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
       i < n; i += stride)
    dst[i] = Elem<D>::store(Elem<S>::load(src[i]));
}

// The kernels below may run in place (dst == src), so no __restrict__.
template <commrt_dtype D, commrt_dtype S>
__global__ void convertInPlaceKernel(typename Elem<D>::Storage *dst,
                                     const typename Elem<S>::Storage *src,
                                     size_t n) {
  size_t stride = static_cast<size_t>(blockDim.x) * gridDim.x;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
       i < n; i += stride)
    dst[i] = Elem<D>::store(Elem<S>::load(src[i]));
}

struct Sum {
  template <typename T> __device__ static T apply(T a, T b) { return a + b; }
};
struct Prod {
  template <typename T> __device__ static T apply(T a, T b) { return a * b; }
};
struct Min {
  template <typename T> __device__ static T apply(T a, T b) {
    return b < a ? b : a;
  }
};
struct Max {
  template <typename T> __device__ static T apply(T a, T b) {
    return a < b ? b : a;
  }
};
struct BAnd {
  template <typename T> __device__ static T apply(T a, T b) { return a & b; }
};
struct BOr {
  template <typename T> __device__ static T apply(T a, T b) { return a | b; }
};
struct BXor {
  template <typename T> __device__ static T apply(T a, T b) { return a ^ b; }
};

template <commrt_dtype T, typename Op>
__global__ void reduceKernel(typename Elem<T>::Storage *dst,
                             const typename Elem<T>::Storage *src, size_t n) {
  size_t stride = static_cast<size_t>(blockDim.x) * gridDim.x;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
       i < n; i += stride)
    dst[i] =
        Elem<T>::store(Op::apply(Elem<T>::load(dst[i]), Elem<T>::load(src[i])));
}

template <commrt_dtype T>
__global__ void scaleKernel(typename Elem<T>::Storage *dst, size_t n,
                            double factor) {
  size_t stride = static_cast<size_t>(blockDim.x) * gridDim.x;
  using Wide = decltype(Elem<T>::load(dst[0]));
  Wide f = static_cast<Wide>(factor);
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
       i < n; i += stride)
    dst[i] = Elem<T>::store(Elem<T>::load(dst[i]) * f);
}

constexpr unsigned threadsPerBlock = 256;

unsigned blocksFor(size_t n) {
  size_t blocks = (n + threadsPerBlock - 1) / threadsPerBlock;
  return static_cast<unsigned>(blocks < 4096 ? (blocks ? blocks : 1) : 4096);
}

commrt_status launched(const char *kernel) {
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess)
    return COMMRT_SUCCESS;
  commrt_status status = COMMRT_ERROR_BACKEND;
  if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver ||
      err == cudaErrorNoKernelImageForDevice ||
      err == cudaErrorInitializationError)
    status = COMMRT_ERROR_UNAVAILABLE;
  char text[256];
  std::snprintf(text, sizeof(text), "cuda: launching %s: %s (%s)", kernel,
                cudaGetErrorString(err), cudaGetErrorName(err));
  return setError(status, text);
}

template <commrt_dtype D, commrt_dtype S>
commrt_status convertOn(void *dst, const void *src, size_t n,
                        cudaStream_t stream) {
  using DS = typename Elem<D>::Storage;
  using SS = typename Elem<S>::Storage;
  if (sizeof(DS) == sizeof(SS) && dst == src)
    convertInPlaceKernel<D, S><<<blocksFor(n), threadsPerBlock, 0, stream>>>(
        static_cast<DS *>(dst), static_cast<const SS *>(src), n);
  else
    convertKernel<D, S><<<blocksFor(n), threadsPerBlock, 0, stream>>>(
        static_cast<DS *>(dst), static_cast<const SS *>(src), n);
  return launched("the conversion kernel");
}

template <commrt_dtype T, typename Op>
commrt_status reduceOn(void *dst, const void *src, size_t n,
                       cudaStream_t stream) {
  using S = typename Elem<T>::Storage;
  reduceKernel<T, Op><<<blocksFor(n), threadsPerBlock, 0, stream>>>(
      static_cast<S *>(dst), static_cast<const S *>(src), n);
  return launched("the reduction kernel");
}

template <typename Op>
commrt_status reduceAny(void *dst, const void *src, size_t n,
                        commrt_dtype dtype, cudaStream_t stream) {
  switch (dtype) {
  case COMMRT_F32:
    return reduceOn<COMMRT_F32, Op>(dst, src, n, stream);
  case COMMRT_F64:
    return reduceOn<COMMRT_F64, Op>(dst, src, n, stream);
  case COMMRT_BF16:
    return reduceOn<COMMRT_BF16, Op>(dst, src, n, stream);
  case COMMRT_F16:
    return reduceOn<COMMRT_F16, Op>(dst, src, n, stream);
  case COMMRT_I8:
    return reduceOn<COMMRT_I8, Op>(dst, src, n, stream);
  case COMMRT_U8:
    return reduceOn<COMMRT_U8, Op>(dst, src, n, stream);
  case COMMRT_I32:
    return reduceOn<COMMRT_I32, Op>(dst, src, n, stream);
  case COMMRT_U32:
    return reduceOn<COMMRT_U32, Op>(dst, src, n, stream);
  case COMMRT_I64:
    return reduceOn<COMMRT_I64, Op>(dst, src, n, stream);
  case COMMRT_U64:
    return reduceOn<COMMRT_U64, Op>(dst, src, n, stream);
  }
  return COMMRT_ERROR_INTERNAL;
}

template <typename Op>
commrt_status reduceInt(void *dst, const void *src, size_t n,
                        commrt_dtype dtype, cudaStream_t stream) {
  switch (dtype) {
  case COMMRT_I8:
    return reduceOn<COMMRT_I8, Op>(dst, src, n, stream);
  case COMMRT_U8:
    return reduceOn<COMMRT_U8, Op>(dst, src, n, stream);
  case COMMRT_I32:
    return reduceOn<COMMRT_I32, Op>(dst, src, n, stream);
  case COMMRT_U32:
    return reduceOn<COMMRT_U32, Op>(dst, src, n, stream);
  case COMMRT_I64:
    return reduceOn<COMMRT_I64, Op>(dst, src, n, stream);
  case COMMRT_U64:
    return reduceOn<COMMRT_U64, Op>(dst, src, n, stream);
  default:
    return COMMRT_ERROR_INTERNAL;
  }
}

} // namespace

commrt_status cuda::launchConvert(void *dst, commrt_dtype dstType,
                                  const void *src, commrt_dtype srcType,
                                  size_t n, void *stream) {
  auto s = static_cast<cudaStream_t>(stream);
  if (dstType == srcType) {
    if (dst == src)
      return COMMRT_SUCCESS;
    cudaError_t err = cudaMemcpyAsync(dst, src, n * commrt_dtype_size(dstType),
                                      cudaMemcpyDefault, s);
    if (err != cudaSuccess) {
      cudaGetLastError();
      char text[256];
      std::snprintf(text, sizeof(text), "cuda: cudaMemcpyAsync: %s (%s)",
                    cudaGetErrorString(err), cudaGetErrorName(err));
      return setError(err == cudaErrorNoDevice ||
                              err == cudaErrorInsufficientDriver
                          ? COMMRT_ERROR_UNAVAILABLE
                          : COMMRT_ERROR_BACKEND,
                      text);
    }
    return COMMRT_SUCCESS;
  }
#define COMMRT_CONVERT(D, S)                                                   \
  if (dstType == D && srcType == S)                                            \
    return convertOn<D, S>(dst, src, n, s);
  COMMRT_CONVERT(COMMRT_BF16, COMMRT_F32)
  COMMRT_CONVERT(COMMRT_F16, COMMRT_F32)
  COMMRT_CONVERT(COMMRT_F32, COMMRT_BF16)
  COMMRT_CONVERT(COMMRT_F32, COMMRT_F16)
  COMMRT_CONVERT(COMMRT_F16, COMMRT_BF16)
  COMMRT_CONVERT(COMMRT_BF16, COMMRT_F16)
  COMMRT_CONVERT(COMMRT_F32, COMMRT_F64)
  COMMRT_CONVERT(COMMRT_F64, COMMRT_F32)
  COMMRT_CONVERT(COMMRT_F64, COMMRT_F16)
  COMMRT_CONVERT(COMMRT_F64, COMMRT_BF16)
#undef COMMRT_CONVERT
  return setError(COMMRT_ERROR_INTERNAL,
                  "cuda: unsupported conversion reached the GPU");
}

commrt_status cuda::launchReduce(void *dst, const void *src, size_t n,
                                 commrt_dtype dtype, commrt_redop op,
                                 void *stream) {
  auto s = static_cast<cudaStream_t>(stream);
  switch (op) {
  case COMMRT_SUM:
    return reduceAny<Sum>(dst, src, n, dtype, s);
  case COMMRT_PROD:
    return reduceAny<Prod>(dst, src, n, dtype, s);
  case COMMRT_MIN:
    return reduceAny<Min>(dst, src, n, dtype, s);
  case COMMRT_MAX:
    return reduceAny<Max>(dst, src, n, dtype, s);
  case COMMRT_BAND:
    return reduceInt<BAnd>(dst, src, n, dtype, s);
  case COMMRT_BOR:
    return reduceInt<BOr>(dst, src, n, dtype, s);
  case COMMRT_BXOR:
    return reduceInt<BXor>(dst, src, n, dtype, s);
  default:
    break;
  }
  return setError(COMMRT_ERROR_INTERNAL,
                  "cuda: unsupported reduction reached the GPU");
}

commrt_status cuda::launchScale(void *dst, size_t n, commrt_dtype dtype,
                                double factor, void *stream) {
  auto s = static_cast<cudaStream_t>(stream);
  unsigned blocks = blocksFor(n);
  switch (dtype) {
  case COMMRT_F32:
    scaleKernel<COMMRT_F32><<<blocks, threadsPerBlock, 0, s>>>(
        static_cast<float *>(dst), n, factor);
    break;
  case COMMRT_F64:
    scaleKernel<COMMRT_F64><<<blocks, threadsPerBlock, 0, s>>>(
        static_cast<double *>(dst), n, factor);
    break;
  case COMMRT_BF16:
    scaleKernel<COMMRT_BF16><<<blocks, threadsPerBlock, 0, s>>>(
        static_cast<uint16_t *>(dst), n, factor);
    break;
  case COMMRT_F16:
    scaleKernel<COMMRT_F16><<<blocks, threadsPerBlock, 0, s>>>(
        static_cast<uint16_t *>(dst), n, factor);
    break;
  default:
    return setError(COMMRT_ERROR_INTERNAL,
                    "cuda: scale of a non-float type reached the GPU");
  }
  return launched("the scale kernel");
}
