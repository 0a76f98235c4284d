//===- test/ReliabilityTest.cpp - COMMRT_INJECT and checksum ---*- C++ -*-===//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//
//
// Malformed COMMRT_INJECT and COMMRT_DEBUG values are refused by
// commrt_init with the documented message (a failed init may be retried);
// COMMRT_DEBUG=checksum passes correct traffic of every kind it covers
// (send/recv, isend/irecv in a group, permute, broadcast and all_gather,
// default and planned, all_to_all, also in place) and catches a corrupted
// send in return mode. The failures themselves are run-failure-test.sh's.
// Run with 4 ranks.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include <cstdlib>
#include <vector>

using namespace test;

namespace {

commrt_context *init(int *argc, char ***argv, commrt_status want,
                     const char *needle) {
  commrt_options opts;
  commrt_options_default(&opts);
  opts.backend = COMMRT_BACKEND_MPI;
  opts.timeout_ms = 20000;
  opts.on_error = COMMRT_ON_ERROR_RETURN;
  commrt_context *ctx = nullptr;
  CHECK_STATUS(commrt_init(argc, argv, &opts, &ctx), want, needle);
  return ctx;
}

void refused(int *argc, char ***argv, const char *var, const char *value,
             const char *needle) {
  setenv(var, value, 1);
  commrt_context *ctx = init(argc, argv, COMMRT_ERROR_INVALID_ARGUMENT, needle);
  CHECK(ctx == nullptr);
  unsetenv(var);
}

} // namespace

