//===- lib/Schedule.cpp - Planned collectives as schedules ------*- C++ -*-===//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//
//
// A planned collective (commrt_collective_planned) runs as a schedule that
// commrt builds from the backend's point-to-point transfers and local
// reductions, so that the algorithm of a #comm.plan is the one on the wire.
//
// The buffer is cut into channels (contiguous slices) and each channel into
// chunks of chunk_bytes; every chunk runs the whole algorithm on its
// elements as a program of steps. A step is a set of sends and receives
// between group positions followed by local work (reductions of received
// data, copies, the division of an average). Steps of one chunk run in
// order; chunks run concurrently:
//
//  - on a polled backend (mpi) each channel keeps up to `window` chunks in
//    flight, each advancing as its transfers complete; a chunk's transfers
//    carry a tag made of the schedule's sequence number on the
//    communicator and the chunk's slot, so that concurrent chunks and
//    concurrent schedules never match each other's messages (chunks that
//    reuse a slot run one after the other on every rank, and MPI keeps the
//    order of messages with equal tags);
//  - on a stream-ordered backend (nccl) the steps of all chunks are
//    enqueued at once as groups of transfers, each group's local work
//    after it on the same stream; the chunks of a channel enter one group
//    apart (chunk j's step s is in group s + j), a pipeline.
//
// A hierarchical schedule has two levels: inside each machine and across
// machines, or, for a group inside one machine, inside each CPU socket and
// across the sockets (a PCIe server's GPUs hang off two CPUs, and the link
// between the CPUs is the slowest on the way).
//
// Each segment of a reduction is reduced by exactly one rank and then
// copied to the others, so every rank ends with the same bits.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"
#include "Kernels.h"

#if COMMRT_HAVE_CUDA
#include "../cuda/Cuda.h"
#endif

#include <algorithm>
#include <climits>
#include <cstring>
#include <functional>

using namespace commrt;

namespace {

//===----------------------------------------------------------------------===//
// Programs
//===----------------------------------------------------------------------===//

/// The buffers a program refers to: the caller's receive buffer, the
/// chunk's scratch, the caller's send buffer.
enum class Buf : uint8_t { Work, Temp, Send };

/// Elements [offset, offset + count) of a buffer.
struct Ref {
  Buf buf = Buf::Work;
  int64_t offset = 0;
  int64_t count = 0;
};

struct Xfer {
  bool isSend;
  int peer; ///< Group position.
  Ref ref;
};

enum class LocalKind : uint8_t { Reduce, Copy, Average };

struct Local {
  LocalKind kind;
  Ref dst, src; ///< Reduce: dst = dst op src. Average: dst only.
};

struct Step {
  std::vector<Xfer> xfers;
  std::vector<Local> locals;
};

/// Part \p i of \p parts nearly equal parts of \p whole.
Ref part(Ref whole, int parts, int i) {
  int64_t base = whole.count / parts, extra = whole.count % parts;
  Ref r = whole;
  r.offset = whole.offset + i * base + std::min<int64_t>(i, extra);
  r.count = base + (i < extra ? 1 : 0);
  return r;
}

/// The union of parts [first, last) of part(whole, parts, .).
Ref parts(Ref whole, int n, int first, int last) {
  Ref a = part(whole, n, first), b = part(whole, n, last - 1);
  a.count = b.offset + b.count - a.offset;
  return a;
}

int wrap(int x, int m) { return ((x % m) + m) % m; }

/// Segment \p j of a ring or of a direct exchange.
using Segments = std::function<Ref(int)>;

/// Segment \p j as several references (the blocks one member of a
/// two-level schedule handles, one from every node).
using SegmentSets = std::function<std::vector<Ref>(int)>;

/// Segments [first, last) as few references as their layout allows
/// (adjacent segments of one buffer merge into one).
std::vector<Ref> range(const Segments &seg, int first, int last) {
  std::vector<Ref> refs;
  for (int j = first; j < last; ++j) {
    Ref r = seg(j);
    if (!r.count)
      continue;
    if (!refs.empty() && refs.back().buf == r.buf &&
        refs.back().offset + refs.back().count == r.offset)
      refs.back().count += r.count;
    else
      refs.push_back(r);
  }
  return refs;
}

/// The members of \p group listed from index \p first on, wrapping around.
std::vector<int> rotate(const std::vector<int> &group, int first) {
  std::vector<int> m;
  for (size_t i = 0; i < group.size(); ++i)
    m.push_back(group[(static_cast<size_t>(first) + i) % group.size()]);
  return m;
}

/// Recursive halving and doubling over n members: the largest power of two
/// p2 <= n take part; each of the first n - p2 of them (virtual member u)
/// stands in for members 2u and 2u + 1 and owns both their segments.
struct Fold {
  explicit Fold(int n) : n(n) {
    while (p2 * 2 <= n)
      p2 *= 2;
    extra = n - p2;
  }
  int n, p2 = 1, extra;
  /// Whether member \p me sits out, its segment kept by member me + 1.
  bool folded(int me) const { return me < 2 * extra && me % 2 == 0; }
  /// Virtual index of a member that takes part.
  int virtualOf(int me) const { return me < 2 * extra ? me / 2 : me - extra; }
  /// The member standing for virtual index \p v.
  int memberOf(int v) const { return v < extra ? 2 * v + 1 : v + extra; }
  /// The first segment virtual index \p v owns (n for v == p2).
  int firstSegment(int v) const { return v < extra ? 2 * v : v + extra; }
};

/// Builds the program of one chunk on one rank. Members are group
/// positions; \p me is this rank's index among them.
class Builder {
public:
  explicit Builder(commrt_redop op) : op(op) {}

  std::vector<Step> steps;
  /// Elements of scratch the program uses.
  int64_t tempElems = 0;

  Step &step() {
    steps.emplace_back();
    return steps.back();
  }
  Ref temp(int64_t offset, int64_t count) {
    tempElems = std::max(tempElems, offset + count);
    return Ref{Buf::Temp, offset, count};
  }
  static void send(Step &s, int peer, Ref r) {
    if (r.count)
      s.xfers.push_back({true, peer, r});
  }
  static void recv(Step &s, int peer, Ref r) {
    if (r.count)
      s.xfers.push_back({false, peer, r});
  }
  static void reduce(Step &s, Ref dst, Ref src) {
    if (dst.count)
      s.locals.push_back({LocalKind::Reduce, dst, src});
  }
  static void copy(Step &s, Ref dst, Ref src) {
    if (dst.count)
      s.locals.push_back({LocalKind::Copy, dst, src});
  }
  void average(Ref r) {
    if (op == COMMRT_AVG && r.count)
      step().locals.push_back({LocalKind::Average, r, r});
  }

