//===- test/CollectivesTest.cpp - Every collective on mpi -------*- C++ -*-===//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//
//
// Run with 4 ranks. For several group layouts (the world, [[0, 1], [2, 3]],
// [[0, 2], [1, 3]], the world reversed, and [[2, 0]] which leaves ranks 1
// and 3 in no group), every dtype, sizes 0, 1, 7 and 1000 elements, and both
// the blocking and the non-blocking form, every collective is checked
// against its closed form: exact for integers and for small integer values
// in floating point, within a tolerance for fractional bf16/f16/f32 sums.
// A few MiB-sized operations and the in-place forms are checked too.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include <chrono>
#include <deque>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

using namespace test;

namespace {

int worldSize = 0;

/// A host buffer of any dtype, read and written as double.
class Buf {
public:
  Buf(commrt_dtype type, size_t n)
      : type(type), n(n), bytes(n * commrt_dtype_size(type) + 1, 0xa5) {}
  void *data() { return bytes.data(); }
  size_t size() const { return n; }
  void set(size_t i, double v) {
    store(bytes.data() + i * commrt_dtype_size(type), type, v);
  }
  double get(size_t i) const {
    const unsigned char *p = bytes.data() + i * commrt_dtype_size(type);
    switch (type) {
    case COMMRT_F32: {
      float x;
      std::memcpy(&x, p, 4);
      return x;
    }
    case COMMRT_F64: {
      double x;
      std::memcpy(&x, p, 8);
      return x;
    }
    case COMMRT_BF16: {
      uint16_t x;
      std::memcpy(&x, p, 2);
      return fromBits(uint32_t(x) << 16);
    }
    case COMMRT_F16: {
      uint16_t x;
      std::memcpy(&x, p, 2);
      return refF16ToDouble(x);
    }
    case COMMRT_I8: {
      int8_t x;
      std::memcpy(&x, p, 1);
      return x;
    }
    case COMMRT_U8: {
      uint8_t x;
      std::memcpy(&x, p, 1);
      return x;
    }
    case COMMRT_I32: {
      int32_t x;
      std::memcpy(&x, p, 4);
      return x;
    }
    case COMMRT_U32: {
      uint32_t x;
      std::memcpy(&x, p, 4);
      return x;
    }
    case COMMRT_I64: {
      int64_t x;
      std::memcpy(&x, p, 8);
      return static_cast<double>(x);
    }
    case COMMRT_U64: {
      uint64_t x;
      std::memcpy(&x, p, 8);
      return static_cast<double>(x);
    }
    }
    return 0;
  }

