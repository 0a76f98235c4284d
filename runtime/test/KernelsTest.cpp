//===- test/KernelsTest.cpp - Conversions, pack, reduce_local ---*- C++ -*-===//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//
//
// Single-process test of the kernel entry points on host memory:
//  - f32 -> bf16/f16 round to nearest even, checked against reference
//    conversions in exact double arithmetic on every 16-bit value, every
//    midpoint (ties), its neighbours, denormals, NaN payloads, infinities,
//    overflow, and a million random f32 bit patterns;
//  - bf16/f16 -> f32 exact for all 65536 inputs;
//  - pack/unpack: exact f32 round trip, zeroed gaps, fused conversion;
//  - reduce_local and scale for every dtype and op;
//  - argument validation with the message it gives.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include <chrono>
#include <cstdlib>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

using namespace test;

namespace {

uint16_t toBf16(float f) {
  uint16_t out;
  commrt_convert(&out, COMMRT_BF16, &f, COMMRT_F32, 1, COMMRT_HOST, nullptr);
  return out;
}

uint16_t toF16(float f) {
  uint16_t out;
  commrt_convert(&out, COMMRT_F16, &f, COMMRT_F32, 1, COMMRT_HOST, nullptr);
  return out;
}

/// Converts \p in with commrt (one vectorized call) and compares every
/// element with the references.
void checkF32ToHalf(const std::vector<float> &in) {
  std::vector<uint16_t> bf(in.size()), hf(in.size());
  CHECK_OK(commrt_convert(bf.data(), COMMRT_BF16, in.data(), COMMRT_F32,
                          static_cast<int64_t>(in.size()), COMMRT_HOST,
                          nullptr));
  CHECK_OK(commrt_convert(hf.data(), COMMRT_F16, in.data(), COMMRT_F32,
                          static_cast<int64_t>(in.size()), COMMRT_HOST,
                          nullptr));
  long bad = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    float f = in[i];
    uint16_t wantBf = refF32ToBf16(f);
    bool okBf = std::isnan(f) ? isNanBf16(bf[i]) &&
                                    (bf[i] & 0x8000) == (bits(f) >> 16 & 0x8000)
                              : bf[i] == wantBf;
    uint16_t wantHf = refDoubleToF16(static_cast<double>(f));
    bool okHf =
        std::isnan(f)
            ? isNanF16(hf[i]) && (hf[i] & 0x8000) == (bits(f) >> 16 & 0x8000)
            : (std::isinf(f) ? hf[i] == (wantHf | 0x7c00) : hf[i] == wantHf);
    if (!okBf || !okHf) {
      if (++bad <= 5)
        CHECK_MSG(false,
                  "f32 0x%08x (%.9g): bf16 0x%04x want 0x%04x, f16 0x%04x "
                  "want 0x%04x",
                  bits(f), f, bf[i], wantBf, hf[i], wantHf);
    }
  }
  CHECK_MSG(bad == 0, "%ld of %zu conversions wrong", bad, in.size());
}

