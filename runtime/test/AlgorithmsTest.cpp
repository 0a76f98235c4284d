//===- test/AlgorithmsTest.cpp - Planned collectives on mpi -----*- C++ -*-===//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//
//
// Runs with any number of ranks (the suite uses 3, 4 and 5, and 4 with
// COMMRT_NODE_SIZE=2 or COMMRT_SOCKET_SIZE=2 so that hierarchical schedules
// have two levels, by machine or by CPU socket). For
// several groups, dtypes, reductions, sizes and plans (algorithm, channels,
// chunk size), every planned collective of commrt_collective_planned must
// produce bit for bit what the backend's own collective produces on the
// same inputs (the inputs are small integers, exact in every dtype, so the
// order of the reduction does not matter), in place and out of place,
// blocking and with several started at once. Then the errors: algorithms
// a collective does not have, nvls on mpi, bad channel counts, a plan
// inside a group.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include <memory>
#include <vector>

using namespace test;

namespace {

struct Case {
  commrt_dtype dtype;
  commrt_redop op;
};

struct Group {
  const char *name;
  std::vector<int64_t> ranks;
  int64_t groupSize;
};

/// A small integer for element \p i of position \p p, exact in every dtype
/// of the tests even when summed over 8 ranks or multiplied over 3.
int64_t input(commrt_redop op, int p, int64_t i, int salt) {
  if (op == COMMRT_PROD)
    return 1 + (p + i + salt) % 2;
  if (op >= COMMRT_BAND)
    return (p * 37 + i * 11 + salt) & 0x7f;
  return (p + 1) * 3 + (i + salt) % 7 - 5;
}

void fill(std::vector<unsigned char> &buf, commrt_dtype t, commrt_redop op,
          int p, int salt) {
  size_t elt = commrt_dtype_size(t);
  for (size_t i = 0; i < buf.size() / elt; ++i) {
    int64_t v = input(op, p, static_cast<int64_t>(i), salt);
    store(buf.data() + i * elt, t, static_cast<double>(v));
  }
}

commrt_collective kinds[] = {
    COMMRT_COLLECTIVE_ALL_REDUCE, COMMRT_COLLECTIVE_REDUCE_SCATTER,
    COMMRT_COLLECTIVE_ALL_GATHER, COMMRT_COLLECTIVE_BROADCAST,
    COMMRT_COLLECTIVE_REDUCE};

const char *kindName(commrt_collective k) {
  switch (k) {
  case COMMRT_COLLECTIVE_ALL_REDUCE:
    return "all_reduce";
  case COMMRT_COLLECTIVE_REDUCE_SCATTER:
    return "reduce_scatter";
  case COMMRT_COLLECTIVE_ALL_GATHER:
    return "all_gather";
  case COMMRT_COLLECTIVE_BROADCAST:
    return "broadcast";
  case COMMRT_COLLECTIVE_REDUCE:
    return "reduce";
  }
  return "?";
}

std::vector<commrt_algorithm> algorithmsOf(commrt_collective k) {
  switch (k) {
  case COMMRT_COLLECTIVE_ALL_REDUCE:
    return {COMMRT_ALGORITHM_RING, COMMRT_ALGORITHM_TREE,
            COMMRT_ALGORITHM_DIRECT, COMMRT_ALGORITHM_HALVING_DOUBLING,
            COMMRT_ALGORITHM_HIERARCHICAL};
  case COMMRT_COLLECTIVE_REDUCE_SCATTER:
  case COMMRT_COLLECTIVE_ALL_GATHER:
    return {COMMRT_ALGORITHM_RING, COMMRT_ALGORITHM_DIRECT,
            COMMRT_ALGORITHM_HALVING_DOUBLING, COMMRT_ALGORITHM_HIERARCHICAL};
  default:
    return {COMMRT_ALGORITHM_RING, COMMRT_ALGORITHM_TREE,
            COMMRT_ALGORITHM_DIRECT, COMMRT_ALGORITHM_HALVING_DOUBLING,
            COMMRT_ALGORITHM_HIERARCHICAL};
  }
}

bool reduces(commrt_collective k) {
  return k == COMMRT_COLLECTIVE_ALL_REDUCE ||
         k == COMMRT_COLLECTIVE_REDUCE_SCATTER || k == COMMRT_COLLECTIVE_REDUCE;
}

/// Buffers of one run: send and receive sizes in elements.
struct Shape {
  size_t sendElems, recvElems;
};

Shape shapeOf(commrt_collective k, int64_t count, int n) {
  size_t c = static_cast<size_t>(count), g = static_cast<size_t>(n);
  switch (k) {
  case COMMRT_COLLECTIVE_REDUCE_SCATTER:
    return {c * g, c};
  case COMMRT_COLLECTIVE_ALL_GATHER:
    return {c, c * g};
  default:
    return {c, c};
  }
}

class Tester {
public:
  Tester(commrt_comm *comm, const Group &group) : comm(comm), group(group) {
    int64_t v;
    commrt_comm_rank(comm, &v);
    pos = static_cast<int>(v);
    commrt_comm_size(comm, &v);
    n = static_cast<int>(v);
  }