  commrt_dtype type;

private:
  size_t n;
  std::vector<unsigned char> bytes;
};

bool isFloat(commrt_dtype t) {
  return t == COMMRT_F32 || t == COMMRT_F64 || t == COMMRT_F16 ||
         t == COMMRT_BF16;
}
bool isUnsigned(commrt_dtype t) {
  return t == COMMRT_U8 || t == COMMRT_U32 || t == COMMRT_U64;
}

/// The input of the rank at group position \p p, element \p i, for \p op:
/// small integers, so that every result is exact in every dtype.
double value(commrt_dtype t, commrt_redop op, int p, size_t i) {
  if (op == COMMRT_PROD)
    return 1 + static_cast<double>((p + i) % 3);
  if (op >= COMMRT_BAND)
    return static_cast<double>((p * 37 + i * 11) & 0x7f);
  double v = (p + 1) * 3 + static_cast<double>(i % 7);
  return isUnsigned(t) ? v : v - 10;
}

/// Closed form of the reduction over the positions 0..n-1.
double reduced(commrt_dtype t, commrt_redop op, int n, size_t i) {
  double acc = value(t, op, 0, i);
  for (int p = 1; p < n; ++p) {
    double v = value(t, op, p, i);
    int64_t a = static_cast<int64_t>(acc), b = static_cast<int64_t>(v);
    switch (op) {
    case COMMRT_SUM:
    case COMMRT_AVG:
      acc += v;
      break;
    case COMMRT_PROD:
      acc *= v;
      break;
    case COMMRT_MIN:
      acc = std::min(acc, v);
      break;
    case COMMRT_MAX:
      acc = std::max(acc, v);
      break;
    case COMMRT_BAND:
      acc = static_cast<double>(a & b);
      break;
    case COMMRT_BOR:
      acc = static_cast<double>(a | b);
      break;
    case COMMRT_BXOR:
      acc = static_cast<double>(a ^ b);
      break;
    }
  }
  if (op == COMMRT_AVG)
    acc = isFloat(t) ? acc / n : std::trunc(acc / n);
  return acc;
}

std::vector<commrt_redop> opsFor(commrt_dtype t) {
  std::vector<commrt_redop> ops = {COMMRT_SUM, COMMRT_PROD, COMMRT_MIN,
                                   COMMRT_MAX, COMMRT_AVG};
  if (!isFloat(t))
    for (commrt_redop op : {COMMRT_BAND, COMMRT_BOR, COMMRT_BXOR})
      ops.push_back(op);
  return ops;
}

/// One operation of a batch: start (blocking when req is NULL) and check.
struct Op {
  std::function<commrt_status(commrt_request **)> start;
  std::function<void()> check;
};

/// Runs a batch blocking (one after the other) or non-blocking (all started,
/// then the first polled with commrt_test, then all waited for).
void runBatch(std::vector<Op> &ops, bool nonBlocking, const std::string &what) {
  if (!nonBlocking) {
    for (Op &op : ops) {
      commrt_status s = op.start(nullptr);
      CHECK_MSG(s == COMMRT_SUCCESS, "%s: %s", what.c_str(),
                commrt_last_error());
      op.check();
    }
    return;
  }
  std::vector<commrt_request *> reqs(ops.size(), nullptr);
  for (size_t i = 0; i < ops.size(); ++i) {
    commrt_status s = ops[i].start(&reqs[i]);
    CHECK_MSG(s == COMMRT_SUCCESS && reqs[i], "%s: start: %s", what.c_str(),
              commrt_last_error());
  }
  if (!reqs.empty() && reqs[0]) {
    int done = 0;
    for (int spins = 0; !done && spins < 1000000; ++spins)
      CHECK_OK(commrt_test(reqs[0], &done));
    CHECK(done == 1);
  }
  commrt_status s =
      commrt_wait_all(reqs.data(), static_cast<int64_t>(reqs.size()));
  CHECK_MSG(s == COMMRT_SUCCESS, "%s: wait: %s", what.c_str(),
            commrt_last_error());
  for (Op &op : ops)
    op.check();
}

/// Tolerance of fractional results per dtype.
double tolerance(commrt_dtype t, double want) {
  double rel = t == COMMRT_BF16  ? 2e-2
               : t == COMMRT_F16 ? 4e-3
               : t == COMMRT_F32 ? 1e-6
                                 : 1e-12;
  return rel * std::fabs(want) + 1e-6;
}

struct Layout {
  const char *name;
  std::vector<int64_t> ranks;
  int64_t groupSize;
};

class Tester {
public:
  Tester(commrt_context *, commrt_comm *comm, const Layout &layout)
      : comm(comm), layout(layout) {
    int64_t v;
    commrt_comm_rank(comm, &v);
    pos = static_cast<int>(v);
    commrt_comm_size(comm, &v);
    n = static_cast<int>(v);
  }

  void run(commrt_dtype t, size_t count, bool nonBlocking) {
    std::string what =
        str("%s %s count %zu %s", layout.name, commrt_dtype_name(t), count,
            nonBlocking ? "non-blocking" : "blocking");
    std::vector<Op> ops;
    allReduce(ops, t, count, what);
    reduceScatter(ops, t, count, what);
    allGather(ops, t, count, what);
    allToAll(ops, t, count, what);
    broadcast(ops, t, count, what);
    reduce(ops, t, count, what);
    ops.push_back({[this](commrt_request **r) {
                     return r ? commrt_ibarrier(comm, nullptr, r)
                              : commrt_barrier(comm, nullptr);
                   },
                   [] {}});
    runBatch(ops, nonBlocking, what);
    bufs.clear();
  }

  /// Fractional values, checked with a tolerance.
  void runFractional(commrt_dtype t, size_t count) {
    Buf &send = make(t, count), &recv = make(t, count);
    auto frac = [](int p, size_t i) { return (p + 1) * 0.1 + i * 1e-3; };
    for (size_t i = 0; i < count; ++i)
      send.set(i, frac(pos, i));
    CHECK_OK(commrt_all_reduce(comm, send.data(), recv.data(),
                               static_cast<int64_t>(count), t, COMMRT_SUM,
                               nullptr));
    long bad = 0;
    for (size_t i = 0; i < count; ++i) {
      double want = 0;
      for (int p = 0; p < n; ++p)
        want += frac(p, i);
      if (std::fabs(recv.get(i) - want) > tolerance(t, want))
        ++bad;
    }
    CHECK_MSG(bad == 0,
              "%s fractional all_reduce %s: %ld of %zu beyond "
              "tolerance",
              layout.name, commrt_dtype_name(t), bad, count);
    bufs.clear();
  }