int main(int argc, char **argv) {
  unsetenv("COMMRT_INJECT");
  const char *expected = "; expected KIND:RANK:OP with KIND one of exit, "
                         "hang, corrupt, RANK a world rank and OP the index "
                         "(from 0) of that rank's operation, 'init' (in "
                         "commrt_init) or 'create' (in its first "
                         "comm_create), e.g. exit:2:3";
  struct {
    const char *value, *why;
  } bad[] = {
      {"crash:1:0", "unknown kind 'crash'"},
      {"exit:1", "it has 2 fields, not 3"},
      {"exit", "it has 1 field, not 3"},
      {"hang:1:0:5", "it has 4 fields, not 3"},
      {"exit:x:0", "RANK 'x' is not an integer >= 0"},
      {"exit::0", "RANK '' is not an integer >= 0"},
      {"exit:-1:0", "RANK '-1' is not an integer >= 0"},
      {"corrupt:1:-2",
       "OP '-2' is neither an integer >= 0 nor 'init' or 'create'"},
      {"corrupt:1:3x",
       "OP '3x' is neither an integer >= 0 nor 'init' or 'create'"},
      {"exit:1:Init",
       "OP 'Init' is neither an integer >= 0 nor 'init' or 'create'"},
      {"corrupt:1:init", "corrupt flips bits an operation sends, so its OP "
                         "must be the index of an operation, not 'init'"},
      {"exit:4:0", "RANK 4 is outside the world of 4 ranks"},
  };
  for (const auto &b : bad) {
    std::string needle = str("commrt: commrt_init: environment variable "
                             "COMMRT_INJECT='%s' is malformed: %s%s",
                             b.value, b.why, expected);
    refused(&argc, &argv, "COMMRT_INJECT", b.value, needle.c_str());
  }
  for (const char *value : {"bogus", "desync,", "checksum,desync,x"}) {
    std::string needle =
        str("environment variable COMMRT_DEBUG='%s' is not a debug mode "
            "commrt has; expected 'desync', 'checksum' or both, "
            "comma-separated",
            value);
    refused(&argc, &argv, "COMMRT_DEBUG", value, needle.c_str());
  }

  // Both modes at once; rank 0 corrupts its operation #9 (the send below).
  setenv("COMMRT_DEBUG", "desync,checksum", 1);
  setenv("COMMRT_INJECT", "corrupt:0:9", 1);
  commrt_context *ctx = init(&argc, &argv, COMMRT_SUCCESS, "");
  if (!ctx)
    return summary("reliability");
  int64_t r, size;
  commrt_rank(ctx, &r);
  commrt_world_size(ctx, &size);
  rank = static_cast<int>(r);
  CHECK(size == 4);
  CHECK(commrt_debug_desync(ctx) == 1);
  int64_t all[] = {0, 1, 2, 3};
  commrt_comm *comm = nullptr;
  CHECK_OK(commrt_comm_create(ctx, all, 4, 4, &comm));

  const int64_t n = 3001; // Not a multiple of 8 bytes: the checksum's tail.
  std::vector<float> in(4 * n), out(4 * n);
  for (int64_t i = 0; i < 4 * n; ++i)
    in[i] = static_cast<float>(rank * 10000 + i);
  int to = (rank + 1) % 4, from = (rank + 3) % 4;
  // Ops 0-1: send/recv (even ranks send first).
  if (rank % 2 == 0) {
    CHECK_OK(commrt_send(ctx, in.data(), n, COMMRT_F32, to, 3, nullptr));
    CHECK_OK(commrt_recv(ctx, out.data(), n, COMMRT_F32, from, 3, nullptr));
  } else {
    CHECK_OK(commrt_recv(ctx, out.data(), n, COMMRT_F32, from, 3, nullptr));
    CHECK_OK(commrt_send(ctx, in.data(), n, COMMRT_F32, to, 3, nullptr));
  }
  CHECK(out[7] == static_cast<float>(from * 10000 + 7));
  // Ops 2-3: isend/irecv inside a group, same tag twice in a row.
  commrt_request *reqs[2];
  CHECK_OK(commrt_group_start(ctx));
  CHECK_OK(
      commrt_irecv(ctx, out.data(), n, COMMRT_F32, from, 4, nullptr, &reqs[0]));
  CHECK_OK(
      commrt_isend(ctx, in.data(), n, COMMRT_F32, to, 4, nullptr, &reqs[1]));
  CHECK_OK(commrt_group_end(ctx));
  CHECK_OK(commrt_wait_all(reqs, 2));
  // Op 4: permute, rank 3 receives nothing.
  int64_t pairs[] = {0, 1, 1, 2, 2, 0};
  CHECK_OK(commrt_permute(ctx, in.data(), out.data(), n, COMMRT_F32, pairs, 3,
                          nullptr));
  // Ops 5-6: broadcast from position 2, default and planned (tree).
  CHECK_OK(
      commrt_broadcast(comm, in.data(), out.data(), n, COMMRT_F32, 2, nullptr));
  CHECK(out[5] == static_cast<float>(20005));
  commrt_plan tree{COMMRT_ALGORITHM_TREE, 0, 0};
  CHECK_OK(commrt_collective_planned(comm, COMMRT_COLLECTIVE_BROADCAST,
                                     in.data(), out.data(), n, COMMRT_F32,
                                     COMMRT_SUM, 2, &tree, nullptr, nullptr));
  // Ops 7-8: all_gather, default and planned (ring).
  CHECK_OK(
      commrt_all_gather(comm, in.data(), out.data(), n, COMMRT_F32, nullptr));
  CHECK(out[3 * n + 1] == static_cast<float>(30001));
  commrt_plan ring{COMMRT_ALGORITHM_RING, 0, 0};
  CHECK_OK(commrt_collective_planned(comm, COMMRT_COLLECTIVE_ALL_GATHER,
                                     in.data(), out.data(), n, COMMRT_F32,
                                     COMMRT_SUM, 0, &ring, nullptr, nullptr));
  // Op 9: rank 0's send is corrupted; rank 1 gets the error in return mode.
  if (rank == 0)
    CHECK_OK(commrt_send(ctx, in.data(), n, COMMRT_F32, 1, 6, nullptr));
  if (rank == 1)
    CHECK_STATUS(commrt_recv(ctx, out.data(), n, COMMRT_F32, 0, 6, nullptr),
                 COMMRT_ERROR_BACKEND,
                 "commrt: recv from rank 0 (tag 6) on rank 1 failed: payload "
                 "corrupted (COMMRT_DEBUG=checksum): the 12004 bytes received "
                 "from rank 0 (tag 6) on rank 1 have checksum");
  // Ops 10-11: all_to_all, out of place and in place (the checksums of
  // what it sends are taken before it overwrites them).
  CHECK_OK(
      commrt_all_to_all(comm, in.data(), out.data(), n, COMMRT_F32, nullptr));
  CHECK(out[2 * n + 5] == static_cast<float>(20000 + rank * n + 5));
  std::vector<float> inPlace(in);
  CHECK_OK(commrt_all_to_all(comm, inPlace.data(), inPlace.data(), n,
                             COMMRT_F32, nullptr));
  CHECK(inPlace == out);
  // Reductions are not checked (and not disturbed).
  CHECK_OK(commrt_all_reduce(comm, in.data(), out.data(), n, COMMRT_F32,
                             COMMRT_SUM, nullptr));
  CHECK(out[1] == static_cast<float>(60004));
  CHECK_OK(commrt_comm_destroy(comm));
  CHECK_OK(commrt_finalize(ctx));
  return summary("reliability");
}