void testConversionEdgeCases() {
  // bf16: ties go to even, NaN payloads only in the dropped bits stay NaN.
  CHECK(toBf16(fromBits(0x3f808000)) == 0x3f80); // tie, even below
  CHECK(toBf16(fromBits(0x3f818000)) == 0x3f82); // tie, even above
  CHECK(toBf16(fromBits(0x3f808001)) == 0x3f81); // just above the tie
  CHECK(toBf16(fromBits(0x3f807fff)) == 0x3f80); // just below the tie
  CHECK(isNanBf16(toBf16(fromBits(0x7f800001))));
  CHECK(isNanBf16(toBf16(fromBits(0xff800001))) &&
        (toBf16(fromBits(0xff800001)) & 0x8000));
  CHECK(isNanBf16(toBf16(fromBits(0x7fc00000))));
  CHECK(toBf16(INFINITY) == 0x7f80);
  CHECK(toBf16(-INFINITY) == 0xff80);
  CHECK(toBf16(std::numeric_limits<float>::max()) == 0x7f80); // rounds up
  CHECK(toBf16(fromBits(0x7f7f7fff)) == 0x7f7f); // largest that stays finite
  CHECK(toBf16(fromBits(0x00000001)) == 0x0000); // smallest denormal -> 0
  CHECK(toBf16(fromBits(0x00018000)) == 0x0002); // denormal tie -> even
  CHECK(toBf16(-0.0f) == 0x8000);

  // f16.
  CHECK(toF16(1.0f) == 0x3c00);
  CHECK(toF16(65504.0f) == 0x7bff);
  CHECK(toF16(65519.996f) == 0x7bff);
  CHECK(toF16(65520.0f) == 0x7c00); // the tie rounds to even: infinity
  CHECK(toF16(1e10f) == 0x7c00);
  CHECK(toF16(-INFINITY) == 0xfc00);
  CHECK(isNanF16(toF16(fromBits(0x7f800001)))); // payload in low bits
  CHECK(isNanF16(toF16(NAN)));
  CHECK(toF16(std::ldexp(1.0f, -24)) == 0x0001);        // smallest subnormal
  CHECK(toF16(std::ldexp(1.0f, -25)) == 0x0000);        // tie -> even (zero)
  CHECK(toF16(std::ldexp(3.0f, -25)) == 0x0002);        // tie -> even (2)
  CHECK(toF16(std::ldexp(1.0f, -14)) == 0x0400);        // smallest normal
  CHECK(toF16(std::ldexp(1023.5f, -24)) == 0x0400);     // rounds into normal
  CHECK(toF16(1.0f + std::ldexp(1.0f, -11)) == 0x3c00); // tie -> even
  CHECK(toF16(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3c02);
  CHECK(toF16(-0.0f) == 0x8000);
  CHECK(toF16(fromBits(0x00000001)) == 0x0000); // f32 denormal
}

void testConversionsExhaustive() {
  // Every 16-bit pattern decodes exactly.
  std::vector<uint16_t> all(65536);
  for (uint32_t i = 0; i < 65536; ++i)
    all[i] = static_cast<uint16_t>(i);
  std::vector<float> fromBf(65536), fromHf(65536);
  CHECK_OK(commrt_convert(fromBf.data(), COMMRT_F32, all.data(), COMMRT_BF16,
                          65536, COMMRT_HOST, nullptr));
  CHECK_OK(commrt_convert(fromHf.data(), COMMRT_F32, all.data(), COMMRT_F16,
                          65536, COMMRT_HOST, nullptr));
  long badDecode = 0;
  for (uint32_t i = 0; i < 65536; ++i) {
    if (bits(fromBf[i]) != i << 16)
      ++badDecode;
    double want = refF16ToDouble(static_cast<uint16_t>(i));
    bool ok = std::isnan(want)
                  ? std::isnan(fromHf[i])
                  : static_cast<double>(fromHf[i]) == want &&
                        std::signbit(fromHf[i]) == std::signbit(want);
    if (!ok)
      ++badDecode;
  }
  CHECK_MSG(badDecode == 0, "%ld 16-bit values decode wrongly", badDecode);

  // f32 inputs around every bf16 value: exact, ties, and neighbours of ties
  // (this covers denormals, NaNs with payloads only in the low bits, and
  // the overflow boundary).
  std::vector<float> in;
  in.reserve(65536 * 7);
  for (uint32_t b = 0; b < 65536; ++b)
    for (uint32_t low :
         {0x0000u, 0x0001u, 0x7fffu, 0x8000u, 0x8001u, 0xffffu, 0x4321u})
      in.push_back(fromBits(b << 16 | low));
  checkF32ToHalf(in);

  // f32 inputs around every f16 value: exact, the midpoint to the next
  // value and its two f32 neighbours.
  in.clear();
  for (uint32_t h = 0; h < 0x7c00; ++h) {
    double v = refF16ToDouble(static_cast<uint16_t>(h));
    double next =
        h + 1 < 0x7c00 ? refF16ToDouble(static_cast<uint16_t>(h + 1)) : 65536.0;
    float mid = static_cast<float>((v + next) / 2); // exact in f32
    for (float x : {static_cast<float>(v), mid, std::nextafter(mid, 0.0f),
                    std::nextafter(mid, INFINITY)}) {
      in.push_back(x);
      in.push_back(-x);
    }
  }
  checkF32ToHalf(in);

  // Random bit patterns.
  std::mt19937 rng(12345);
  in.resize(1 << 20);
  for (float &x : in)
    x = fromBits(static_cast<uint32_t>(rng()));
  checkF32ToHalf(in);
}

void testOtherConversions() {
  double d[3] = {1.0 + 1e-12, -2.5, 1e300};
  float f[3];
  CHECK_OK(
      commrt_convert(f, COMMRT_F32, d, COMMRT_F64, 3, COMMRT_HOST, nullptr));
  CHECK(f[0] == 1.0f && f[1] == -2.5f && std::isinf(f[2]));
  double back[3];
  CHECK_OK(
      commrt_convert(back, COMMRT_F64, f, COMMRT_F32, 3, COMMRT_HOST, nullptr));
  CHECK(back[0] == 1.0 && back[1] == -2.5);
  // bf16 <-> f16 in place, and 16-bit to f64.
  uint16_t h[2] = {toBf16(1.5f), toBf16(-3.0f)};
  CHECK_OK(
      commrt_convert(h, COMMRT_F16, h, COMMRT_BF16, 2, COMMRT_HOST, nullptr));
  CHECK(h[0] == toF16(1.5f) && h[1] == toF16(-3.0f));
  double hd[2];
  CHECK_OK(
      commrt_convert(hd, COMMRT_F64, h, COMMRT_F16, 2, COMMRT_HOST, nullptr));
  CHECK(hd[0] == 1.5 && hd[1] == -3.0);
  // Refusals.
  uint16_t out[4];
  CHECK_STATUS(
      commrt_convert(out, COMMRT_BF16, d, COMMRT_F64, 1, COMMRT_HOST, nullptr),
      COMMRT_ERROR_INVALID_ARGUMENT, "round twice");
  int32_t ints[2] = {1, 2};
  CHECK_STATUS(
      commrt_convert(f, COMMRT_F32, ints, COMMRT_I32, 2, COMMRT_HOST, nullptr),
      COMMRT_ERROR_INVALID_ARGUMENT, "cannot convert i32 to f32");
  CHECK_STATUS(
      commrt_convert(f, COMMRT_F32, f + 1, COMMRT_F16, 2, COMMRT_HOST, nullptr),
      COMMRT_ERROR_INVALID_ARGUMENT, "overlap");
  CHECK_STATUS(commrt_convert(nullptr, COMMRT_F32, f, COMMRT_F32, 2,
                              COMMRT_HOST, nullptr),
               COMMRT_ERROR_INVALID_ARGUMENT, "dst is NULL");
  CHECK_STATUS(commrt_convert(f, static_cast<commrt_dtype>(42), f, COMMRT_F32,
                              1, COMMRT_HOST, nullptr),
               COMMRT_ERROR_INVALID_ARGUMENT, "unknown dtype 42");
  CHECK_STATUS(
      commrt_convert(f, COMMRT_F32, f, COMMRT_F32, -1, COMMRT_HOST, nullptr),
      COMMRT_ERROR_INVALID_ARGUMENT, "negative");
  CHECK_STATUS(commrt_convert(f, COMMRT_F32, d, COMMRT_F64, int64_t(1) << 61,
                              COMMRT_HOST, nullptr),
               COMMRT_ERROR_INVALID_ARGUMENT, "overflows");
  CHECK_OK(commrt_convert(nullptr, COMMRT_F32, nullptr, COMMRT_F32, 0,
                          COMMRT_HOST, nullptr));
}

void testPackUnpack() {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1000.0f, 1000.0f);
  std::vector<float> a(64), b(33), c(1);
  for (auto *v : {&a, &b, &c})
    for (float &x : *v)
      x = dist(rng);
  // Layout with gaps: a at 5, b at 100, c at 70; buffer of 140.
  std::vector<commrt_piece> pieces = {
      {a.data(), 64, 5, COMMRT_F32},
      {b.data(), 33, 100, COMMRT_F32},
      {c.data(), 1, 70, COMMRT_F32},
      {nullptr, 0, 140, COMMRT_F32}, // empty piece at the very end
  };
  std::vector<float> buffer(140, fromBits(0xdeadbeef));
  CHECK_OK(commrt_pack(buffer.data(), COMMRT_F32, 140, pieces.data(), 4,
                       COMMRT_HOST, nullptr));
  bool gapsZero = true, placed = true;
  for (int i = 0; i < 140; ++i) {
    bool inA = i >= 5 && i < 69, inB = i >= 100 && i < 133, inC = i == 70;
    if (!inA && !inB && !inC)
      gapsZero &= bits(buffer[i]) == 0;
    if (inA)
      placed &= buffer[i] == a[i - 5];
    if (inB)
      placed &= buffer[i] == b[i - 100];
    if (inC)
      placed &= buffer[i] == c[0];
  }
  CHECK(gapsZero);
  CHECK(placed);
  std::vector<float> a2(64), b2(33), c2(1);
  std::vector<commrt_piece> outs = {{a2.data(), 64, 5, COMMRT_F32},
                                    {b2.data(), 33, 100, COMMRT_F32},
                                    {c2.data(), 1, 70, COMMRT_F32}};
  CHECK_OK(commrt_unpack(buffer.data(), COMMRT_F32, 140, outs.data(), 3,
                         COMMRT_HOST, nullptr));
  CHECK(a2 == a && b2 == b && c2 == c);

  // Fused conversion: f32 pieces into a bf16 and an f16 buffer and back.
  for (commrt_dtype t : {COMMRT_BF16, COMMRT_F16}) {
    std::vector<uint16_t> half(140, 0xffff);
    CHECK_OK(commrt_pack(half.data(), t, 140, pieces.data(), 3, COMMRT_HOST,
                         nullptr));
    bool rne = true;
    for (int i = 0; i < 64; ++i)
      rne &= half[5 + i] == (t == COMMRT_BF16
                                 ? refF32ToBf16(a[i])
                                 : refDoubleToF16(static_cast<double>(a[i])));
    CHECK_MSG(rne, "pack to %s rounds to nearest even", commrt_dtype_name(t));
    CHECK(half[0] == 0 && half[139] == 0 && half[69] == 0);
    CHECK_OK(commrt_unpack(half.data(), t, 140, outs.data(), 3, COMMRT_HOST,
                           nullptr));
    bool back = true;
    for (int i = 0; i < 64; ++i)
      back &= a2[i] == (t == COMMRT_BF16
                            ? fromBits(uint32_t(half[5 + i]) << 16)
                            : static_cast<float>(refF16ToDouble(half[5 + i])));
    CHECK_MSG(back, "unpack from %s is exact", commrt_dtype_name(t));
  }

  // Mixed piece types into an f32 buffer.
  uint16_t hb[2] = {toBf16(2.5f), toBf16(-7.0f)};
  double dd[1] = {0.25};
  commrt_piece mixed[2] = {{hb, 2, 0, COMMRT_BF16}, {dd, 1, 2, COMMRT_F64}};
  float fb[3];
  CHECK_OK(commrt_pack(fb, COMMRT_F32, 3, mixed, 2, COMMRT_HOST, nullptr));
  CHECK(fb[0] == 2.5f && fb[1] == -7.0f && fb[2] == 0.25f);

  // Integers pack without conversion.
  int32_t i1[3] = {1, 2, 3}, i2[2] = {-4, 5};
  commrt_piece ip[2] = {{i1, 3, 0, COMMRT_I32}, {i2, 2, 4, COMMRT_I32}};
  int32_t ib[6] = {9, 9, 9, 9, 9, 9};
  CHECK_OK(commrt_pack(ib, COMMRT_I32, 6, ip, 2, COMMRT_HOST, nullptr));
  CHECK(ib[0] == 1 && ib[2] == 3 && ib[3] == 0 && ib[4] == -4 && ib[5] == 5);

  // Errors.
  commrt_piece overlap[2] = {{a.data(), 10, 0, COMMRT_F32},
                             {b.data(), 10, 5, COMMRT_F32}};
  CHECK_STATUS(commrt_pack(buffer.data(), COMMRT_F32, 140, overlap, 2,
                           COMMRT_HOST, nullptr),
               COMMRT_ERROR_INVALID_ARGUMENT, "pieces #0 and #1 overlap");
  commrt_piece tooFar[1] = {{a.data(), 64, 100, COMMRT_F32}};
  CHECK_STATUS(commrt_pack(buffer.data(), COMMRT_F32, 140, tooFar, 1,
                           COMMRT_HOST, nullptr),
               COMMRT_ERROR_INVALID_ARGUMENT, "does not fit");
  commrt_piece negative[1] = {{a.data(), 4, -1, COMMRT_F32}};
  CHECK_STATUS(commrt_unpack(buffer.data(), COMMRT_F32, 140, negative, 1,
                             COMMRT_HOST, nullptr),
               COMMRT_ERROR_INVALID_ARGUMENT, "negative offset");
  commrt_piece intToFloat[1] = {{i1, 3, 0, COMMRT_I32}};
  CHECK_STATUS(commrt_pack(buffer.data(), COMMRT_F32, 140, intToFloat, 1,
                           COMMRT_HOST, nullptr),
               COMMRT_ERROR_INVALID_ARGUMENT, "only floating-point");
  commrt_piece nullData[1] = {{nullptr, 3, 0, COMMRT_F32}};
  CHECK_STATUS(commrt_pack(buffer.data(), COMMRT_F32, 140, nullData, 1,
                           COMMRT_HOST, nullptr),
               COMMRT_ERROR_INVALID_ARGUMENT, "NULL data");
  CHECK_STATUS(commrt_pack(nullptr, COMMRT_F32, 140, pieces.data(), 3,
                           COMMRT_HOST, nullptr),
               COMMRT_ERROR_INVALID_ARGUMENT, "buffer is NULL");
  CHECK_STATUS(commrt_pack(buffer.data(), COMMRT_F32, 140, pieces.data(), 3,
                           static_cast<commrt_memory_space>(9), nullptr),
               COMMRT_ERROR_INVALID_ARGUMENT, "unknown memory space");
  CHECK_STATUS(commrt_pack(buffer.data(), COMMRT_F32, 140, pieces.data(), 3,
                           COMMRT_HBM, nullptr),
               COMMRT_ERROR_UNAVAILABLE, "");
  CHECK_OK(
      commrt_pack(nullptr, COMMRT_F32, 0, nullptr, 0, COMMRT_HOST, nullptr));
}

