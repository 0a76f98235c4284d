//===- commrt_harness.h - the harness of comm-compile -----------*- C++ -*-===//
//
// The main() that `comm-compile --emit-harness` generates uses this header:
// on every rank it fills each entry point's inputs with deterministic data,
// runs the compiled function and its reference (the same program compiled
// without plans), compares every result element within a tolerance (exact
// for integers), times both and prints the figures on rank 0. The exit
// status is 0 when every rank's results match, 1 otherwise.
//
// Options of the generated program (after the MPI ones):
//   --iterations N   timed calls of each function (default 20, fewer where
//                    they would take more than the time budget: Options)
//   --warmup N       untimed calls before them (default 3)
//   --time-budget S  seconds the default timing of one function may take
//                    (default 20)
//   --inputs K       integers (default; small integers, exact in every
//                    type, so sums are exact) or random (uniform in [-1, 1))
//   --rtol X --atol X  tolerance |got - want| <= atol * M + rtol * |want|,
//                    M the largest |want| of the result on the rank
//   --no-check       run and time only
//
//===----------------------------------------------------------------------===//

#ifndef COMMRT_HARNESS_H
#define COMMRT_HARNESS_H

#include "commrt.h"
#include "commrt_gen.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <new>
#include <string>
#include <vector>

extern "C" const char *comm_last_error(void);

namespace commharness {

inline void die(const std::string &message) {
  std::fprintf(stderr, "harness: error: %s\n", message.c_str());
  std::exit(2);
}

/// A whole number or a real, all of `text`; anything else is an error that
/// names the option.
inline long long parseInteger(const std::string &option,
                              const std::string &text, long long least) {
  char *end = nullptr;
  errno = 0;
  long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE || value < least)
    die(option + " takes a whole number of at least " + std::to_string(least) +
        ", not '" + text + "'");
  return value;
}

inline double parseReal(const std::string &option, const std::string &text) {
  char *end = nullptr;
  errno = 0;
  double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno == ERANGE || !(value >= 0))
    die(option + " takes a non-negative number, not '" + text + "'");
  return value;
}

inline void check(commrt_status status, const char *what) {
  if (status == COMMRT_SUCCESS)
    return;
  // The runtime's message names its call already ("commrt: commrt_alloc:
  // cannot allocate ..."): say it once.
  std::string message = commrt_last_error();
  if (message.find(what) == std::string::npos)
    message = std::string(what) + ": " + message;
  die(message);
}

/// One buffer of an entry point, in the target's memory, with a host copy.
struct Buffer {
  void *data = nullptr;
  std::vector<char> host;
  int64_t count = 0;
  commrt_dtype dtype = COMMRT_F32;
};

inline bool isInteger(commrt_dtype dtype) {
  return dtype != COMMRT_F32 && dtype != COMMRT_F64 && dtype != COMMRT_F16 &&
         dtype != COMMRT_BF16;
}

struct Options {
  int iterations = 20;
  int warmup = 3;
  /// Without --iterations, the timed calls of one function (and of its
  /// reference) stop at about this many microseconds (--time-budget): a call
  /// that takes seconds (many ranks sharing few cores) is timed 3 times or
  /// more, with one warm-up call, instead of 23 times.
  double budgetUs = 20e6;
  bool iterationsGiven = false, warmupGiven = false;
  bool check = true;
  bool random = false;
  /// --rtol and --atol: replace every entry point's own tolerances.
  double rtol = -1, atol = -1;
};