  /// Fills the send and receive buffers of \p k, runs it with \p plan
  /// (NULL: the default collective) and returns both.
  std::pair<std::vector<unsigned char>, std::vector<unsigned char>>
  run(commrt_collective k, Case c, int64_t count, int64_t root, int salt,
      const commrt_plan *plan) {
    Shape s = shapeOf(k, count, n);
    size_t elt = commrt_dtype_size(c.dtype);
    std::vector<unsigned char> send(s.sendElems * elt), recv(s.recvElems * elt);
    fill(send, c.dtype, c.op, pos, salt);
    fill(recv, c.dtype, c.op, pos + 100, salt);
    CHECK_OK(commrt_collective_planned(comm, k, send.data(), recv.data(), count,
                                       c.dtype, c.op, root, plan, nullptr,
                                       nullptr));
    return {std::move(send), std::move(recv)};
  }

  /// The default collective's result on the same inputs.
  std::vector<unsigned char> expected(commrt_collective k, Case c,
                                      int64_t count, int64_t root, int salt) {
    return run(k, c, count, root, salt, nullptr).second;
  }

  void one(commrt_collective k, Case c, int64_t count, commrt_plan plan,
           int64_t root) {
    int salt = static_cast<int>(count % 5);
    std::vector<unsigned char> want = expected(k, c, count, root, salt);
    auto [send, recv] = run(k, c, count, root, salt, &plan);
    CHECK_MSG(recv == want,
              "%s: %s %s of %lld x %s (op %d, root %lld), %lld channels, "
              "chunk %lld: differs from the default collective",
              group.name, commrt_algorithm_name(plan.algorithm), kindName(k),
              static_cast<long long>(count), commrt_dtype_name(c.dtype),
              static_cast<int>(c.op), static_cast<long long>(root),
              static_cast<long long>(plan.channels),
              static_cast<long long>(plan.chunk_bytes));
    // In place where the collective allows it.
    if (k == COMMRT_COLLECTIVE_ALL_REDUCE ||
        k == COMMRT_COLLECTIVE_ALL_GATHER || k == COMMRT_COLLECTIVE_BROADCAST ||
        k == COMMRT_COLLECTIVE_REDUCE) {
      std::vector<unsigned char> buf(want.size());
      fill(buf, c.dtype, c.op, pos + 100, salt);
      void *sendPtr = buf.data();
      if (k == COMMRT_COLLECTIVE_ALL_GATHER) {
        std::memcpy(buf.data() + static_cast<size_t>(pos) * send.size(),
                    send.data(), send.size());
        sendPtr = buf.data() + static_cast<size_t>(pos) * send.size();
      } else {
        std::memcpy(buf.data(), send.data(), send.size());
      }
      CHECK_OK(commrt_collective_planned(comm, k, sendPtr, buf.data(), count,
                                         c.dtype, c.op, root, &plan, nullptr,
                                         nullptr));
      bool same = buf == want;
      if (k == COMMRT_COLLECTIVE_REDUCE && pos != root)
        same = std::memcmp(buf.data(), send.data(), send.size()) == 0;
      CHECK_MSG(same, "%s: %s %s of %lld x %s in place differs", group.name,
                commrt_algorithm_name(plan.algorithm), kindName(k),
                static_cast<long long>(count), commrt_dtype_name(c.dtype));
    }
  }

