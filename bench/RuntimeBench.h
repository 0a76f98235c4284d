//===- bench/RuntimeBench.h - helpers of the runtime's benches --*- C++ -*-===//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//
//
// What comm-bench-checksum and comm-bench-validate share: two commrt
// contexts on the mpi backend side by side, one with a mode off and one
// with it on (an environment variable read at commrt_init), each with a
// communicator over the world; the median of a sample; and aborting the
// job on a failed call.
//
//===----------------------------------------------------------------------===//

#ifndef COMM_BENCH_RUNTIMEBENCH_H
#define COMM_BENCH_RUNTIMEBENCH_H

#include "commrt.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mpi.h>
#include <vector>

namespace comm_bench {

/// A context on the mpi backend, with `variable` set to `value` (unset when
/// `value` is null) while commrt_init reads the environment.
inline commrt_context *startMpiContext(const char *variable,
                                       const char *value) {
  if (value)
    setenv(variable, value, 1);
  else
    unsetenv(variable);
  commrt_options opts;
  commrt_options_default(&opts);
  opts.backend = COMMRT_BACKEND_MPI;
  commrt_context *ctx = nullptr;
  if (commrt_init(nullptr, nullptr, &opts, &ctx) != COMMRT_SUCCESS) {
    std::fprintf(stderr, "commrt_init: %s\n", commrt_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return ctx;
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Ends the job with commrt's message when a call failed.
inline void ok(commrt_status s) {
  if (s == COMMRT_SUCCESS)
    return;
  std::fprintf(stderr, "%s\n", commrt_last_error());
  MPI_Abort(MPI_COMM_WORLD, 1);
}

/// MPI (initialized here, so both contexts can live side by side) and the
/// two contexts, mode off ([0]) and on ([1]), each with a world
/// communicator; all torn down when it goes out of scope.
struct OffOnContexts {
  int rank = 0, size = 1;
  commrt_context *ctxs[2] = {nullptr, nullptr};
  commrt_comm *comms[2] = {nullptr, nullptr};

  /// `usage` is printed for --help (and with an error for any other
  /// argument: the bench takes none) and when the world has one rank.
  OffOnContexts(int *argc, char ***argv, const char *variable, const char *off,
                const char *on, const char *usage) {
    for (int i = 1; i < *argc; ++i) {
      const char *arg = (*argv)[i];
      bool help = !std::strcmp(arg, "--help") || !std::strcmp(arg, "-h");
      if (!help)
        std::fprintf(stderr, "error: unknown argument '%s'\n", arg);
      std::fprintf(help ? stdout : stderr, "%s", usage);
      std::exit(help ? 0 : 2);
    }
    int provided = 0;
    MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
      if (rank == 0)
        std::fprintf(stderr, "error: the bench needs at least 2 ranks\n%s",
                     usage);
      MPI_Finalize();
      std::exit(2);
    }
    ctxs[0] = startMpiContext(variable, off);
    ctxs[1] = startMpiContext(variable, on);
    std::vector<int64_t> world(static_cast<size_t>(size));
    for (int i = 0; i < size; ++i)
      world[static_cast<size_t>(i)] = i;
    for (int m = 0; m < 2; ++m)
      ok(commrt_comm_create(ctxs[m], world.data(), size, size, &comms[m]));
  }
  ~OffOnContexts() {
    for (int m = 0; m < 2; ++m) {
      commrt_comm_destroy(comms[m]);
      commrt_finalize(ctxs[m]);
    }
    MPI_Finalize();
  }
  OffOnContexts(const OffOnContexts &) = delete;
  OffOnContexts &operator=(const OffOnContexts &) = delete;
};

} // namespace comm_bench

#endif // COMM_BENCH_RUNTIMEBENCH_H
