//===- commrt_gen.h - helpers that comm-generated C++ calls -----*- C++ -*-===//
//
// The C++ that `comm-translate --comm-to-cpp` (and `--comm-to-cuda`) emits
// calls these helpers, which sit on the C ABI of commrt.h. They add what a
// compiled comm program needs beyond single runtime calls:
//
//  - communicators looked up once per call site and cached;
//  - the #comm.plan precision: data converted to the wire type, reduced in
//    it and converted back;
//  - collectives on a dimension other than the outermost one (a block
//    transpose around the contiguous collective);
//  - the async form: ops inside a comm.start are started without waiting and
//    recorded with the buffer they write; an op that reads such a buffer
//    waits for it first; comm.wait completes them all;
//  - sends that never block the sender (completed before their buffer is
//    written or freed and when the function returns), so that SPMD programs
//    that send before they receive cannot deadlock;
//  - runs of sends and receives that follow one another, blocking or in a
//    comm.start (the lowering brackets them with p2p_begin/p2p_end),
//    started together in one commrt group, as NCCL needs: a ring's
//    ncclSend and ncclRecv on one stream deadlock unless grouped;
//  - a caching allocator for the buffers the program allocates;
//  - errors turned into a commgen::Error that names the op's location in the
//    source program; the generated C entry points return it as a status.
//
// This header is not a stable ABI: it is compiled together with the code
// that uses it. One commrt_context is used from one thread at a time.
//
//===----------------------------------------------------------------------===//

#ifndef COMMRT_GEN_H
#define COMMRT_GEN_H

#include "commrt.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <exception>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

/// The interface of a user-provided comm.compute implementation: the
/// generated code calls `comm_compute_<name>(const comm_compute_args *)` when
/// the program links such a function, and a deterministic stand-in
/// otherwise (see commgen::compute).
extern "C" {
typedef struct comm_tensor {
  void *data;
  int64_t count;
  commrt_dtype dtype;
  commrt_memory_space space;
  /// Size of dimension 0 (1 for a scalar).
  int64_t rows;
} comm_tensor;
typedef struct comm_compute_args {
  commrt_context *ctx;
  const char *name;
  int64_t num_inputs;
  const comm_tensor *inputs;
  int64_t num_outputs;
  const comm_tensor *outputs;
  /// The op computes part `part` of `parts` of each output: that slice
  /// along dimension 0 of the whole output (comm-pipeline's chunks); 0 of 1
  /// for a whole compute.
  int64_t part;
  int64_t parts;
  /// Nonzero when the op is `rowwise`: each output row reads only the same
  /// row of the inputs with as many rows as the output.
  int64_t rowwise;
  /// Drives the transfers started before this compute (comm.start) without
  /// waiting for them; returns nonzero while any is still in flight. On a
  /// polled backend (mpi) a transfer moves only when asked: an
  /// implementation on a CPU rank calls it between pieces of its work so
  /// that the transfers overlap it, as the stand-in does while it waits.
  int32_t (*progress)(commrt_context *ctx);
} comm_compute_args;
typedef void (*comm_compute_fn)(const comm_compute_args *);
}