class Harness {
public:
  Harness(int *argc, char ***argv, const char *programName,
          const char *targetName, commrt_backend backend,
          commrt_memory_space where, int64_t worldSize = 0)
      : program(programName), target(targetName), space(where) {
    commrt_options opts;
    commrt_options_default(&opts);
    opts.backend = backend;
    check(commrt_init(argc, argv, &opts, &ctx), "commrt_init");
    for (int i = 1; i < *argc; ++i) {
      std::string arg = (*argv)[i];
      auto value = [&]() -> std::string {
        if (i + 1 >= *argc)
          die("option " + arg + " needs a value");
        return (*argv)[++i];
      };
      if (arg == "--iterations") {
        options.iterations = static_cast<int>(parseInteger(arg, value(), 1));
        options.iterationsGiven = true;
      } else if (arg == "--warmup") {
        options.warmup = static_cast<int>(parseInteger(arg, value(), 0));
        options.warmupGiven = true;
      } else if (arg == "--time-budget") {
        options.budgetUs = parseReal(arg, value()) * 1e6;
        if (!(options.budgetUs > 0) || std::isinf(options.budgetUs))
          die("--time-budget takes a number of seconds > 0");
      } else if (arg == "--inputs") {
        std::string kind = value();
        if (kind != "integers" && kind != "random")
          die("--inputs takes integers or random, not '" + kind + "'");
        options.random = kind == "random";
      } else if (arg == "--rtol")
        options.rtol = parseReal(arg, value());
      else if (arg == "--atol")
        options.atol = parseReal(arg, value());
      else if (arg == "--no-check")
        options.check = false;
      else if (arg == "--help" || arg == "-h") {
        std::printf(
            "usage: %s [--iterations N] [--warmup N] [--time-budget S] "
            "[--inputs integers|random] [--rtol X] [--atol X] "
            "[--no-check]\n"
            "  --iterations N  timed calls of each function and of its "
            "reference (default 20,\n"
            "                  fewer, at least 3, where they would take "
            "more than the budget)\n"
            "  --warmup N      untimed calls before them (default 3; 1 "
            "where the calls are cut)\n"
            "  --time-budget S seconds the default timing of one function "
            "may take (default 20)\n"
            "  --inputs K      integers (default: exact in every type) or "
            "random in [-1, 1)\n"
            "  --rtol X, --atol X  replace each function's tolerance: "
            "|got - want| <= atol * M + rtol * |want|,\n"
            "                  M the largest |want| of the result\n"
            "  --no-check      run and time only\n",
            (*argv)[0]);
        commrt_finalize(ctx);
        std::exit(0);
      } else
        die("unknown option '" + arg + "' (see --help)");
    }
    check(commrt_rank(ctx, &rank), "commrt_rank");
    check(commrt_world_size(ctx, &size), "commrt_world_size");
    if (worldSize > 0 && size != worldSize)
      die(std::string(program) + " was compiled for " +
          std::to_string(worldSize) + " ranks (comm.world_size) but runs on " +
          std::to_string(size) + "; run it with mpirun -np " +
          std::to_string(worldSize));
    if (rank == 0)
      std::printf("comm harness: %s, target %s, %lld ranks, inputs %s\n",
                  program, target, static_cast<long long>(size),
                  options.random ? "random" : "integers");
  }

  Buffer make(int64_t count, commrt_dtype dtype) {
    Buffer b;
    b.count = count;
    b.dtype = dtype;
    int64_t bytes = count * static_cast<int64_t>(commrt_dtype_size(dtype));
    // The target's buffer first: commrt_alloc says what it could not
    // allocate. The host copy's failure is said too, where the harness is
    // built with exceptions (it ended the rank in std::bad_alloc).
    check(commrt_alloc(ctx, bytes, space, &b.data), "commrt_alloc");
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
    try {
      b.host.assign(static_cast<size_t>(bytes), 0);
    } catch (const std::bad_alloc &) {
      die("cannot allocate " + std::to_string(bytes) +
          " bytes of host memory for a buffer of " + std::to_string(count) +
          " elements (the harness keeps a host copy of every buffer)");
    }
#else
    b.host.assign(static_cast<size_t>(bytes), 0);
#endif
    check(commrt_memset(ctx, b.data, space, 0, bytes, nullptr),
          "commrt_memset");
    return b;
  }