  /// Ring reduce-scatter: afterwards member `me` holds the reduction of
  /// segment (me + own) mod n.
  void ringReduceScatter(const std::vector<int> &m, int me, Segments seg,
                         int own, int64_t tempBase) {
    int n = static_cast<int>(m.size());
    for (int k = 0; k + 1 < n; ++k) {
      Step &s = step();
      Ref in = seg(wrap(me + own - 2 - k, n));
      Ref t = temp(tempBase, in.count);
      send(s, m[wrap(me + 1, n)], seg(wrap(me + own - 1 - k, n)));
      recv(s, m[wrap(me - 1, n)], t);
      reduce(s, in, t);
    }
  }

  /// Ring all-gather: member `me` starts with segment (me + own) mod n.
  void ringAllGather(const std::vector<int> &m, int me, Segments seg, int own) {
    ringAllGatherSets(
        m, me, [seg](int j) { return std::vector<Ref>{seg(j)}; }, own);
  }

  /// Ring all-gather of segments made of several references each: every
  /// reference travels as its own message, in the same order on both sides.
  void ringAllGatherSets(const std::vector<int> &m, int me, SegmentSets seg,
                         int own) {
    int n = static_cast<int>(m.size());
    for (int k = 0; k + 1 < n; ++k) {
      Step &s = step();
      for (Ref r : seg(wrap(me + own - k, n)))
        send(s, m[wrap(me + 1, n)], r);
      for (Ref r : seg(wrap(me + own - k - 1, n)))
        recv(s, m[wrap(me - 1, n)], r);
    }
  }

  void ringAllReduce(const std::vector<int> &m, int me, Ref work,
                     int64_t tempBase) {
    int n = static_cast<int>(m.size());
    Segments seg = [=](int j) { return part(work, n, j); };
    ringReduceScatter(m, me, seg, 1, tempBase);
    ringAllGather(m, me, seg, 1);
  }

  /// Direct reduce-scatter: member `me` reduces segment me, received from
  /// every other member at once.
  void directReduceScatter(const std::vector<int> &m, int me, Segments seg,
                           int64_t tempBase) {
    int n = static_cast<int>(m.size());
    if (n == 1)
      return;
    Step &s = step();
    Ref mine = seg(me);
    int slot = 0;
    std::vector<Ref> slots;
    for (int j = 0; j < n; ++j) {
      if (j == me)
        continue;
      send(s, m[j], seg(j));
      Ref t = temp(tempBase + slot++ * mine.count, mine.count);
      recv(s, m[j], t);
      slots.push_back(t);
    }
    for (Ref t : slots)
      reduce(s, mine, t);
  }

  void directAllGather(const std::vector<int> &m, int me, Segments seg) {
    int n = static_cast<int>(m.size());
    if (n == 1)
      return;
    Step &s = step();
    for (int j = 0; j < n; ++j)
      if (j != me) {
        send(s, m[j], seg(me));
        recv(s, m[j], seg(j));
      }
  }

  /// Binomial-tree reduce of `work` to member 0 (members in tree order).
  void treeReduce(const std::vector<int> &m, int me, Ref work,
                  int64_t tempBase) {
    int n = static_cast<int>(m.size());
    for (int mask = 1; mask < n; mask <<= 1) {
      if (me & mask) {
        send(step(), m[me - mask], work);
        return;
      }
      if (me + mask < n) {
        Step &s = step();
        Ref t = temp(tempBase, work.count);
        recv(s, m[me + mask], t);
        reduce(s, work, t);
      }
    }
  }

  /// Binomial-tree broadcast of `work` from member 0.
  void treeBroadcast(const std::vector<int> &m, int me, Ref work) {
    int n = static_cast<int>(m.size());
    int top = 1;
    while (top < n)
      top <<= 1;
    int low = top;
    if (me != 0) {
      low = me & -me;
      recv(step(), m[me - low], work);
    }
    Step sends;
    for (int mask = low >> 1; mask >= 1; mask >>= 1)
      if (me + mask < n)
        send(sends, m[me + mask], work);
    if (!sends.xfers.empty())
      steps.push_back(std::move(sends));
  }

  /// Chain from member 0 to member n - 1.
  void chainBroadcast(const std::vector<int> &m, int me, Ref work) {
    int n = static_cast<int>(m.size());
    if (me > 0)
      recv(step(), m[me - 1], work);
    if (me + 1 < n)
      send(step(), m[me + 1], work);
  }

  /// Chain from member n - 1 down to member 0, reducing on the way.
  void chainReduce(const std::vector<int> &m, int me, Ref work,
                   int64_t tempBase) {
    int n = static_cast<int>(m.size());
    if (me + 1 < n) {
      Step &s = step();
      Ref t = temp(tempBase, work.count);
      recv(s, m[me + 1], t);
      reduce(s, work, t);
    }
    if (me > 0)
      send(step(), m[me - 1], work);
  }

  /// Rabenseifner: fold the ranks above the largest power of two into
  /// partners, recursive-halving reduce-scatter, recursive-doubling
  /// all-gather, unfold.
  void halvingDoubling(const std::vector<int> &m, int me, Ref work,
                       int64_t tempBase) {
    int n = static_cast<int>(m.size());
    int p2 = 1;
    while (p2 * 2 <= n)
      p2 *= 2;
    int extra = n - p2;
    int v = -1; // Index among the p2 that take part.
    if (me < 2 * extra) {
      if (me % 2 == 0) {
        send(step(), m[me + 1], work);
        recv(step(), m[me + 1], work);
        return;
      }
      Step &s = step();
      Ref t = temp(tempBase, work.count);
      recv(s, m[me - 1], t);
      reduce(s, work, t);
      v = me / 2;
    } else {
      v = me - extra;
    }
    auto real = [&](int u) { return m[u < extra ? 2 * u + 1 : u + extra]; };
    int lo = 0;
    for (int d = p2 / 2; d >= 1; d /= 2) {
      int partner = v ^ d;
      int keepLo = (v & d) ? lo + d : lo;
      int giveLo = (v & d) ? lo : lo + d;
      Ref keep = parts(work, p2, keepLo, keepLo + d);
      Step &s = step();
      Ref t = temp(tempBase, keep.count);
      send(s, real(partner), parts(work, p2, giveLo, giveLo + d));
      recv(s, real(partner), t);
      reduce(s, keep, t);
      lo = keepLo;
    }
    for (int d = 1; d < p2; d *= 2) {
      int partner = v ^ d;
      int mine = (v / d) * d, theirs = (partner / d) * d;
      Step &s = step();
      send(s, real(partner), parts(work, p2, mine, mine + d));
      recv(s, real(partner), parts(work, p2, theirs, theirs + d));
    }
    if (me < 2 * extra)
      send(step(), m[me - 1], work);
  }

