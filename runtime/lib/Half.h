//===- lib/Half.h - f16 and bf16 conversions --------------------*- C++ -*-===//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//
//
// Bit-exact conversions between f32 and the two 16-bit float formats, shared
// by the CPU kernels (lib/Kernels.cpp) and the CUDA kernels (cuda/Kernels.cu)
// so that both round identically. Every function is branch-free (selects
// only) so that the CPU loops around them vectorize.
//
// Rounding is to nearest, ties to even. NaN stays NaN: the result is a quiet
// NaN with the sign and the top payload bits of the input. Infinities stay
// infinite; finite values beyond the range of the format round to infinity
// exactly when round-to-nearest-even says so.
//
//===----------------------------------------------------------------------===//

#ifndef COMMRT_LIB_HALF_H
#define COMMRT_LIB_HALF_H

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define COMMRT_HD __host__ __device__ __forceinline__
#else
#define COMMRT_HD inline
#endif

namespace commrt {
namespace half {

/// The bits of \p f.
COMMRT_HD uint32_t bitsOf(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
#endif
}

/// The float whose bits are \p u.
COMMRT_HD float floatOf(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
#endif
}

/// f32 -> bf16, round to nearest even. Adding 0x7fff plus the lowest kept
/// bit and truncating rounds the magnitude correctly, including the carry
/// into the exponent and the overflow of the largest finite values to
/// infinity; NaNs are handled apart so that a payload in the dropped bits
/// cannot turn them into infinity.
COMMRT_HD uint16_t f32ToBf16(float f) {
  uint32_t u = bitsOf(f);
  uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  uint32_t quietNan = (u >> 16) | 0x0040u;
  bool isNan = (u & 0x7fffffffu) > 0x7f800000u;
  return static_cast<uint16_t>(isNan ? quietNan : rounded);
}

/// bf16 -> f32 (exact).
COMMRT_HD float bf16ToF32(uint16_t h) {
  return floatOf(static_cast<uint32_t>(h) << 16);
}

/// f32 -> f16, round to nearest even.
///
/// Normal results: rebias the exponent, add half an f16 ulp minus one plus
/// the lowest kept bit, truncate. Subnormal results (|f| < 2^-14): add 0.5f,
/// whose ulp is 2^-24, the f16 subnormal step, so that the FPU itself rounds
/// to nearest even; the low mantissa bits are then the f16 mantissa.
/// |f| >= 65520 (the midpoint between 65504 and 2^16) gives infinity.
COMMRT_HD uint16_t f32ToF16(float f) {
  uint32_t u = bitsOf(f);
  uint32_t sign = (u >> 16) & 0x8000u;
  uint32_t a = u & 0x7fffffffu;

  uint32_t normal = (a + 0xc8000fffu + ((a >> 13) & 1u)) >> 13;
  float sub = floatOf(a) + 0.5f;
  uint32_t subnormal = bitsOf(sub) - 0x3f000000u;
  uint32_t nan = 0x7e00u | ((a >> 13) & 0x03ffu);

  uint32_t r = a < 0x38800000u ? subnormal : normal;
  r = a >= 0x477ff000u ? 0x7c00u : r;
  r = a > 0x7f800000u ? nan : r;
  return static_cast<uint16_t>(r | sign);
}

/// f16 -> f32 (exact). Normal numbers rebias the exponent; subnormals are
/// renormalized by subtracting 2^-14 from (2^-14 with the f16 mantissa
/// attached), which the FPU does exactly; inf and NaN get the f32 exponent.
COMMRT_HD float f16ToF32(uint16_t h) {
  uint32_t sign = (static_cast<uint32_t>(h) & 0x8000u) << 16;
  uint32_t a = static_cast<uint32_t>(h) & 0x7fffu;
  uint32_t exp = a & 0x7c00u;

  uint32_t normal = (a << 13) + 0x38000000u;
  uint32_t infNan = (a << 13) | 0x7f800000u;
  uint32_t subnormal =
      bitsOf(floatOf((a << 13) + 0x38800000u) - floatOf(0x38800000u));
  uint32_t r = exp == 0 ? subnormal : normal;
  r = exp == 0x7c00u ? infNan : r;
  return floatOf(r | sign);
}

} // namespace half
} // namespace commrt

#endif // COMMRT_LIB_HALF_H
