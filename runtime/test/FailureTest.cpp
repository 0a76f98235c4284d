//===- test/FailureTest.cpp - Timeouts and failure propagation --*- C++ -*-===//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//
//
// Run by run-failure-test.sh with 4 ranks and one mode:
//  timeout-abort   rank 2 skips an all_reduce; the others time out after
//                  1000 ms and, by the default policy, abort every rank.
//  timeout-return  the same with COMMRT_ON_ERROR_RETURN: the others get
//                  COMMRT_ERROR_TIMEOUT with the message, the communicator is
//                  marked failed, rank 2 joins late and gets
//                  COMMRT_ERROR_REMOTE at once (the others told it they gave
//                  up), and all ranks then go on and finalize cleanly.
//  create-stop     rank 3 never calls comm_create (it sleeps outside
//                  commrt); the others time out in its check on the world
//                  after 1000 ms, naming rank 3, and abort every rank.
//  init-late       every rank starts MPI itself, then rank 1 sleeps before
//                  commrt_init; the others time out in commrt_init's first
//                  step, which can name nobody, and abort every rank.
//  abort           rank 1 calls commrt_abort while the others wait in a
//                  collective with a long timeout; every rank ends.
//  inject-broadcast, inject-p2p
//                  a fixed sequence of operations for COMMRT_INJECT (set by
//                  the driver), each result checked by the program itself:
//                  broadcast (op 0), isend (1), recv (2), all_reduce (3),
//                  all_gather (4), permute (5), barrier (6); inject-p2p
//                  starts with the isend and recv (ops 0, 1), then the
//                  broadcast (2). A wrong result is printed ("result wrong")
//                  but does not change the exit code: that is what
//                  corruption without COMMRT_DEBUG=checksum looks like.
//  sigkill         every rank prints its pid and runs all_reduces for 20 s;
//                  the driver kills one with SIGKILL.
//  startup         nothing after the set-up and a barrier: the driver times
//                  it to learn how long a job takes to start and end now
//                  (job-time.sh).
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include <mpi.h>

#include <chrono>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace test;

namespace {

double msSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

/// Prints where \p got first differs from \p want; true if it does not.
bool same(int me, const char *what, const float *got, const float *want,
          size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (got[i] != want[i]) {
      std::printf("rank %d: %s: result wrong at element %zu: got %.9g, want "
                  "%.9g\n",
                  me, what, i, got[i], want[i]);
      return false;
    }
  return true;
}

/// The sequence of the inject-* modes (see the file comment).
int injectSequence(commrt_context *ctx, commrt_comm *comm, int me,
                   bool p2pFirst) {
  constexpr size_t n = 1024;
  std::vector<float> in(4 * n), out(4 * n), want(4 * n);
  int wrong = 0;
  auto broadcast = [&] {
    for (size_t i = 0; i < n; ++i)
      want[i] = in[i] = static_cast<float>(i + 1);
    CHECK_OK(commrt_broadcast(comm, in.data(), out.data(), n, COMMRT_F32, 0,
                              nullptr));
    wrong += !same(me, "broadcast from rank 0", out.data(), want.data(), n);
  };
  auto ring = [&] {
    int to = (me + 1) % 4, from = (me + 3) % 4;
    for (size_t i = 0; i < n; ++i) {
      in[i] = static_cast<float>(100 * me + i);
      want[i] = static_cast<float>(100 * from + i);
    }
    commrt_request *req = nullptr;
    CHECK_OK(commrt_isend(ctx, in.data(), n, COMMRT_F32, to, 5, nullptr, &req));
    CHECK_OK(commrt_recv(ctx, out.data(), n, COMMRT_F32, from, 5, nullptr));
    CHECK_OK(commrt_wait(req));
    wrong += !same(me, str("recv from rank %d", from).c_str(), out.data(),
                   want.data(), n);
  };
  if (p2pFirst) {
    ring();
    broadcast();
  } else {
    broadcast();
    ring();
  }
  for (size_t i = 0; i < n; ++i) {
    in[i] = static_cast<float>(me + 1);
    want[i] = 10;
  }
  CHECK_OK(commrt_all_reduce(comm, in.data(), out.data(), n, COMMRT_F32,
                             COMMRT_SUM, nullptr));
  wrong += !same(me, "all_reduce", out.data(), want.data(), n);
  for (size_t i = 0; i < 4 * n; ++i) {
    in[i % n] = static_cast<float>(1000 * me + i % n);
    want[i] = static_cast<float>(1000 * (i / n) + i % n);
  }
  CHECK_OK(
      commrt_all_gather(comm, in.data(), out.data(), n, COMMRT_F32, nullptr));
  wrong += !same(me, "all_gather", out.data(), want.data(), 4 * n);
  int64_t pairs[8] = {0, 3, 1, 0, 2, 1, 3, 2};
  for (size_t i = 0; i < n; ++i) {
    in[i] = static_cast<float>(7 * me + i);
    want[i] = static_cast<float>(7 * ((me + 1) % 4) + i);
  }
  CHECK_OK(commrt_permute(ctx, in.data(), out.data(), n, COMMRT_F32, pairs, 4,
                          nullptr));
  wrong += !same(me, "permute", out.data(), want.data(), n);
  CHECK_OK(commrt_barrier(comm, nullptr));
  std::printf("rank %d: 7 operations done, %d with a wrong result\n", me,
              wrong);
  CHECK_OK(commrt_finalize(ctx));
  return summary("inject");
}

} // namespace