  static void send(Step &s, int peer, const std::vector<Ref> &refs) {
    for (Ref r : refs)
      send(s, peer, r);
  }
  static void recv(Step &s, int peer, const std::vector<Ref> &refs) {
    for (Ref r : refs)
      recv(s, peer, r);
  }
  /// Receives \p refs from \p peer into scratch at \p tempBase and reduces
  /// them in.
  void recvReduce(Step &s, int peer, const std::vector<Ref> &refs,
                  int64_t tempBase) {
    for (Ref r : refs) {
      Ref t = temp(tempBase, r.count);
      tempBase += r.count;
      recv(s, peer, t);
      reduce(s, r, t);
    }
  }

  /// Recursive-halving reduce-scatter: afterwards member `me` holds the
  /// reduction of segment me. Non-power-of-two groups fold first.
  void halvingReduceScatter(const std::vector<int> &m, int me, Segments seg,
                            int64_t tempBase) {
    int n = static_cast<int>(m.size());
    Fold f(n);
    if (f.folded(me)) {
      send(step(), m[me + 1], range(seg, 0, n));
      recv(step(), m[me + 1], seg(me));
      return;
    }
    if (me < 2 * f.extra)
      recvReduce(step(), m[me - 1], range(seg, 0, n), tempBase);
    int v = f.virtualOf(me), lo = 0;
    auto segments = [&](int first, int last) {
      return range(seg, f.firstSegment(first), f.firstSegment(last));
    };
    for (int d = f.p2 / 2; d >= 1; d /= 2) {
      int keepLo = (v & d) ? lo + d : lo;
      int giveLo = (v & d) ? lo : lo + d;
      Step &s = step();
      send(s, m[f.memberOf(v ^ d)], segments(giveLo, giveLo + d));
      recvReduce(s, m[f.memberOf(v ^ d)], segments(keepLo, keepLo + d),
                 tempBase);
      lo = keepLo;
    }
    if (me < 2 * f.extra)
      send(step(), m[me - 1], seg(me - 1));
  }

  /// Recursive-doubling all-gather: member `me` starts with segment me.
  void doublingAllGather(const std::vector<int> &m, int me, Segments seg) {
    int n = static_cast<int>(m.size());
    Fold f(n);
    if (f.folded(me)) {
      send(step(), m[me + 1], seg(me));
      Step &s = step();
      recv(s, m[me + 1], range(seg, 0, me));
      recv(s, m[me + 1], range(seg, me + 1, n));
      return;
    }
    if (me < 2 * f.extra)
      recv(step(), m[me - 1], seg(me - 1));
    int v = f.virtualOf(me);
    auto segments = [&](int first, int last) {
      return range(seg, f.firstSegment(first), f.firstSegment(last));
    };
    for (int d = 1; d < f.p2; d *= 2) {
      int partner = v ^ d;
      int mine = (v / d) * d, theirs = (partner / d) * d;
      Step &s = step();
      send(s, m[f.memberOf(partner)], segments(mine, mine + d));
      recv(s, m[f.memberOf(partner)], segments(theirs, theirs + d));
    }
    if (me < 2 * f.extra) {
      Step &s = step();
      send(s, m[me - 1], range(seg, 0, me - 1));
      send(s, m[me - 1], range(seg, me, n));
    }
  }

  /// Binomial-tree scatter from member 0: afterwards member `me` holds
  /// segment me (members in tree order).
  void treeScatter(const std::vector<int> &m, int me, Segments seg) {
    int n = static_cast<int>(m.size());
    int low = 1;
    while (low < n)
      low <<= 1;
    if (me != 0) {
      low = me & -me;
      recv(step(), m[me - low], range(seg, me, std::min(n, me + low)));
    }
    Step sends;
    for (int mask = low >> 1; mask >= 1; mask >>= 1)
      if (me + mask < n)
        send(sends, m[me + mask],
             range(seg, me + mask, std::min(n, me + 2 * mask)));
    if (!sends.xfers.empty())
      steps.push_back(std::move(sends));
  }