/// Reference value of a op b for the integer type T, wrapping like the
/// kernels do.
template <typename T> T refOp(T a, T b, commrt_redop op) {
  using U = typename std::make_unsigned<T>::type;
  switch (op) {
  case COMMRT_SUM:
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  case COMMRT_PROD:
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  case COMMRT_MIN:
    return a < b ? a : b;
  case COMMRT_MAX:
    return a > b ? a : b;
  case COMMRT_BAND:
    return a & b;
  case COMMRT_BOR:
    return a | b;
  case COMMRT_BXOR:
    return a ^ b;
  default:
    return 0;
  }
}

template <typename T> void checkIntReduce(commrt_dtype dtype) {
  const int n = 1037;
  std::vector<T> dst(n), src(n), want(n);
  for (commrt_redop op : {COMMRT_SUM, COMMRT_PROD, COMMRT_MIN, COMMRT_MAX,
                          COMMRT_BAND, COMMRT_BOR, COMMRT_BXOR}) {
    for (int i = 0; i < n; ++i) {
      dst[i] = static_cast<T>(i * 37 - 500);
      src[i] = static_cast<T>(i * 13 + 7);
      want[i] = refOp<T>(dst[i], src[i], op);
    }
    CHECK_OK(commrt_reduce_local(dst.data(), src.data(), n, dtype, op,
                                 COMMRT_HOST, nullptr));
    CHECK_MSG(dst == want, "reduce_local op %d on %s", static_cast<int>(op),
              commrt_dtype_name(dtype));
  }
}

