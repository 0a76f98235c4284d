//===- test/MismatchTest.cpp - Ranks that disagree --------------*- C++ -*-===//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//
//
// Run by run-mismatch-test.sh with 4 ranks, one mode, and the error policy
// of COMMRT_ON_ERROR. After a barrier (operation #0) one rank passes
// something the others do not:
//  count-planned  a planned ring all_reduce: rank 2 passes 4096 elements,
//                 the others 1024 (issue 18's case);
//  count-mpi      the same on MPI's own all_reduce;
//  dtype          all_reduce of 16 elements (small enough to ride in the
//                 fingerprints): rank 3 passes f64, the others f32;
//  redop          the same: rank 1 passes max, the others sum;
//  collective     rank 2 runs an all_gather, the others an all_reduce;
//  root           broadcast: rank 2 passes root 1, the others root 0;
//  plan           rank 1 runs MPI's own all_reduce, the others the ring;
//  p2p            rank 0 sends 2048 f32 to rank 1, which receives 1024;
//  notice         count-planned with COMMRT_VALIDATE=0 (set by the driver)
//                 and a 1000 ms timeout: ranks 2 and 3 fail inside the
//                 schedule, tell the others and leave;
//  group          rank 2 runs its all_reduce on the group [2, 3], the others
//                 on the world: ranks 2 and 3 wait for each other (a
//                 deadlock, found within seconds; the timeout is 30 s);
//  group-desync   the same under COMMRT_DEBUG=desync (set by the driver), as
//                 generated code runs it: each rank first checks its op's
//                 text and source location (commrt_debug_check), rank 2 on
//                 [2, 3] at b.mlir:9:5, the others on the world at a.mlir:3:1;
//  create         rank 2 runs its all_reduce on the group [2, 3], the
//                 others create a communicator (groups [0, 2] and [1, 3]):
//                 rank 3 waits in comm_create's world exchange, rank 2 for
//                 rank 3 in the pair (a deadlock, found within seconds);
//  group-slow     no mismatch: ranks 2 and 3 all_reduce on [2, 3] (rank 3
//                 2.5 s late), then every rank on the world; the waits are
//                 probed for deadlocks and none is reported;
//  alltoall-corrupt
//                 COMMRT_INJECT=corrupt:0:1 and COMMRT_DEBUG=checksum (set
//                 by the driver): rank 0 flips a bit of what its all_to_all
//                 sends rank 2;
//  startup        nothing: the driver times it to learn how long a job takes
//                 to start and end now (job-time.sh).
// Every rank prints "rank R: <status> after <ms> ms: <last error>" for the
// operation. In return mode a rank then checks that it can go on: the
// communicator is still usable after a mismatch every rank saw; elsewhere
// it finalizes. Every rank ends with "rank R: finalized" and exit code 0;
// under the abort policy commrt ends the job before.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include <chrono>
#include <cstdlib>
#include <thread>
#include <vector>

using namespace test;

namespace {

commrt_context *ctx = nullptr;
commrt_comm *world = nullptr;
int me = 0;

/// Runs \p op, prints its outcome and returns its status.
template <typename Op> commrt_status report(const char *what, Op op) {
  auto start = std::chrono::steady_clock::now();
  commrt_status s = op();
  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - start)
                  .count();
  std::printf("rank %d: %s: %s after %.0f ms: %s\n", me, what,
              commrt_status_string(s), ms, s ? commrt_last_error() : "");
  std::fflush(stdout);
  return s;
}

/// The groups [0, 1] and [2, 3] (the group modes), created by every rank;
/// the caller's pair.
commrt_comm *pairs() {
  int64_t ranks[4] = {0, 1, 2, 3};
  commrt_comm *pair = nullptr;
  CHECK_OK(commrt_comm_create(ctx, ranks, 4, 2, &pair));
  return pair;
}

/// An all_reduce every rank agrees on, to show the communicator still works.
void stillUsable() {
  int32_t x = me + 1, sum = 0;
  CHECK_OK(
      commrt_all_reduce(world, &x, &sum, 1, COMMRT_I32, COMMRT_SUM, nullptr));
  CHECK_MSG(sum == 10, "sum %d after the mismatch", sum);
  std::printf("rank %d: the communicator is still usable\n", me);
}

