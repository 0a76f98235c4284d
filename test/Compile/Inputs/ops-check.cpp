// Calls the entry points of ops.mlir (compiled to a static library by
// comm-compile) on 4 ranks and checks every result in closed form.
#include "ops.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

static int failures = 0;
static long long rank = 0;

#define EXPECT(cond, ...)                                                      \
  do {                                                                         \
    if (!(cond)) {                                                             \
      std::fprintf(stderr, "rank %lld: %s:%d: ", rank, __FILE__, __LINE__);   \
      std::fprintf(stderr, __VA_ARGS__);                                       \
      std::fprintf(stderr, "\n");                                              \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

static void ok(int32_t status, const char *what) {
  if (status != 0) {
    std::fprintf(stderr, "rank %lld: %s failed: %s\n", rank, what,
                 comm_last_error());
    std::exit(2);
  }
}

static float bf16ToFloat(uint16_t v) {
  float f = 0;
  commrt_convert(&f, COMMRT_F32, &v, COMMRT_BF16, 1, COMMRT_HOST, nullptr);
  return f;
}
static uint16_t floatToBf16(float f) {
  uint16_t v = 0;
  commrt_convert(&v, COMMRT_BF16, &f, COMMRT_F32, 1, COMMRT_HOST, nullptr);
  return v;
}

int main(int argc, char **argv) {
  commrt_context *ctx = nullptr;
  if (commrt_init(&argc, &argv, nullptr, &ctx) != COMMRT_SUCCESS)
    return 2;
  int64_t r = 0, size = 0;
  commrt_rank(ctx, &r);
  commrt_world_size(ctx, &size);
  rank = r;
  if (size != 4) {
    std::fprintf(stderr, "run on 4 ranks\n");
    return 2;
  }
  // x[i][j] = 100 * rank + 10 * i + j for a 2-D input.
  {
    int32_t x[2][3], y[2][12];
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j)
        x[i][j] = 100 * r + 10 * i + j;
    ok(gather_dim1(ctx, &x[0][0], &y[0][0]), "gather_dim1");
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 12; ++j)
        EXPECT(y[i][j] == 100 * (j / 3) + 10 * i + j % 3,
               "gather_dim1 [%d][%d] = %d", i, j, y[i][j]);
  }
  {
    int32_t x[2][8], y[2][2];
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 8; ++j)
        x[i][j] = 100 * r + 10 * i + j;
    ok(scatter_dim1(ctx, &x[0][0], &y[0][0]), "scatter_dim1");
    // Sum over ranks of x[i][2r + j]: 100 * (0+1+2+3) + 4 * (10i + 2r + j).
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j)
        EXPECT(y[i][j] == 600 + 4 * (10 * i + 2 * r + j),
               "scatter_dim1 [%d][%d] = %d", i, j, y[i][j]);
  }
  {
    int32_t x[4][2], y[1][8];
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 2; ++j)
        x[i][j] = 100 * r + 10 * i + j;
    ok(a2a_0_1(ctx, &x[0][0], &y[0][0]), "a2a_0_1");
    // Block s of the result is row r of rank s.
    for (int s = 0; s < 4; ++s)
      for (int j = 0; j < 2; ++j)
        EXPECT(y[0][2 * s + j] == 100 * s + 10 * r + j, "a2a_0_1 [0][%d] = %d",
               2 * s + j, y[0][2 * s + j]);
  }
  {
    int32_t x[2][8], y[8][2];
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 8; ++j)
        x[i][j] = 100 * r + 10 * i + j;
    ok(a2a_1_0(ctx, &x[0][0], &y[0][0]), "a2a_1_0");
    // Rows 2s..2s+1 of the result are columns 2r..2r+1 of rank s.
    for (int s = 0; s < 4; ++s)
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
          EXPECT(y[2 * s + i][j] == 100 * s + 10 * i + 2 * r + j,
                 "a2a_1_0 [%d][%d] = %d", 2 * s + i, j, y[2 * s + i][j]);
  }
  {
    float x[5], y[5];
    for (int i = 0; i < 5; ++i)
      x[i] = 1.5f * r + i;
    ok(bcast_pairs(ctx, x, y), "bcast_pairs");
    int64_t root = r < 2 ? 1 : 3;
    for (int i = 0; i < 5; ++i)
      EXPECT(y[i] == 1.5f * root + i, "bcast_pairs [%d] = %g", i, y[i]);
  }
  {
    int64_t x[6], y[6];
    for (int i = 0; i < 6; ++i)
      x[i] = (i % 2 ? 1 : -1) * (10 * r + i);
    ok(reduce_max(ctx, x, y), "reduce_max");
    for (int i = 0; i < 6; ++i) {
      int64_t want = i % 2 ? 30 + i : -i;
      if (r == 2)
        EXPECT(y[i] == want, "reduce_max [%d] = %lld", i, (long long)y[i]);
      else // every other rank keeps its input (comm.reduce's definition)
        EXPECT(y[i] == x[i], "reduce_max off-root [%d] = %lld", i,
               (long long)y[i]);
    }
  }
  {
    int32_t x[8], a[8], o[8], e[8];
    for (int i = 0; i < 8; ++i)
      x[i] = (1 << r) | (i << 8) | 0xf0000;
    ok(bits(ctx, x, a, o, e), "bits");
    for (int i = 0; i < 8; ++i) {
      EXPECT(a[i] == ((i << 8) | 0xf0000), "and [%d] = %x", i, a[i]);
      EXPECT(o[i] == (0xf | (i << 8) | 0xf0000), "or [%d] = %x", i, o[i]);
      EXPECT(e[i] == 0xf, "xor [%d] = %x", i, e[i]);
    }
  }
  {
    double x[4], y[4];
    for (int i = 0; i < 4; ++i)
      x[i] = 0.25 * r + i;
    ok(permute(ctx, x, y), "permute");
    int source = r == 3 ? 0 : r == 0 ? 3 : r == 2 ? 1 : -1;
    for (int i = 0; i < 4; ++i)
      EXPECT(y[i] == (source < 0 ? 0.0 : 0.25 * source + i),
             "permute [%d] = %g", i, y[i]);
  }
  {
    uint16_t x[16], y[16];
    for (int i = 0; i < 16; ++i)
      x[i] = floatToBf16(static_cast<float>(4 * r + i));
    ok(avg_bf16(ctx, x, y), "avg_bf16");
    for (int i = 0; i < 16; ++i)
      EXPECT(std::fabs(bf16ToFloat(y[i]) - (6.0f + i)) <= 0.0625f,
             "avg_bf16 [%d] = %g", i, bf16ToFloat(y[i]));
  }
  {
    int8_t x[8], y[8];
    for (int i = 0; i < 8; ++i)
      x[i] = static_cast<int8_t>(r * 8 - i);
    ok(copies(ctx, x, y), "copies");
    for (int i = 0; i < 8; ++i)
      EXPECT(y[i] == x[i], "copies [%d] = %d", i, y[i]);
  }
  {
    int32_t x[3], y[3];
    for (int i = 0; i < 3; ++i)
      x[i] = 1000 * (r + 1) + i;
    ok(sendrecv_loop(ctx, x, y), "sendrecv_loop");
    for (int i = 0; i < 3; ++i)
      EXPECT(y[i] == 10000 + 4 * i, "sendrecv_loop [%d] = %d", i, y[i]);
  }
  commrt_finalize(ctx);
  if (failures == 0 && rank == 0)
    std::printf("ops-check: all results match\n");
  return failures ? 1 : 0;
}
