//===- test/AsyncBodyTest.cpp - Overlap of a comm.start's body ---*- C++
//-*-===//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//
//
// What the generated code (commrt_gen.h) does with the body of a comm.start
// on the polled mpi backend, run on 4 ranks:
//  - a local op of the body that reads what a started transfer of the same
//    body writes (the unpack after a fused all_reduce, a scale of what that
//    unpack wrote) is deferred, not run at once: running it would wait for
//    the transfer there, and nothing after the comm.start would overlap it;
//  - a compute after the comm.start drives the transfer
//    (comm_compute_args.progress, called by a user's implementation here
//    and by the stand-in while it waits), completes it and runs the
//    deferred ops whose inputs are done, before the comm.wait;
//  - an op of the body reading what a deferred op writes runs it first;
//  - the comm.wait leaves the same values as the blocking program;
//  - a transfer of the body that reads what an earlier transfer of the
//    body writes (a chain) is queued rather than waited for, and so is every
//    transfer after it, of this body or the next, so that every rank issues
//    them in program order; a compute issues them as their inputs arrive;
//  - a failure found while a user's compute polls is raised at the wait.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "commrt_gen.h"

#include <sched.h>
#include <vector>

using namespace test;

namespace {

constexpr int64_t kCount = 4096;

/// A user's comm.compute implementation on a CPU rank: polls the started
/// transfers until none is in flight, then writes its output.
void pollingCompute(const comm_compute_args *args) {
  while (args->progress(args->ctx))
    sched_yield();
  auto *out = static_cast<float *>(args->outputs[0].data);
  out[0] = 42.0f;
}

/// A compute that drops the context: the hook must not crash.
void nullContextCompute(const comm_compute_args *args) {
  CHECK(args->progress(nullptr) == 0);
}

float expectedSum(int64_t i, int64_t world) {
  // Rank r sends r * 1000 + i: the sum over the ranks.
  return static_cast<float>(1000 * world * (world - 1) / 2 + world * i);
}

} // namespace