int run(const std::string &mode) {
  const int64_t n = 1024;
  std::vector<float> in(4 * n, 1.0f), out(4 * n, -3.0f);
  std::vector<double> wide(n, 1.0);
  commrt_plan ring{COMMRT_ALGORITHM_RING, 0, 0};
  auto allReduce = [&](int64_t count, commrt_redop op) {
    return commrt_all_reduce(world, in.data(), out.data(), count, COMMRT_F32,
                             op, nullptr);
  };
  auto ringAllReduce = [&](int64_t count) {
    return commrt_collective_planned(world, COMMRT_COLLECTIVE_ALL_REDUCE,
                                     in.data(), out.data(), count, COMMRT_F32,
                                     COMMRT_SUM, 0, &ring, nullptr, nullptr);
  };
  bool agreedMismatch = true;
  // A rank that ran the all_reduce with another rank's data would have
  // written its buffer.
  auto outUntouched = [&] {
    for (float v : out)
      if (v != -3.0f)
        return false;
    return true;
  };
  commrt_status s = COMMRT_SUCCESS;
  if (mode == "count-planned" || mode == "notice") {
    agreedMismatch = mode == "count-planned";
    s = report("ring all_reduce",
               [&] { return ringAllReduce(me == 2 ? 4 * n : n); });
  } else if (mode == "count-mpi") {
    s = report("all_reduce",
               [&] { return allReduce(me == 2 ? 4 * n : n, COMMRT_SUM); });
  } else if (mode == "dtype") {
    // Small enough to ride in the fingerprints (up to 1 KiB).
    s = report("all_reduce", [&] {
      return me == 3 ? commrt_all_reduce(world, wide.data(), wide.data(), 16,
                                         COMMRT_F64, COMMRT_SUM, nullptr)
                     : allReduce(16, COMMRT_SUM);
    });
  } else if (mode == "redop") {
    s = report("all_reduce", [&] {
      return allReduce(16, me == 1 ? COMMRT_MAX : COMMRT_SUM);
    });
  } else if (mode == "collective") {
    s = report("collective", [&] {
      return me == 2 ? commrt_all_gather(world, in.data(), out.data(), n / 4,
                                         COMMRT_F32, nullptr)
                     : allReduce(n, COMMRT_SUM);
    });
  } else if (mode == "root") {
    s = report("broadcast", [&] {
      return commrt_broadcast(world, in.data(), out.data(), n, COMMRT_F32,
                              me == 2 ? 1 : 0, nullptr);
    });
  } else if (mode == "plan") {
    s = report("all_reduce", [&] {
      return me == 1 ? allReduce(n, COMMRT_SUM) : ringAllReduce(n);
    });
  } else if (mode == "p2p") {
    agreedMismatch = false;
    if (me == 0)
      s = report("send", [&] {
        return commrt_send(ctx, in.data(), 2 * n, COMMRT_F32, 1, 7, nullptr);
      });
    if (me == 1) {
      s = report("recv", [&] {
        return commrt_recv(ctx, out.data(), n, COMMRT_F32, 0, 7, nullptr);
      });
      CHECK_MSG(outUntouched(), "the refused message reached the buffer");
    }
    // Nobody else is affected: the group goes on.
    stillUsable();
  } else if (mode == "group") {
    agreedMismatch = false;
    commrt_comm *pair = pairs();
    s = report("all_reduce", [&] {
      return commrt_all_reduce(me == 2 ? pair : world, in.data(), out.data(), n,
                               COMMRT_F32, COMMRT_SUM, nullptr);
    });
  } else if (mode == "create") {
    agreedMismatch = false;
    commrt_comm *pair = pairs();
    if (me == 2) {
      s = report("all_reduce", [&] {
        return commrt_all_reduce(pair, in.data(), out.data(), n, COMMRT_F32,
                                 COMMRT_SUM, nullptr);
      });
    } else {
      int64_t across[4] = {0, 2, 1, 3};
      commrt_comm *made = nullptr;
      s = report("comm_create",
                 [&] { return commrt_comm_create(ctx, across, 4, 2, &made); });
    }
  } else if (mode == "group-desync") {
    agreedMismatch = false;
    commrt_comm *pair = pairs();
    bool other = me == 2;
    s = report("desync check", [&] {
      return commrt_debug_check(
          other ? pair : world,
          other ? "comm.all_reduce of 1024 f32 at b.mlir:9:5"
                : "comm.all_reduce of 1024 f32 at a.mlir:3:1");
    });
    if (!s)
      report("all_reduce", [&] {
        return commrt_all_reduce(other ? pair : world, in.data(), out.data(), n,
                                 COMMRT_F32, COMMRT_SUM, nullptr);
      });
  } else if (mode == "group-slow") {
    // No mismatch: ranks 2 and 3 all_reduce on [2, 3] first, and rank 3
    // starts 2.5 s late, past the first probe (1 s) and its answers. Ranks
    // 0 and 1 wait in the world's all_reduce, and rank 2 in the pair's, long
    // enough to ask what the others wait in: rank 2 waits in a group ranks
    // 0 and 1 are not part of, and rank 3 is busy in its own code. Neither
    // is a deadlock, and all succeeds.
    agreedMismatch = false;
    commrt_comm *pair = pairs();
    if (me == 3)
      std::this_thread::sleep_for(std::chrono::milliseconds(2500));
    int32_t x = me + 1, sum = 0;
    if (me >= 2) {
      s = report("pair all_reduce", [&] {
        return commrt_all_reduce(pair, &x, &sum, 1, COMMRT_I32, COMMRT_SUM,
                                 nullptr);
      });
      CHECK_MSG(sum == 7, "pair sum %d", sum);
    }
    s = report("world all_reduce", [&] {
      return commrt_all_reduce(world, &x, &sum, 1, COMMRT_I32, COMMRT_SUM,
                               nullptr);
    });
    CHECK_MSG(sum == 10, "world sum %d", sum);
  } else if (mode == "startup") {
    // Nothing: run-mismatch-test.sh times this job to learn how long one
    // takes to start and end now (job-time.sh).
    agreedMismatch = false;
  } else if (mode == "alltoall-corrupt") {
    agreedMismatch = false;
    s = report("all_to_all", [&] {
      return commrt_all_to_all(world, in.data(), out.data(), n, COMMRT_F32,
                               nullptr);
    });
    if (!s) {
      // Rank 2 failed and said so: the next collective fails at once
      // instead of waiting for it.
      int32_t x = 1, y = 0;
      report("all_reduce after it", [&] {
        return commrt_all_reduce(world, &x, &y, 1, COMMRT_I32, COMMRT_SUM,
                                 nullptr);
      });
    }
  } else {
    std::fprintf(stderr, "unknown mode '%s'\n", mode.c_str());
    return 2;
  }
  if (agreedMismatch) {
    CHECK(s == COMMRT_ERROR_INVALID_ARGUMENT);
    CHECK_MSG(outUntouched(), "the refused operation wrote its buffer");
    stillUsable();
  }
  CHECK_OK(commrt_finalize(ctx));
  std::printf("rank %d: finalized\n", me);
  return summary(mode.c_str());
}

} // namespace

int main(int argc, char **argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  // notice waits for its timeout; the group modes must end long before
  // theirs (the deadlock is found, not waited out).
  bool group = mode == "group" || mode == "group-desync" ||
               mode == "group-slow" || mode == "create";
  ctx = initMpiTestOn(4, &argc, &argv,
                      mode == "notice" ? 1000
                      : group          ? 30000
                                       : 10000);
  if (!ctx)
    return 1;
  me = rank;
  int64_t all[4] = {0, 1, 2, 3};
  CHECK_OK(commrt_comm_create(ctx, all, 4, 4, &world));
  CHECK_OK(commrt_barrier(world, nullptr));
  return run(mode);
}
