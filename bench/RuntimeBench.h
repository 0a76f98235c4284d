//===- bench/RuntimeBench.h - helpers of the runtime's benches --*- C++ -*-===//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//
//
// What comm-bench-checksum and comm-bench-validate share: a commrt context
// on the mpi backend started with one environment variable set (or unset),
// the median of a sample, and aborting the job on a failed call.
//
//===----------------------------------------------------------------------===//

#ifndef COMM_BENCH_RUNTIMEBENCH_H
#define COMM_BENCH_RUNTIMEBENCH_H

#include "commrt.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
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

} // namespace comm_bench

#endif // COMM_BENCH_RUNTIMEBENCH_H
