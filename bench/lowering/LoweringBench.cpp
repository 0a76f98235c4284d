//===- LoweringBench.cpp - generated code against ---------------*- C++ -*-===//
//
// Runs on 4 ranks (mpirun -np 4 --oversubscribe comm-bench-lowering) and
// prints, side by side in one run, the median time of:
//
//  - 256 small f32 gradients all_reduced, in two size mixes (64 B-4 KiB and
//    4-64 KiB): the comm-compiled fused program against (a) one
//    MPI_Allreduce per tensor and (b) a hand-written pack + one
//    MPI_Allreduce + unpack into preallocated buffers, on the same data;
//    (c) is the same with the runtime's calls written by hand (check off),
//    which splits what comm adds over (b) into the runtime's part and the
//    generated code's;
//  - one 64 MiB f32 all_reduce: generated code against MPI_Allreduce;
//  - the same all_reduce sent as bf16 against the f32 MPI_Allreduce.
//
// The generated code runs twice: as it ships, with the runtime's check
// that the ranks agree on each collective (docs/Reliability.md), and with
// it off (COMMRT_VALIDATE=0), which is what the hand-written MPI code does;
// the lowering's targets compare the latter, like with like, and the cost
// of the check is printed beside them.
//
// Options: --rounds N (default 1000), --large-rounds N (64 MiB, default 15),
// --only small|large|64mib.
//
// Each round runs every variant once, in rotating order, after a barrier;
// a variant's time in a round is the slowest rank's. Results of all
// variants are compared, so that no variant is timed doing less work.
//
//===----------------------------------------------------------------------===//

#include "fused_large.h"
#include "fused_small.h"
#include "large.h"

#include "fused_large.inc"
#include "fused_small.inc"

#include "../RuntimeBench.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {
int rank = 0, size = 1;
/// The runtime as it ships (the check across ranks on), and with the check
/// off.
commrt_context *ctx = nullptr, *ctxUnchecked = nullptr;

