//===- test/TestUtil.h - Checking helpers for the tests ---------*- C++ -*-===//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//
//
// CHECK-style macros that count checks and failures and print the first few
// failures with their location, plus reference conversions written
// independently of lib/Half.h (exact arithmetic in double).
//
//===----------------------------------------------------------------------===//

#ifndef COMMRT_TEST_TESTUTIL_H
#define COMMRT_TEST_TESTUTIL_H

#include "commrt.h"

#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

namespace test {

inline long checks = 0;
inline long failures = 0;
inline int rank = 0;

inline void report(bool ok, const char *file, int line,
                   const std::string &what) {
  ++checks;
  if (ok)
    return;
  if (++failures <= 20)
    std::fprintf(stderr, "[rank %d] FAIL %s:%d: %s\n", rank, file, line,
                 what.c_str());
}

/// Prints the summary line and returns the exit code.
inline int summary(const char *name) {
  std::printf("[rank %d] %s: %ld checks, %ld failures\n", rank, name, checks,
              failures);
  std::fflush(stdout);
  return failures ? 1 : 0;
}

inline std::string str(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
inline std::string str(const char *fmt, ...) {
  char buf[512];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buf, sizeof(buf), fmt, args);
  va_end(args);
  return buf;
}

inline uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

inline float fromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// Reference f16 -> double by the definition of binary16.
inline double refF16ToDouble(uint16_t h) {
  int sign = h >> 15, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  double v;
  if (exp == 0)
    v = std::ldexp(mant, -24);
  else if (exp == 31)
    v = mant ? NAN : INFINITY;
  else
    v = std::ldexp(1024 + mant, exp - 25);
  return sign ? -v : v;
}

/// Reference finite |x| (exactly representable in double) -> f16 bits,
/// round to nearest even, by scaling to the quantum and rint().
inline uint16_t refDoubleToF16(double x) {
  uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  double a = std::fabs(x);
  if (std::isnan(x))
    return sign | 0x7e00;
  if (a >= 65520.0)
    return sign | 0x7c00;
  int e;
  std::frexp(a, &e); // a = f * 2^e, f in [0.5, 1)
  int quantumExp = e - 11 < -24 ? -24 : e - 11;
  double m = std::rint(std::ldexp(a, -quantumExp)); // RNE in double
  double r = std::ldexp(m, quantumExp);
  if (r < std::ldexp(1.0, -14))
    return sign | static_cast<uint16_t>(m); // subnormal (or zero)
  int re;
  double fr = std::frexp(r, &re);
  int biased = re - 1 + 15;
  if (biased >= 31)
    return sign | 0x7c00;
  uint16_t mant = static_cast<uint16_t>((fr * 2 - 1) * 1024);
  return sign | static_cast<uint16_t>(biased << 10) | mant;
}

/// Reference f32 -> bf16 bits: the nearer of the two bf16 neighbours of f
/// in exact double arithmetic, ties to the even one; beyond the largest
/// finite bf16 the upper neighbour counts as 2^128 (infinity).
inline uint16_t refF32ToBf16(float f) {
  uint32_t u = bits(f);
  if (std::isnan(f))
    return static_cast<uint16_t>((u >> 16) | 0x40);
  if (std::isinf(f))
    return static_cast<uint16_t>(u >> 16);
  uint32_t sign = u & 0x80000000u, mag = u & 0x7fffffffu;
  uint32_t lo = mag & 0xffff0000u, hi = lo + 0x10000u;
  double a = std::fabs(static_cast<double>(f));
  double loV = std::fabs(static_cast<double>(fromBits(lo)));
  double hiV = hi >= 0x7f800000u ? std::ldexp(1.0, 128)
                                 : static_cast<double>(fromBits(hi));
  uint32_t pick;
  if (a - loV < hiV - a)
    pick = lo;
  else if (a - loV > hiV - a)
    pick = hi;
  else
    pick = ((lo >> 16) & 1) ? hi : lo;
  return static_cast<uint16_t>((sign | pick) >> 16);
}

inline bool isNanF16(uint16_t h) {
  return (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
}
inline bool isNanBf16(uint16_t h) {
  return (h & 0x7f80) == 0x7f80 && (h & 0x7f);
}

/// Writes \p v as one element of \p type at \p p (rounded to nearest
/// even for the narrow floats, truncated for integers).
inline void store(unsigned char *p, commrt_dtype type, double v) {
  switch (type) {
  case COMMRT_F32: {
    float x = static_cast<float>(v);
    std::memcpy(p, &x, 4);
    break;
  }
  case COMMRT_F64:
    std::memcpy(p, &v, 8);
    break;
  case COMMRT_BF16: {
    uint16_t x = refF32ToBf16(static_cast<float>(v));
    std::memcpy(p, &x, 2);
    break;
  }
  case COMMRT_F16: {
    uint16_t x = refDoubleToF16(static_cast<float>(v));
    std::memcpy(p, &x, 2);
    break;
  }
  case COMMRT_I8: {
    int8_t x = static_cast<int8_t>(v);
    std::memcpy(p, &x, 1);
    break;
  }
  case COMMRT_U8: {
    uint8_t x = static_cast<uint8_t>(v);
    std::memcpy(p, &x, 1);
    break;
  }
  case COMMRT_I32: {
    int32_t x = static_cast<int32_t>(v);
    std::memcpy(p, &x, 4);
    break;
  }
  case COMMRT_U32: {
    uint32_t x = static_cast<uint32_t>(v);
    std::memcpy(p, &x, 4);
    break;
  }
  case COMMRT_I64: {
    int64_t x = static_cast<int64_t>(v);
    std::memcpy(p, &x, 8);
    break;
  }
  case COMMRT_U64: {
    uint64_t x = static_cast<uint64_t>(v);
    std::memcpy(p, &x, 8);
    break;
  }
  }
}

/// Starts commrt on the mpi backend for a multi-rank test and sets
/// test::rank. Returns the context and the world size, or nullptr after
/// saying why. `onError` overrides the default error policy when given.
inline commrt_context *
initMpiTest(int *argc, char ***argv, int64_t timeoutMs, int64_t *worldSize,
            const commrt_error_policy *onError = nullptr) {
  commrt_options opts;
  commrt_options_default(&opts);
  opts.backend = COMMRT_BACKEND_MPI;
  opts.timeout_ms = timeoutMs;
  if (onError)
    opts.on_error = *onError;
  commrt_context *ctx = nullptr;
  if (commrt_init(argc, argv, &opts, &ctx) != COMMRT_SUCCESS) {
    std::fprintf(stderr, "commrt_init: %s\n", commrt_last_error());
    return nullptr;
  }
  int64_t r;
  commrt_rank(ctx, &r);
  commrt_world_size(ctx, worldSize);
  rank = static_cast<int>(r);
  return ctx;
}

/// initMpiTest for a test written for `ranks` ranks: nullptr, after saying
/// so, on another world size.
inline commrt_context *
initMpiTestOn(int64_t ranks, int *argc, char ***argv, int64_t timeoutMs,
              const commrt_error_policy *onError = nullptr) {
  int64_t size = 0;
  commrt_context *ctx = initMpiTest(argc, argv, timeoutMs, &size, onError);
  if (ctx && size != ranks) {
    std::fprintf(stderr, "run this test with %lld ranks (got %lld)\n",
                 static_cast<long long>(ranks), static_cast<long long>(size));
    commrt_finalize(ctx);
    return nullptr;
  }
  return ctx;
}

} // namespace test

#define CHECK(cond) ::test::report((cond), __FILE__, __LINE__, #cond)
#define CHECK_MSG(cond, ...)                                                   \
  ::test::report((cond), __FILE__, __LINE__, ::test::str(__VA_ARGS__))
/// Checks that \p call returns \p status and that the last error contains
/// \p needle.
#define CHECK_STATUS(call, status, needle)                                     \
  do {                                                                         \
    commrt_status got_ = (call);                                               \
    const char *err_ = commrt_last_error();                                    \
    ::test::report(got_ == (status) && (got_ == COMMRT_SUCCESS ||              \
                                        std::strstr(err_, (needle))),          \
                   __FILE__, __LINE__,                                         \
                   ::test::str("%s -> %s (want %s), last error \"%s\" (want "  \
                               "\"%s\")",                                      \
                               #call, commrt_status_string(got_),              \
                               commrt_status_string(status), err_, (needle))); \
  } while (0)
#define CHECK_OK(call) CHECK_STATUS(call, COMMRT_SUCCESS, "")

#endif // COMMRT_TEST_TESTUTIL_H