  /// Binomial-tree gather to member 0 of the segment each member holds.
  void treeGather(const std::vector<int> &m, int me, Segments seg) {
    int n = static_cast<int>(m.size());
    int low = 1;
    while (low < n)
      low <<= 1;
    if (me != 0)
      low = me & -me;
    Step recvs;
    for (int mask = 1; mask < low; mask <<= 1)
      if (me + mask < n)
        recv(recvs, m[me + mask],
             range(seg, me + mask, std::min(n, me + 2 * mask)));
    if (!recvs.xfers.empty())
      steps.push_back(std::move(recvs));
    if (me != 0)
      send(step(), m[me - low], range(seg, me, std::min(n, me + low)));
  }

private:
  commrt_redop op;
};

//===----------------------------------------------------------------------===//
// Building the chunks of one collective
//===----------------------------------------------------------------------===//

/// What every chunk's program is built from.
struct Plan {
  OpKind kind;
  commrt_algorithm algorithm;
  int size;     ///< Group size.
  int position; ///< This rank's position.
  int root;
  commrt_redop op; ///< SUM for AVG (the average divides at the end).
  commrt_redop userOp;
  bool sendIsWork;    ///< No copy of the input is needed.
  int64_t blockElems; ///< reduce_scatter/all_gather: elements per block.
  /// hierarchical: members of each node, and this rank's node and index.
  /// A `node` of the two levels is a machine, or, for a group inside one
  /// machine, a CPU socket (startNodes).
  std::vector<std::vector<int>> nodes;
  int node = 0, local = 0;
};

std::vector<int> iota(int n) {
  std::vector<int> m(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i)
    m[static_cast<size_t>(i)] = i;
  return m;
}

/// Members in the order of a rooted algorithm: the root first.
std::vector<int> rotated(int n, int root) {
  std::vector<int> m(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i)
    m[static_cast<size_t>(i)] = (root + i) % n;
  return m;
}

/// The node and the index within it of group position \p position.
std::pair<int, int> placeOf(const Plan &p, int position) {
  for (size_t x = 0; x < p.nodes.size(); ++x)
    for (size_t y = 0; y < p.nodes[x].size(); ++y)
      if (p.nodes[x][y] == position)
        return {static_cast<int>(x), static_cast<int>(y)};
  return {0, 0};
}

/// The members with index \p local within their node, one per node.
std::vector<int> acrossNodes(const Plan &p, int local) {
  std::vector<int> m;
  for (const std::vector<int> &members : p.nodes)
    m.push_back(members[static_cast<size_t>(local)]);
  return m;
}

/// The scratch slot of each position's block in a reduce_scatter: the
/// position itself, or for two levels (index within the
/// node) * nodes + node, so that the blocks one member handles within the
/// node are adjacent.
std::vector<int> slotsOf(const Plan &p) {
  std::vector<int> slot = iota(p.size);
  if (p.algorithm == COMMRT_ALGORITHM_HIERARCHICAL && !p.nodes.empty()) {
    int k = static_cast<int>(p.nodes.size());
    for (int x = 0; x < k; ++x)
      for (size_t y = 0; y < p.nodes[static_cast<size_t>(x)].size(); ++y)
        slot[static_cast<size_t>(p.nodes[static_cast<size_t>(x)][y])] =
            static_cast<int>(y) * k + x;
  }
  return slot;
}

/// The program of the chunk covering elements [a, a + u) of the buffer
/// (reduce_scatter/all_gather: of every block).
Builder buildChunk(const Plan &p, int64_t a, int64_t u) {
  Builder b(p.userOp);
  int n = p.size, me = p.position;
  std::vector<int> all = iota(n);
  Ref work{Buf::Work, a, u};
  Ref input{Buf::Send, a, u};
  bool twoLevel =
      p.algorithm == COMMRT_ALGORITHM_HIERARCHICAL && !p.nodes.empty();
  switch (p.kind) {
  case OpKind::AllReduce: {
    if (!p.sendIsWork)
      Builder::copy(b.step(), work, input);
    switch (p.algorithm) {
    case COMMRT_ALGORITHM_TREE:
      b.treeReduce(all, me, work, 0);
      b.treeBroadcast(all, me, work);
      break;
    case COMMRT_ALGORITHM_DIRECT: {
      Segments seg = [=](int j) { return part(work, n, j); };
      b.directReduceScatter(all, me, seg, 0);
      b.directAllGather(all, me, seg);
      break;
    }
    case COMMRT_ALGORITHM_HALVING_DOUBLING:
      b.halvingDoubling(all, me, work, 0);
      break;
    case COMMRT_ALGORITHM_HIERARCHICAL:
      if (twoLevel) {
        const std::vector<int> &intra = p.nodes[static_cast<size_t>(p.node)];
        int l = static_cast<int>(intra.size());
        Segments seg = [=](int j) { return part(work, l, j); };
        b.ringReduceScatter(intra, p.local, seg, 1, 0);
        b.ringAllReduce(acrossNodes(p, p.local), p.node,
                        seg(wrap(p.local + 1, l)), 0);
        b.ringAllGather(intra, p.local, seg, 1);
        break;
      }
      [[fallthrough]];
    default:
      b.ringAllReduce(all, me, work, 0);
      break;
    }
    b.average(work);
    break;
  }
  case OpKind::ReduceScatter: {
    // The chunk's part of every block, contiguous in scratch (in slot order:
    // the two-level schedule keeps the blocks of one local index together).
    std::vector<int> slot = slotsOf(p);
    Step &in = b.step();
    for (int j = 0; j < n; ++j)
      Builder::copy(in, b.temp(slot[static_cast<size_t>(j)] * u, u),
                    Ref{Buf::Send, j * p.blockElems + a, u});
    Segments seg = [u](int j) { return Ref{Buf::Temp, j * u, u}; };
    if (p.algorithm == COMMRT_ALGORITHM_DIRECT) {
      b.directReduceScatter(all, me, seg, n * u);
    } else if (p.algorithm == COMMRT_ALGORITHM_HALVING_DOUBLING) {
      b.halvingReduceScatter(all, me, seg, n * u);
    } else if (twoLevel) {
      // Within the node, member l reduces the blocks of local index l of
      // every node; across nodes, each reduces its own.
      int64_t k = static_cast<int64_t>(p.nodes.size());
      Segments perLocal = [=](int l) {
        return Ref{Buf::Temp, l * k * u, k * u};
      };
      b.ringReduceScatter(p.nodes[static_cast<size_t>(p.node)], p.local,
                          perLocal, 0, n * u);
      int64_t first = p.local * k;
      Segments perNode = [=](int j) {
        return Ref{Buf::Temp, (first + j) * u, u};
      };
      b.ringReduceScatter(acrossNodes(p, p.local), p.node, perNode, 0, n * u);
    } else {
      b.ringReduceScatter(all, me, seg, 0, n * u);
    }
    Builder::copy(b.step(), work, seg(slot[static_cast<size_t>(me)]));
    b.average(work);
    break;
  }
  case OpKind::AllGather: {
    int64_t block = p.blockElems;
    Segments seg = [=](int j) { return Ref{Buf::Work, j * block + a, u}; };
    if (!p.sendIsWork)
      Builder::copy(b.step(), seg(me), input);
    if (twoLevel) {
      // Across nodes among the members of this index within the node, then
      // within the node: member l forwards the blocks of index l of every
      // node, straight between the blocks of the receive buffers.
      Segments perNode = [=](int x) {
        return seg(
            p.nodes[static_cast<size_t>(x)][static_cast<size_t>(p.local)]);
      };
      b.ringAllGather(acrossNodes(p, p.local), p.node, perNode, 0);
      SegmentSets perLocal = [=](int l) {
        Segments ofNode = [&](int x) {
          return seg(p.nodes[static_cast<size_t>(x)][static_cast<size_t>(l)]);
        };
        return range(ofNode, 0, static_cast<int>(p.nodes.size()));
      };
      b.ringAllGatherSets(p.nodes[static_cast<size_t>(p.node)], p.local,
                          perLocal, 0);
      break;
    }
    if (p.algorithm == COMMRT_ALGORITHM_DIRECT)
      b.directAllGather(all, me, seg);
    else if (p.algorithm == COMMRT_ALGORITHM_HALVING_DOUBLING)
      b.doublingAllGather(all, me, seg);
    else
      b.ringAllGather(all, me, seg, 0);
    break;
  }
  case OpKind::Broadcast: {
    std::vector<int> m = rotated(n, p.root);
    int v = wrap(me - p.root, n);
    if (v == 0 && !p.sendIsWork)
      Builder::copy(b.step(), work, input);
    if (twoLevel) {
      // Across nodes among the root's local index, then within each node.
      auto [rootNode, rootLocal] = placeOf(p, p.root);
      int k = static_cast<int>(p.nodes.size());
      int l = static_cast<int>(p.nodes.front().size());
      if (p.local == rootLocal)
        b.treeBroadcast(rotate(acrossNodes(p, rootLocal), rootNode),
                        wrap(p.node - rootNode, k), work);
      b.treeBroadcast(rotate(p.nodes[static_cast<size_t>(p.node)], rootLocal),
                      wrap(p.local - rootLocal, l), work);
    } else if (p.algorithm == COMMRT_ALGORITHM_TREE ||
               p.algorithm == COMMRT_ALGORITHM_HIERARCHICAL) {
      b.treeBroadcast(m, v, work);
    } else if (p.algorithm == COMMRT_ALGORITHM_DIRECT) {
      Step &s = b.step();
      for (int j = 1; j < n; ++j)
        if (v == 0)
          Builder::send(s, m[static_cast<size_t>(j)], work);
      if (v != 0)
        Builder::recv(s, m[0], work);
    } else if (p.algorithm == COMMRT_ALGORITHM_HALVING_DOUBLING) {
      // Scatter, then all-gather (van de Geijn).
      Segments seg = [=](int j) { return part(work, n, j); };
      b.treeScatter(m, v, seg);
      b.doublingAllGather(m, v, seg);
    } else {
      b.chainBroadcast(m, v, work);
    }
    break;
  }
  case OpKind::Reduce: {
    std::vector<int> m = rotated(n, p.root);
    int v = wrap(me - p.root, n);
    // The root reduces into its receive buffer; the others into scratch,
    // and keep their input in the receive buffer (the comm dialect's
    // reduce).
    Ref acc = work;
    int64_t tempBase = 0;
    if (v != 0) {
      acc = b.temp(0, u);
      tempBase = u;
      Builder::copy(b.step(), acc, input);
    } else if (!p.sendIsWork) {
      Builder::copy(b.step(), work, input);
    }
    if (twoLevel) {
      // Within each node to the root's local index, then across nodes.
      auto [rootNode, rootLocal] = placeOf(p, p.root);
      int k = static_cast<int>(p.nodes.size());
      int l = static_cast<int>(p.nodes.front().size());
      b.treeReduce(rotate(p.nodes[static_cast<size_t>(p.node)], rootLocal),
                   wrap(p.local - rootLocal, l), acc, tempBase);
      if (p.local == rootLocal)
        b.treeReduce(rotate(acrossNodes(p, rootLocal), rootNode),
                     wrap(p.node - rootNode, k), acc, tempBase);
    } else if (p.algorithm == COMMRT_ALGORITHM_TREE ||
               p.algorithm == COMMRT_ALGORITHM_HIERARCHICAL) {
      b.treeReduce(m, v, acc, tempBase);
    } else if (p.algorithm == COMMRT_ALGORITHM_DIRECT) {
      Step &s = b.step();
      if (v == 0) {
        std::vector<Ref> slots;
        for (int j = 1; j < n; ++j) {
          Ref t = b.temp(tempBase + (j - 1) * u, u);
          Builder::recv(s, m[static_cast<size_t>(j)], t);
          slots.push_back(t);
        }
        for (Ref t : slots)
          Builder::reduce(s, acc, t);
      } else {
        Builder::send(s, m[0], acc);
      }
    } else if (p.algorithm == COMMRT_ALGORITHM_HALVING_DOUBLING) {
      // Reduce-scatter, then gather (Rabenseifner's reduce).
      Segments seg = [=](int j) { return part(acc, n, j); };
      b.halvingReduceScatter(m, v, seg, tempBase);
      b.treeGather(m, v, seg);
    } else {
      b.chainReduce(m, v, acc, tempBase);
    }
    if (v == 0)
      b.average(work);
    else if (!p.sendIsWork)
      Builder::copy(b.step(), work, input);
    break;
  }
  default:
    break;
  }
  return b;
}

//===----------------------------------------------------------------------===//
// Running the programs
//===----------------------------------------------------------------------===//

/// One chunk: its program, its scratch and where it is.
struct Chunk {
  ~Chunk() {
    if (hostTemp.data)
      pool->give(std::move(hostTemp));
  }
  std::vector<Step> steps;
  char *temp = nullptr;
  /// The scratch on a polled backend, from and back to `pool`.
  ScratchPool::Block hostTemp;
  std::shared_ptr<ScratchPool> pool;
  size_t next = 0;
  bool posted = false;
  int slot = 0;
  std::vector<std::unique_ptr<commrt_request>> live;
  std::vector<char> liveDone;
};

class ScheduleRequest : public commrt_request {
public:
  ScheduleRequest(commrt_context *ctx, const OpArgs &args)
      : commrt_request(ctx, args) {}
  ~ScheduleRequest() override { releaseDeviceTemp(); }