int main(int argc, char **argv) {
  commrt_error_policy onError = COMMRT_ON_ERROR_RETURN;
  commrt_context *ctx = initMpiTestOn(4, &argc, &argv, 30000, &onError);
  if (!ctx)
    return 1;
  std::vector<float> src(kCount), reduced(kCount, -1.0f), low(kCount / 2, -1),
      high(kCount / 2, -1), scaled(kCount / 2, -1), side(1), sideOut(1, -1);
  for (int64_t i = 0; i < kCount; ++i)
    src[i] = static_cast<float>(rank * 1000 + i);
  const char *loc = "async-body.mlir:1:1";

  for (commgen::Plan plan :
       {commgen::Plan{}, commgen::Plan{COMMRT_ALGORITHM_RING, 0, 0}}) {
    const char *what = plan.planned() ? "ring" : "MPI's own";
    // A comm.start whose body all-reduces src (a fused bucket) and unpacks
    // the result into low and high.
    auto startReduceUnpack = [&]() {
      commgen::Async *async = commgen::start();
      commgen::all_reduce(async, COMMGEN_RANKS(4, 0, 1, 2, 3), src.data(),
                          reduced.data(), kCount, COMMRT_F32, COMMRT_F32,
                          COMMRT_SUM, plan, COMMRT_HOST, -1, loc);
      commgen::unpack(
          async, reduced.data(), COMMRT_F32, kCount, COMMRT_HOST, loc,
          commgen::piece(low.data(), kCount / 2, 0, COMMRT_F32),
          commgen::piece(high.data(), kCount / 2, kCount / 2, COMMRT_F32));
      return async;
    };
    std::fill(reduced.begin(), reduced.end(), -1.0f);
    std::fill(low.begin(), low.end(), -1.0f);
    std::fill(high.begin(), high.end(), -1.0f);
    std::fill(scaled.begin(), scaled.end(), -1.0f);
    int32_t status = commgen::entry(ctx, "async_body", [&]() {
      commgen::Async *async = startReduceUnpack();
      commgen::scale(async, scaled.data(), low.data(), kCount / 2, COMMRT_F32,
                     0.5, COMMRT_HOST, loc);
      // Nothing waited: the all_reduce is in flight, the unpack and the
      // scale are deferred and have written nothing.
      CHECK(async->pending.size() == 3);
      CHECK(async->pending[0].request != nullptr);
      CHECK(!async->pending[1].request && async->pending[1].finish);
      CHECK(!async->pending[2].request && async->pending[2].finish);
      CHECK(low[0] == -1.0f && high[kCount / 2 - 1] == -1.0f &&
            scaled[0] == -1.0f);

      // The compute after the comm.start drives the transfer to its end
      // and runs the deferred ops, before the wait.
      commgen::compute(
          nullptr, "layer", pollingCompute, 0.0, 0, 1, 0, 1, loc,
          commgen::tensor(side.data(), 1, 1, COMMRT_F32, COMMRT_HOST),
          commgen::tensor(sideOut.data(), 1, 1, COMMRT_F32, COMMRT_HOST));
      CHECK(sideOut[0] == 42.0f);
      CHECK(!async->pending[0].request);
      CHECK(!async->pending[1].finish && !async->pending[2].finish);
      CHECK_MSG(low[1] == expectedSum(1, 4),
                "%s: low[1] = %g after the compute, expected %g", what,
                static_cast<double>(low[1]),
                static_cast<double>(expectedSum(1, 4)));
      CHECK(scaled[1] == expectedSum(1, 4) * 0.5f);
      commgen::compute(
          nullptr, "null", nullContextCompute, 0.0, 0, 1, 0, 1, loc,
          commgen::tensor(side.data(), 1, 1, COMMRT_F32, COMMRT_HOST),
          commgen::tensor(sideOut.data(), 1, 1, COMMRT_F32, COMMRT_HOST));
      commgen::wait(async, loc);
    });
    CHECK_OK(static_cast<commrt_status>(status));
    bool same = true;
    for (int64_t i = 0; i < kCount / 2; ++i)
      same &= low[i] == expectedSum(i, 4) &&
              high[i] == expectedSum(i + kCount / 2, 4) &&
              scaled[i] == expectedSum(i, 4) * 0.5f;
    CHECK_MSG(same,
              "%s: the unpacked and scaled values differ from the blocking "
              "program's",
              what);

    // An op of the body that reads what a deferred op writes runs it
    // first, and the stand-in's wait drives the transfer too.
    std::fill(low.begin(), low.end(), -1.0f);
    std::fill(scaled.begin(), scaled.end(), -1.0f);
    status = commgen::entry(ctx, "async_chain", [&]() {
      commgen::Async *async = startReduceUnpack();
      commgen::compute(async, "reads_low", nullptr, 0.0, 0, 1, 0, 1, loc,
                       commgen::tensor(low.data(), kCount / 2, kCount / 2,
                                       COMMRT_F32, COMMRT_HOST),
                       commgen::tensor(scaled.data(), kCount / 2, kCount / 2,
                                       COMMRT_F32, COMMRT_HOST));
      CHECK(low[2] == expectedSum(2, 4));
      // The stand-in: output = input + 1.
      CHECK(scaled[2] == expectedSum(2, 4) + 1.0f);
      commgen::wait(async, loc);
    });
    CHECK_OK(static_cast<commrt_status>(status));

    // A chain: the all_reduce over the pairs reads the all_reduce over all
    // four. The comm.start returns without waiting for the first; the
    // second, and an independent all_reduce of the next comm.start, are
    // queued in program order; the compute issues them.
    std::vector<float> twice(kCount, -1.0f), other(kCount, -1.0f);
    std::fill(reduced.begin(), reduced.end(), -1.0f);
    auto startChain = [&]() {
      commgen::Async *async = commgen::start();
      commgen::all_reduce(async, COMMGEN_RANKS(4, 0, 1, 2, 3), src.data(),
                          reduced.data(), kCount, COMMRT_F32, COMMRT_F32,
                          COMMRT_SUM, plan, COMMRT_HOST, -1, loc);
      commgen::all_reduce(async, COMMGEN_RANKS(2, 0, 1, 2, 3), reduced.data(),
                          twice.data(), kCount, COMMRT_F32, COMMRT_F32,
                          COMMRT_SUM, plan, COMMRT_HOST, -1, loc);
      return async;
    };
    status = commgen::entry(ctx, "async_transfer_chain", [&]() {
      commgen::Async *first = startChain();
      commgen::State &st = commgen::state(ctx);
      CHECK(first->pending.size() == 2);
      CHECK(first->pending[0].request != nullptr);
      CHECK(first->pending[1].queued && !first->pending[1].request);
      CHECK(st.queue.size() == 1 && twice[0] == -1.0f);
      commgen::Async *second = commgen::start();
      commgen::all_reduce(second, COMMGEN_RANKS(4, 0, 1, 2, 3), src.data(),
                          other.data(), kCount, COMMRT_F32, COMMRT_F32,
                          COMMRT_SUM, plan, COMMRT_HOST, -1, loc);
      CHECK_MSG(st.queue.size() == 2 && second->pending[0].queued,
                "%s: a transfer after a queued one is queued too", what);
      commgen::compute(
          nullptr, "layer", pollingCompute, 0.0, 0, 1, 0, 1, loc,
          commgen::tensor(side.data(), 1, 1, COMMRT_F32, COMMRT_HOST),
          commgen::tensor(sideOut.data(), 1, 1, COMMRT_F32, COMMRT_HOST));
      CHECK_MSG(st.queue.empty() && twice[3] == 2 * expectedSum(3, 4),
                "%s: the compute issued the chain (queue %zu, twice[3] = %g)",
                what, st.queue.size(), static_cast<double>(twice[3]));
      commgen::wait(second, loc);
      commgen::wait(first, loc);
    });
    CHECK_OK(static_cast<commrt_status>(status));
    bool chained = true;
    for (int64_t i = 0; i < kCount; ++i)
      chained &=
          twice[i] == 2 * expectedSum(i, 4) && other[i] == expectedSum(i, 4);
    CHECK_MSG(chained,
              "%s: the chain's values differ from the blocking "
              "program's",
              what);

    // Waited for at once, without a compute between: the comm.wait issues
    // what is queued.
    std::fill(twice.begin(), twice.end(), -1.0f);
    status = commgen::entry(ctx, "async_transfer_chain_wait",
                            [&]() { commgen::wait(startChain(), loc); });
    CHECK_OK(static_cast<commrt_status>(status));
    CHECK(twice[kCount - 1] == 2 * expectedSum(kCount - 1, 4));
  }

  // A transfer that fails while a user's compute polls it (rank 3 passes
  // another count: every rank's check fails) is reported at the comm.wait,
  // and no exception crosses the compute.
  int32_t status = commgen::entry(ctx, "async_fail", [&]() {
    commgen::Async *async = commgen::start();
    commgen::all_reduce(async, COMMGEN_RANKS(4, 0, 1, 2, 3), src.data(),
                        reduced.data(), rank == 3 ? kCount / 2 : kCount,
                        COMMRT_F32, COMMRT_F32, COMMRT_SUM, commgen::Plan{},
                        COMMRT_HOST, -1, loc);
    commgen::compute(
        nullptr, "layer", pollingCompute, 0.0, 0, 1, 0, 1, loc,
        commgen::tensor(side.data(), 1, 1, COMMRT_F32, COMMRT_HOST),
        commgen::tensor(sideOut.data(), 1, 1, COMMRT_F32, COMMRT_HOST));
    commgen::wait(async, loc);
  });
  CHECK(status == COMMRT_ERROR_INVALID_ARGUMENT);
  CHECK_MSG(commgen::lastErrorStorage().find("4096") != std::string::npos,
            "the error names the counts: %s",
            commgen::lastErrorStorage().c_str());

  commrt_finalize(ctx);
  return summary("async-body");
}