  /// MiB-sized operations.
  void runLarge() {
    const size_t count = size_t(1) << 20; // 4 MiB of f32
    for (commrt_dtype t : {COMMRT_F32, COMMRT_BF16}) {
      std::string what = str("%s large %s", layout.name, commrt_dtype_name(t));
      std::vector<Op> ops;
      allReduce(ops, t, count, what, /*opsOnly=*/{COMMRT_SUM});
      if (t == COMMRT_F32) {
        reduceScatter(ops, t, count / n, what);
        allGather(ops, t, count / n, what);
      }
      runBatch(ops, false, what);
      bufs.clear();
    }
  }

private:
  Buf &make(commrt_dtype t, size_t count) {
    bufs.emplace_back(t, count);
    return bufs.back();
  }

  Buf &input(commrt_dtype t, commrt_redop op, size_t count, int position) {
    Buf &b = make(t, count);
    for (size_t i = 0; i < count; ++i)
      b.set(i, value(t, op, position, i));
    return b;
  }

  void expect(const Buf &got, size_t offset, size_t count,
              const std::function<double(size_t)> &want,
              const std::string &what) {
    long bad = 0;
    size_t firstBad = 0;
    for (size_t i = 0; i < count; ++i)
      if (got.get(offset + i) != want(i) && !bad++)
        firstBad = i;
    CHECK_MSG(bad == 0, "%s: %ld of %zu wrong, first at %zu: got %g want %g",
              what.c_str(), bad, count, firstBad,
              bad ? got.get(offset + firstBad) : 0.0,
              bad ? want(firstBad) : 0.0);
  }

  void allReduce(std::vector<Op> &ops, commrt_dtype t, size_t count,
                 const std::string &what, std::vector<commrt_redop> only = {}) {
    std::vector<commrt_redop> list = only.empty() ? opsFor(t) : only;
    for (commrt_redop op : list) {
      Buf &send = input(t, op, count, pos), &recv = make(t, count);
      ops.push_back(
          {[=, &send, &recv](commrt_request **r) {
             return r ? commrt_iall_reduce(comm, send.data(), recv.data(),
                                           static_cast<int64_t>(count), t, op,
                                           nullptr, r)
                      : commrt_all_reduce(comm, send.data(), recv.data(),
                                          static_cast<int64_t>(count), t, op,
                                          nullptr);
           },
           [=, &recv] {
             expect(
                 recv, 0, count, [&](size_t i) { return reduced(t, op, n, i); },
                 what + str(" all_reduce op %d", op));
           }});
    }
    if (!only.empty())
      return;
    // In place.
    Buf &inout = input(t, COMMRT_MAX, count, pos);
    ops.push_back(
        {[=, &inout](commrt_request **r) {
           return r ? commrt_iall_reduce(comm, inout.data(), inout.data(),
                                         static_cast<int64_t>(count), t,
                                         COMMRT_MAX, nullptr, r)
                    : commrt_all_reduce(comm, inout.data(), inout.data(),
                                        static_cast<int64_t>(count), t,
                                        COMMRT_MAX, nullptr);
         },
         [=, &inout] {
           expect(
               inout, 0, count,
               [&](size_t i) { return reduced(t, COMMRT_MAX, n, i); },
               what + " all_reduce in place");
         }});
  }

  void reduceScatter(std::vector<Op> &ops, commrt_dtype t, size_t count,
                     const std::string &what) {
    for (commrt_redop op : {COMMRT_SUM, COMMRT_MIN, COMMRT_AVG}) {
      Buf &send = input(t, op, count * n, pos), &recv = make(t, count);
      ops.push_back(
          {[=, &send, &recv](commrt_request **r) {
             return r ? commrt_ireduce_scatter(comm, send.data(), recv.data(),
                                               static_cast<int64_t>(count), t,
                                               op, nullptr, r)
                      : commrt_reduce_scatter(comm, send.data(), recv.data(),
                                              static_cast<int64_t>(count), t,
                                              op, nullptr);
           },
           [=, &recv] {
             expect(
                 recv, 0, count,
                 [&](size_t i) { return reduced(t, op, n, pos * count + i); },
                 what + str(" reduce_scatter op %d", op));
           }});
    }
  }