template <typename T> void checkFloatReduce(commrt_dtype dtype) {
  const int n = 515;
  std::vector<T> dst(n), src(n);
  for (commrt_redop op : {COMMRT_SUM, COMMRT_PROD, COMMRT_MIN, COMMRT_MAX}) {
    bool ok = true;
    for (int i = 0; i < n; ++i) {
      dst[i] = static_cast<T>(i * 0.5 - 100);
      src[i] = static_cast<T>(i * 0.25 + 1);
    }
    std::vector<T> before = dst;
    CHECK_OK(commrt_reduce_local(dst.data(), src.data(), n, dtype, op,
                                 COMMRT_HOST, nullptr));
    for (int i = 0; i < n; ++i) {
      T a = before[i], b = src[i];
      T want = op == COMMRT_SUM    ? a + b
               : op == COMMRT_PROD ? a * b
               : op == COMMRT_MIN  ? (a < b ? a : b)
                                   : (a > b ? a : b);
      ok &= dst[i] == want;
    }
    CHECK_MSG(ok, "reduce_local %d on %s", op, commrt_dtype_name(dtype));
  }
}

void checkHalfReduce(commrt_dtype dtype) {
  const int n = 999;
  std::mt19937 rng(99);
  std::uniform_real_distribution<float> dist(-50.0f, 50.0f);
  std::vector<uint16_t> dst(n), src(n);
  auto enc = [&](float f) {
    return dtype == COMMRT_BF16 ? refF32ToBf16(f)
                                : refDoubleToF16(static_cast<double>(f));
  };
  auto dec = [&](uint16_t h) {
    return dtype == COMMRT_BF16 ? fromBits(uint32_t(h) << 16)
                                : static_cast<float>(refF16ToDouble(h));
  };
  for (commrt_redop op : {COMMRT_SUM, COMMRT_PROD, COMMRT_MIN, COMMRT_MAX}) {
    for (int i = 0; i < n; ++i) {
      dst[i] = enc(dist(rng));
      src[i] = enc(dist(rng));
    }
    std::vector<uint16_t> before = dst;
    CHECK_OK(commrt_reduce_local(dst.data(), src.data(), n, dtype, op,
                                 COMMRT_HOST, nullptr));
    bool ok = true;
    for (int i = 0; i < n; ++i) {
      float a = dec(before[i]), b = dec(src[i]);
      float r = op == COMMRT_SUM    ? a + b
                : op == COMMRT_PROD ? a * b
                : op == COMMRT_MIN  ? std::fmin(a, b)
                                    : std::fmax(a, b);
      ok &= dst[i] == enc(r); // f32 accumulation, one rounding
    }
    CHECK_MSG(ok, "reduce_local %d on %s", op, commrt_dtype_name(dtype));
  }
  // scale: x * 0.5 exact.
  std::vector<uint16_t> v = {enc(3.0f), enc(-5.0f)};
  CHECK_OK(commrt_scale(v.data(), 2, dtype, 0.5, COMMRT_HOST, nullptr));
  CHECK(v[0] == enc(1.5f) && v[1] == enc(-2.5f));
}