  void all() {
    std::vector<Case> cases = {
        {COMMRT_I32, COMMRT_SUM},  {COMMRT_F32, COMMRT_SUM},
        {COMMRT_BF16, COMMRT_MAX}, {COMMRT_I32, COMMRT_BXOR},
        {COMMRT_I64, COMMRT_PROD}, {COMMRT_F32, COMMRT_AVG},
        {COMMRT_I32, COMMRT_AVG}};
    std::vector<int64_t> counts = {0, 1, 7, 1000, 40009};
    // {channels, chunk bytes}
    std::vector<std::pair<int64_t, int64_t>> shapes = {
        {0, 0}, {1, 64}, {3, 0}, {2, 4096}, {5, 12}};
    for (commrt_collective k : kinds)
      for (commrt_algorithm a : algorithmsOf(k))
        for (size_t ci = 0; ci < cases.size(); ++ci) {
          Case c = cases[ci];
          if (!reduces(k) && ci > 1)
            continue;
          for (int64_t count : counts)
            for (size_t si = 0; si < shapes.size(); ++si) {
              // Every shape for one dtype; the others with two shapes.
              if (ci > 0 && si != 0 && si != 3)
                continue;
              // Chunks of a few bytes on the largest size are slow here.
              if (count > 1000 && shapes[si].second > 0 &&
                  shapes[si].second < 1024)
                continue;
              commrt_plan plan{a, shapes[si].first, shapes[si].second};
              int64_t root = (count + ci) % n;
              one(k, c, count, plan, root);
            }
        }
  }

  /// Several planned collectives started at once on one communicator, each
  /// with several chunks in flight, completed in reverse order.
  void concurrent() {
    const int64_t count = 3001;
    const int many = 6;
    std::vector<std::vector<unsigned char>> send(many), recv(many), want(many);
    std::vector<commrt_request *> reqs(many, nullptr);
    for (int j = 0; j < many; ++j) {
      want[j] = expected(COMMRT_COLLECTIVE_ALL_REDUCE, {COMMRT_I32, COMMRT_SUM},
                         count, 0, j);
      send[j].resize(count * 4);
      recv[j].resize(count * 4);
      fill(send[j], COMMRT_I32, COMMRT_SUM, pos, j);
    }
    commrt_algorithm algos[] = {COMMRT_ALGORITHM_RING, COMMRT_ALGORITHM_TREE,
                                COMMRT_ALGORITHM_HALVING_DOUBLING};
    for (int j = 0; j < many; ++j) {
      commrt_plan plan{algos[j % 3], 1 + j % 2, 512};
      CHECK_OK(commrt_collective_planned(
          comm, COMMRT_COLLECTIVE_ALL_REDUCE, send[j].data(), recv[j].data(),
          count, COMMRT_I32, COMMRT_SUM, 0, &plan, nullptr, &reqs[j]));
    }
    for (int j = many - 1; j >= 0; --j) {
      CHECK_OK(commrt_wait(reqs[j]));
      CHECK_MSG(recv[j] == want[j], "%s: concurrent planned all_reduce %d",
                group.name, j);
    }
  }