  commrt_status start(const commrt_plan &plan);
  commrt_status poll(bool &done) override;
  void abandon() override {
    for (auto &lane : lanes)
      for (auto &chunk : lane.active)
        for (auto &req : chunk->live)
          if (req)
            req->abandon();
    for (auto &req : enqueued)
      req->abandon();
  }

private:
  struct Lane {
    int64_t next = 0, end = 0; ///< Elements not started yet.
    int64_t started = 0;       ///< Chunks started.
    int index = 0;
    std::vector<std::unique_ptr<Chunk>> active;
    /// Slots held by an unfinished chunk: chunk j takes slot j mod window
    /// (the same on every rank) once chunk j - window has finished here.
    std::vector<char> busy;
  };

  commrt_status post(const Xfer &x, char *temp, int slot,
                     std::unique_ptr<commrt_request> &out);
  commrt_status runLocal(const Local &l, char *temp);
  char *address(const Ref &r, char *temp) const;
  std::unique_ptr<Chunk> nextChunk(Lane &lane, int64_t &tempElems);
  commrt_status advance(Chunk &chunk, bool &finished);
  commrt_status enqueueAll();
  commrt_status takeDeviceTemp(size_t bytes);
  commrt_status releaseDeviceTemp();
  commrt_status startNodes();