void testReduceLocal() {
  checkIntReduce<int8_t>(COMMRT_I8);
  checkIntReduce<uint8_t>(COMMRT_U8);
  checkIntReduce<int32_t>(COMMRT_I32);
  checkIntReduce<uint32_t>(COMMRT_U32);
  checkIntReduce<int64_t>(COMMRT_I64);
  checkIntReduce<uint64_t>(COMMRT_U64);
  checkFloatReduce<float>(COMMRT_F32);
  checkFloatReduce<double>(COMMRT_F64);
  checkHalfReduce(COMMRT_BF16);
  checkHalfReduce(COMMRT_F16);
  // In place (x op x).
  float x[3] = {1, 2, 3};
  CHECK_OK(commrt_reduce_local(x, x, 3, COMMRT_F32, COMMRT_SUM, COMMRT_HOST,
                               nullptr));
  CHECK(x[0] == 2 && x[2] == 6);
  float s[2] = {3, -4};
  CHECK_OK(commrt_scale(s, 2, COMMRT_F32, 0.25, COMMRT_HOST, nullptr));
  CHECK(s[0] == 0.75f && s[1] == -1.0f);

  CHECK_STATUS(commrt_reduce_local(x, x, 3, COMMRT_F32, COMMRT_AVG, COMMRT_HOST,
                                   nullptr),
               COMMRT_ERROR_INVALID_ARGUMENT, "avg is not a pairwise");
  CHECK_STATUS(commrt_reduce_local(x, x, 3, COMMRT_F32, COMMRT_BXOR,
                                   COMMRT_HOST, nullptr),
               COMMRT_ERROR_INVALID_ARGUMENT,
               "bitwise reduction bxor on floating-point dtype f32");
  CHECK_STATUS(commrt_reduce_local(x, x, 3, COMMRT_F32,
                                   static_cast<commrt_redop>(77), COMMRT_HOST,
                                   nullptr),
               COMMRT_ERROR_INVALID_ARGUMENT, "unknown reduction op 77");
  CHECK_STATUS(commrt_reduce_local(x, x + 1, 2, COMMRT_F32, COMMRT_SUM,
                                   COMMRT_HOST, nullptr),
               COMMRT_ERROR_INVALID_ARGUMENT, "overlap partially");
  CHECK_STATUS(commrt_reduce_local(x, nullptr, 2, COMMRT_F32, COMMRT_SUM,
                                   COMMRT_HOST, nullptr),
               COMMRT_ERROR_INVALID_ARGUMENT, "src is NULL");
  int32_t iv[1] = {1};
  CHECK_STATUS(commrt_scale(iv, 1, COMMRT_I32, 2.0, COMMRT_HOST, nullptr),
               COMMRT_ERROR_INVALID_ARGUMENT, "not a floating-point");
}