  void allGather(std::vector<Op> &ops, commrt_dtype t, size_t count,
                 const std::string &what) {
    Buf &send = input(t, COMMRT_SUM, count, pos), &recv = make(t, count * n);
    auto check = [=](Buf &out, const std::string &label) {
      for (int p = 0; p < n; ++p)
        expect(
            out, p * count, count,
            [&](size_t i) { return value(t, COMMRT_SUM, p, i); },
            what + label + str(" block %d", p));
    };
    ops.push_back({[=, &send, &recv](commrt_request **r) {
                     return r ? commrt_iall_gather(
                                    comm, send.data(), recv.data(),
                                    static_cast<int64_t>(count), t, nullptr, r)
                              : commrt_all_gather(
                                    comm, send.data(), recv.data(),
                                    static_cast<int64_t>(count), t, nullptr);
                   },
                   [=, &recv] { check(recv, " all_gather"); }});
    // In place: this rank's block already sits in the receive buffer.
    Buf &inout = make(t, count * n);
    for (size_t i = 0; i < count; ++i)
      inout.set(pos * count + i, value(t, COMMRT_SUM, pos, i));
    size_t elt = commrt_dtype_size(t);
    ops.push_back({[=, &inout](commrt_request **r) {
                     void *mine =
                         static_cast<char *>(inout.data()) + pos * count * elt;
                     return r ? commrt_iall_gather(comm, mine, inout.data(),
                                                   static_cast<int64_t>(count),
                                                   t, nullptr, r)
                              : commrt_all_gather(comm, mine, inout.data(),
                                                  static_cast<int64_t>(count),
                                                  t, nullptr);
                   },
                   [=, &inout] { check(inout, " all_gather in place"); }});
  }

  void allToAll(std::vector<Op> &ops, commrt_dtype t, size_t count,
                const std::string &what) {
    // Block j of position p holds value(p * n + j, i).
    auto fill = [=](Buf &b) {
      for (int j = 0; j < n; ++j)
        for (size_t i = 0; i < count; ++i)
          b.set(j * count + i, value(t, COMMRT_SUM, pos * n + j, i));
    };
    auto check = [=](Buf &out, const std::string &label) {
      for (int p = 0; p < n; ++p)
        expect(
            out, p * count, count,
            [&](size_t i) { return value(t, COMMRT_SUM, p * n + pos, i); },
            what + label + str(" block %d", p));
    };
    Buf &send = make(t, count * n), &recv = make(t, count * n);
    fill(send);
    ops.push_back({[=, &send, &recv](commrt_request **r) {
                     return r ? commrt_iall_to_all(
                                    comm, send.data(), recv.data(),
                                    static_cast<int64_t>(count), t, nullptr, r)
                              : commrt_all_to_all(
                                    comm, send.data(), recv.data(),
                                    static_cast<int64_t>(count), t, nullptr);
                   },
                   [=, &recv] { check(recv, " all_to_all"); }});
    Buf &inout = make(t, count * n);
    fill(inout);
    ops.push_back({[=, &inout](commrt_request **r) {
                     return r ? commrt_iall_to_all(
                                    comm, inout.data(), inout.data(),
                                    static_cast<int64_t>(count), t, nullptr, r)
                              : commrt_all_to_all(
                                    comm, inout.data(), inout.data(),
                                    static_cast<int64_t>(count), t, nullptr);
                   },
                   [=, &inout] { check(inout, " all_to_all in place"); }});
  }

  void broadcast(std::vector<Op> &ops, commrt_dtype t, size_t count,
                 const std::string &what) {
    for (int root = 0; root < n; ++root) {
      bool inPlace = root % 2 == 1;
      Buf &send = input(t, COMMRT_SUM, count, pos);
      Buf &recv = inPlace ? send : make(t, count);
      ops.push_back(
          {[=, &send, &recv](commrt_request **r) {
             // Only the root's send is read; others pass NULL.
             const void *s = pos == root ? send.data() : nullptr;
             if (inPlace)
               s = send.data();
             return r ? commrt_ibroadcast(comm, s, recv.data(),
                                          static_cast<int64_t>(count), t, root,
                                          nullptr, r)
                      : commrt_broadcast(comm, s, recv.data(),
                                         static_cast<int64_t>(count), t, root,
                                         nullptr);
           },
           [=, &recv] {
             expect(
                 recv, 0, count,
                 [&](size_t i) { return value(t, COMMRT_SUM, root, i); },
                 what + str(" broadcast root %d%s", root,
                            inPlace ? " in place" : ""));
           }});
    }
  }