  /// Deterministic data of argument `arg` on this rank.
  void fill(Buffer &b, int64_t arg) {
    uint64_t state = 0x9e3779b97f4a7c15ull * static_cast<uint64_t>(rank + 1) +
                     0xbf58476d1ce4e5b9ull * static_cast<uint64_t>(arg + 1);
    for (int64_t i = 0; i < b.count; ++i) {
      double value;
      if (options.random) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        value = static_cast<double>(state >> 11) * 0x1p-53 * 2.0 - 1.0;
      } else {
        value = static_cast<double>((rank * 31 + arg * 17 + i * 7) % 17 - 8);
      }
      commgen::storeFromDouble(b.host.data(), b.dtype, i, value);
    }
    check(commrt_copy(ctx, b.data, space, b.host.data(), COMMRT_HOST,
                      static_cast<int64_t>(b.host.size()), nullptr),
          "commrt_copy");
  }

  void fetch(Buffer &b) {
    check(commrt_copy(ctx, b.host.data(), COMMRT_HOST, b.data, space,
                      static_cast<int64_t>(b.host.size()), nullptr),
          "commrt_copy");
  }

  void release(Buffer &b) {
    commrt_free(ctx, b.data, space);
    b.data = nullptr;
  }

  // The harness's own bookkeeping goes through the bootstrap, not the
  // backend: nccl reduces device memory only and verbs has no collectives.
  double maxOverRanks(double value) {
    double out = value;
    check(commrt_host_max(ctx, value, &out), "commrt_host_max");
    return out;
  }

  void barrier() { check(commrt_host_barrier(ctx), "commrt_host_barrier"); }

  using Call = std::function<int32_t(std::vector<void *> &)>;

  /// One call, timed on the slowest rank, in microseconds.
  double timeOnce(const char *name, const Call &call,
                  std::vector<void *> &args) {
    barrier();
    auto begin = std::chrono::steady_clock::now();
    run(name, call, args);
    auto end = std::chrono::steady_clock::now();
    return maxOverRanks(
        std::chrono::duration<double, std::micro>(end - begin).count());
  }

  static double median(std::vector<double> times) {
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
  }

  /// Medians over `iterations` timed calls of `call` and, when given, of
  /// `reference`, the two alternating call by call, so that a machine
  /// whose speed drifts during the run (other work, ranks sharing cores)
  /// slows both alike and their ratio stays meaningful.
  /// `iterations` and `warmup` are the same on every rank.
  std::pair<double, double> time(const char *name, const Call &call,
                                 std::vector<void *> &args,
                                 const Call *reference,
                                 std::vector<void *> &refArgs, int iterations,
                                 int warmup) {
    for (int i = 0; i < warmup; ++i) {
      run(name, call, args);
      if (reference)
        run(name, *reference, refArgs);
    }
    std::vector<double> times, refTimes;
    for (int i = 0; i < iterations; ++i) {
      times.push_back(timeOnce(name, call, args));
      if (reference)
        refTimes.push_back(timeOnce(name, *reference, refArgs));
    }
    return {median(times), reference ? median(refTimes) : 0.0};
  }

  void run(const char *name, const Call &call, std::vector<void *> &args) {
    int32_t status = call(args);
    if (status != 0) {
      const char *message = comm_last_error();
      std::fprintf(
          stderr, "harness: rank %lld: %s failed: %s\n",
          static_cast<long long>(rank), name,
          message && *message
              ? message
              : commrt_status_string(static_cast<commrt_status>(status)));
      commrt_abort(ctx, "an entry point failed");
      std::exit(2);
    }
  }

  /// Runs entry point `name` (and its reference, when given) on buffers of
  /// the given element counts and dtypes, and checks its floating-point
  /// results within rtol and atol (what comm-compile derived from the
  /// precisions the entry point sends in; --rtol and --atol replace them).
  void entry(const char *name,
             const std::vector<std::pair<int64_t, commrt_dtype>> &inputs,
             const std::vector<std::pair<int64_t, commrt_dtype>> &results,
             const Call &call, const Call &reference, double rtol = 1e-5,
             double atol = 1e-6) {
    if (options.rtol >= 0)
      rtol = options.rtol;
    if (options.atol >= 0)
      atol = options.atol;
    std::vector<Buffer> in, out, ref;
    for (size_t k = 0; k < inputs.size(); ++k) {
      in.push_back(make(inputs[k].first, inputs[k].second));
      fill(in.back(), static_cast<int64_t>(k));
    }
    for (const auto &[count, dtype] : results) {
      out.push_back(make(count, dtype));
      ref.push_back(make(count, dtype));
    }
    std::vector<void *> args, refArgs;
    for (Buffer &b : in) {
      args.push_back(b.data);
      refArgs.push_back(b.data);
    }
    for (size_t k = 0; k < out.size(); ++k) {
      args.push_back(out[k].data);
      refArgs.push_back(ref[k].data);
    }
    // The first calls, timed too (on the slowest rank, so the same on
    // every rank): they size the timing below.
    bool checking = options.check && reference;
    double roundUs = timeOnce(name, call, args);
    int64_t bad = 0, total = 0;
    double maxAbs = 0, maxRel = 0;
    if (checking) {
      roundUs += timeOnce(name, reference, refArgs);
      for (size_t k = 0; k < out.size(); ++k) {
        fetch(out[k]);
        fetch(ref[k]);
        bool exact = isInteger(out[k].dtype);
        // atol is relative to the result's magnitude: a sum sent in bf16
        // errs by a fraction of what it adds, which an element that cancels
        // to near zero does not show, and a fixed floor of 2^-5 passed
        // anything smaller than it (a max checked against a sum of values
        // under 0.02 passed).
        double largest = 0;
        for (int64_t i = 0; i < ref[k].count; ++i) {
          double want = std::fabs(
              commgen::loadAsDouble(ref[k].host.data(), ref[k].dtype, i));
          if (std::isfinite(want))
            largest = std::max(largest, want);
        }
        for (int64_t i = 0; i < out[k].count; ++i) {
          double got =
              commgen::loadAsDouble(out[k].host.data(), out[k].dtype, i);
          double want =
              commgen::loadAsDouble(ref[k].host.data(), ref[k].dtype, i);
          double diff = std::fabs(got - want);
          bool ok = exact ? got == want
                          : diff <= atol * largest + rtol * std::fabs(want);
          if (std::isnan(got) != std::isnan(want))
            ok = false;
          if (!ok && bad < 5)
            std::fprintf(stderr,
                         "harness: rank %lld: %s result %zu element %lld: "
                         "got %.9g, reference %.9g\n",
                         static_cast<long long>(rank), name, k,
                         static_cast<long long>(i), got, want);
          bad += ok ? 0 : 1;
          ++total;
          maxAbs = std::max(maxAbs, diff);
          if (want != 0)
            maxRel = std::max(maxRel, diff / std::fabs(want));
        }
      }
    }
    double badAll = maxOverRanks(static_cast<double>(bad));
    double absAll = maxOverRanks(maxAbs), relAll = maxOverRanks(maxRel);
    // The verdict first: the timing may take a while.
    if (rank == 0) {
      if (checking)
        std::printf("  %s: check %s: %lld elements per rank, max abs error "
                    "%.3g, max rel error %.3g (rtol %.3g, atol %.3g)\n",
                    name, badAll == 0 ? "PASS" : "FAIL",
                    static_cast<long long>(total), absAll, relAll, rtol, atol);
      else
        std::printf("  %s: not checked\n", name);
    }
    int iterations = options.iterations, warmup = options.warmup;
    if (!options.iterationsGiven &&
        roundUs * (iterations + warmup) > options.budgetUs) {
      if (!options.warmupGiven)
        warmup = std::min(warmup, 1);
      double fit = options.budgetUs / roundUs - warmup;
      iterations = std::max(3, std::min(iterations, static_cast<int>(fit)));
      if (rank == 0)
        std::printf("  %s: one call%s took %.0f ms: timing %d calls after %d "
                    "warm-up (--iterations and --warmup choose)\n",
                    name, checking ? " and its reference" : "", roundUs / 1e3,
                    iterations, warmup);
    }
    if (rank == 0)
      std::fflush(stdout);
    auto [us, refUs] = time(name, call, args, checking ? &reference : nullptr,
                            refArgs, iterations, warmup);
    if (rank == 0) {
      if (checking)
        std::printf("  %s: time %.2f us, reference %.2f us, ratio %.3f "
                    "(median of %d, slowest rank)\n",
                    name, us, refUs, refUs > 0 ? us / refUs : 0.0, iterations);
      else
        std::printf("  %s: time %.2f us (median of %d, slowest rank)\n", name,
                    us, iterations);
    }
    failures += badAll > 0 ? 1 : 0;
    checked += checking ? 1 : 0;
    for (Buffer &b : in)
      release(b);
    for (Buffer &b : out)
      release(b);
    for (Buffer &b : ref)
      release(b);
  }

  int finish() {
    if (rank == 0)
      std::printf("comm harness: %s\n",
                  failures  ? "FAILED"
                  : checked ? "all results match"
                            : "done; nothing checked (no reference: "
                              "comm-compile --emit-harness adds one)");
    commrt_finalize(ctx);
    return failures ? 1 : 0;
  }

  commrt_context *ctx = nullptr;
  int64_t rank = 0, size = 1;
  Options options;

private:
  const char *program;
  const char *target;
  commrt_memory_space space;
  int failures = 0;
  int checked = 0;
};

} // namespace commharness

#endif // COMMRT_HARNESS_H