void testNames() {
  CHECK(!std::strcmp(commrt_status_string(COMMRT_ERROR_TIMEOUT),
                     "COMMRT_ERROR_TIMEOUT"));
  CHECK(!std::strcmp(commrt_status_string(static_cast<commrt_status>(99)),
                     "COMMRT_ERROR_UNKNOWN"));
  CHECK(commrt_dtype_size(COMMRT_BF16) == 2 &&
        commrt_dtype_size(COMMRT_U64) == 8);
  CHECK(commrt_dtype_size(static_cast<commrt_dtype>(-1)) == 0);
  CHECK(!std::strcmp(commrt_dtype_name(COMMRT_F16), "f16"));
  CHECK(commrt_abi_version() == COMMRT_ABI_VERSION);
  commrt_options opts;
  CHECK_OK(commrt_options_default(&opts));
  CHECK(opts.timeout_ms == 60000 && opts.cuda_device == -1 &&
        opts.backend == COMMRT_BACKEND_AUTO &&
        opts.on_error == COMMRT_ON_ERROR_ABORT &&
        opts.struct_size == sizeof(commrt_options));
  CHECK_STATUS(commrt_options_default(nullptr), COMMRT_ERROR_INVALID_ARGUMENT,
               "opts is NULL");
}

/// Prints the throughput of the conversion loops (not a pass/fail check).
void reportThroughput() {
  const size_t n = size_t(1) << 23;
  std::vector<float> f(n, 1.2345f);
  std::vector<uint16_t> h(n);
  for (commrt_dtype t : {COMMRT_BF16, COMMRT_F16}) {
    auto start = std::chrono::steady_clock::now();
    for (int rep = 0; rep < 4; ++rep)
      commrt_convert(h.data(), t, f.data(), COMMRT_F32, static_cast<int64_t>(n),
                     COMMRT_HOST, nullptr);
    double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    std::printf("f32 -> %s: %.2f GB/s read\n", commrt_dtype_name(t),
                4.0 * n * 4 / s / 1e9);
  }
  std::vector<float> g(n, 0.5f);
  auto start = std::chrono::steady_clock::now();
  for (int rep = 0; rep < 4; ++rep)
    commrt_reduce_local(f.data(), g.data(), static_cast<int64_t>(n), COMMRT_F32,
                        COMMRT_SUM, COMMRT_HOST, nullptr);
  double s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::printf("reduce_local f32 sum: %.2f GB/s (dst read+write, src read)\n",
              4.0 * n * 12 / s / 1e9);
}

} // namespace

int main() {
  testNames();
  testConversionEdgeCases();
  testConversionsExhaustive();
  testOtherConversions();
  testPackUnpack();
  testReduceLocal();
  reportThroughput();
  return summary("kernels");
}
