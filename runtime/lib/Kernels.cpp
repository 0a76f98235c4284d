//===- lib/Kernels.cpp - CPU conversion and reduction loops -----*- C++ -*-===//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//
//
// The loops are written so that the compiler vectorizes them: one element
// per iteration, no branches in the body (the conversions in Half.h select
// instead of branching), restrict-qualified pointers where the buffers
// cannot overlap. This file is compiled with the vectorizer's dynamic cost
// model (see lib/CMakeLists.txt) because GCC's -O2 default only vectorizes
// loops whose trip count is a known multiple of the vector width.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "Half.h"

#include <cstdint>
#include <cstring>
#include <type_traits>

using namespace commrt;
using half::bf16ToF32;
using half::f16ToF32;
using half::f32ToBf16;
using half::f32ToF16;

namespace {

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

void f32ToBf16Loop(uint16_t *__restrict dst, const float *__restrict src,
                   size_t n) {
  for (size_t i = 0; i < n; ++i)
    dst[i] = f32ToBf16(src[i]);
}

void f32ToF16Loop(uint16_t *__restrict dst, const float *__restrict src,
                  size_t n) {
  for (size_t i = 0; i < n; ++i)
    dst[i] = f32ToF16(src[i]);
}

void bf16ToF32Loop(float *__restrict dst, const uint16_t *__restrict src,
                   size_t n) {
  for (size_t i = 0; i < n; ++i)
    dst[i] = bf16ToF32(src[i]);
}

void f16ToF32Loop(float *__restrict dst, const uint16_t *__restrict src,
                  size_t n) {
  for (size_t i = 0; i < n; ++i)
    dst[i] = f16ToF32(src[i]);
}

void f64ToF32Loop(float *__restrict dst, const double *__restrict src,
                  size_t n) {
  for (size_t i = 0; i < n; ++i)
    dst[i] = static_cast<float>(src[i]);
}

void f32ToF64Loop(double *__restrict dst, const float *__restrict src,
                  size_t n) {
  for (size_t i = 0; i < n; ++i)
    dst[i] = src[i];
}

// Same-size conversions may run in place, so no restrict.
void bf16ToF16Loop(uint16_t *dst, const uint16_t *src, size_t n) {
  for (size_t i = 0; i < n; ++i)
    dst[i] = f32ToF16(bf16ToF32(src[i]));
}

void f16ToBf16Loop(uint16_t *dst, const uint16_t *src, size_t n) {
  for (size_t i = 0; i < n; ++i)
    dst[i] = f32ToBf16(f16ToF32(src[i]));
}

/// Conversions from a 16-bit type to f64 go through f32 (exact) in blocks.
void halfToF64(double *dst, const uint16_t *src, size_t n, bool bf16) {
  constexpr size_t block = 1024;
  float tmp[block];
  for (size_t i = 0; i < n; i += block) {
    size_t m = n - i < block ? n - i : block;
    if (bf16)
      bf16ToF32Loop(tmp, src + i, m);
    else
      f16ToF32Loop(tmp, src + i, m);
    f32ToF64Loop(dst + i, tmp, m);
  }
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

struct Sum {
  template <typename T> static T apply(T a, T b) { return a + b; }
};
struct Prod {
  template <typename T> static T apply(T a, T b) { return a * b; }
};
struct Min {
  template <typename T> static T apply(T a, T b) { return b < a ? b : a; }
};
struct Max {
  template <typename T> static T apply(T a, T b) { return a < b ? b : a; }
};
struct BAnd {
  template <typename T> static T apply(T a, T b) { return a & b; }
};
struct BOr {
  template <typename T> static T apply(T a, T b) { return a | b; }
};
struct BXor {
  template <typename T> static T apply(T a, T b) { return a ^ b; }
};

template <typename Op, typename T>
void reduceLoop(T *dst, const T *src, size_t n) {
  for (size_t i = 0; i < n; ++i)
    dst[i] = Op::apply(dst[i], src[i]);
}

// Integer sums and products wrap (two's complement) instead of being
// undefined on overflow: compute them unsigned.
template <typename Op, typename T>
void reduceIntLoop(T *dst, const T *src, size_t n) {
  using U = typename std::make_unsigned<T>::type;
  if constexpr (std::is_same<Op, Sum>::value || std::is_same<Op, Prod>::value)
    reduceLoop<Op>(reinterpret_cast<U *>(dst), reinterpret_cast<const U *>(src),
                   n);
  else
    reduceLoop<Op>(dst, src, n);
}

template <typename Op>
void reduceBf16Loop(uint16_t *dst, const uint16_t *src, size_t n) {
  for (size_t i = 0; i < n; ++i)
    dst[i] = f32ToBf16(Op::apply(bf16ToF32(dst[i]), bf16ToF32(src[i])));
}

template <typename Op>
void reduceF16Loop(uint16_t *dst, const uint16_t *src, size_t n) {
  for (size_t i = 0; i < n; ++i)
    dst[i] = f32ToF16(Op::apply(f16ToF32(dst[i]), f16ToF32(src[i])));
}

template <typename Op>
void reduceFloat(void *dst, const void *src, size_t n, commrt_dtype dtype) {
  switch (dtype) {
  case COMMRT_F32:
    return reduceLoop<Op>(static_cast<float *>(dst),
                          static_cast<const float *>(src), n);
  case COMMRT_F64:
    return reduceLoop<Op>(static_cast<double *>(dst),
                          static_cast<const double *>(src), n);
  case COMMRT_BF16:
    return reduceBf16Loop<Op>(static_cast<uint16_t *>(dst),
                              static_cast<const uint16_t *>(src), n);
  case COMMRT_F16:
    return reduceF16Loop<Op>(static_cast<uint16_t *>(dst),
                             static_cast<const uint16_t *>(src), n);
  default:
    return;
  }
}

template <typename Op>
void reduceInt(void *dst, const void *src, size_t n, commrt_dtype dtype) {
  switch (dtype) {
  case COMMRT_I8:
    return reduceIntLoop<Op>(static_cast<int8_t *>(dst),
                             static_cast<const int8_t *>(src), n);
  case COMMRT_U8:
    return reduceIntLoop<Op>(static_cast<uint8_t *>(dst),
                             static_cast<const uint8_t *>(src), n);
  case COMMRT_I32:
    return reduceIntLoop<Op>(static_cast<int32_t *>(dst),
                             static_cast<const int32_t *>(src), n);
  case COMMRT_U32:
    return reduceIntLoop<Op>(static_cast<uint32_t *>(dst),
                             static_cast<const uint32_t *>(src), n);
  case COMMRT_I64:
    return reduceIntLoop<Op>(static_cast<int64_t *>(dst),
                             static_cast<const int64_t *>(src), n);
  case COMMRT_U64:
    return reduceIntLoop<Op>(static_cast<uint64_t *>(dst),
                             static_cast<const uint64_t *>(src), n);
  default:
    return;
  }
}

template <typename Op>
void reduceAny(void *dst, const void *src, size_t n, commrt_dtype dtype) {
  if (dtype == COMMRT_F32 || dtype == COMMRT_F64 || dtype == COMMRT_F16 ||
      dtype == COMMRT_BF16)
    reduceFloat<Op>(dst, src, n, dtype);
  else
    reduceInt<Op>(dst, src, n, dtype);
}

/// Divides in a 64-bit type of the same signedness, so that a divisor wider
/// than T (a group larger than 127 ranks for i8) stays right.
template <typename T> void intDivideLoop(T *dst, size_t n, long long divisor) {
  using Wide = typename std::conditional<std::is_signed<T>::value, int64_t,
                                         uint64_t>::type;
  Wide d = static_cast<Wide>(divisor);
  for (size_t i = 0; i < n; ++i)
    dst[i] = static_cast<T>(static_cast<Wide>(dst[i]) / d);
}

} // namespace

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

bool cpu::canConvert(commrt_dtype dst, commrt_dtype src) {
  if (dst == src)
    return true;
  auto isFloat = [](commrt_dtype t) {
    return t == COMMRT_F32 || t == COMMRT_F64 || t == COMMRT_F16 ||
           t == COMMRT_BF16;
  };
  if (!isFloat(dst) || !isFloat(src))
    return false;
  // f64 -> f16/bf16 would round twice through f32.
  return !(src == COMMRT_F64 && (dst == COMMRT_F16 || dst == COMMRT_BF16));
}

void cpu::convert(void *dst, commrt_dtype dstType, const void *src,
                  commrt_dtype srcType, size_t n) {
  if (n == 0)
    return;
  if (dstType == srcType) {
    if (dst != src)
      std::memcpy(dst, src, n * commrt_dtype_size(dstType));
    return;
  }
  auto *u16 = static_cast<uint16_t *>(dst);
  auto *cu16 = static_cast<const uint16_t *>(src);
  switch (srcType) {
  case COMMRT_F32: {
    auto *f = static_cast<const float *>(src);
    if (dstType == COMMRT_BF16)
      return f32ToBf16Loop(u16, f, n);
    if (dstType == COMMRT_F16)
      return f32ToF16Loop(u16, f, n);
    if (dstType == COMMRT_F64)
      return f32ToF64Loop(static_cast<double *>(dst), f, n);
    return;
  }
  case COMMRT_F64:
    if (dstType == COMMRT_F32)
      return f64ToF32Loop(static_cast<float *>(dst),
                          static_cast<const double *>(src), n);
    return;
  case COMMRT_BF16:
    if (dstType == COMMRT_F32)
      return bf16ToF32Loop(static_cast<float *>(dst), cu16, n);
    if (dstType == COMMRT_F16)
      return bf16ToF16Loop(u16, cu16, n);
    if (dstType == COMMRT_F64)
      return halfToF64(static_cast<double *>(dst), cu16, n, true);
    return;
  case COMMRT_F16:
    if (dstType == COMMRT_F32)
      return f16ToF32Loop(static_cast<float *>(dst), cu16, n);
    if (dstType == COMMRT_BF16)
      return f16ToBf16Loop(u16, cu16, n);
    if (dstType == COMMRT_F64)
      return halfToF64(static_cast<double *>(dst), cu16, n, false);
    return;
  default:
    return;
  }
}

void cpu::reduce(void *dst, const void *src, size_t n, commrt_dtype dtype,
                 commrt_redop op) {
  switch (op) {
  case COMMRT_SUM:
    return reduceAny<Sum>(dst, src, n, dtype);
  case COMMRT_PROD:
    return reduceAny<Prod>(dst, src, n, dtype);
  case COMMRT_MIN:
    return reduceAny<Min>(dst, src, n, dtype);
  case COMMRT_MAX:
    return reduceAny<Max>(dst, src, n, dtype);
  case COMMRT_BAND:
    return reduceInt<BAnd>(dst, src, n, dtype);
  case COMMRT_BOR:
    return reduceInt<BOr>(dst, src, n, dtype);
  case COMMRT_BXOR:
    return reduceInt<BXor>(dst, src, n, dtype);
  case COMMRT_AVG:
    return;
  }
}

void cpu::scale(void *dst, size_t n, commrt_dtype dtype, double factor) {
  switch (dtype) {
  case COMMRT_F32: {
    auto *p = static_cast<float *>(dst);
    float f = static_cast<float>(factor);
    for (size_t i = 0; i < n; ++i)
      p[i] *= f;
    return;
  }
  case COMMRT_F64: {
    auto *p = static_cast<double *>(dst);
    for (size_t i = 0; i < n; ++i)
      p[i] *= factor;
    return;
  }
  case COMMRT_BF16: {
    auto *p = static_cast<uint16_t *>(dst);
    float f = static_cast<float>(factor);
    for (size_t i = 0; i < n; ++i)
      p[i] = f32ToBf16(bf16ToF32(p[i]) * f);
    return;
  }
  case COMMRT_F16: {
    auto *p = static_cast<uint16_t *>(dst);
    float f = static_cast<float>(factor);
    for (size_t i = 0; i < n; ++i)
      p[i] = f32ToF16(f16ToF32(p[i]) * f);
    return;
  }
  default:
    return;
  }
}

void cpu::divide(void *dst, size_t n, commrt_dtype dtype, long long divisor) {
  switch (dtype) {
  case COMMRT_F32: {
    auto *p = static_cast<float *>(dst);
    float d = static_cast<float>(divisor);
    for (size_t i = 0; i < n; ++i)
      p[i] /= d;
    return;
  }
  case COMMRT_F64: {
    auto *p = static_cast<double *>(dst);
    double d = static_cast<double>(divisor);
    for (size_t i = 0; i < n; ++i)
      p[i] /= d;
    return;
  }
  case COMMRT_BF16: {
    auto *p = static_cast<uint16_t *>(dst);
    float d = static_cast<float>(divisor);
    for (size_t i = 0; i < n; ++i)
      p[i] = f32ToBf16(bf16ToF32(p[i]) / d);
    return;
  }
  case COMMRT_F16: {
    auto *p = static_cast<uint16_t *>(dst);
    float d = static_cast<float>(divisor);
    for (size_t i = 0; i < n; ++i)
      p[i] = f32ToF16(f16ToF32(p[i]) / d);
    return;
  }
  case COMMRT_I8:
    return intDivideLoop(static_cast<int8_t *>(dst), n, divisor);
  case COMMRT_U8:
    return intDivideLoop(static_cast<uint8_t *>(dst), n, divisor);
  case COMMRT_I32:
    return intDivideLoop(static_cast<int32_t *>(dst), n, divisor);
  case COMMRT_U32:
    return intDivideLoop(static_cast<uint32_t *>(dst), n, divisor);
  case COMMRT_I64:
    return intDivideLoop(static_cast<int64_t *>(dst), n, divisor);
  case COMMRT_U64:
    return intDivideLoop(static_cast<uint64_t *>(dst), n, divisor);
  }
}