int main(int argc, char **argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  commrt_options opts;
  commrt_options_default(&opts);
  opts.backend = COMMRT_BACKEND_MPI;
  opts.timeout_ms = mode == "abort" ? 60000 : 1000;
  if (mode == "sigkill")
    opts.timeout_ms = 3000;
  if (mode == "timeout-return")
    opts.on_error = COMMRT_ON_ERROR_RETURN;
  if (mode == "init-late") {
    // The program starts MPI itself (a framework would): MPI_Init waits
    // for every rank, commrt_init's first step is the first wait of its
    // own.
    MPI_Init(&argc, &argv);
    int launched = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &launched);
    if (launched == 1) {
      std::this_thread::sleep_for(std::chrono::seconds(30));
      std::printf("rank 1 was not aborted\n");
      return 3;
    }
  }
  commrt_context *ctx = nullptr;
  if (commrt_init(&argc, &argv, &opts, &ctx) != COMMRT_SUCCESS) {
    std::fprintf(stderr, "commrt_init: %s\n", commrt_last_error());
    return 1;
  }
  int64_t r;
  commrt_rank(ctx, &r);
  int me = test::rank = static_cast<int>(r);
  int64_t world[4] = {0, 1, 2, 3};
  commrt_comm *comm = nullptr;
  CHECK_OK(commrt_comm_create(ctx, world, 4, 4, &comm));
  // The inject modes count their operations from 0.
  if (mode.rfind("inject", 0) != 0)
    CHECK_OK(commrt_barrier(comm, nullptr));
  if (mode == "startup")
    return commrt_finalize(ctx) == COMMRT_SUCCESS ? 0 : 1;
  float x[64] = {1}, y[64];

  if (mode == "timeout-abort") {
    if (me == 2) {
      // Never joins: the others' timeout ends this rank too.
      std::this_thread::sleep_for(std::chrono::seconds(30));
      std::printf("rank 2 was not aborted\n");
      return 3;
    }
    commrt_all_reduce(comm, x, y, 64, COMMRT_F32, COMMRT_SUM, nullptr);
    std::printf("rank %d: all_reduce returned instead of aborting\n", me);
    return 3;
  }

  if (mode == "create-stop") {
    if (me == 3) {
      std::this_thread::sleep_for(std::chrono::seconds(30));
      std::printf("rank 3 was not aborted\n");
      return 3;
    }
    int64_t across[4] = {0, 2, 1, 3};
    commrt_comm *made = nullptr;
    commrt_comm_create(ctx, across, 4, 2, &made);
    std::printf("rank %d: comm_create returned instead of aborting\n", me);
    return 3;
  }

  if (mode == "timeout-return") {
    if (me == 2) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1300));
      // The others gave up on this all_reduce and told every rank: it fails
      // at once instead of waiting alone for its own timeout.
      auto start = std::chrono::steady_clock::now();
      commrt_status s =
          commrt_all_reduce(comm, x, y, 64, COMMRT_F32, COMMRT_SUM, nullptr);
      double ms = msSince(start);
      std::printf("rank 2: %s after %.0f ms: %s\n", commrt_status_string(s), ms,
                  commrt_last_error());
      CHECK(s == COMMRT_ERROR_REMOTE);
      CHECK_MSG(ms < 1000, "failed after %.0f ms", ms);
      CHECK_MSG(std::strstr(commrt_last_error(),
                            " left the group before this operation: its "
                            "operation #1 there (all_reduce on group [0, 1, "
                            "2, 3]) failed: commrt: all_reduce on group [0, "
                            "1, 2, 3] timed out after 1000 ms on rank "),
                "message names the rank that gave up and its timeout");
    } else {
      auto start = std::chrono::steady_clock::now();
      commrt_status s =
          commrt_all_reduce(comm, x, y, 64, COMMRT_F32, COMMRT_SUM, nullptr);
      double ms = msSince(start);
      std::printf("rank %d: %s after %.0f ms: %s\n", me,
                  commrt_status_string(s), ms, commrt_last_error());
      CHECK(s == COMMRT_ERROR_TIMEOUT);
      CHECK_MSG(ms >= 1000 && ms < 2000, "timed out after %.0f ms", ms);
      std::string want = str("commrt: all_reduce on group [0, 1, 2, 3] timed "
                             "out after 1000 ms on rank %d (waiting for ranks "
                             "that did not join",
                             me);
      CHECK_MSG(std::strstr(commrt_last_error(), want.c_str()),
                "message names op, group and rank");
      // The communicator is now unusable, with the reason.
      CHECK_STATUS(commrt_barrier(comm, nullptr), COMMRT_ERROR_INVALID_STATE,
                   "failed earlier and cannot be used: commrt: all_reduce");
    }
    // A receive whose sender never sends times out too, naming the peer;
    // inside a group the timeout comes from commrt_group_end. The other
    // ranks wait for rank 0 meanwhile, with a longer timeout.
    CHECK_OK(commrt_set_timeout(ctx, me == 0 ? 1000 : 10000));
    if (me == 0) {
      static float never[4];
      auto start = std::chrono::steady_clock::now();
      CHECK_STATUS(commrt_recv(ctx, never, 4, COMMRT_F32, 3, 99, nullptr),
                   COMMRT_ERROR_TIMEOUT,
                   "commrt: recv from rank 3 (tag 99) timed out after 1000 ms "
                   "on rank 0 (waiting for rank 3 to send");
      double ms = msSince(start);
      CHECK_MSG(ms >= 1000 && ms < 2000, "recv timed out after %.0f ms", ms);
      static float never2[4];
      CHECK_OK(commrt_group_start(ctx));
      CHECK_OK(commrt_recv(ctx, never2, 4, COMMRT_F32, 2, 98, nullptr));
      CHECK_STATUS(commrt_group_end(ctx), COMMRT_ERROR_TIMEOUT,
                   "recv from rank 2 (tag 98) timed out");
      std::printf("rank 0: p2p timeouts: %s\n", commrt_last_error());
    }
    // Everyone goes on with a fresh communicator and ends cleanly.
    commrt_comm *pairs = nullptr;
    CHECK_OK(commrt_comm_create(ctx, world, 4, 2, &pairs));
    CHECK_OK(commrt_barrier(pairs, nullptr));
    CHECK_OK(commrt_finalize(ctx));
    return summary("timeout-return");
  }

  if (mode == "abort") {
    if (me == 1) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      commrt_abort(ctx, "rank 1 gives up on purpose");
      std::printf("commrt_abort returned\n");
      return 3;
    }
    commrt_all_reduce(comm, x, y, 64, COMMRT_F32, COMMRT_SUM, nullptr);
    std::printf("rank %d: all_reduce returned instead of being aborted\n", me);
    return 3;
  }

  if (mode == "inject-broadcast" || mode == "inject-p2p")
    return injectSequence(ctx, comm, me, mode == "inject-p2p");

  if (mode == "sigkill") {
    std::printf("rank %d pid %d\n", me, static_cast<int>(getpid()));
    std::fflush(stdout);
    CHECK_OK(commrt_barrier(comm, nullptr));
    auto start = std::chrono::steady_clock::now();
    while (msSince(start) < 20000)
      CHECK_OK(
          commrt_all_reduce(comm, x, y, 64, COMMRT_F32, COMMRT_SUM, nullptr));
    std::printf("rank %d: 20 s of all_reduces and nobody was killed\n", me);
    commrt_finalize(ctx);
    return 3;
  }

  std::fprintf(stderr, "unknown mode '%s'\n", mode.c_str());
  return 2;
}