  Plan p{};
  size_t elt = 1;
  int64_t chunkElems = 0;
  int window = 4;
  int tagBase = 0;
  commrt_memory_space space = COMMRT_HOST;
  commrt_stream *stream = nullptr;
  const void *input = nullptr; ///< The send buffer, or its staged copy.
  std::vector<char> staged;
  std::vector<Lane> lanes;
  /// Stream-ordered backends: every transfer of the schedule.
  std::vector<std::unique_ptr<commrt_request>> enqueued;
  /// Device scratch of a stream-ordered backend: from the context's pool,
  /// freed on the stream behind the last step; else cudaMalloc'd and freed
  /// with the request.
  void *deviceTemp = nullptr;
  bool deviceTempPooled = false;
};

/// Largest MPI tag, queried once.
int tagUpperBound(commrt_context *ctx) {
  static int bound = -1;
  if (bound < 0) {
    int *value = nullptr, flag = 0;
    MPI_Comm_get_attr(ctx->world, MPI_TAG_UB, &value, &flag);
    bound = flag && value ? *value : 32767;
  }
  return bound;
}

/// Slots per schedule in the tag: 64 channels times the window.
constexpr int maxSlots = 64 * 4;

char *ScheduleRequest::address(const Ref &r, char *temp) const {
  size_t offset = static_cast<size_t>(r.offset) * elt;
  switch (r.buf) {
  case Buf::Work:
    return static_cast<char *>(args.recv) + offset;
  case Buf::Temp:
    return temp + offset;
  case Buf::Send:
    return const_cast<char *>(static_cast<const char *>(input)) + offset;
  }
  return nullptr;
}

commrt_status ScheduleRequest::post(const Xfer &x, char *temp, int slot,
                                    std::unique_ptr<commrt_request> &out) {
  OpArgs t;
  t.kind = x.isSend ? OpKind::Send : OpKind::Recv;
  t.comm = args.comm;
  t.count = x.ref.count;
  t.dtype = args.dtype;
  t.peer = x.peer;
  t.tag = tagBase + slot;
  t.stream = stream;
  t.validated = args.validated;
  if (x.isSend)
    t.send = address(x.ref, temp);
  else
    t.recv = address(x.ref, temp);
  return ctx->backend->post(t, out);
}

commrt_status ScheduleRequest::runLocal(const Local &l, char *temp) {
  char *dst = address(l.dst, temp);
  const char *src = address(l.src, temp);
  size_t n = static_cast<size_t>(l.dst.count);
  if (space != COMMRT_HBM) {
    switch (l.kind) {
    case LocalKind::Reduce:
      cpu::reduce(dst, src, n, args.dtype, p.op);
      break;
    case LocalKind::Copy:
      std::memmove(dst, src, n * elt);
      break;
    case LocalKind::Average:
      cpu::divide(dst, n, args.dtype, p.size);
      break;
    }
    return COMMRT_SUCCESS;
  }
  switch (l.kind) {
  case LocalKind::Reduce:
    return commrt_reduce_local(dst, src, l.dst.count, args.dtype, p.op,
                               COMMRT_HBM, stream);
  case LocalKind::Copy:
    return commrt_copy(ctx, dst, COMMRT_HBM, src, COMMRT_HBM,
                       static_cast<int64_t>(n * elt), stream);
  case LocalKind::Average:
    return commrt_scale(dst, l.dst.count, args.dtype, 1.0 / p.size, COMMRT_HBM,
                        stream);
  }
  return COMMRT_SUCCESS;
}

/// Members of each distinct id of \p ids (positions in group order), ids
/// in order of first appearance.
std::vector<std::vector<int>> membersById(const std::vector<int> &ids) {
  std::vector<int> seen;
  std::vector<std::vector<int>> members;
  for (size_t i = 0; i < ids.size(); ++i) {
    auto it = std::find(seen.begin(), seen.end(), ids[i]);
    if (it == seen.end()) {
      seen.push_back(ids[i]);
      members.emplace_back();
      it = seen.end() - 1;
    }
    members[static_cast<size_t>(it - seen.begin())].push_back(
        static_cast<int>(i));
  }
  return members;
}

/// Fills p.nodes with the two levels' upper members: the machines of the
/// group's positions, or, for a group inside one machine, their CPU
/// sockets (gathered once per communicator). Leaves it empty when those
/// hold unequal numbers of members, or when there is one of them or one
/// member in each.
commrt_status ScheduleRequest::startNodes() {
  commrt_comm *comm = args.comm;
  bool first = comm->placeOfPosition.empty();
  if (first) {
    std::vector<int> places(2 * comm->ranks.size());
    int mine[2] = {ctx->nodeId, ctx->socketId};
    MPI_Request req = MPI_REQUEST_NULL;
    int err = MPI_Iallgather(mine, 2, MPI_INT, places.data(), 2, MPI_INT,
                             comm->mpi, &req);
    if (err != MPI_SUCCESS)
      return setError(COMMRT_ERROR_BACKEND,
                      "commrt: " + mpiErrorString("MPI_Iallgather", err));
    // A step of this operation, the next one started on the group.
    if (commrt_status s = waitExchange(
            ctx, &req, comm->mpi,
            describe(args) + " (gathering the nodes and sockets of its ranks)",
            PartOf{comm, comm->started}))
      return s;
    comm->placeOfPosition = std::move(places);
  }
  size_t n = comm->placeOfPosition.size() / 2;
  std::vector<int> nodeIds(n), socketIds(n);
  for (size_t i = 0; i < n; ++i) {
    nodeIds[i] = comm->placeOfPosition[2 * i];
    socketIds[i] = comm->placeOfPosition[2 * i + 1];
  }
  std::vector<std::vector<int>> members = membersById(nodeIds);
  const char *level = "node";
  if (members.size() == 1) {
    members = membersById(socketIds);
    level = "socket";
  }
  bool even = true;
  for (const std::vector<int> &m : members)
    even &= m.size() == members.front().size();
  if (!even || members.size() == 1 || members.front().size() == 1) {
    if (first)
      trace(ctx, 1,
            "hierarchical %s on group %s: %zu %s(s), %s; running "
            "one level",
            opName(args.kind), comm->name.c_str(), members.size(), level,
            even ? "nothing to split in two levels"
                 : "they hold unequal numbers of members");
    return COMMRT_SUCCESS;
  }
  if (first)
    trace(ctx, 1, "hierarchical %s on group %s: %zu %ss of %zu",
          opName(args.kind), comm->name.c_str(), members.size(), level,
          members.front().size());
  for (size_t x = 0; x < members.size(); ++x)
    for (size_t y = 0; y < members[x].size(); ++y)
      if (members[x][y] == comm->position) {
        p.node = static_cast<int>(x);
        p.local = static_cast<int>(y);
      }
  p.nodes = std::move(members);
  return COMMRT_SUCCESS;
}

commrt_status ScheduleRequest::start(const commrt_plan &plan) {
  commrt_comm *comm = args.comm;
  Backend &backend = *ctx->backend;
  space = backend.bufferSpace();
  elt = commrt_dtype_size(args.dtype);
  p.kind = args.kind;
  p.algorithm = plan.algorithm;
  p.size = static_cast<int>(comm->ranks.size());
  p.position = comm->position;
  p.root = args.root;
  p.userOp = args.op;
  p.op = args.op == COMMRT_AVG ? COMMRT_SUM : args.op;
  p.blockElems = args.count;
  if (args.op == COMMRT_AVG && space == COMMRT_HBM &&
      !isFloatDtype(args.dtype) &&
      (args.kind == OpKind::AllReduce || args.kind == OpKind::ReduceScatter ||
       args.kind == OpKind::Reduce))
    return setError(COMMRT_ERROR_UNAVAILABLE,
                    format("planned %s: an average of %s in GPU memory has "
                           "no device division; use a sum",
                           opName(args.kind), commrt_dtype_name(args.dtype)));

  stream = args.stream;
  if (backend.streamOrdered() && !stream)
    stream = backend.ownStream();
#if COMMRT_HAVE_CUDA
  // A polled backend reads host buffers that GPU work may still produce.
  if (!backend.streamOrdered() && args.stream && args.stream->cuda)
    if (commrt_status s = cuda::streamSynchronize(args.stream->cuda))
      return s;
#endif

  // The input, as the programs may read it while others write the output.
  size_t n = static_cast<size_t>(p.size);
  size_t count = static_cast<size_t>(args.count);
  size_t sendBytes = count * elt, recvBytes = count * elt;
  if (args.kind == OpKind::ReduceScatter)
    sendBytes *= n;
  if (args.kind == OpKind::AllGather)
    recvBytes *= n;
  bool isRoot = p.position == p.root;
  bool readsSend = args.kind != OpKind::Broadcast || isRoot;
  input = args.send;
  const char *own = static_cast<const char *>(args.recv) +
                    static_cast<size_t>(p.position) * count * elt;
  p.sendIsWork = args.kind == OpKind::AllGather ? args.send == own
                                                : args.send == args.recv;
  if (args.kind == OpKind::ReduceScatter)
    p.sendIsWork = false;
  if (readsSend && !p.sendIsWork &&
      overlaps(args.send, sendBytes, args.recv, recvBytes)) {
    if (space == COMMRT_HBM)
      return setError(COMMRT_ERROR_INVALID_ARGUMENT,
                      format("planned %s: the send buffer partly overlaps "
                             "the receive buffer",
                             opName(args.kind)));
    staged.assign(static_cast<const char *>(args.send),
                  static_cast<const char *>(args.send) + sendBytes);
    input = staged.data();
  }

  if (p.algorithm == COMMRT_ALGORITHM_HIERARCHICAL)
    if (commrt_status s = startNodes())
      return s;

  // Tags: the schedule's sequence number and the chunk's slot.
  int bound = tagUpperBound(ctx);
  int sequences = std::max(1, std::min(4096, (bound + 1) / maxSlots));
  tagBase =
      static_cast<int>(comm->schedules++ % static_cast<uint32_t>(sequences)) *
      maxSlots;

  // Channels and chunks.
  int64_t domain = args.count;
  int channels = static_cast<int>(std::max<int64_t>(1, plan.channels));
  chunkElems =
      plan.chunk_bytes > 0
          ? std::max<int64_t>(1, plan.chunk_bytes / static_cast<int64_t>(elt))
          : 0;
  Ref all{Buf::Work, 0, domain};
  for (int c = 0; c < channels; ++c) {
    Ref slice = part(all, channels, c);
    if (!slice.count)
      continue;
    Lane lane;
    lane.next = slice.offset;
    lane.end = slice.offset + slice.count;
    lane.index = c;
    lane.busy.assign(static_cast<size_t>(window), 0);
    lanes.push_back(std::move(lane));
  }
  if (backend.streamOrdered())
    return enqueueAll();
  return COMMRT_SUCCESS;
}

/// Stream-ordered backends: every step of every chunk, in one order on all
/// ranks.
commrt_status ScheduleRequest::enqueueAll() {
  std::vector<std::unique_ptr<Chunk>> chunks;
  std::vector<int64_t> tempOffsets;
  std::vector<size_t> delay; ///< the chunk's index in its lane
  int64_t tempBytes = 0;
  for (Lane &lane : lanes)
    for (size_t j = 0; lane.next < lane.end; ++j) {
      int64_t tempElems = 0;
      chunks.push_back(nextChunk(lane, tempElems));
      delay.push_back(j);
      tempOffsets.push_back(tempBytes);
      tempBytes += (tempElems * static_cast<int64_t>(elt) + 255) / 256 * 256;
    }
  if (tempBytes)
    if (commrt_status s = takeDeviceTemp(static_cast<size_t>(tempBytes)))
      return s;
  // Step s of a lane's chunk j goes into group s + j: the chunks of a lane
  // enter the program one group apart (a pipeline), so that while one
  // chunk crosses the slow level of a two-level schedule the next runs the
  // fast one on other links. The lanes (channels) start together. Every
  // rank builds the same chunks and steps, so every group holds the same
  // transfers on both sides of each pair.
  size_t groups = 0;
  for (size_t i = 0; i < chunks.size(); ++i) {
    chunks[i]->temp = static_cast<char *>(deviceTemp) + tempOffsets[i];
    groups = std::max(groups, delay[i] + chunks[i]->steps.size());
  }
  Backend &backend = *ctx->backend;
  auto stepOf = [&](size_t i, size_t group) -> const Step * {
    if (group < delay[i] || group - delay[i] >= chunks[i]->steps.size())
      return nullptr;
    return &chunks[i]->steps[group - delay[i]];
  };
  for (size_t d = 0; d < groups; ++d) {
    std::vector<commrt_request *> started;
    ++ctx->groupDepth;
    commrt_status status = backend.groupStart();
    for (size_t i = 0; i < chunks.size() && !status; ++i) {
      const Step *step = stepOf(i, d);
      if (!step)
        continue;
      for (const Xfer &x : step->xfers) {
        std::unique_ptr<commrt_request> req;
        if ((status = post(x, chunks[i]->temp, 0, req)))
          break;
        started.push_back(req.get());
        enqueued.push_back(std::move(req));
      }
    }
    if (!status)
      status = backend.groupEnd(started);
    --ctx->groupDepth;
    if (status)
      return status;
    for (size_t i = 0; i < chunks.size(); ++i)
      if (const Step *step = stepOf(i, d))
        for (const Local &l : step->locals)
          if (commrt_status st = runLocal(l, chunks[i]->temp))
            return st;
  }
  // Every use of the scratch is queued: free pooled scratch behind them
  // (cudaMalloc'd scratch waits for the request's end).
  return deviceTempPooled ? releaseDeviceTemp() : COMMRT_SUCCESS;
}

commrt_status ScheduleRequest::takeDeviceTemp(size_t bytes) {
#if COMMRT_HAVE_CUDA
  // cudaMalloc and cudaFree synchronize the device; a stream-ordered pool
  // hands the same memory out again without waiting for anything.
  if (!ctx->cudaScratchPoolTried) {
    ctx->cudaScratchPoolTried = true;
    if (cuda::poolCreate(&ctx->cudaScratchPool, ctx->cudaDevice,
                         ScratchPool::limit))
      trace(ctx, 1, "planned collectives: %s; device scratch from cudaMalloc",
            lastError().c_str());
  }
  if (ctx->cudaScratchPool) {
    if (commrt_status s = cuda::poolMallocAsync(
            &deviceTemp, bytes, ctx->cudaScratchPool, cudaStreamOf(stream)))
      return s;
    deviceTempPooled = true;
    return COMMRT_SUCCESS;
  }
#endif
  return commrt_alloc(ctx, static_cast<int64_t>(bytes), COMMRT_HBM,
                      &deviceTemp);
}

commrt_status ScheduleRequest::releaseDeviceTemp() {
  void *temp = deviceTemp;
  deviceTemp = nullptr;
  if (!temp)
    return COMMRT_SUCCESS;
#if COMMRT_HAVE_CUDA
  if (deviceTempPooled)
    return cuda::freeAsync(temp, cudaStreamOf(stream));
#endif
  return commrt_free(ctx, temp, COMMRT_HBM);
}

/// Builds the next chunk of \p lane; sets \p tempElems to the scratch it
/// needs.
std::unique_ptr<Chunk> ScheduleRequest::nextChunk(Lane &lane,
                                                  int64_t &tempElems) {
  int64_t u = chunkElems ? std::min(chunkElems, lane.end - lane.next)
                         : lane.end - lane.next;
  Builder b = buildChunk(p, lane.next, u);
  lane.next += u;
  auto chunk = std::make_unique<Chunk>();
  chunk->steps = std::move(b.steps);
  tempElems = b.tempElems;
  return chunk;
}

commrt_status ScheduleRequest::advance(Chunk &chunk, bool &finished) {
  finished = false;
  while (chunk.next < chunk.steps.size()) {
    Step &step = chunk.steps[chunk.next];
    if (!chunk.posted) {
      chunk.live.clear();
      for (const Xfer &x : step.xfers) {
        std::unique_ptr<commrt_request> req;
        if (commrt_status s = post(x, chunk.temp, chunk.slot, req))
          return s;
        chunk.live.push_back(std::move(req));
      }
      chunk.liveDone.assign(chunk.live.size(), 0);
      chunk.posted = true;
    }
    bool all = true;
    for (size_t i = 0; i < chunk.live.size(); ++i) {
      if (chunk.liveDone[i])
        continue;
      bool done = false;
      if (commrt_status s = chunk.live[i]->poll(done))
        return s;
      chunk.liveDone[i] = done;
      all &= done;
    }
    if (!all)
      return COMMRT_SUCCESS;
    chunk.live.clear();
    for (const Local &l : step.locals)
      if (commrt_status s = runLocal(l, chunk.temp))
        return s;
    ++chunk.next;
    chunk.posted = false;
  }
  finished = true;
  return COMMRT_SUCCESS;
}

commrt_status ScheduleRequest::poll(bool &done) {
  if (ctx->backend->streamOrdered()) {
    done = true;
    for (auto &req : enqueued) {
      if (req->completed)
        continue;
      bool d = false;
      if (commrt_status s = req->poll(d))
        return s;
      req->completed = d;
      done &= d;
    }
    return COMMRT_SUCCESS;
  }
  done = true;
  for (Lane &lane : lanes) {
    // Start chunks up to the window; a slot is reused only by the chunk
    // after the one that held it has finished on this rank.
    while (lane.next < lane.end &&
           !lane.busy[static_cast<size_t>(lane.started % window)]) {
      int64_t tempElems = 0;
      std::unique_ptr<Chunk> chunk = nextChunk(lane, tempElems);
      if (tempElems > 0) {
        size_t bytes = static_cast<size_t>(tempElems) * elt;
        chunk->pool = ctx->scratch;
        chunk->hostTemp = ctx->scratch->take(bytes);
        if (!chunk->hostTemp.data)
          return setError(COMMRT_ERROR_OUT_OF_MEMORY,
                          format("planned %s: no memory for %zu bytes of "
                                 "scratch",
                                 opName(p.kind), bytes));
        chunk->temp = chunk->hostTemp.data.get();
      }
      int slot = static_cast<int>(lane.started++ % window);
      lane.busy[static_cast<size_t>(slot)] = 1;
      chunk->slot = lane.index * window + slot;
      lane.active.push_back(std::move(chunk));
    }
    for (size_t i = 0; i < lane.active.size();) {
      bool finished = false;
      if (commrt_status s = advance(*lane.active[i], finished))
        return s;
      if (finished) {
        lane.busy[static_cast<size_t>(lane.active[i]->slot % window)] = 0;
        lane.active.erase(lane.active.begin() + static_cast<long>(i));
      } else
        ++i;
    }
    done &= lane.active.empty() && lane.next >= lane.end;
  }
  return COMMRT_SUCCESS;
}

} // namespace

