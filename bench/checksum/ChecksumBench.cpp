//===- bench/checksum/ChecksumBench.cpp - COMMRT_DEBUG=checksum -*- C++ -*-===//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//
//
// comm-bench-checksum: times send/recv (a ping-pong between ranks 0 and 1,
// half the round trip) and broadcast (from rank 0 to all) of 1 KiB, 1 MiB
// and 64 MiB with COMMRT_DEBUG=checksum off and on, alternating round by
// round between two contexts of one run. Prints, per op and size, the
// median over the rounds of the slowest rank's time and the ratio on/off.
//   mpirun -np 4 --oversubscribe build/bin/comm-bench-checksum
//
//===----------------------------------------------------------------------===//

#include "../RuntimeBench.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mpi.h>
#include <vector>

using comm_bench::median;
using comm_bench::ok;

int main(int argc, char **argv) {
  comm_bench::OffOnContexts run(
      &argc, &argv, "COMMRT_DEBUG", nullptr, "checksum",
      "usage: mpirun -np 4 --oversubscribe comm-bench-checksum\n"
      "Times send/recv and broadcast of 1 KiB, 1 MiB and 64 MiB with\n"
      "COMMRT_DEBUG=checksum off and on, side by side in one run (median\n"
      "of the slowest rank's time, and the ratio on/off).\n");
  int rank = run.rank;
  commrt_context *const *ctxs = run.ctxs;
  commrt_comm *const *comms = run.comms;

  if (rank == 0)
    std::printf("%-10s %8s %14s %14s %7s\n", "op", "size", "off (us)",
                "checksum (us)", "ratio");
  for (const char *op : {"send/recv", "broadcast"}) {
    for (int64_t bytes :
         {int64_t(1) << 10, int64_t(1) << 20, int64_t(64) << 20}) {
      int rounds = bytes >= (int64_t(64) << 20) ? 7
                   : bytes >= (1 << 20)         ? 21
                                                : 201;
      int64_t count = bytes / 4;
      std::vector<float> a(static_cast<size_t>(count), 1.0f),
          b(static_cast<size_t>(count));
      std::vector<double> times[2];
      for (int round = -2; round < 2 * rounds; ++round) {
        int m = (round + 2) % 2;
        commrt_context *ctx = ctxs[m];
        MPI_Barrier(MPI_COMM_WORLD);
        auto t0 = std::chrono::steady_clock::now();
        if (op[0] == 's') {
          if (rank == 0) {
            ok(commrt_send(ctx, a.data(), count, COMMRT_F32, 1, 0, nullptr));
            ok(commrt_recv(ctx, b.data(), count, COMMRT_F32, 1, 0, nullptr));
          } else if (rank == 1) {
            ok(commrt_recv(ctx, b.data(), count, COMMRT_F32, 0, 0, nullptr));
            ok(commrt_send(ctx, b.data(), count, COMMRT_F32, 0, 0, nullptr));
          }
        } else {
          ok(commrt_broadcast(comms[m], a.data(), b.data(), count, COMMRT_F32,
                              0, nullptr));
        }
        double us = std::chrono::duration<double, std::micro>(
                        std::chrono::steady_clock::now() - t0)
                        .count();
        if (op[0] == 's')
          us /= 2;
        double slowest = 0;
        MPI_Allreduce(&us, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (round >= 0)
          times[m].push_back(slowest);
      }
      double off = median(times[0]), on = median(times[1]);
      if (rank == 0)
        std::printf("%-10s %5lld %-2s %14.1f %14.1f %7.2f\n", op,
                    static_cast<long long>(bytes >= (1 << 20) ? bytes >> 20
                                                              : bytes >> 10),
                    bytes >= (1 << 20) ? "MiB" : "KiB", off, on, on / off);
    }
  }
  return 0;
}