  void errors() {
    int32_t a[4] = {0, 0, 0, 0}, b[64] = {};
    commrt_plan tree{COMMRT_ALGORITHM_TREE, 0, 0};
    CHECK_STATUS(commrt_collective_planned(comm, COMMRT_COLLECTIVE_ALL_GATHER,
                                           a, b, 1, COMMRT_I32, COMMRT_SUM, 0,
                                           &tree, nullptr, nullptr),
                 COMMRT_ERROR_INVALID_ARGUMENT,
                 "algorithm tree is not implemented for all_gather (expected "
                 "default, ring, direct, halving_doubling or hierarchical)");
    commrt_plan nvls{COMMRT_ALGORITHM_NVLS, 0, 0};
    CHECK_STATUS(commrt_collective_planned(comm, COMMRT_COLLECTIVE_ALL_REDUCE,
                                           a, b, 1, COMMRT_I32, COMMRT_SUM, 0,
                                           &nvls, nullptr, nullptr),
                 COMMRT_ERROR_UNAVAILABLE, "only the nccl backend reaches");
    commrt_plan wide{COMMRT_ALGORITHM_RING, 65, 0};
    CHECK_STATUS(commrt_collective_planned(comm, COMMRT_COLLECTIVE_ALL_REDUCE,
                                           a, b, 1, COMMRT_I32, COMMRT_SUM, 0,
                                           &wide, nullptr, nullptr),
                 COMMRT_ERROR_INVALID_ARGUMENT,
                 "channels 65 is outside [0, 64]");
    commrt_plan negative{COMMRT_ALGORITHM_RING, 1, -1};
    CHECK_STATUS(commrt_collective_planned(comm, COMMRT_COLLECTIVE_ALL_REDUCE,
                                           a, b, 1, COMMRT_I32, COMMRT_SUM, 0,
                                           &negative, nullptr, nullptr),
                 COMMRT_ERROR_INVALID_ARGUMENT, "chunk_bytes -1 is negative");
    // One-byte chunks of 5000 i32: one element each, 5000 chunks, past
    // COMMRT_MAX_CHUNKS_PER_CHANNEL; two channels take 2500 each.
    std::vector<int32_t> big(5000), bigOut(5000);
    commrt_plan tiny{COMMRT_ALGORITHM_RING, 1, 1};
    CHECK_STATUS(commrt_collective_planned(comm, COMMRT_COLLECTIVE_ALL_REDUCE,
                                           big.data(), bigOut.data(), 5000,
                                           COMMRT_I32, COMMRT_SUM, 0, &tiny,
                                           nullptr, nullptr),
                 COMMRT_ERROR_INVALID_ARGUMENT,
                 "chunk_bytes 1 cuts each channel's 20000 bytes into 5000 "
                 "chunks, more than 4096; use chunk_bytes >= 8 or more "
                 "channels");
    commrt_plan bogus{static_cast<commrt_algorithm>(42), 0, 0};
    CHECK_STATUS(commrt_collective_planned(comm, COMMRT_COLLECTIVE_ALL_REDUCE,
                                           a, b, 1, COMMRT_I32, COMMRT_SUM, 0,
                                           &bogus, nullptr, nullptr),
                 COMMRT_ERROR_INVALID_ARGUMENT, "unknown algorithm 42");
    commrt_plan ring{COMMRT_ALGORITHM_RING, 0, 0};
    CHECK_STATUS(commrt_collective_planned(comm, COMMRT_COLLECTIVE_BROADCAST, a,
                                           b, 1, COMMRT_I32, COMMRT_SUM, n,
                                           &ring, nullptr, nullptr),
                 COMMRT_ERROR_INVALID_ARGUMENT, "is outside group");
  }

  commrt_comm *comm;
  const Group &group;
  int pos = 0, n = 1;
};

} // namespace

int main(int argc, char **argv) {
  int64_t s = 0;
  const commrt_error_policy returnErrors = COMMRT_ON_ERROR_RETURN;
  commrt_context *ctx =
      test::initMpiTest(&argc, &argv, 60000, &s, &returnErrors);
  if (!ctx)
    return 1;
  int size = static_cast<int>(s);

  std::vector<Group> groups;
  Group world{"world", {}, size};
  Group reversed{"reversed", {}, size};
  for (int i = 0; i < size; ++i) {
    world.ranks.push_back(i);
    reversed.ranks.push_back(size - 1 - i);
  }
  groups.push_back(world);
  groups.push_back(reversed);
  if (size >= 4 && size % 2 == 0)
    groups.push_back({"pairs", world.ranks, 2});
  if (size >= 3) {
    // The odd ranks in no group (they skip).
    Group evens{"evens", {}, 0};
    for (int i = 0; i < size; i += 2)
      evens.ranks.push_back(i);
    evens.groupSize = static_cast<int64_t>(evens.ranks.size());
    groups.push_back(evens);
  }

  for (const Group &g : groups) {
    commrt_comm *comm = nullptr;
    CHECK_OK(commrt_comm_create(ctx, g.ranks.data(),
                                static_cast<int64_t>(g.ranks.size()),
                                g.groupSize, &comm));
    if (!comm)
      continue;
    Tester t(comm, g);
    t.all();
    t.concurrent();
    if (&g == &groups.front())
      t.errors();
    commrt_comm_destroy(comm);
  }

  // Not inside a group.
  commrt_comm *comm = nullptr;
  CHECK_OK(commrt_comm_create(ctx, world.ranks.data(), size, size, &comm));
  int32_t a = 1, b = 0;
  commrt_plan ring{COMMRT_ALGORITHM_RING, 0, 0};
  CHECK_OK(commrt_group_start(ctx));
  CHECK_STATUS(commrt_collective_planned(comm, COMMRT_COLLECTIVE_ALL_REDUCE, &a,
                                         &b, 1, COMMRT_I32, COMMRT_SUM, 0,
                                         &ring, nullptr, nullptr),
               COMMRT_ERROR_INVALID_STATE,
               "cannot run inside commrt_group_start/end");
  CHECK_OK(commrt_group_end(ctx));
  commrt_comm_destroy(comm);

  int code = summary("algorithms");
  commrt_finalize(ctx);
  return code;
}