void ok(int32_t status, const char *what) {
  if (status != 0) {
    std::fprintf(stderr, "rank %d: %s failed: %s\n", rank, what,
                 comm_last_error());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
}

struct Variant {
  std::string name;
  std::function<void()> run;
  std::vector<double> times;
  double median() {
    std::vector<double> t = times;
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  }
  /// The median over the rounds of this variant's time over `base`'s in
  /// the same round: a round runs every variant back to back, so a slow
  /// stretch of the shared machine slows both sides of each ratio.
  double pairedRatio(const Variant &base) const {
    std::vector<double> r;
    for (size_t i = 0; i < times.size() && i < base.times.size(); ++i)
      r.push_back(times[i] / base.times[i]);
    std::sort(r.begin(), r.end());
    return r.empty() ? 0 : r[r.size() / 2];
  }
};

/// Runs `rounds` rounds of every variant (rotating the order) and records
/// the slowest rank's time of each.
void measure(std::vector<Variant> &variants, int warmup, int rounds) {
  for (int w = 0; w < warmup; ++w)
    for (Variant &v : variants)
      v.run();
  for (int r = 0; r < rounds; ++r) {
    for (size_t k = 0; k < variants.size(); ++k) {
      Variant &v = variants[(k + r) % variants.size()];
      MPI_Barrier(MPI_COMM_WORLD);
      auto begin = std::chrono::steady_clock::now();
      v.run();
      double us = std::chrono::duration<double, std::micro>(
                      std::chrono::steady_clock::now() - begin)
                      .count();
      double slowest = 0;
      MPI_Allreduce(&us, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      v.times.push_back(slowest);
    }
  }
}

/// Largest absolute difference between two result sets, over all ranks.
double maxDiff(const std::vector<std::vector<float>> &a,
               const std::vector<std::vector<float>> &b) {
  double diff = 0;
  for (size_t k = 0; k < a.size(); ++k)
    for (size_t i = 0; i < a[k].size(); ++i)
      diff = std::max(diff, std::fabs(double(a[k][i]) - double(b[k][i])));
  double all = 0;
  MPI_Allreduce(&diff, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return all;
}

int failures = 0;

using Fused = std::function<int32_t(commrt_context *, float **, float **)>;

void mix(const char *label, const int64_t *sizes, int count, const Fused &fused,
         int rounds, double targetVsPacked, double targetVsLoop) {
  std::vector<std::vector<float>> in(count), outA(count), outB(count),
      outC(count), outU(count);
  int64_t total = 0;
  for (int k = 0; k < count; ++k) {
    in[k].resize(sizes[k]);
    for (int64_t i = 0; i < sizes[k]; ++i)
      in[k][i] = float((rank * 7 + k * 3 + i) % 13) - 6.0f;
    outA[k].assign(sizes[k], 0);
    outB[k].assign(sizes[k], 0);
    outC[k].assign(sizes[k], 0);
    outU[k].assign(sizes[k], 0);
    total += sizes[k];
  }
  std::vector<float> send(total), recv(total);
  std::vector<float *> inPtr(count), outPtr(count), outUncheckedPtr(count);
  for (int k = 0; k < count; ++k) {
    inPtr[k] = in[k].data();
    outPtr[k] = outC[k].data();
    outUncheckedPtr[k] = outU[k].data();
  }
  std::vector<Variant> variants;
  variants.push_back({"(a) MPI_Allreduce per tensor", [&]() {
                        for (int k = 0; k < count; ++k)
                          MPI_Allreduce(in[k].data(), outA[k].data(),
                                        int(sizes[k]), MPI_FLOAT, MPI_SUM,
                                        MPI_COMM_WORLD);
                      }});
  variants.push_back({"(b) pack + MPI_Allreduce + unpack", [&]() {
                        int64_t offset = 0;
                        for (int k = 0; k < count; ++k) {
                          std::memcpy(send.data() + offset, in[k].data(),
                                      sizes[k] * sizeof(float));
                          offset += sizes[k];
                        }
                        MPI_Allreduce(send.data(), recv.data(), int(total),
                                      MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
                        offset = 0;
                        for (int k = 0; k < count; ++k) {
                          std::memcpy(outB[k].data(), recv.data() + offset,
                                      sizes[k] * sizeof(float));
                          offset += sizes[k];
                        }
                      }});
  // All 4 ranks, with the check off like (b) and the generated code it is
  // compared with.
  static commrt_comm *world = nullptr;
  if (!world) {
    int64_t all[4] = {0, 1, 2, 3};
    commrt_comm_create(ctxUnchecked, all, 4, 4, &world);
  }
  std::vector<commrt_piece> pieces(count);
  {
    int64_t off = 0;
    for (int k = 0; k < count; ++k) {
      pieces[k] = {in[k].data(), sizes[k], off, COMMRT_F32};
      off += sizes[k];
    }
  }
  std::vector<commrt_piece> outPieces = pieces;
  std::vector<std::vector<float>> outD(count);
  for (int k = 0; k < count; ++k) {
    outD[k].assign(sizes[k], 0);
    outPieces[k].data = outD[k].data();
  }
  // The runtime's calls by hand, on their own buffers: what the generated
  // code adds on top of the runtime.
  std::vector<float> sendE(total), recvE(total);
  variants.push_back(
      {"(c) commrt_pack + commrt_all_reduce + commrt_unpack", [&]() {
         ok(commrt_pack(sendE.data(), COMMRT_F32, total, pieces.data(), count,
                        COMMRT_HOST, nullptr),
            "commrt_pack");
         ok(commrt_all_reduce(world, sendE.data(), recvE.data(), total,
                              COMMRT_F32, COMMRT_SUM, nullptr),
            "commrt_all_reduce");
         ok(commrt_unpack(recvE.data(), COMMRT_F32, total, outPieces.data(),
                          count, COMMRT_HOST, nullptr),
            "commrt_unpack");
       }});
  variants.push_back(
      {"comm fused (generated), check off", [&]() {
         ok(fused(ctxUnchecked, inPtr.data(), outUncheckedPtr.data()), label);
       }});
  variants.push_back({"comm fused (generated), as shipped (check on)", [&]() {
                        ok(fused(ctx, inPtr.data(), outPtr.data()), label);
                      }});
  measure(variants, 10, rounds);
  double dAB = maxDiff(outA, outB), dAC = maxDiff(outA, outC),
         dAD = maxDiff(outA, outD), dAU = maxDiff(outA, outU);
  double a = variants[0].median(), b = variants[1].median(),
         c = variants[3].median(), shipped = variants[4].median();
  if (rank == 0) {
    std::printf("%s: %d tensors, %lld B in all\n", label, count,
                static_cast<long long>(total * 4));
    for (Variant &v : variants)
      std::printf("  %-52s %10.1f us\n", v.name.c_str(), v.median());
    double paired = variants[3].pairedRatio(variants[1]);
    std::printf("  comm / (b) = %.3f, check off (target <= %.2f: %s); "
                "%.3f as shipped; median of the rounds' own ratios %.3f "
                "(check off), %.3f ((c) / (b): the runtime), %.3f (comm / "
                "(c): the generated code)\n",
                c / b, targetVsPacked,
                c / b <= targetVsPacked ? "met" : "MISSED", shipped / b, paired,
                variants[2].pairedRatio(variants[1]),
                variants[3].pairedRatio(variants[2]));
    std::printf("  (a) / comm = %.2fx, check off (target >= %.2fx: %s); "
                "%.2fx as shipped; (a) / (b) = %.2fx\n",
                a / c, targetVsLoop, a / c >= targetVsLoop ? "met" : "MISSED",
                a / shipped, a / b);
    std::printf("  results: max |(a)-(b)| = %g, max |(a)-(c)| = %g, max "
                "|(a)-comm| = %g and %g\n",
                dAB, dAD, dAC, dAU);
  }
  if (dAB != 0 || dAC != 0 || dAD != 0 || dAU != 0)
    ++failures;
}

void large(int rounds) {
  const int64_t n = 16777216;
  std::vector<float> in(n), outMpi(n), outF32(n), outBf16(n);
  for (int64_t i = 0; i < n; ++i)
    in[i] = float((rank * 5 + i) % 11) - 5.0f;
  std::vector<Variant> variants;
  variants.push_back({"MPI_Allreduce f32", [&]() {
                        MPI_Allreduce(in.data(), outMpi.data(), int(n),
                                      MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
                      }});
  variants.push_back({"comm all_reduce f32 (generated)", [&]() {
                        ok(allreduce_f32(ctx, in.data(), outF32.data()),
                           "allreduce_f32");
                      }});
  variants.push_back({"comm all_reduce sent as bf16", [&]() {
                        ok(allreduce_bf16(ctx, in.data(), outBf16.data()),
                           "allreduce_bf16");
                      }});
  measure(variants, 2, rounds);
  double dF32 = maxDiff({outMpi}, {outF32}),
         dBf16 = maxDiff({outMpi}, {outBf16});
  double mpi = variants[0].median(), f32 = variants[1].median(),
         bf16 = variants[2].median();
  if (rank == 0) {
    std::printf("64 MiB f32 all_reduce:\n");
    for (Variant &v : variants)
      std::printf("  %-52s %10.1f us\n", v.name.c_str(), v.median());
    std::printf("  generated f32 / MPI_Allreduce = %.3f (target <= 1.05: %s)\n",
                f32 / mpi, f32 / mpi <= 1.05 ? "met" : "MISSED");
    std::printf("  bf16-sent / f32 MPI_Allreduce = %.3f\n", bf16 / mpi);
    std::printf("  results: max |mpi-f32| = %g, max |mpi-bf16| = %g "
                "(integers up to 20 are exact in bf16)\n",
                dF32, dBf16);
  }
  if (dF32 != 0 || dBf16 != 0)
    ++failures;
}
} // namespace

static const char kUsage[] =
    "usage: mpirun -np 4 --oversubscribe comm-bench-lowering [--rounds N]\n"
    "           [--large-rounds N] [--only small|large|64mib]\n"
    "Times comm-compiled fused gradient all_reduces against one\n"
    "MPI_Allreduce per tensor and a hand-fused pack + MPI_Allreduce, side\n"
    "by side in one run (medians; rounds default 1000, large rounds 15).\n";

int main(int argc, char **argv) {
  int rounds = 1000, largeRounds = 15;
  std::string only = "all";
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    bool valued =
        arg == "--rounds" || arg == "--large-rounds" || arg == "--only";
    if (arg == "--help" || arg == "-h") {
      std::printf("%s", kUsage);
      return 0;
    }
    if (!valued || i + 1 == argc) {
      std::fprintf(stderr, "error: %s '%s'\n%s",
                   valued ? "no value after" : "unknown argument", argv[i],
                   kUsage);
      return 2;
    }
    if (arg == "--rounds")
      rounds = std::max(1, std::atoi(argv[++i]));
    else if (arg == "--large-rounds")
      largeRounds = std::max(1, std::atoi(argv[++i]));
    else
      only = argv[++i];
  }
  if (only != "all" && only != "small" && only != "large" && only != "64mib") {
    std::fprintf(stderr, "--only takes small, large or 64mib\n");
    return 2;
  }
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 4) {
    if (rank == 0)
      std::fprintf(stderr, "run on 4 ranks: mpirun -np 4 --oversubscribe %s\n",
                   argv[0]);
    MPI_Finalize();
    return 2;
  }
  ctxUnchecked = comm_bench::startMpiContext("COMMRT_VALIDATE", "0");
  ctx = comm_bench::startMpiContext("COMMRT_VALIDATE", nullptr);
  if (rank == 0)
    std::printf("comm lowering benchmarks: 4 ranks, mpi backend, median of "
                "%d rounds (%d for 64 MiB), slowest rank per round\n",
                rounds, largeRounds);
  if (only == "all" || only == "small")
    mix(
        "small mix (64 B-4 KiB)", fused_small_sizes, 256,
        [](commrt_context *c, float **in, float **out) {
          return FUSED_SMALL_CALL(c, in, out);
        },
        rounds, 1.10, 3.0);
  if (only == "all" || only == "large")
    mix(
        "large mix (4-64 KiB)", fused_large_sizes, 256,
        [](commrt_context *c, float **in, float **out) {
          return FUSED_LARGE_CALL(c, in, out);
        },
        rounds, 1.10, 1.3);
  if (only == "all" || only == "64mib")
    large(largeRounds);
  commrt_finalize(ctx);
  commrt_finalize(ctxUnchecked);
  MPI_Finalize();
  return failures ? 1 : 0;
}
