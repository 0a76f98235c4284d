//===- test/DebugTest.cpp - COMMRT_DEBUG=desync ----------------*- C++ -*-===//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//
//
// COMMRT_DEBUG=desync: ranks that agree on what they run pass the check;
// ranks that disagree (another op, another size, another place in the
// program) all fail with a message naming the first two ranks that differ
// and both operations. Run with 4 ranks.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include <cstdlib>

using namespace test;

int main(int argc, char **argv) {
  // The mode is read at commrt_init.
  setenv("COMMRT_DEBUG", "desync", 1);
  commrt_error_policy onError = COMMRT_ON_ERROR_RETURN;
  commrt_context *ctx = initMpiTestOn(4, &argc, &argv, 30000, &onError);
  if (!ctx)
    return 1;
  CHECK(commrt_debug_desync(ctx) == 1);
  int64_t all[] = {0, 1, 2, 3};
  commrt_comm *comm = nullptr;
  CHECK_OK(commrt_comm_create(ctx, all, 4, 4, &comm));

  // Agreement passes, as often as it comes.
  for (int i = 0; i < 3; ++i)
    CHECK_OK(commrt_debug_check(comm, "comm.all_reduce of 1024 f32 at a:1:1"));

  // Rank 2 runs another op: every rank fails, naming ranks 0 and 2.
  const char *what = rank == 2 ? "comm.all_gather of 256 f32 at a:9:5"
                               : "comm.all_reduce of 1024 f32 at a:2:1";
  CHECK_STATUS(commrt_debug_check(comm, what), COMMRT_ERROR_INVALID_ARGUMENT,
               "desync on group [0, 1, 2, 3]: rank 0 runs its operation #3 "
               "there, comm.all_reduce of 1024 f32 at a:2:1, but rank 2 runs "
               "#3, comm.all_gather of 256 f32 at a:9:5");

  // Rank 3 disagrees on the size (edited generated code, a shape that
  // depends on the rank): named, with both sizes.
  CHECK_STATUS(commrt_debug_check(
                   comm, rank == 3 ? "comm.all_reduce of 512 f32 at a:3:1"
                                   : "comm.all_reduce of 1024 f32 at a:3:1"),
               COMMRT_ERROR_INVALID_ARGUMENT,
               "rank 0 runs its operation #4 there, comm.all_reduce of 1024 "
               "f32 at a:3:1, but rank 3 runs #4, comm.all_reduce of 512 f32");

  // Errors on bad arguments.
  CHECK_STATUS(commrt_debug_check(nullptr, "x"), COMMRT_ERROR_INVALID_ARGUMENT,
               "comm is NULL");
  CHECK(commrt_debug_desync(nullptr) == 0);

  CHECK_OK(commrt_comm_destroy(comm));
  CHECK_OK(commrt_finalize(ctx));
  return summary("debug");
}
