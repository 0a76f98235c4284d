//===- bench/validate/ValidateBench.cpp - Cross-rank validation -*- C++ -*-===//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//
//
// comm-bench-validate: times collectives with the cross-rank validation off
// (COMMRT_VALIDATE=0) and on (the default), alternating round by round
// between two contexts of one run: all_reduce (MPI's own and the planned
// ring) of 8 B, 4 KiB, 1 MiB and 16 MiB, broadcast of 4 KiB, barrier, the
// all_reduces of examples/grad_step.mlir's step (24 averages: 4 of
// 256 KiB, 2 of 4 KiB, 18 of 1 KiB, back to back); and
// send/recv (half a ping-pong between ranks 0 and 1, which the switch does
// not change: its size check is always on) of 4 KiB and 1 MiB. Prints, per
// op and size, the median over the rounds of the slowest rank's time and
// the ratio on/off.
//   mpirun -np 4 --oversubscribe build/bin/comm-bench-validate
//
//===----------------------------------------------------------------------===//

#include "../RuntimeBench.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mpi.h>
#include <vector>

namespace {

using comm_bench::median;
using comm_bench::ok;

struct Case {
  const char *op;
  int64_t bytes;
};

/// "8 B", "4 KiB", "1 MiB".
void printSize(char *out, size_t n, int64_t bytes) {
  if (bytes >= (1 << 20))
    std::snprintf(out, n, "%lld MiB", static_cast<long long>(bytes >> 20));
  else if (bytes >= (1 << 10))
    std::snprintf(out, n, "%lld KiB", static_cast<long long>(bytes >> 10));
  else
    std::snprintf(out, n, "%lld B", static_cast<long long>(bytes));
}

} // namespace

int main(int argc, char **argv) {
  comm_bench::OffOnContexts run(
      &argc, &argv, "COMMRT_VALIDATE", "0", "1",
      "usage: mpirun -np 4 --oversubscribe comm-bench-validate\n"
      "Times collectives with the runtime's cross-rank validation off\n"
      "(COMMRT_VALIDATE=0) and on (the default), side by side in one run\n"
      "(median of the slowest rank's time, and the ratio on/off).\n");
  int rank = run.rank;
  commrt_context *const *ctxs = run.ctxs;
  commrt_comm *const *comms = run.comms;

  const Case cases[] = {
      {"all_reduce", 8},
      {"all_reduce", 4 << 10},
      {"all_reduce", 1 << 20},
      {"all_reduce", 16 << 20},
      {"ring all_reduce", 4 << 10},
      {"ring all_reduce", 1 << 20},
      {"broadcast", 4 << 10},
      {"barrier", 0},
      {"grad_step", 0},
      {"send/recv", 4 << 10},
      {"send/recv", 1 << 20},
  };
  if (rank == 0)
    std::printf("%-16s %8s %12s %12s %7s\n", "op", "size", "off (us)",
                "on (us)", "ratio");
  commrt_plan ring{COMMRT_ALGORITHM_RING, 0, 0};
  std::vector<float> step(65536, 1.0f), stepOut(65536);
  for (const Case &c : cases) {
    int rounds = c.bytes >= (16 << 20) ? 31 : c.bytes >= (1 << 20) ? 51 : 501;
    int64_t count = std::max<int64_t>(1, c.bytes / 4);
    std::vector<float> a(static_cast<size_t>(count), 1.0f),
        b(static_cast<size_t>(count));
    std::vector<double> times[2];
    for (int round = -4; round < 2 * rounds; ++round) {
      int m = (round + 4) % 2;
      commrt_context *ctx = ctxs[m];
      commrt_comm *comm = comms[m];
      MPI_Barrier(MPI_COMM_WORLD);
      auto t0 = std::chrono::steady_clock::now();
      if (!std::strcmp(c.op, "all_reduce")) {
        ok(commrt_all_reduce(comm, a.data(), b.data(), count, COMMRT_F32,
                             COMMRT_SUM, nullptr));
      } else if (!std::strcmp(c.op, "ring all_reduce")) {
        ok(commrt_collective_planned(comm, COMMRT_COLLECTIVE_ALL_REDUCE,
                                     a.data(), b.data(), count, COMMRT_F32,
                                     COMMRT_SUM, 0, &ring, nullptr, nullptr));
      } else if (!std::strcmp(c.op, "broadcast")) {
        ok(commrt_broadcast(comm, a.data(), b.data(), count, COMMRT_F32, 0,
                            nullptr));
      } else if (!std::strcmp(c.op, "barrier")) {
        ok(commrt_barrier(comm, nullptr));
      } else if (!std::strcmp(c.op, "grad_step")) {
        for (int layer = 0; layer < 2; ++layer)
          for (int64_t elems : {65536, 65536, 256, 256, 256, 256, 256, 256, 256,
                                256, 1024, 256})
            ok(commrt_all_reduce(comm, step.data(), stepOut.data(), elems,
                                 COMMRT_F32, COMMRT_AVG, nullptr));
      } else if (rank == 0) {
        ok(commrt_send(ctx, a.data(), count, COMMRT_F32, 1, 0, nullptr));
        ok(commrt_recv(ctx, b.data(), count, COMMRT_F32, 1, 0, nullptr));
      } else if (rank == 1) {
        ok(commrt_recv(ctx, b.data(), count, COMMRT_F32, 0, 0, nullptr));
        ok(commrt_send(ctx, b.data(), count, COMMRT_F32, 0, 0, nullptr));
      }
      double us = std::chrono::duration<double, std::micro>(
                      std::chrono::steady_clock::now() - t0)
                      .count();
      if (!std::strcmp(c.op, "send/recv"))
        us /= 2;
      double slowest = 0;
      MPI_Allreduce(&us, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      if (round >= 0)
        times[m].push_back(slowest);
    }
    double off = median(times[0]), on = median(times[1]);
    char sizeText[32];
    printSize(sizeText, sizeof sizeText, c.bytes);
    if (rank == 0)
      std::printf("%-16s %8s %12.1f %12.1f %7.2f\n", c.op,
                  c.bytes ? sizeText : "-", off, on, on / off);
    std::fflush(stdout);
  }
  return 0;
}
