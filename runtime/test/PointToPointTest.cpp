//===- test/PointToPointTest.cpp - send/recv, groups, permute ---*- C++ -*-===//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//
//
// Run with 4 ranks: ring exchanges (blocking inside group_start/end, and
// non-blocking), tag matching, nested groups, a collective batched with
// point-to-point in one group, permute (ring shift, partial pairs with
// zeros, a self pair, no pairs, non-blocking), and the errors of mismatched
// message sizes (refused before the buffer is touched).
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include <algorithm>
#include <vector>

using namespace test;

namespace {

commrt_context *ctx = nullptr;
int me = 0, size = 0;

float payload(int sender, int tag, size_t i) {
  return static_cast<float>(sender * 1000 + tag * 7 +
                            static_cast<int>(i % 997));
}

void ringExchange(size_t count) {
  int right = (me + 1) % size, left = (me + size - 1) % size;
  std::vector<float> out(count), in(count, -1.0f);
  for (size_t i = 0; i < count; ++i)
    out[i] = payload(me, 1, i);
  // Blocking send and recv inside a group cannot deadlock, whatever the
  // order (every rank sends first).
  CHECK_OK(commrt_group_start(ctx));
  CHECK_OK(commrt_send(ctx, out.data(), static_cast<int64_t>(count), COMMRT_F32,
                       right, 1, nullptr));
  CHECK_OK(commrt_recv(ctx, in.data(), static_cast<int64_t>(count), COMMRT_F32,
                       left, 1, nullptr));
  CHECK_OK(commrt_group_end(ctx));
  bool ok = true;
  for (size_t i = 0; i < count; ++i)
    ok &= in[i] == payload(left, 1, i);
  CHECK_MSG(ok, "ring exchange of %zu floats (group)", count);

  // Non-blocking, without a group.
  std::fill(in.begin(), in.end(), -1.0f);
  commrt_request *reqs[2] = {nullptr, nullptr};
  CHECK_OK(commrt_irecv(ctx, in.data(), static_cast<int64_t>(count), COMMRT_F32,
                        left, 2, nullptr, &reqs[0]));
  CHECK_OK(commrt_isend(ctx, out.data(), static_cast<int64_t>(count),
                        COMMRT_F32, right, 2, nullptr, &reqs[1]));
  CHECK_OK(commrt_wait_all(reqs, 2));
  ok = true;
  for (size_t i = 0; i < count; ++i)
    ok &= in[i] == payload(left, 1, i);
  CHECK_MSG(ok, "ring exchange of %zu floats (non-blocking)", count);
}

void tagsAndOrder() {
  int right = (me + 1) % size, left = (me + size - 1) % size;
  std::vector<float> a(5), b(5), c(5), ra(5), rb(5), rc(5);
  for (size_t i = 0; i < 5; ++i) {
    a[i] = payload(me, 5, i);
    b[i] = payload(me, 9, i);
    c[i] = payload(me, 5, i + 100);
  }
  // Received in a different order than sent: tags pick the message, and two
  // messages with the same tag arrive in order.
  CHECK_OK(commrt_group_start(ctx));
  CHECK_OK(commrt_send(ctx, a.data(), 5, COMMRT_F32, right, 5, nullptr));
  CHECK_OK(commrt_send(ctx, b.data(), 5, COMMRT_F32, right, 9, nullptr));
  CHECK_OK(commrt_send(ctx, c.data(), 5, COMMRT_F32, right, 5, nullptr));
  CHECK_OK(commrt_group_start(ctx)); // nested
  CHECK_OK(commrt_recv(ctx, rb.data(), 5, COMMRT_F32, left, 9, nullptr));
  CHECK_OK(commrt_recv(ctx, ra.data(), 5, COMMRT_F32, left, 5, nullptr));
  CHECK_OK(commrt_group_end(ctx)); // inner end completes nothing yet
  CHECK_OK(commrt_recv(ctx, rc.data(), 5, COMMRT_F32, left, 5, nullptr));
  CHECK_OK(commrt_group_end(ctx));
  bool ok = true;
  for (size_t i = 0; i < 5; ++i)
    ok &= ra[i] == payload(left, 5, i) && rb[i] == payload(left, 9, i) &&
          rc[i] == payload(left, 5, i + 100);
  CHECK_MSG(ok, "tags match and same-tag messages keep their order");

  // Waited for in the reverse order: the first receive posted still gets
  // the first message (receives are matched in posting order, not in the
  // order they are waited for).
  std::fill(ra.begin(), ra.end(), -1.0f);
  std::fill(rc.begin(), rc.end(), -1.0f);
  commrt_request *reqs[4] = {nullptr, nullptr, nullptr, nullptr};
  CHECK_OK(
      commrt_irecv(ctx, ra.data(), 5, COMMRT_F32, left, 6, nullptr, &reqs[0]));
  CHECK_OK(
      commrt_irecv(ctx, rc.data(), 5, COMMRT_F32, left, 6, nullptr, &reqs[1]));
  CHECK_OK(
      commrt_isend(ctx, a.data(), 5, COMMRT_F32, right, 6, nullptr, &reqs[2]));
  CHECK_OK(
      commrt_isend(ctx, c.data(), 5, COMMRT_F32, right, 6, nullptr, &reqs[3]));
  CHECK_OK(commrt_wait(reqs[1]));
  CHECK_OK(commrt_wait(reqs[0]));
  CHECK_OK(commrt_wait(reqs[3]));
  CHECK_OK(commrt_wait(reqs[2]));
  ok = true;
  for (size_t i = 0; i < 5; ++i)
    ok &= ra[i] == payload(left, 5, i) && rc[i] == payload(left, 5, i + 100);
  CHECK_MSG(ok, "same-tag receives waited for in reverse keep their order");
}

void collectiveInGroup() {
  int64_t world[4] = {0, 1, 2, 3};
  commrt_comm *comm = nullptr;
  CHECK_OK(commrt_comm_create(ctx, world, 4, 4, &comm));
  int right = (me + 1) % size, left = (me + size - 1) % size;
  int32_t x = me + 1, sum = 0, got = -1;
  commrt_request *req = nullptr;
  CHECK_OK(commrt_group_start(ctx));
  CHECK_OK(
      commrt_all_reduce(comm, &x, &sum, 1, COMMRT_I32, COMMRT_SUM, nullptr));
  CHECK_OK(commrt_isend(ctx, &x, 1, COMMRT_I32, right, 3, nullptr, &req));
  CHECK_OK(commrt_recv(ctx, &got, 1, COMMRT_I32, left, 3, nullptr));
  // Waiting for a request of the open group is an error, not a hang.
  CHECK_STATUS(commrt_wait(req), COMMRT_ERROR_INVALID_STATE,
               "call commrt_group_end first");
  CHECK_OK(commrt_group_end(ctx));
  CHECK_OK(commrt_wait(req));
  CHECK(sum == 10);
  CHECK(got == left + 1);
  CHECK_STATUS(commrt_group_end(ctx), COMMRT_ERROR_INVALID_STATE,
               "without commrt_group_start");

  // A started collective goes on while its rank waits for something else:
  // rank 0 receives from rank 1 before it waits for its all_reduce, and
  // rank 1 sends only after its all_reduce completed. 4 KiB: too large to
  // ride in the fingerprints, so the all_reduce has transfers to start.
  std::vector<float> in(1024, static_cast<float>(me + 1)), out(1024, 0.0f);
  int32_t token = 0;
  CHECK_OK(commrt_iall_reduce(comm, in.data(), out.data(), 1024, COMMRT_F32,
                              COMMRT_SUM, nullptr, &req));
  if (me == 0)
    CHECK_OK(commrt_recv(ctx, &token, 1, COMMRT_I32, 1, 8, nullptr));
  CHECK_OK(commrt_wait(req));
  if (me == 1) {
    token = 42;
    CHECK_OK(commrt_send(ctx, &token, 1, COMMRT_I32, 0, 8, nullptr));
  }
  CHECK(out[1023] == 10.0f);
  CHECK(me != 0 || token == 42);
}

void permutes() {
  const int64_t n = 257;
  std::vector<float> send(n), recv(n);
  for (int64_t i = 0; i < n; ++i)
    send[i] = payload(me, 0, static_cast<size_t>(i));
  auto check = [&](int from, const char *what) {
    bool ok = true;
    for (int64_t i = 0; i < n; ++i)
      ok &= recv[i] ==
            (from < 0 ? 0.0f : payload(from, 0, static_cast<size_t>(i)));
    CHECK_MSG(ok, "permute %s: rank %d expected data from %d", what, me, from);
  };

  // Ring shift.
  int64_t ring[8] = {0, 1, 1, 2, 2, 3, 3, 0};
  std::fill(recv.begin(), recv.end(), -1.0f);
  CHECK_OK(commrt_permute(ctx, send.data(), recv.data(), n, COMMRT_F32, ring, 4,
                          nullptr));
  check((me + size - 1) % size, "ring");

  // Partial: 0 -> 2, 1 -> 1 (self); ranks 0 and 3 are targeted by no pair.
  int64_t partial[4] = {0, 2, 1, 1};
  std::fill(recv.begin(), recv.end(), -1.0f);
  CHECK_OK(commrt_permute(ctx, send.data(), recv.data(), n, COMMRT_F32, partial,
                          2, nullptr));
  check(me == 2 ? 0 : me == 1 ? 1 : -1, "partial");

  // No pairs: zeros everywhere.
  std::fill(recv.begin(), recv.end(), -1.0f);
  CHECK_OK(commrt_permute(ctx, send.data(), recv.data(), n, COMMRT_F32, nullptr,
                          0, nullptr));
  check(-1, "empty");

  // Non-blocking reverse ring.
  int64_t reverse[8] = {0, 3, 3, 2, 2, 1, 1, 0};
  std::fill(recv.begin(), recv.end(), -1.0f);
  commrt_request *req = nullptr;
  CHECK_OK(commrt_ipermute(ctx, send.data(), recv.data(), n, COMMRT_F32,
                           reverse, 4, nullptr, &req));
  CHECK_OK(commrt_wait(req));
  check((me + 1) % size, "reverse ring (non-blocking)");

  // Invalid pairs.
  int64_t twoSources[4] = {0, 1, 0, 2};
  CHECK_STATUS(commrt_permute(ctx, send.data(), recv.data(), n, COMMRT_F32,
                              twoSources, 2, nullptr),
               COMMRT_ERROR_INVALID_ARGUMENT, "rank 0 is the source of two");
  int64_t outside[2] = {0, 4};
  CHECK_STATUS(commrt_permute(ctx, send.data(), recv.data(), n, COMMRT_F32,
                              outside, 1, nullptr),
               COMMRT_ERROR_INVALID_ARGUMENT, "outside the world");
}

void sizeMismatch() {
  // Return the errors instead of aborting, to look at them.
  CHECK_OK(commrt_set_error_policy(ctx, COMMRT_ON_ERROR_RETURN));
  int32_t data[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  // Above 4 KiB, where a truncated receive overflowed the buffer.
  std::vector<int32_t> big(2048, 9);
  if (me == 0) {
    CHECK_OK(commrt_send(ctx, data, 5, COMMRT_I32, 1, 11, nullptr));
    CHECK_OK(commrt_send(ctx, data, 8, COMMRT_I32, 1, 12, nullptr));
    CHECK_OK(commrt_send(ctx, big.data(), 2048, COMMRT_I32, 1, 13, nullptr));
    CHECK_OK(commrt_send(ctx, data, 8, COMMRT_I32, 1, 12, nullptr));
  } else if (me == 1) {
    // Fewer or more elements than expected: refused before the buffer is
    // touched, naming both sizes.
    std::vector<int32_t> in(4096, -7);
    CHECK_STATUS(commrt_recv(ctx, in.data(), 6, COMMRT_I32, 0, 11, nullptr),
                 COMMRT_ERROR_INVALID_ARGUMENT,
                 "commrt: recv from rank 0 (tag 11) on rank 1 failed: rank 0 "
                 "sent 20 bytes (5 i32), but this receive takes 6 i32 (24 "
                 "bytes); the message was dropped and the buffer left "
                 "untouched");
    CHECK_STATUS(commrt_recv(ctx, in.data(), 4, COMMRT_I32, 0, 12, nullptr),
                 COMMRT_ERROR_INVALID_ARGUMENT,
                 "rank 0 sent 32 bytes (8 i32), but this receive takes 4 i32 "
                 "(16 bytes)");
    CHECK_STATUS(commrt_recv(ctx, in.data(), 1024, COMMRT_I32, 0, 13, nullptr),
                 COMMRT_ERROR_INVALID_ARGUMENT,
                 "rank 0 sent 8192 bytes (2048 i32), but this receive takes "
                 "1024 i32 (4096 bytes)");
    CHECK_STATUS(commrt_recv(ctx, in.data(), 1, COMMRT_F64, 0, 12, nullptr),
                 COMMRT_ERROR_INVALID_ARGUMENT,
                 "rank 0 sent 32 bytes (4 f64), but this receive takes 1 f64");
    bool untouched = true;
    for (int32_t v : in)
      untouched &= v == -7;
    CHECK_MSG(untouched, "a refused message wrote into the buffer");
  }
  // The refused messages are gone: the next message on tag 12 is a new one.
  if (me == 0)
    CHECK_OK(commrt_send(ctx, data + 1, 1, COMMRT_I32, 1, 12, nullptr));
  if (me == 1) {
    int32_t one = 0;
    CHECK_OK(commrt_recv(ctx, &one, 1, COMMRT_I32, 0, 12, nullptr));
    CHECK(one == 2);
  }
  CHECK_OK(commrt_set_error_policy(ctx, COMMRT_ON_ERROR_ABORT));
}

} // namespace

int main(int argc, char **argv) {
  int64_t s = 0;
  ctx = test::initMpiTest(&argc, &argv, 30000, &s);
  if (!ctx)
    return 1;
  me = test::rank;
  size = static_cast<int>(s);
  if (size != 4) {
    std::fprintf(stderr, "run this test with 4 ranks (got %d)\n", size);
    commrt_finalize(ctx);
    return 1;
  }
  for (size_t count : {size_t(0), size_t(1), size_t(1000), size_t(1) << 19})
    ringExchange(count);
  tagsAndOrder();
  collectiveInGroup();
  permutes();
  sizeMismatch();
  CHECK_OK(commrt_finalize(ctx));
  return summary("p2p");
}