ScratchPool::Block ScratchPool::take(size_t bytes) {
  auto it = blocks.lower_bound(bytes);
  if (it != blocks.end()) {
    Block block{std::move(it->second), it->first};
    kept -= it->first;
    blocks.erase(it);
    return block;
  }
  return Block{std::unique_ptr<char[]>(new (std::nothrow) char[bytes]), bytes};
}

void ScratchPool::give(Block block) {
  if (!block.data || block.bytes > limit)
    return;
  // Make room by dropping the smallest blocks: the large ones are the
  // costly ones to allocate again.
  while (kept + block.bytes > limit && !blocks.empty()) {
    kept -= blocks.begin()->first;
    blocks.erase(blocks.begin());
  }
  kept += block.bytes;
  blocks.emplace(block.bytes, std::move(block.data));
}

commrt_status commrt::postPlanned(commrt_context *ctx, const OpArgs &args,
                                  const commrt_plan &plan,
                                  std::unique_ptr<commrt_request> &out) {
  auto req = std::make_unique<ScheduleRequest>(ctx, args);
  if (commrt_status s = req->start(plan)) {
    // Enqueued transfers may still refer to the scratch: keep it.
    if (!req->completed && ctx->backend->streamOrdered()) {
      req->abandon();
      ctx->abandoned.push_back(std::move(req));
    }
    return s;
  }
  out = std::move(req);
  return COMMRT_SUCCESS;
}