namespace commgen {

/// A failed operation of a generated program.
class Error : public std::runtime_error {
public:
  Error(commrt_status code, const std::string &message)
      : std::runtime_error(message), status(code) {}
  commrt_status status;
};

[[noreturn]] inline void fail(commrt_status status, const char *loc,
                              const char *op, const std::string &what) {
  std::string message = std::string(loc) + ": " + op + ": " + what;
  throw Error(status, message);
}

inline void check(commrt_status status, const char *loc, const char *op) {
  if (status == COMMRT_SUCCESS)
    return;
  const char *detail = commrt_last_error();
  fail(status, loc, op,
       detail && *detail ? detail : commrt_status_string(status));
}

/// Names the op of a runtime call to the runtime while the call runs
/// (commrt_set_site), so that an error the runtime aborts the job on names
/// it too. It spans one runtime call, which runs no generated code, so
/// sites do not nest.
class Site {
public:
  Site(const char *loc, const char *op) { commrt_set_site(loc, op); }
  ~Site() { commrt_set_site(nullptr, nullptr); }
  Site(const Site &) = delete;
  Site &operator=(const Site &) = delete;
};

/// Runs the runtime call `call` for the op `op` written at `loc` and throws
/// its error, located.
#define COMMGEN_CHECK(call, loc, op)                                           \
  do {                                                                         \
    ::commgen::Site commgenSite((loc), (op));                                  \
    ::commgen::check((call), (loc), (op));                                     \
  } while (0)

/// Replica groups of one call site: flattened world ranks, group after
/// group.
struct Ranks {
  int64_t groupSize;
  std::vector<int64_t> ranks;
};

/// Source/target pairs of world ranks of one call site.
struct Pairs {
  std::vector<int64_t> flat;
  int64_t size() const { return static_cast<int64_t>(flat.size() / 2); }
};

/// Bytes [lo, hi).
struct Range {
  const char *lo = nullptr, *hi = nullptr;
};

inline Range range(const void *ptr, size_t bytes) {
  const char *lo = static_cast<const char *>(ptr);
  return Range{lo, lo + bytes};
}

inline bool intersects(Range a, Range b) { return a.lo < b.hi && b.lo < a.hi; }

/// One started operation of an Async and the bytes it writes; or a local
/// operation of the async body deferred until the transfers it reads have
/// ended (no request; `finish` runs it).
struct Pending {
  commrt_request *request = nullptr;
  const char *lo = nullptr, *hi = nullptr;
  /// More bytes it writes (the pieces of a deferred unpack).
  std::vector<Range> alsoWrites;
  /// The bytes a deferred operation reads, or that a transfer still in
  /// flight reads (its source, where it sends from the caller's buffer):
  /// what a later write must wait for (beforeWrite).
  std::vector<Range> reads;
  /// Runs after the request completes (convert back, transpose, free), or
  /// runs the deferred operation.
  std::function<void()> finish;
  /// A transfer queued behind others, not issued yet (see Issue order):
  /// it already stands for the bytes it will write.
  bool queued = false;
  /// Its place in program order (State::clock when it was recorded; a
  /// queued transfer keeps its placeholder's): a write waits only for the
  /// readers before it.
  uint64_t seq = 0;
  /// Where the transfer behind `request` was written, and its op: a wait
  /// that fails names it, not the op whose turn completed it (a comm.send
  /// completed before a later write).
  const char *loc = nullptr, *op = nullptr;
  bool live() const { return request || finish || queued; }
};

/// The transfers of one comm.start.
struct Async {
  commrt_context *ctx = nullptr;
  std::vector<Pending> pending;
};

/// Per-context state of generated code.
struct State {
  int64_t rank = 0, world = 1;
  commrt_backend backend = COMMRT_BACKEND_MPI;
  std::map<const Ranks *, commrt_comm *> comms;
  std::map<int64_t, commrt_stream *> streams;
  /// Sends started by blocking comm.send ops, not yet completed.
  std::vector<Pending> sends;
  /// Inside a run of blocking sends and receives (p2p_begin to p2p_end):
  /// whether its commrt group is open, what the group's sends read, and its
  /// receives, completed when the group closes.
  bool p2pRun = false;
  bool groupOpen = false;
  std::vector<Range> groupReads;
  std::vector<Pending> groupRecvs;
  /// Counts the operations recorded in a Pending (program order).
  uint64_t clock = 0;
  /// The comm.starts of the running entry point not yet waited for, so
  /// that a compute stand-in can drive their transfers (progress()).
  std::vector<Async *> started;
  /// An error raised while a user's compute called
  /// comm_compute_args.progress, raised again at the next comm.wait.
  std::exception_ptr progressError;
  /// Freed allocations, by (space, bytes), for reuse.
  std::map<std::pair<int, int64_t>, std::vector<void *>> pool;
  int64_t pooledBytes = 0;
  /// Transfers of comm.start bodies queued in program order (see Issue
  /// order), the one being issued from the queue now, and the slot its
  /// request fills.
  struct Queued {
    Async *async;
    size_t index;
    std::vector<Range> reads;
    std::function<void()> issue;
  };
  std::deque<Queued> queue;
  bool issuing = false;
  Async *fillAsync = nullptr;
  size_t fillIndex = 0;
};

/// The context of the generated entry point running on this thread.
inline commrt_context *&currentStorage() {
  static thread_local commrt_context *ctx = nullptr;
  return ctx;
}
inline commrt_context *current() { return currentStorage(); }

/// Makes `ctx` current for the duration of a generated entry point.
class Scope {
public:
  explicit Scope(commrt_context *ctx) : saved(currentStorage()) {
    currentStorage() = ctx;
  }
  ~Scope() { currentStorage() = saved; }
  Scope(const Scope &) = delete;

private:
  commrt_context *saved;
};

/// Frees a context's State as commrt_finalize begins: its pooled buffers
/// and its streams (its communicators are the context's, which it frees).
inline void releaseState(commrt_context *ctx, void *data) {
  std::unique_ptr<State> st(static_cast<State *>(data));
  for (auto &[key, blocks] : st->pool)
    for (void *ptr : blocks)
      (void)commrt_free(ctx, ptr, static_cast<commrt_memory_space>(key.first));
  for (auto &entry : st->streams)
    (void)commrt_stream_destroy(entry.second);
}

/// The State of `ctx`, kept in the context itself (commrt_set_user_data):
/// a process-wide map by address lent a finalized context's freed
/// communicators to the next one at that address, and two threads with a
/// context each raced on it.
inline State &state(commrt_context *ctx) {
  void *data = nullptr;
  COMMGEN_CHECK(commrt_get_user_data(ctx, &data), "<init>",
                "commrt_get_user_data");
  if (data)
    return *static_cast<State *>(data);
  auto entry = std::make_unique<State>();
  COMMGEN_CHECK(commrt_rank(ctx, &entry->rank), "<init>", "commrt_rank");
  COMMGEN_CHECK(commrt_world_size(ctx, &entry->world), "<init>",
                "commrt_world_size");
  COMMGEN_CHECK(commrt_get_backend(ctx, &entry->backend), "<init>",
                "commrt_get_backend");
  COMMGEN_CHECK(commrt_set_user_data(ctx, entry.get(), releaseState), "<init>",
                "commrt_set_user_data");
  return *entry.release();
}

inline size_t bytesOf(int64_t count, commrt_dtype dtype) {
  return static_cast<size_t>(count) * commrt_dtype_size(dtype);
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

/// Pooled blocks above this total are returned to the runtime.
constexpr int64_t kPoolLimitBytes = int64_t(1) << 30;

inline void *allocBytes(commrt_context *ctx, int64_t bytes,
                        commrt_memory_space space, const char *loc) {
  State &st = state(ctx);
  auto it = st.pool.find({static_cast<int>(space), bytes});
  if (it != st.pool.end() && !it->second.empty()) {
    // First freed, first reused: a function that allocates its buffers in
    // the same order on every call gets the same address for each of them,
    // which keeps the transport's per-buffer state (registrations, cache
    // lines) warm.
    void *ptr = it->second.front();
    it->second.erase(it->second.begin());
    st.pooledBytes -= bytes;
    return ptr;
  }
  void *ptr = nullptr;
  COMMGEN_CHECK(commrt_alloc(ctx, bytes, space, &ptr), loc, "memref.alloc");
  return ptr;
}

void drainSends(commrt_context *ctx, const char *loc);

/// Keeps a block for reuse, or returns it to the runtime when the pool is
/// full.
inline void recycle(commrt_context *ctx, void *ptr, int64_t bytes,
                    commrt_memory_space space, const char *loc) {
  State &st = state(ctx);
  if (st.pooledBytes + bytes > kPoolLimitBytes) {
    COMMGEN_CHECK(commrt_free(ctx, ptr, space), loc, "memref.dealloc");
    return;
  }
  st.pool[{static_cast<int>(space), bytes}].push_back(ptr);
  st.pooledBytes += bytes;
}

inline void freeBytes(commrt_context *ctx, void *ptr, int64_t bytes,
                      commrt_memory_space space, const char *loc) {
  if (!ptr)
    return;
  // A send may still read the buffer.
  drainSends(ctx, loc);
  recycle(ctx, ptr, bytes, space, loc);
}

template <typename T>
T *alloc(int64_t count, commrt_dtype dtype, commrt_memory_space space,
         const char *loc) {
  commrt_context *ctx = current();
  return static_cast<T *>(
      allocBytes(ctx, static_cast<int64_t>(bytesOf(count, dtype)), space, loc));
}

inline void dealloc(void *ptr, int64_t count, commrt_dtype dtype,
                    commrt_memory_space space, const char *loc) {
  commrt_context *ctx = current();
  freeBytes(ctx, ptr, static_cast<int64_t>(bytesOf(count, dtype)), space, loc);
}

/// Returns every pooled block to the runtime (before commrt_finalize).
inline void releasePool(commrt_context *ctx) {
  State &st = state(ctx);
  for (auto &[key, blocks] : st.pool)
    for (void *ptr : blocks)
      commrt_free(ctx, ptr, static_cast<commrt_memory_space>(key.first));
  st.pool.clear();
  st.pooledBytes = 0;
}

/// A temporary buffer freed (back to the pool) when it goes out of scope
/// or when an async finish runs.
struct Temp {
  commrt_context *ctx = nullptr;
  void *ptr = nullptr;
  int64_t bytes = 0;
  commrt_memory_space space = COMMRT_HOST;
  Temp() = default;
  Temp(commrt_context *context, int64_t size, commrt_memory_space where,
       const char *loc)
      : ctx(context), ptr(allocBytes(context, size, where, loc)), bytes(size),
        space(where) {}
  Temp(Temp &&other) noexcept { *this = std::move(other); }
  Temp &operator=(Temp &&other) noexcept {
    std::swap(ctx, other.ctx);
    std::swap(ptr, other.ptr);
    std::swap(bytes, other.bytes);
    std::swap(space, other.space);
    return *this;
  }
  Temp(const Temp &) = delete;
  ~Temp() {
    // The operation that used it has completed, so nothing reads it any
    // more. A destructor must not throw: a failed free is dropped here.
    if (!ptr)
      return;
    try {
      recycle(ctx, ptr, bytes, space, "<temporary>");
    } catch (const Error &) {
    }
  }
};

//===----------------------------------------------------------------------===//
// Streams, communicators, async bookkeeping
//===----------------------------------------------------------------------===//

/// The stream of a #comm.plan `stream = n` (n < 0: the backend's own).
inline commrt_stream *stream(commrt_context *ctx, int64_t index,
                             const char *loc) {
  State &st = state(ctx);
  if (index < 0 || st.backend == COMMRT_BACKEND_MPI)
    return nullptr;
  commrt_stream *&entry = st.streams[index];
  if (!entry)
    COMMGEN_CHECK(commrt_stream_create(ctx, &entry), loc,
                  "commrt_stream_create");
  return entry;
}

/// The communicator of the calling rank for `ranks` (NULL: in no group).
inline commrt_comm *comm(commrt_context *ctx, const Ranks &ranks,
                         const char *loc) {
  State &st = state(ctx);
  auto it = st.comms.find(&ranks);
  if (it != st.comms.end())
    return it->second;
  commrt_comm *handle = nullptr;
  COMMGEN_CHECK(commrt_comm_create(ctx, ranks.ranks.data(),
                                   static_cast<int64_t>(ranks.ranks.size()),
                                   ranks.groupSize, &handle),
                loc, "commrt_comm_create");
  st.comms[&ranks] = handle;
  return handle;
}

inline bool overlaps(const Pending &p, const void *ptr, size_t bytes) {
  Range bytesRange = range(ptr, bytes);
  if (intersects(bytesRange, Range{p.lo, p.hi}))
    return true;
  for (const Range &r : p.alsoWrites)
    if (intersects(bytesRange, r))
      return true;
  return false;
}

void closeGroup(commrt_context *ctx, const char *loc);

inline void complete(Pending &p, const char *loc, const char *op) {
  // What the open group started is launched only when it closes (NCCL):
  // waiting for any of it before then would never end.
  closeGroup(current(), loc);
  if (commrt_request *req = p.request) {
    p.request = nullptr;
    COMMGEN_CHECK(commrt_wait(req), p.loc ? p.loc : loc, p.op ? p.op : op);
  }
  if (p.finish) {
    std::function<void()> finish = std::move(p.finish);
    p.finish = nullptr;
    finish();
  }
}

void issueUpTo(commrt_context *ctx, Async *async, size_t index,
               const char *loc);
void beforeWrite(commrt_context *ctx, const void *ptr, size_t bytes,
                 const char *loc, uint64_t before = 0);

/// Before an op of an async body reads `ptr`, waits for the started
/// operations (among the first `end`) that write it, issuing first the
/// queued ones among them.
inline void waitFor(Async *async, const void *ptr, size_t bytes,
                    const char *loc, size_t end = SIZE_MAX) {
  if (!async)
    return;
  // By index: completing a deferred operation waits for what it reads.
  for (size_t i = 0; i < async->pending.size() && i < end; ++i)
    if (async->pending[i].live() && overlaps(async->pending[i], ptr, bytes)) {
      if (async->pending[i].queued)
        issueUpTo(async->ctx, async, i, loc);
      complete(async->pending[i], loc, "comm.wait");
    }
}

/// Whether a transfer (or deferred operation) among the first `end`
/// started by `async` still writes any of `reads`.
inline bool writesAny(const Async *async, size_t end, const Range *reads,
                      size_t numReads) {
  for (size_t i = 0; i < end && i < async->pending.size(); ++i)
    for (size_t k = 0; k < numReads; ++k)
      if (async->pending[i].live() &&
          overlaps(async->pending[i], reads[k].lo,
                   static_cast<size_t>(reads[k].hi - reads[k].lo)))
        return true;
  return false;
}
inline bool writesAny(const Async *async, size_t end,
                      const std::vector<Range> &reads) {
  return writesAny(async, end, reads.data(), reads.size());
}

/// Runs a local operation (unpack, copy, ...) that reads `reads` and
/// writes `writes`. Inside a comm.start, one that reads what a transfer of
/// the same body still writes runs once that transfer has ended (at the
/// comm.wait, when an op reads what it writes, or when progress() finds its
/// inputs done), not now: running it now would wait for the transfer here,
/// and the body's transfers would not overlap what follows the comm.start.
/// Otherwise it runs now, after the operations of the body it reads.
/// (comm-bufferize gives every result a buffer of its own, so no later
/// operation overwrites what a deferred one reads.)
inline void runLocal(Async *async, std::vector<Range> reads,
                     std::vector<Range> writes, std::function<void()> run,
                     const char *loc) {
  commrt_context *ctx = current();
  // Deferred, it writes when it runs, after what was recorded later: only
  // what came before it is waited for.
  uint64_t seq = async ? ++state(ctx).clock : UINT64_MAX;
  auto writeThenRun = [ctx, writes, run, loc, seq]() {
    for (const Range &w : writes)
      beforeWrite(ctx, w.lo, static_cast<size_t>(w.hi - w.lo), loc, seq);
    run();
  };
  if (!async)
    return writeThenRun();
  auto readsThenRun = [async, reads, writeThenRun, loc]() {
    for (const Range &r : reads)
      waitFor(async, r.lo, static_cast<size_t>(r.hi - r.lo), loc);
    writeThenRun();
  };
  if (writes.empty() || !writesAny(async, async->pending.size(), reads))
    return readsThenRun();
  Pending p;
  p.seq = seq;
  p.lo = writes.front().lo;
  p.hi = writes.front().hi;
  p.alsoWrites.assign(writes.begin() + 1, writes.end());
  p.reads = std::move(reads);
  p.finish = std::move(readsThenRun);
  async->pending.push_back(std::move(p));
}

/// Records a started operation, or completes it at once outside a
/// comm.start (or, with `later`, leaves it there for whoever completes
/// those: the receives of a run's open group).
inline void issued(Async *async, commrt_request *req, const void *target,
                   size_t bytes, std::function<void()> finish, const char *loc,
                   const char *op, std::vector<Range> reads = {},
                   std::vector<Pending> *later = nullptr) {
  Pending p;
  p.request = req;
  p.loc = loc;
  p.op = op;
  p.lo = static_cast<const char *>(target);
  p.hi = p.lo + bytes;
  p.finish = std::move(finish);
  p.reads = std::move(reads);
  if (!async) {
    if (later)
      later->push_back(std::move(p));
    else
      complete(p, loc, op);
    return;
  }
  // Issued from the queue: it takes the place its placeholder held.
  State &st = state(async->ctx);
  if (st.fillAsync == async) {
    st.fillAsync = nullptr;
    p.seq = async->pending[st.fillIndex].seq;
    async->pending[st.fillIndex] = std::move(p);
    return;
  }
  p.seq = ++st.clock;
  async->pending.push_back(std::move(p));
}

//===----------------------------------------------------------------------===//
// Issue order
//===----------------------------------------------------------------------===//
//
// MPI and NCCL match the collectives of a communicator by the order in
// which the ranks issue them, so every rank issues its transfers in program
// order. Inside a comm.start, a transfer that reads what an earlier
// transfer of the body still writes (a chain: reduce_scatter, then
// all_reduce of its result) is not waited for where it stands, which
// would stop the host until the first transfer ends: it is queued, and so
// is every transfer after it, of any body, until the queue drains. A queued
// transfer is issued once its inputs are done: when a compute drives the
// transfers (progress()), when an op needs what it writes, at its
// comm.wait, or before a transfer outside any comm.start. Its placeholder
// in the body stands for the bytes it will write, so that what reads them
// waits for it.

/// Issues the first queued transfer: always (`blocking`: waiting for its
/// inputs), or only if its inputs are done. Returns whether it did.
inline bool issueFirst(commrt_context *ctx, bool blocking, const char *loc) {
  State &st = state(ctx);
  if (st.queue.empty())
    return false;
  State::Queued &first = st.queue.front();
  if (!blocking && writesAny(first.async, first.index, first.reads))
    return false;
  State::Queued q = std::move(first);
  st.queue.pop_front();
  // Only what comes before it: every queued transfer there was issued.
  for (const Range &r : q.reads)
    waitFor(q.async, r.lo, static_cast<size_t>(r.hi - r.lo), loc, q.index);
  struct Issuing {
    State &st;
    Scope scope;
    bool wasIssuing;
    Async *wasAsync;
    size_t wasIndex;
    Issuing(State &state, commrt_context *ctx, Async *async, size_t index)
        : st(state), scope(ctx), wasIssuing(state.issuing),
          wasAsync(state.fillAsync), wasIndex(state.fillIndex) {
      state.issuing = true;
      state.fillAsync = async;
      state.fillIndex = index;
    }
    ~Issuing() {
      st.issuing = wasIssuing;
      st.fillAsync = wasAsync;
      st.fillIndex = wasIndex;
    }
  } issuing(st, ctx, q.async, q.index);
  q.issue();
  // What filled no slot (a send's requests go after it; a rank in no group
  // skips the transfer) leaves nothing to wait for there.
  Pending &slot = q.async->pending[q.index];
  if (slot.queued)
    slot = Pending();
  return true;
}

/// Issues the queue up to and including the transfer at `index` of
/// `async`.
inline void issueUpTo(commrt_context *ctx, Async *async, size_t index,
                      const char *loc) {
  State &st = state(ctx);
  while (std::any_of(st.queue.begin(), st.queue.end(),
                     [&](const State::Queued &q) {
                       return q.async == async && q.index == index;
                     }))
    issueFirst(ctx, /*blocking=*/true, loc);
}

/// Issues the queue up to the last transfer of `async` (all of it with
/// `async` null).
inline void issueQueued(commrt_context *ctx, Async *async, const char *loc) {
  State &st = state(ctx);
  while (std::any_of(
      st.queue.begin(), st.queue.end(),
      [&](const State::Queued &q) { return !async || q.async == async; }))
    issueFirst(ctx, /*blocking=*/true, loc);
}

/// Called first by every transfer: returns true when the transfer was
/// queued (`again` repeats the call when its turn comes). A transfer
/// outside a comm.start first issues what is queued. Allocates nothing
/// unless it queues: every transfer passes here.
template <typename Again>
bool queueTransfer(Async *async, std::initializer_list<Range> reads,
                   std::initializer_list<Range> writes, Again &&again,
                   const char *loc) {
  commrt_context *ctx = current();
  State &st = state(ctx);
  if (st.issuing)
    return false;
  if (!async) {
    if (!st.queue.empty())
      issueQueued(ctx, nullptr, loc);
    return false;
  }
  if (st.queue.empty() &&
      !writesAny(async, async->pending.size(), reads.begin(), reads.size()))
    return false;
  Pending p;
  p.queued = true;
  p.seq = ++st.clock;
  if (writes.size()) {
    p.lo = writes.begin()->lo;
    p.hi = writes.begin()->hi;
    p.alsoWrites.assign(writes.begin() + 1, writes.end());
  }
  size_t index = async->pending.size();
  async->pending.push_back(std::move(p));
  st.queue.push_back({async, index, std::vector<Range>(reads),
                      std::function<void()>(std::forward<Again>(again))});
  return true;
}

/// queueTransfer for a transfer that reads `srcBytes` at `src` and writes
/// `dstBytes` at `dst`.
template <typename Again>
bool queueTransfer(Async *async, const void *src, size_t srcBytes,
                   const void *dst, size_t dstBytes, Again &&again,
                   const char *loc) {
  return queueTransfer(async, {range(src, srcBytes)}, {range(dst, dstBytes)},
                       std::forward<Again>(again), loc);
}

/// Begins the transfers of a comm.start; commgen::wait ends them.
inline Async *start() {
  Async *async = new Async();
  async->ctx = current();
  state(async->ctx).started.push_back(async);
  return async;
}

inline void raiseProgressError(commrt_context *ctx) {
  State &st = state(ctx);
  if (std::exception_ptr error = st.progressError) {
    st.progressError = nullptr;
    std::rethrow_exception(error);
  }
}

inline void wait(Async *async, const char *loc) {
  std::unique_ptr<Async> owned(async);
  std::vector<Async *> &started = state(async->ctx).started;
  started.erase(std::remove(started.begin(), started.end(), async),
                started.end());
  raiseProgressError(async->ctx);
  issueQueued(async->ctx, async, loc);
  for (size_t i = 0; i < async->pending.size(); ++i)
    if (async->pending[i].live())
      complete(async->pending[i], loc, "comm.wait");
}

inline void drainSends(commrt_context *ctx, const char *loc) {
  State &st = state(ctx);
  if (st.sends.empty())
    return;
  std::vector<Pending> sends = std::move(st.sends);
  st.sends.clear();
  for (Pending &p : sends)
    complete(p, loc, "comm.send");
}

//===----------------------------------------------------------------------===//
// Runs of sends and receives
//===----------------------------------------------------------------------===//
//
// The lowering brackets every run of two or more comm.send and comm.recv
// ops that follow one another (nothing but pure ops between them; a run
// goes on through the sends and receives of a comm.start's body) with
// p2p_begin and p2p_end. Inside a run they are started in one commrt
// group (nccl: ncclGroupStart/End), so that each rank's sends and receives
// run together: NCCL runs a lone ncclSend until its receiver's ncclRecv runs,
// and a ring of ranks that each send, then receive, on one stream would
// wait for each other forever (a blocking send followed by a comm.start
// that receives, as comm-pipeline writes a rotated exchange, too). The
// group's blocking receives complete when it closes: at p2p_end, or earlier
// when an op of the run touches what the group's transfers still use (a send of
// what a receive of the group writes, a receive into what one of them reads or
// writes), or when anything waits for a transfer; a started one at its
// comm.wait. On MPI a group only posts; the run's receives no longer wait one
// by one.

/// Closes the open group of a run: launches it, then completes its
/// receives.
inline void closeGroup(commrt_context *ctx, const char *loc) {
  if (!ctx)
    return;
  State &st = state(ctx);
  if (!st.groupOpen)
    return;
  st.groupOpen = false;
  st.groupReads.clear();
  std::vector<Pending> recvs = std::move(st.groupRecvs);
  st.groupRecvs.clear();
  COMMGEN_CHECK(commrt_group_end(ctx), loc, "comm.send/comm.recv");
  for (Pending &p : recvs)
    complete(p, loc, "comm.recv");
}

/// Closes the open group if its transfers use what an op that reads
/// `reads` and writes `writes` touches.
inline void closeGroupIfUsed(commrt_context *ctx,
                             std::initializer_list<Range> reads,
                             std::initializer_list<Range> writes,
                             const char *loc) {
  State &st = state(ctx);
  if (!st.groupOpen)
    return;
  auto writtenBy = [&](const Range &r) {
    return std::any_of(
        st.groupRecvs.begin(), st.groupRecvs.end(), [&](const Pending &p) {
          return overlaps(p, r.lo, static_cast<size_t>(r.hi - r.lo));
        });
  };
  auto readBy = [&](const Range &r) {
    return std::any_of(st.groupReads.begin(), st.groupReads.end(),
                       [&](const Range &g) { return intersects(r, g); });
  };
  if (std::any_of(reads.begin(), reads.end(), writtenBy) ||
      std::any_of(writes.begin(), writes.end(), writtenBy) ||
      std::any_of(writes.begin(), writes.end(), readBy))
    closeGroup(ctx, loc);
}

/// Before a send or receive that reads `reads` and writes `writes`: inside
/// a run, opens the run's group, closing first one whose transfers use
/// what this one touches. Returns whether the transfer goes into a group.
inline bool joinGroup(commrt_context *ctx, std::initializer_list<Range> reads,
                      std::initializer_list<Range> writes, const char *loc) {
  State &st = state(ctx);
  if (!st.p2pRun)
    return false;
  closeGroupIfUsed(ctx, reads, writes, loc);
  if (!st.groupOpen) {
    COMMGEN_CHECK(commrt_group_start(ctx), loc, "comm.send/comm.recv");
    st.groupOpen = true;
  }
  st.groupReads.insert(st.groupReads.end(), reads.begin(), reads.end());
  return true;
}

/// Begins a run of sends and receives (see above).
inline void p2p_begin() { state(current()).p2pRun = true; }

/// Ends a run: its group is launched and its receives completed.
inline void p2p_end(const char *loc) {
  commrt_context *ctx = current();
  closeGroup(ctx, loc);
  state(ctx).p2pRun = false;
}

/// Before an operation writes `bytes` at `ptr`, completes what earlier
/// operations still read there (write after read): the function's blocking
/// sends, and the transfers and deferred operations of its running
/// comm.starts (issuing first a queued transfer that will read them). A
/// send returns before it has read its buffer (MPI reads one over its eager
/// limit when the receiver comes), and comm-bufferize gives each result a
/// buffer of its own, but a loop's iteration argument is one buffer that
/// every iteration's result is copied into: the send of one iteration may
/// still read it when the iteration copies its result there. Only readers
/// recorded before `before` count (a deferred operation's own place; 0: the
/// operation runs now, or is the queued transfer being issued), so that a
/// later reader of what this writes keeps waiting for it.
inline void beforeWrite(commrt_context *ctx, const void *ptr, size_t bytes,
                        const char *loc, uint64_t before) {
  if (!ptr || bytes == 0)
    return;
  State &st = state(ctx);
  if (before == 0)
    before = st.issuing && st.fillAsync
                 ? st.fillAsync->pending[st.fillIndex].seq
                 : UINT64_MAX;
  Range written = range(ptr, bytes);
  auto reads = [&](const std::vector<Range> &ranges) {
    return std::any_of(ranges.begin(), ranges.end(),
                       [&](const Range &r) { return intersects(r, written); });
  };
  bool completed = false;
  for (size_t i = 0; i < st.sends.size(); ++i)
    if (st.sends[i].live() && st.sends[i].seq < before &&
        reads(st.sends[i].reads)) {
      complete(st.sends[i], loc, "comm.send");
      completed = true;
    }
  if (completed)
    st.sends.erase(std::remove_if(st.sends.begin(), st.sends.end(),
                                  [](const Pending &p) { return !p.live(); }),
                   st.sends.end());
  for (;;) {
    auto it = std::find_if(
        st.queue.begin(), st.queue.end(), [&](const State::Queued &q) {
          return q.async->pending[q.index].seq < before && reads(q.reads);
        });
    if (it == st.queue.end())
      break;
    issueUpTo(ctx, it->async, it->index, loc);
  }
  for (size_t a = 0; a < st.started.size(); ++a) {
    Async *async = st.started[a];
    for (size_t i = 0; i < async->pending.size(); ++i)
      if (async->pending[i].live() && !async->pending[i].queued &&
          async->pending[i].seq < before && reads(async->pending[i].reads))
        complete(async->pending[i], loc, "comm.wait");
  }
}

/// Advances the started transfers of the running entry point (its
/// comm.starts and blocking sends): a polled backend moves data only when
/// asked. A transfer of a comm.start that has ended is completed, and a
/// deferred operation whose inputs are done runs. Returns whether any is
/// still in flight. A failed transfer is left in its request, for the
/// comm.wait that completes it to report.
inline bool progress(commrt_context *ctx) {
  State &st = state(ctx);
  bool inFlight = false;
  auto poll = [&](const Pending &p) {
    int done = 1;
    if (commrt_test(p.request, &done) != COMMRT_SUCCESS)
      return false;
    inFlight |= !done;
    return done != 0;
  };
  for (Async *async : st.started)
    for (size_t i = 0; i < async->pending.size(); ++i) {
      Pending &p = async->pending[i];
      if (p.request ? poll(p) : p.finish && !writesAny(async, i, p.reads))
        complete(p, "<progress>", "comm.wait");
    }
  for (const Pending &p : st.sends)
    if (p.request)
      poll(p);
  // Queued transfers whose inputs are done go out, in order.
  while (issueFirst(ctx, /*blocking=*/false, "<progress>"))
    inFlight = true;
  return inFlight || !st.queue.empty();
}

/// comm_compute_args.progress: no exception crosses into the caller's C
/// code; an error is raised again at the next comm.wait.
inline int32_t progressHook(commrt_context *ctx) {
  if (!ctx)
    return 0;
  try {
    return progress(ctx) ? 1 : 0;
  } catch (...) {
    state(ctx).progressError = std::current_exception();
    return 0;
  }
}

/// Called when a generated function returns: completes its sends and
/// synchronizes the streams it used.
inline void finish(commrt_context *ctx, const char *loc) {
  raiseProgressError(ctx);
  closeGroup(ctx, loc);
  issueQueued(ctx, nullptr, loc);
  drainSends(ctx, loc);
  for (auto &[index, s] : state(ctx).streams)
    COMMGEN_CHECK(commrt_stream_synchronize(s), loc,
                  "commrt_stream_synchronize");
}

//===----------------------------------------------------------------------===//
// Layout and precision helpers
//===----------------------------------------------------------------------===//

/// dst[b][a][c] = src[a][b][c] for blocks of `c` elements.
inline void transpose(commrt_context *ctx, void *dst, const void *src,
                      int64_t a, int64_t b, int64_t c, commrt_dtype dtype,
                      commrt_memory_space space, commrt_stream *s,
                      const char *loc) {
  (void)ctx;
  std::vector<commrt_piece> pieces;
  pieces.reserve(static_cast<size_t>(a * b));
  size_t block = bytesOf(c, dtype);
  for (int64_t i = 0; i < a; ++i)
    for (int64_t j = 0; j < b; ++j) {
      commrt_piece piece;
      piece.data = const_cast<char *>(static_cast<const char *>(src) +
                                      (i * b + j) * block);
      piece.count = c;
      piece.offset = (j * a + i) * c;
      piece.dtype = dtype;
      pieces.push_back(piece);
    }
  COMMGEN_CHECK(commrt_pack(dst, dtype, a * b * c, pieces.data(),
                            static_cast<int64_t>(pieces.size()), space, s),
                loc, "commrt_pack (transpose)");
}

inline void convert(void *dst, commrt_dtype dstType, const void *src,
                    commrt_dtype srcType, int64_t count,
                    commrt_memory_space space, commrt_stream *s,
                    const char *loc) {
  COMMGEN_CHECK(commrt_convert(dst, dstType, src, srcType, count, space, s),
                loc, "commrt_convert");
}

/// Waits for what was launched on plan stream `s` (nothing to wait for on
/// the backend's own stream, where commrt's local operations are
/// synchronous). A local operation on a plan stream (the conversion or
/// transpose after a transfer, a comm.copy) is asynchronous: until it is
/// done, another stream could read what it writes, and its temporaries
/// must not return to the pool.
inline void settle(commrt_stream *s, const char *loc, const char *op) {
  if (s)
    COMMGEN_CHECK(commrt_stream_synchronize(s), loc, op);
}

/// The buffer a transfer sends: `src` itself or a copy converted to the
/// wire type.
struct Wire {
  const void *data;
  Temp temp;
};

inline Wire toWire(commrt_context *ctx, const void *src, int64_t count,
                   commrt_dtype dtype, commrt_dtype wire,
                   commrt_memory_space space, commrt_stream *s,
                   const char *loc) {
  Wire w{src, Temp()};
  if (wire == dtype)
    return w;
  w.temp = Temp(ctx, static_cast<int64_t>(bytesOf(count, wire)), space, loc);
  convert(w.temp.ptr, wire, src, dtype, count, space, s, loc);
  w.data = w.temp.ptr;
  return w;
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

/// Shared skeleton: `run(send, recv, req)` starts the contiguous operation on
/// buffers of the wire type. `pre` (elements of the source, in its layout)
/// and `post` describe the block transposes around it: pre = {a, b, c}
/// transposes the source before, post the received data after (a == 1: no
/// transpose).
struct Layout {
  int64_t a = 1, b = 1, c = 1;
  bool identity() const { return a == 1 || b == 1; }
};

template <typename Run>
void collective(commrt_context *ctx, Async *async, const char *op,
                const void *src, int64_t srcCount, void *dst, int64_t dstCount,
                commrt_dtype dtype, commrt_dtype wire, Layout pre, Layout post,
                commrt_memory_space space, commrt_stream *s, const char *loc,
                Run run, bool writeTarget = true) {
  waitFor(async, src, bytesOf(srcCount, dtype), loc);
  beforeWrite(ctx, dst, bytesOf(dstCount, dtype), loc);
  // Source: convert to the wire type, then transpose.
  Wire w = toWire(ctx, src, srcCount, dtype, wire, space, s, loc);
  Temp preTemp;
  const void *send = w.data;
  if (!pre.identity()) {
    preTemp =
        Temp(ctx, static_cast<int64_t>(bytesOf(srcCount, wire)), space, loc);
    transpose(ctx, preTemp.ptr, send, pre.a, pre.b, pre.c, wire, space, s, loc);
    send = preTemp.ptr;
  }
  // Target: received in the wire type and layout, then moved into place.
  bool direct = wire == dtype && post.identity() && writeTarget;
  Temp recvTemp;
  void *recv = dst;
  if (!direct) {
    recvTemp =
        Temp(ctx, static_cast<int64_t>(bytesOf(dstCount, wire)), space, loc);
    recv = recvTemp.ptr;
  }
  commrt_request *req = nullptr;
  COMMGEN_CHECK(run(send, recv, async ? &req : nullptr), loc, op);
  auto keep = std::make_shared<std::vector<Temp>>();
  keep->push_back(std::move(w.temp));
  keep->push_back(std::move(preTemp));
  std::function<void()> after;
  if (direct) {
    after = [keep]() { keep->clear(); };
  } else {
    auto held = std::make_shared<Temp>(std::move(recvTemp));
    after = [=]() {
      if (!writeTarget)
        return;
      const void *data = held->ptr;
      Temp converted;
      if (!post.identity()) {
        if (wire == dtype) {
          transpose(ctx, dst, data, post.a, post.b, post.c, wire, space, s,
                    loc);
          settle(s, loc, op);
          return;
        }
        converted = Temp(ctx, static_cast<int64_t>(bytesOf(dstCount, wire)),
                         space, loc);
        transpose(ctx, converted.ptr, data, post.a, post.b, post.c, wire, space,
                  s, loc);
        data = converted.ptr;
      }
      convert(dst, dtype, data, wire, dstCount, space, s, loc);
      settle(s, loc, op);
      keep->clear();
    };
  }
  // Sent from the caller's buffer: it reads `src` until it completes.
  std::vector<Range> reads;
  if (send == src)
    reads.push_back(range(src, bytesOf(srcCount, dtype)));
  issued(async, req, dst, bytesOf(dstCount, dtype), std::move(after), loc, op,
         std::move(reads));
}

/// The algorithm, channels and chunk size of a #comm.plan. The default
/// algorithm calls the backend's own collective; any other runs the
/// runtime's schedule (commrt_collective_planned).
struct Plan {
  commrt_algorithm algorithm = COMMRT_ALGORITHM_DEFAULT;
  int64_t channels = 0;
  int64_t chunkBytes = 0;
  bool planned() const { return algorithm != COMMRT_ALGORITHM_DEFAULT; }
};

inline commrt_status planned(commrt_comm *c, commrt_collective kind,
                             const Plan &plan, const void *send, void *recv,
                             int64_t count, commrt_dtype dtype, commrt_redop op,
                             int64_t root, commrt_stream *s,
                             commrt_request **req) {
  commrt_plan p{plan.algorithm, plan.channels, plan.chunkBytes};
  return commrt_collective_planned(c, kind, send, recv, count, dtype, op, root,
                                   &p, s, req);
}

/// Zero-fills `dst` on ranks that are in no group (they skip the call).
inline void skip(commrt_context *ctx, void *dst, int64_t count,
                 commrt_dtype dtype, commrt_memory_space space,
                 const char *loc) {
  beforeWrite(ctx, dst, bytesOf(count, dtype), loc);
  COMMGEN_CHECK(commrt_memset(ctx, dst, space, 0,
                              static_cast<int64_t>(bytesOf(count, dtype)),
                              nullptr),
                loc, "commrt_memset");
}

/// COMMRT_DEBUG=desync: the group agrees on what it is about to run (the
/// op, its sizes and types, its root, where it was written) before running
/// it; see commrt_debug_check. Costs one small allgather per collective,
/// only in that mode.
inline void debugCheck(commrt_context *ctx, commrt_comm *c, const char *op,
                       int64_t count, commrt_dtype dtype, commrt_dtype wire,
                       int64_t root, const char *loc) {
  if (!commrt_debug_desync(ctx))
    return;
  char what[240];
  std::snprintf(
      what, sizeof what, "%s of %lld %s%s%s%s at %s", op,
      static_cast<long long>(count), commrt_dtype_name(dtype),
      wire != dtype ? " as " : "", wire != dtype ? commrt_dtype_name(wire) : "",
      root >= 0 ? (" from position " + std::to_string(root)).c_str() : "",
      loc ? loc : "?");
  COMMGEN_CHECK(commrt_debug_check(c, what), loc, op);
}

inline void all_reduce(Async *async, const Ranks &ranks, const void *src,
                       void *dst, int64_t count, commrt_dtype dtype,
                       commrt_dtype wire, commrt_redop op, const Plan &plan,
                       commrt_memory_space space, int64_t streamIndex,
                       const char *loc) {
  const Ranks *group = &ranks;
  if (queueTransfer(
          async, src, bytesOf(count, dtype), dst, bytesOf(count, dtype),
          [=, p = plan] {
            all_reduce(async, *group, src, dst, count, dtype, wire, op, p,
                       space, streamIndex, loc);
          },
          loc))
    return;
  commrt_context *ctx = current();
  commrt_comm *c = comm(ctx, ranks, loc);
  if (!c)
    return skip(ctx, dst, count, dtype, space, loc);
  commrt_stream *s = stream(ctx, streamIndex, loc);
  debugCheck(ctx, c, "comm.all_reduce", count, dtype, wire, -1, loc);
  collective(
      ctx, async, "comm.all_reduce", src, count, dst, count, dtype, wire, {},
      {}, space, s, loc,
      [&](const void *send, void *recv, commrt_request **req) {
        if (plan.planned())
          return planned(c, COMMRT_COLLECTIVE_ALL_REDUCE, plan, send, recv,
                         count, wire, op, 0, s, req);
        return req ? commrt_iall_reduce(c, send, recv, count, wire, op, s, req)
                   : commrt_all_reduce(c, send, recv, count, wire, op, s);
      });
}

/// `outer`: elements before the scattered dimension (1: contiguous).
inline void reduce_scatter(Async *async, const Ranks &ranks, const void *src,
                           void *dst, int64_t recvCount, int64_t outer,
                           commrt_dtype dtype, commrt_dtype wire,
                           commrt_redop op, const Plan &plan,
                           commrt_memory_space space, int64_t streamIndex,
                           const char *loc) {
  const Ranks *group = &ranks;
  if (queueTransfer(
          async, src, bytesOf(recvCount * ranks.groupSize, dtype), dst,
          bytesOf(recvCount, dtype),
          [=, p = plan] {
            reduce_scatter(async, *group, src, dst, recvCount, outer, dtype,
                           wire, op, p, space, streamIndex, loc);
          },
          loc))
    return;
  commrt_context *ctx = current();
  commrt_comm *c = comm(ctx, ranks, loc);
  if (!c)
    return skip(ctx, dst, recvCount, dtype, space, loc);
  commrt_stream *s = stream(ctx, streamIndex, loc);
  debugCheck(ctx, c, "comm.reduce_scatter", recvCount, dtype, wire, -1, loc);
  int64_t g = ranks.groupSize;
  // Source [outer][g][inner] -> [g][outer][inner].
  Layout pre{outer, g, recvCount / outer};
  collective(ctx, async, "comm.reduce_scatter", src, recvCount * g, dst,
             recvCount, dtype, wire, pre, {}, space, s, loc,
             [&](const void *send, void *recv, commrt_request **req) {
               if (plan.planned())
                 return planned(c, COMMRT_COLLECTIVE_REDUCE_SCATTER, plan, send,
                                recv, recvCount, wire, op, 0, s, req);
               return req ? commrt_ireduce_scatter(c, send, recv, recvCount,
                                                   wire, op, s, req)
                          : commrt_reduce_scatter(c, send, recv, recvCount,
                                                  wire, op, s);
             });
}

/// `outer`: elements before the gathered dimension (1: contiguous).
inline void all_gather(Async *async, const Ranks &ranks, const void *src,
                       void *dst, int64_t sendCount, int64_t outer,
                       commrt_dtype dtype, commrt_dtype wire, const Plan &plan,
                       commrt_memory_space space, int64_t streamIndex,
                       const char *loc) {
  const Ranks *group = &ranks;
  if (queueTransfer(
          async, src, bytesOf(sendCount, dtype), dst,
          bytesOf(sendCount * ranks.groupSize, dtype),
          [=, p = plan] {
            all_gather(async, *group, src, dst, sendCount, outer, dtype, wire,
                       p, space, streamIndex, loc);
          },
          loc))
    return;
  commrt_context *ctx = current();
  commrt_comm *c = comm(ctx, ranks, loc);
  int64_t g = ranks.groupSize;
  if (!c)
    return skip(ctx, dst, sendCount * g, dtype, space, loc);
  commrt_stream *s = stream(ctx, streamIndex, loc);
  debugCheck(ctx, c, "comm.all_gather", sendCount, dtype, wire, -1, loc);
  // Received [g][outer][inner] -> [outer][g][inner].
  Layout post{g, outer, sendCount / outer};
  collective(
      ctx, async, "comm.all_gather", src, sendCount, dst, sendCount * g, dtype,
      wire, {}, post, space, s, loc,
      [&](const void *send, void *recv, commrt_request **req) {
        if (plan.planned())
          return planned(c, COMMRT_COLLECTIVE_ALL_GATHER, plan, send, recv,
                         sendCount, wire, COMMRT_SUM, 0, s, req);
        return req ? commrt_iall_gather(c, send, recv, sendCount, wire, s, req)
                   : commrt_all_gather(c, send, recv, sendCount, wire, s);
      });
}

/// `splitOuter`: elements of the source before the split dimension;
/// `concatOuter`: elements of one received block before the concat
/// dimension (1: contiguous).
inline void all_to_all(Async *async, const Ranks &ranks, const void *src,
                       void *dst, int64_t count, int64_t splitOuter,
                       int64_t concatOuter, commrt_dtype dtype,
                       commrt_dtype wire, commrt_memory_space space,
                       int64_t streamIndex, const char *loc) {
  const Ranks *group = &ranks;
  if (queueTransfer(
          async, src, bytesOf(count, dtype), dst, bytesOf(count, dtype),
          [=] {
            all_to_all(async, *group, src, dst, count, splitOuter, concatOuter,
                       dtype, wire, space, streamIndex, loc);
          },
          loc))
    return;
  commrt_context *ctx = current();
  commrt_comm *c = comm(ctx, ranks, loc);
  if (!c)
    return skip(ctx, dst, count, dtype, space, loc);
  commrt_stream *s = stream(ctx, streamIndex, loc);
  debugCheck(ctx, c, "comm.all_to_all", count, dtype, wire, -1, loc);
  int64_t g = ranks.groupSize;
  int64_t block = count / g;
  Layout pre{splitOuter, g, block / splitOuter};
  Layout post{g, concatOuter, block / concatOuter};
  collective(ctx, async, "comm.all_to_all", src, count, dst, count, dtype, wire,
             pre, post, space, s, loc,
             [&](const void *send, void *recv, commrt_request **req) {
               return req ? commrt_iall_to_all(c, send, recv, block, wire, s,
                                               req)
                          : commrt_all_to_all(c, send, recv, block, wire, s);
             });
}

inline void broadcast(Async *async, const Ranks &ranks, const void *src,
                      void *dst, int64_t count, int64_t root,
                      commrt_dtype dtype, commrt_dtype wire, const Plan &plan,
                      commrt_memory_space space, int64_t streamIndex,
                      const char *loc) {
  const Ranks *group = &ranks;
  if (queueTransfer(
          async, src, bytesOf(count, dtype), dst, bytesOf(count, dtype),
          [=, p = plan] {
            broadcast(async, *group, src, dst, count, root, dtype, wire, p,
                      space, streamIndex, loc);
          },
          loc))
    return;
  commrt_context *ctx = current();
  commrt_comm *c = comm(ctx, ranks, loc);
  if (!c)
    return skip(ctx, dst, count, dtype, space, loc);
  commrt_stream *s = stream(ctx, streamIndex, loc);
  debugCheck(ctx, c, "comm.broadcast", count, dtype, wire, root, loc);
  collective(
      ctx, async, "comm.broadcast", src, count, dst, count, dtype, wire, {}, {},
      space, s, loc, [&](const void *send, void *recv, commrt_request **req) {
        if (plan.planned())
          return planned(c, COMMRT_COLLECTIVE_BROADCAST, plan, send, recv,
                         count, wire, COMMRT_SUM, root, s, req);
        return req ? commrt_ibroadcast(c, send, recv, count, wire, root, s, req)
                   : commrt_broadcast(c, send, recv, count, wire, root, s);
      });
}

inline void reduce(Async *async, const Ranks &ranks, const void *src, void *dst,
                   int64_t count, int64_t root, commrt_dtype dtype,
                   commrt_dtype wire, commrt_redop op, const Plan &plan,
                   commrt_memory_space space, int64_t streamIndex,
                   const char *loc) {
  const Ranks *group = &ranks;
  if (queueTransfer(
          async, src, bytesOf(count, dtype), dst, bytesOf(count, dtype),
          [=, p = plan] {
            reduce(async, *group, src, dst, count, root, dtype, wire, op, p,
                   space, streamIndex, loc);
          },
          loc))
    return;
  commrt_context *ctx = current();
  commrt_comm *c = comm(ctx, ranks, loc);
  if (!c)
    return skip(ctx, dst, count, dtype, space, loc);
  int64_t position = 0;
  COMMGEN_CHECK(commrt_comm_rank(c, &position), loc, "commrt_comm_rank");
  commrt_stream *s = stream(ctx, streamIndex, loc);
  // Ranks other than the root keep their input (in its own type, whatever
  // the wire type).
  if (position != root) {
    waitFor(async, src, bytesOf(count, dtype), loc);
    beforeWrite(ctx, dst, bytesOf(count, dtype), loc);
    COMMGEN_CHECK(commrt_copy(ctx, dst, space, src, space,
                              static_cast<int64_t>(bytesOf(count, dtype)), s),
                  loc, "comm.reduce");
  }
  debugCheck(ctx, c, "comm.reduce", count, dtype, wire, root, loc);
  collective(
      ctx, async, "comm.reduce", src, count, dst, count, dtype, wire, {}, {},
      space, s, loc,
      [&](const void *send, void *recv, commrt_request **req) {
        if (plan.planned())
          return planned(c, COMMRT_COLLECTIVE_REDUCE, plan, send, recv, count,
                         wire, op, root, s, req);
        return req ? commrt_ireduce(c, send, recv, count, wire, op, root, s,
                                    req)
                   : commrt_reduce(c, send, recv, count, wire, op, root, s);
      },
      /*writeTarget=*/position == root);
}

inline void permute(Async *async, const Pairs &pairs, const void *src,
                    void *dst, int64_t count, commrt_dtype dtype,
                    commrt_dtype wire, commrt_memory_space space,
                    int64_t streamIndex, const char *loc) {
  {
    const Pairs *peers = &pairs;
    if (queueTransfer(
            async, {range(src, bytesOf(count, dtype))},
            {range(dst, bytesOf(count, dtype))},
            [=] {
              permute(async, *peers, src, dst, count, dtype, wire, space,
                      streamIndex, loc);
            },
            loc))
      return;
  }
  commrt_context *ctx = current();
  commrt_stream *s = stream(ctx, streamIndex, loc);
  collective(
      ctx, async, "comm.permute", src, count, dst, count, dtype, wire, {}, {},
      space, s, loc, [&](const void *send, void *recv, commrt_request **req) {
        return req ? commrt_ipermute(ctx, send, recv, count, wire,
                                     pairs.flat.data(), pairs.size(), s, req)
                   : commrt_permute(ctx, send, recv, count, wire,
                                    pairs.flat.data(), pairs.size(), s);
      });
}

inline void barrier(Async *async, const Ranks &ranks, const char *loc) {
  {
    const Ranks *group = &ranks;
    if (queueTransfer(
            async, {}, {}, [=] { barrier(async, *group, loc); }, loc))
      return;
  }
  commrt_context *ctx = current();
  commrt_comm *c = comm(ctx, ranks, loc);
  if (!c)
    return;
  debugCheck(ctx, c, "comm.barrier", 0, COMMRT_U8, COMMRT_U8, -1, loc);
  if (!async) {
    COMMGEN_CHECK(commrt_barrier(c, nullptr), loc, "comm.barrier");
    return;
  }
  commrt_request *req = nullptr;
  COMMGEN_CHECK(commrt_ibarrier(c, nullptr, &req), loc, "comm.barrier");
  issued(async, req, nullptr, 0, nullptr, loc, "comm.barrier");
}

//===----------------------------------------------------------------------===//
// Point to point
//===----------------------------------------------------------------------===//

/// Sends `buf` to the target of every pair whose source is this rank. The
/// send never blocks: outside a comm.start it completes before its buffer
/// is freed or the function returns.
inline void send(Async *async, const Pairs &pairs, int64_t tag, const void *buf,
                 int64_t count, commrt_dtype dtype, commrt_dtype wire,
                 commrt_memory_space space, int64_t streamIndex,
                 const char *loc) {
  {
    const Pairs *peers = &pairs;
    if (queueTransfer(
            async, {range(buf, bytesOf(count, dtype))}, {},
            [=] {
              send(async, *peers, tag, buf, count, dtype, wire, space,
                   streamIndex, loc);
            },
            loc))
      return;
  }
  commrt_context *ctx = current();
  State &st = state(ctx);
  waitFor(async, buf, bytesOf(count, dtype), loc);
  commrt_stream *s = stream(ctx, streamIndex, loc);
  std::shared_ptr<Wire> w;
  for (int64_t k = 0; k < pairs.size(); ++k) {
    if (pairs.flat[2 * k] != st.rank)
      continue;
    if (!w) {
      joinGroup(ctx, {range(buf, bytesOf(count, dtype))}, {}, loc);
      w = std::make_shared<Wire>(
          toWire(ctx, buf, count, dtype, wire, space, s, loc));
    }
    Pending p;
    COMMGEN_CHECK(commrt_isend(ctx, w->data, count, wire, pairs.flat[2 * k + 1],
                               tag, s, &p.request),
                  loc, "comm.send");
    p.finish = [w]() {};
    p.loc = loc;
    p.op = "comm.send";
    if (w->data == buf)
      p.reads.push_back(range(buf, bytesOf(count, dtype)));
    p.seq = ++st.clock;
    if (async)
      async->pending.push_back(std::move(p));
    else
      st.sends.push_back(std::move(p));
  }
}

/// Receives into `buf` from the source of the pair whose target is this
/// rank; other ranks get zeros.
inline void recv(Async *async, const Pairs &pairs, int64_t tag, void *buf,
                 int64_t count, commrt_dtype dtype, commrt_dtype wire,
                 commrt_memory_space space, int64_t streamIndex,
                 const char *loc) {
  {
    const Pairs *peers = &pairs;
    if (queueTransfer(
            async, {}, {range(buf, bytesOf(count, dtype))},
            [=] {
              recv(async, *peers, tag, buf, count, dtype, wire, space,
                   streamIndex, loc);
            },
            loc))
      return;
  }
  commrt_context *ctx = current();
  State &st = state(ctx);
  commrt_stream *s = stream(ctx, streamIndex, loc);
  int64_t peer = -1;
  for (int64_t k = 0; k < pairs.size(); ++k)
    if (pairs.flat[2 * k + 1] == st.rank)
      peer = pairs.flat[2 * k];
  Range written = range(buf, bytesOf(count, dtype));
  if (peer < 0) {
    if (!async)
      closeGroupIfUsed(ctx, {}, {written}, loc);
    return skip(ctx, buf, count, dtype, space, loc);
  }
  beforeWrite(ctx, buf, bytesOf(count, dtype), loc);
  // In a run (a comm.start's receive too: the run goes on through its
  // body), the receive goes into the group; a blocking one completes when
  // the group closes, a started one at its comm.wait.
  bool grouped = joinGroup(ctx, {}, {written}, loc) && !async;
  void *target = buf;
  std::shared_ptr<Temp> temp;
  if (wire != dtype) {
    temp = std::make_shared<Temp>(
        ctx, static_cast<int64_t>(bytesOf(count, wire)), space, loc);
    target = temp->ptr;
  }
  commrt_request *req = nullptr;
  COMMGEN_CHECK(commrt_irecv(ctx, target, count, wire, peer, tag, s, &req), loc,
                "comm.recv");
  std::function<void()> after;
  if (temp)
    after = [=]() {
      convert(buf, dtype, temp->ptr, wire, count, space, s, loc);
      settle(s, loc, "comm.recv");
    };
  // A blocking receive first lets this rank's pending sends progress; in
  // a run's group it completes when the group closes, after the rest of
  // the run started.
  issued(async, req, buf, bytesOf(count, dtype), std::move(after), loc,
         "comm.recv", {}, grouped ? &st.groupRecvs : nullptr);
}

//===----------------------------------------------------------------------===//
// Local operations
//===----------------------------------------------------------------------===//

inline void copy(Async *async, void *dst, commrt_memory_space dstSpace,
                 const void *src, commrt_memory_space srcSpace, int64_t count,
                 commrt_dtype dtype, int64_t streamIndex, const char *loc) {
  commrt_context *ctx = current();
  size_t bytes = bytesOf(count, dtype);
  auto run = [=]() {
    commrt_stream *s = stream(ctx, streamIndex, loc);
    COMMGEN_CHECK(commrt_copy(ctx, dst, dstSpace, src, srcSpace,
                              static_cast<int64_t>(bytes), s),
                  loc, "comm.copy");
    settle(s, loc, "comm.copy");
  };
  runLocal(async, {range(src, bytes)}, {range(dst, bytes)}, run, loc);
}

/// comm.buffer.scale: target = source * factor.
inline void scale(Async *async, void *target, const void *source, int64_t count,
                  commrt_dtype dtype, double factor, commrt_memory_space space,
                  const char *loc) {
  commrt_context *ctx = current();
  size_t bytes = bytesOf(count, dtype);
  auto run = [=]() {
    if (target != source)
      COMMGEN_CHECK(commrt_copy(ctx, target, space, source, space,
                                static_cast<int64_t>(bytes), nullptr),
                    loc, "comm.buffer.scale");
    COMMGEN_CHECK(commrt_scale(target, count, dtype, factor, space, nullptr),
                  loc, "comm.buffer.scale");
  };
  runLocal(async, {range(source, bytes)}, {range(target, bytes)}, run, loc);
}

/// comm.buffer.rotate: on the rank at position p of its group, chunk j of
/// `dst` is chunk (j + p + shift) mod n of `src` (j - p + shift with
/// `inverse`); a rank in no group copies `src` as it is. Two contiguous
/// copies.
/// The part a `rotated over` compute part `part` of `parts` computes on
/// this rank: (part + its place in its group) mod parts; `part` on a rank in
/// no group.
inline int64_t rotated_part(const Ranks &ranks, int64_t part, int64_t parts) {
  commrt_context *ctx = current();
  State &st = state(ctx);
  int64_t n = ranks.groupSize;
  for (size_t i = 0; i < ranks.ranks.size(); ++i)
    if (ranks.ranks[i] == st.rank)
      return (part + static_cast<int64_t>(i) % n) % parts;
  return part;
}

inline void rotate(Async *async, const Ranks &ranks, const void *src, void *dst,
                   int64_t count, commrt_dtype dtype, int64_t shift,
                   int64_t inverse, commrt_memory_space space,
                   const char *loc) {
  commrt_context *ctx = current();
  size_t bytes = bytesOf(count, dtype);
  // `ranks` is a call site's static (COMMGEN_RANKS): a deferred run may
  // hold it.
  const Ranks *group = &ranks;
  auto run = [=]() {
    State &st = state(ctx);
    int64_t n = group->groupSize, first = 0;
    for (size_t i = 0; i < group->ranks.size(); ++i)
      if (group->ranks[i] == st.rank) {
        int64_t position = static_cast<int64_t>(i) % n;
        first = ((inverse ? -position : position) + shift % n) % n;
        if (first < 0)
          first += n;
      }
    size_t head = bytes / static_cast<size_t>(n) * static_cast<size_t>(first);
    COMMGEN_CHECK(commrt_copy(ctx, dst, space,
                              static_cast<const char *>(src) + head, space,
                              static_cast<int64_t>(bytes - head), nullptr),
                  loc, "comm.rotate");
    if (head)
      COMMGEN_CHECK(commrt_copy(ctx, static_cast<char *>(dst) + (bytes - head),
                                space, src, space, static_cast<int64_t>(head),
                                nullptr),
                    loc, "comm.rotate");
  };
  runLocal(async, {range(src, bytes)}, {range(dst, bytes)}, run, loc);
}

inline commrt_piece piece(const void *data, int64_t count, int64_t offset,
                          commrt_dtype dtype) {
  commrt_piece p;
  p.data = const_cast<void *>(data);
  p.count = count;
  p.offset = offset;
  p.dtype = dtype;
  return p;
}

/// The piece of `count` elements starting at element `start` of `data`
/// (one part of a tensor packed in blocks).
inline commrt_piece piece_at(const void *data, int64_t start, int64_t count,
                             int64_t offset, commrt_dtype dtype) {
  return piece(static_cast<const char *>(data) + bytesOf(start, dtype), count,
               offset, dtype);
}

/// Host pack/unpack of same-typed pieces in ascending, disjoint order (what
/// comm-fuse produces): plain copies, the gaps zeroed. Returns false when
/// the pieces need the runtime's general path (conversion, any order).
inline bool copyPieces(void *buffer, commrt_dtype bufferType,
                       int64_t bufferCount, commrt_memory_space space,
                       const commrt_piece *list, size_t n, bool isPack) {
  if (space == COMMRT_HBM)
    return false;
  int64_t covered = 0;
  for (size_t k = 0; k < n; ++k) {
    const commrt_piece &p = list[k];
    if (p.dtype != bufferType || p.offset < covered || p.count < 0 ||
        p.offset + p.count > bufferCount || (p.count && !p.data))
      return false;
    covered = p.offset + p.count;
  }
  size_t elt = commrt_dtype_size(bufferType);
  char *base = static_cast<char *>(buffer);
  covered = 0;
  for (size_t k = 0; k < n; ++k) {
    const commrt_piece &p = list[k];
    if (isPack && p.offset > covered)
      std::memset(base + covered * elt, 0, (p.offset - covered) * elt);
    if (p.count) {
      if (isPack)
        std::memcpy(base + p.offset * elt, p.data, p.count * elt);
      else
        std::memcpy(p.data, base + p.offset * elt, p.count * elt);
    }
    covered = p.offset + p.count;
  }
  if (isPack && covered < bufferCount)
    std::memset(base + covered * elt, 0, (bufferCount - covered) * elt);
  return true;
}

/// The bytes of each piece.
inline std::vector<Range> ranges(const std::vector<commrt_piece> &list) {
  std::vector<Range> out;
  for (const commrt_piece &p : list)
    out.push_back(range(p.data, bytesOf(p.count, p.dtype)));
  return out;
}

template <typename... Pieces>
void pack(Async *async, void *buffer, commrt_dtype bufferType,
          int64_t bufferCount, commrt_memory_space space, const char *loc,
          Pieces... pieces) {
  std::vector<commrt_piece> list{pieces...};
  auto run = [=]() {
    if (copyPieces(buffer, bufferType, bufferCount, space, list.data(),
                   list.size(), /*isPack=*/true))
      return;
    COMMGEN_CHECK(commrt_pack(buffer, bufferType, bufferCount, list.data(),
                              static_cast<int64_t>(list.size()), space,
                              nullptr),
                  loc, "comm.pack");
  };
  runLocal(async, ranges(list),
           {range(buffer, bytesOf(bufferCount, bufferType))}, run, loc);
}

template <typename... Pieces>
void unpack(Async *async, const void *buffer, commrt_dtype bufferType,
            int64_t bufferCount, commrt_memory_space space, const char *loc,
            Pieces... pieces) {
  std::vector<commrt_piece> list{pieces...};
  size_t bytes = bytesOf(bufferCount, bufferType);
  auto run = [=]() {
    if (copyPieces(const_cast<void *>(buffer), bufferType, bufferCount, space,
                   list.data(), list.size(), /*isPack=*/false))
      return;
    COMMGEN_CHECK(commrt_unpack(buffer, bufferType, bufferCount, list.data(),
                                static_cast<int64_t>(list.size()), space,
                                nullptr),
                  loc, "comm.unpack");
  };
  runLocal(async, {range(buffer, bytes)}, ranges(list), run, loc);
}

/// target = lhs (op) rhs, element-wise (f16/bf16 accumulate in f32).
inline void combine(Async *async, void *target, const void *lhs,
                    const void *rhs, int64_t count, commrt_dtype dtype,
                    commrt_redop op, commrt_memory_space space,
                    const char *loc) {
  commrt_context *ctx = current();
  size_t bytes = bytesOf(count, dtype);
  auto run = [=]() {
    const void *other = rhs;
    if (target == rhs && target != lhs)
      other = lhs;
    else if (target != lhs)
      COMMGEN_CHECK(commrt_copy(ctx, target, space, lhs, space,
                                static_cast<int64_t>(bytes), nullptr),
                    loc, "comm.buffer.combine");
    COMMGEN_CHECK(
        commrt_reduce_local(target, other, count, dtype, op, space, nullptr),
        loc, "comm.buffer.combine");
  };
  runLocal(async, {range(lhs, bytes), range(rhs, bytes)},
           {range(target, bytes)}, run, loc);
}

inline comm_tensor tensor(void *data, int64_t count, int64_t rows,
                          commrt_dtype dtype, commrt_memory_space space) {
  comm_tensor t;
  t.data = data;
  t.count = count;
  t.dtype = dtype;
  t.space = space;
  t.rows = rows;
  return t;
}

/// The stand-in for a comm.compute without a linked implementation: waits
/// for the op's `time_us` (so that overlap can be measured), then writes
/// output k element i = (sum over inputs j of input j element g mod its
/// count) + k + 1, converted to the output's type, where g = i + part *
/// (the output's count) is the element's place in the whole output (added
/// in double; in float, from k + 1 and input by input, where inputs and
/// output are all f32). Deterministic, so that a planned program can be
/// checked against the unplanned one.
void defaultCompute(const comm_compute_args *args, double timeUs,
                    const char *loc);

template <typename... Tensors>
void compute(Async *async, const char *name, comm_compute_fn fn, double timeUs,
             int64_t part, int64_t parts, int64_t rowwise, int64_t numInputs,
             const char *loc, Tensors... tensors) {
  commrt_context *ctx = current();
  const comm_tensor list[] = {tensors..., comm_tensor{}};
  int64_t total = static_cast<int64_t>(sizeof...(Tensors));
  for (int64_t i = 0; i < numInputs; ++i)
    waitFor(async, list[i].data, bytesOf(list[i].count, list[i].dtype), loc);
  for (int64_t i = numInputs; i < total; ++i)
    beforeWrite(ctx, list[i].data, bytesOf(list[i].count, list[i].dtype), loc);
  comm_compute_args args;
  args.ctx = ctx;
  args.name = name;
  args.num_inputs = numInputs;
  args.inputs = list;
  args.num_outputs = total - numInputs;
  args.outputs = list + numInputs;
  args.part = part;
  args.parts = parts;
  args.rowwise = rowwise;
  args.progress = progressHook;
  if (fn)
    fn(&args);
  else
    defaultCompute(&args, timeUs, loc);
}

inline double loadAsDouble(const void *data, commrt_dtype dtype, int64_t i) {
  switch (dtype) {
  case COMMRT_F32:
    return static_cast<const float *>(data)[i];
  case COMMRT_F64:
    return static_cast<const double *>(data)[i];
  case COMMRT_I8:
    return static_cast<const int8_t *>(data)[i];
  case COMMRT_U8:
    return static_cast<const uint8_t *>(data)[i];
  case COMMRT_I32:
    return static_cast<const int32_t *>(data)[i];
  case COMMRT_U32:
    return static_cast<const uint32_t *>(data)[i];
  case COMMRT_I64:
    return static_cast<double>(static_cast<const int64_t *>(data)[i]);
  case COMMRT_U64:
    return static_cast<double>(static_cast<const uint64_t *>(data)[i]);
  case COMMRT_F16:
  case COMMRT_BF16: {
    float value = 0;
    commrt_convert(&value, COMMRT_F32, static_cast<const uint16_t *>(data) + i,
                   dtype, 1, COMMRT_HOST, nullptr);
    return value;
  }
  }
  return 0;
}

inline void storeFromDouble(void *data, commrt_dtype dtype, int64_t i,
                            double value) {
  switch (dtype) {
  case COMMRT_F32:
    static_cast<float *>(data)[i] = static_cast<float>(value);
    return;
  case COMMRT_F64:
    static_cast<double *>(data)[i] = value;
    return;
  case COMMRT_I8:
    static_cast<int8_t *>(data)[i] = static_cast<int8_t>(value);
    return;
  case COMMRT_U8:
    static_cast<uint8_t *>(data)[i] = static_cast<uint8_t>(value);
    return;
  case COMMRT_I32:
    static_cast<int32_t *>(data)[i] = static_cast<int32_t>(value);
    return;
  case COMMRT_U32:
    static_cast<uint32_t *>(data)[i] = static_cast<uint32_t>(value);
    return;
  case COMMRT_I64:
    static_cast<int64_t *>(data)[i] = static_cast<int64_t>(value);
    return;
  case COMMRT_U64:
    static_cast<uint64_t *>(data)[i] = static_cast<uint64_t>(value);
    return;
  case COMMRT_F16:
  case COMMRT_BF16: {
    float f = static_cast<float>(value);
    commrt_convert(static_cast<uint16_t *>(data) + i, dtype, &f, COMMRT_F32, 1,
                   COMMRT_HOST, nullptr);
    return;
  }
  }
}

inline void defaultCompute(const comm_compute_args *args, double timeUs,
                           const char *loc) {
  auto begin = std::chrono::steady_clock::now();
  // Device tensors are staged through host memory: the stand-in is for
  // correctness checks and timing, not speed.
  std::vector<std::vector<char>> staged(
      static_cast<size_t>(args->num_inputs + args->num_outputs));
  auto hostView = [&](const comm_tensor &t, size_t index) -> void * {
    if (t.space == COMMRT_HOST || t.space == COMMRT_PINNED_HOST)
      return t.data;
    staged[index].resize(bytesOf(t.count, t.dtype));
    return staged[index].data();
  };
  std::vector<const void *> ins;
  for (int64_t j = 0; j < args->num_inputs; ++j) {
    const comm_tensor &t = args->inputs[j];
    void *view = hostView(t, static_cast<size_t>(j));
    if (view != t.data)
      COMMGEN_CHECK(commrt_copy(args->ctx, view, COMMRT_HOST, t.data, t.space,
                                static_cast<int64_t>(bytesOf(t.count, t.dtype)),
                                nullptr),
                    loc, "comm.compute");
    ins.push_back(view);
  }
  bool allF32 = true;
  for (int64_t j = 0; j < args->num_inputs; ++j)
    allF32 &= args->inputs[j].dtype == COMMRT_F32;
  // The element of input `in` that element i of output `t` reads: for a
  // rowwise op, the same row of an input with the output's rows (a part's
  // rows, or the whole output's), column modulo the input's row width;
  // otherwise element g (i's place in the whole output) modulo the input's
  // size. A part so reads what the whole op reads for the same element.
  auto source = [&](const comm_tensor &t, const comm_tensor &in,
                    int64_t i) -> int64_t {
    int64_t g = i + args->part * t.count;
    if (args->rowwise && t.rows > 0 && in.rows > 0 &&
        (in.rows == t.rows || in.rows == t.rows * args->parts)) {
      int64_t outWidth = t.count / t.rows, inWidth = in.count / in.rows;
      int64_t row = i / outWidth, column = i % outWidth;
      if (in.rows != t.rows)
        row += args->part * t.rows;
      return inWidth ? row * inWidth + column % inWidth : 0;
    }
    return g % in.count;
  };
  for (int64_t k = 0; k < args->num_outputs; ++k) {
    const comm_tensor &t = args->outputs[k];
    void *view = hostView(t, static_cast<size_t>(args->num_inputs + k));
    bool rowwise = args->rowwise && t.rows > 0;
    bool aliased = false;
    for (int64_t j = 0; j < args->num_inputs; ++j)
      aliased |= intersects(
          range(view, bytesOf(t.count, t.dtype)),
          range(ins[static_cast<size_t>(j)],
                bytesOf(args->inputs[j].count, args->inputs[j].dtype)));
    if (allF32 && t.dtype == COMMRT_F32 && !rowwise && !aliased) {
      // Input by input, in float, straight into the output: element g of
      // the whole output reads element g modulo each input's size, walked
      // as runs of consecutive elements added by a vectorized kernel. The
      // stand-in's own work must stay well inside its time_us (on an
      // oversubscribed machine it takes the cores the transfers need); the
      // whole op and each of its parts add in the same order, so they give
      // the same bits.
      auto *out = static_cast<float *>(view);
      std::fill(out, out + t.count, static_cast<float>(k + 1));
      for (int64_t j = 0; j < args->num_inputs; ++j) {
        const comm_tensor &in = args->inputs[j];
        if (in.count <= 0)
          continue;
        const auto *from =
            static_cast<const float *>(ins[static_cast<size_t>(j)]);
        int64_t at = (args->part * t.count) % in.count;
        for (int64_t i = 0; i < t.count;) {
          int64_t run = std::min(t.count - i, in.count - at);
          // The runtime's vectorized kernel (this header is compiled at
          // the user's -O level).
          COMMGEN_CHECK(commrt_reduce_local(out + i, from + at, run, COMMRT_F32,
                                            COMMRT_SUM, COMMRT_HOST, nullptr),
                        loc, "comm.compute");
          i += run;
          at = 0;
        }
      }
    } else if (allF32 && t.dtype == COMMRT_F32) {
      // The same values on typed pointers, without a switch per element.
      auto *out = static_cast<float *>(view);
      for (int64_t i = 0; i < t.count; ++i) {
        double value = static_cast<double>(k + 1);
        for (int64_t j = 0; j < args->num_inputs; ++j) {
          const comm_tensor &in = args->inputs[j];
          if (in.count > 0)
            value += static_cast<const float *>(
                ins[static_cast<size_t>(j)])[source(t, in, i)];
        }
        out[i] = static_cast<float>(value);
      }
    }
    for (int64_t i = 0; !(allF32 && t.dtype == COMMRT_F32) && i < t.count;
         ++i) {
      double value = static_cast<double>(k + 1);
      for (int64_t j = 0; j < args->num_inputs; ++j) {
        const comm_tensor &in = args->inputs[j];
        if (in.count > 0)
          value += loadAsDouble(ins[static_cast<size_t>(j)], in.dtype,
                                source(t, in, i));
      }
      storeFromDouble(view, t.dtype, i, value);
    }
    if (view != t.data)
      COMMGEN_CHECK(commrt_copy(args->ctx, t.data, t.space, view, COMMRT_HOST,
                                static_cast<int64_t>(bytesOf(t.count, t.dtype)),
                                nullptr),
                    loc, "comm.compute");
  }
  // The stand-in waits rather than computes: compute runs on the device
  // (or, for a CPU rank, is a placeholder), and the host thread is free
  // meanwhile. It spends that time as a host runtime waiting for its
  // device does: driving the transfers already started (a polled backend,
  // such as MPI, moves data only when asked), yielding the core between
  // polls to the other ranks of an oversubscribed machine. Once nothing is
  // in flight it sleeps rather than spins; the last 50 us (a sleep's usual
  // overshoot) it yields in a loop, so that short stand-ins keep their
  // length.
  auto until = begin + std::chrono::duration<double, std::micro>(timeUs);
  auto wake = until - std::chrono::microseconds(50);
  while (std::chrono::steady_clock::now() < wake && progress(args->ctx))
    std::this_thread::yield();
  if (std::chrono::steady_clock::now() < wake)
    std::this_thread::sleep_until(wake);
  while (std::chrono::steady_clock::now() < until)
    std::this_thread::yield();
}

/// The last error of an entry point on this thread (as the runtime's own
/// commrt_last_error).
inline std::string &lastErrorStorage() {
  static thread_local std::string message;
  return message;
}

/// The body of a generated C entry point: runs `body`, completes the
/// function's sends and turns errors into a status (and a message in
/// lastErrorStorage()). `worldSize` is the program's comm.world_size (0:
/// none): a context of another size is refused (the ranks beyond it
/// returned zeros, those short of it failed in commrt_comm_create).
template <typename Body>
int32_t entry(commrt_context *ctx, const char *name, Body body,
              int64_t worldSize = 0) {
  try {
    if (!ctx)
      throw Error(COMMRT_ERROR_INVALID_ARGUMENT,
                  std::string(name) + ": the commrt_context is NULL");
    if (int64_t world = state(ctx).world; worldSize > 0 && world != worldSize)
      throw Error(COMMRT_ERROR_INVALID_ARGUMENT,
                  std::string(name) + ": the program was compiled for " +
                      std::to_string(worldSize) +
                      " ranks (comm.world_size) but runs on " +
                      std::to_string(world) + "; run it with mpirun -np " +
                      std::to_string(worldSize));
    Scope scope(ctx);
    // A comm.start an error skipped the wait of is not polled again, and
    // what an error left queued is not issued by the next call.
    struct Forget {
      commrt_context *ctx;
      ~Forget() {
        State &st = state(ctx);
        st.started.clear();
        st.queue.clear();
        st.issuing = false;
        st.fillAsync = nullptr;
        // An error inside a run of sends and receives: its group is
        // closed (what it started is abandoned with the error).
        st.p2pRun = false;
        st.groupReads.clear();
        st.groupRecvs.clear();
        if (st.groupOpen) {
          st.groupOpen = false;
          commrt_group_end(ctx);
        }
      }
    } forget{ctx};
    body();
    finish(ctx, name);
    return COMMRT_SUCCESS;
  } catch (const Error &error) {
    lastErrorStorage() = error.what();
    return error.status;
  } catch (const std::exception &error) {
    lastErrorStorage() = std::string(name) + ": " + error.what();
    return COMMRT_ERROR_INTERNAL;
  }
}

} // namespace commgen

#define COMMGEN_RANKS(groupSize, ...)                                          \
  ([]() -> const ::commgen::Ranks & {                                          \
    static const ::commgen::Ranks ranks{groupSize, {__VA_ARGS__}};             \
    return ranks;                                                              \
  }())

#define COMMGEN_PAIRS(...)                                                     \
  ([]() -> const ::commgen::Pairs & {                                          \
    static const ::commgen::Pairs pairs{{__VA_ARGS__}};                        \
    return pairs;                                                              \
  }())

#endif // COMMRT_GEN_H