  void reduce(std::vector<Op> &ops, commrt_dtype t, size_t count,
              const std::string &what) {
    for (int root = 0; root < n; ++root) {
      commrt_redop op = root % 2 ? COMMRT_MIN : COMMRT_SUM;
      bool inPlace = root == n - 1;
      Buf &send = input(t, op, count, pos);
      Buf &recv = inPlace ? send : make(t, count);
      ops.push_back({[=, &send, &recv](commrt_request **r) {
                       return r ? commrt_ireduce(comm, send.data(), recv.data(),
                                                 static_cast<int64_t>(count), t,
                                                 op, root, nullptr, r)
                                : commrt_reduce(comm, send.data(), recv.data(),
                                                static_cast<int64_t>(count), t,
                                                op, root, nullptr);
                     },
                     [=, &recv] {
                       // Non-root ranks get their own input back (comm
                       // semantics).
                       expect(
                           recv, 0, count,
                           [&](size_t i) {
                             return pos == root ? reduced(t, op, n, i)
                                                : value(t, op, pos, i);
                           },
                           what + str(" reduce root %d%s", root,
                                      inPlace ? " in place" : ""));
                     }});
    }
  }

  commrt_comm *comm;
  const Layout &layout;
  int pos = 0, n = 1;
  std::deque<Buf> bufs;
};

} // namespace

int main(int argc, char **argv) {
  int64_t s = 0;
  commrt_context *ctx = test::initMpiTest(&argc, &argv, 30000, &s);
  if (!ctx)
    return 1;
  worldSize = static_cast<int>(s);
  if (worldSize != 4) {
    std::fprintf(stderr, "run this test with 4 ranks (got %d)\n", worldSize);
    commrt_finalize(ctx);
    return 1;
  }
  auto start = std::chrono::steady_clock::now();

  std::vector<Layout> layouts = {
      {"world", {0, 1, 2, 3}, 4},
      {"[[0,1],[2,3]]", {0, 1, 2, 3}, 2},
      {"[[0,2],[1,3]]", {0, 2, 1, 3}, 2},
      {"[[3,2,1,0]]", {3, 2, 1, 0}, 4},
      {"[[2,0]]", {2, 0}, 2},
  };
  const commrt_dtype dtypes[] = {
      COMMRT_F32, COMMRT_F64, COMMRT_F16, COMMRT_BF16, COMMRT_I8,
      COMMRT_U8,  COMMRT_I32, COMMRT_U32, COMMRT_I64,  COMMRT_U64};
  for (const Layout &layout : layouts) {
    commrt_comm *comm = nullptr;
    CHECK_OK(commrt_comm_create(ctx, layout.ranks.data(),
                                static_cast<int64_t>(layout.ranks.size()),
                                layout.groupSize, &comm));
    bool member = false;
    for (int64_t x : layout.ranks)
      member |= x == test::rank;
    CHECK_MSG((comm != nullptr) == member, "%s: comm is %s on rank %d",
              layout.name, comm ? "set" : "NULL", test::rank);
    // Cached: a second create is the same handle, without communicating.
    commrt_comm *again = nullptr;
    CHECK_OK(commrt_comm_create(ctx, layout.ranks.data(),
                                static_cast<int64_t>(layout.ranks.size()),
                                layout.groupSize, &again));
    CHECK(again == comm);
    commrt_comm_destroy(again);
    if (!comm)
      continue;
    int64_t position = -1, worldRank = -1;
    commrt_comm_rank(comm, &position);
    commrt_comm_world_rank(comm, position, &worldRank);
    CHECK(worldRank == test::rank);

    Tester tester(ctx, comm, layout);
    // Every dtype on the world; on the other groups, which test the
    // mapping of positions to ranks rather than the kernels, one of each
    // kind: 4-byte float, half, 1-byte and 8-byte integer.
    const std::vector<commrt_dtype> some = {COMMRT_F32, COMMRT_BF16, COMMRT_I8,
                                            COMMRT_U64};
    for (commrt_dtype t :
         layout.name == std::string("world")
             ? std::vector<commrt_dtype>(std::begin(dtypes), std::end(dtypes))
             : some)
      for (size_t count : {size_t(0), size_t(1), size_t(7), size_t(1000)})
        for (bool nonBlocking : {false, true})
          tester.run(t, count, nonBlocking);
    for (commrt_dtype t : {COMMRT_F32, COMMRT_F16, COMMRT_BF16})
      tester.runFractional(t, 4099);
    if (layout.ranks.size() == 4)
      tester.runLarge();
  }

  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (test::rank == 0)
    std::printf("collectives took %.2f s\n", seconds);
  CHECK_OK(commrt_finalize(ctx));
  return summary("collectives");
}
