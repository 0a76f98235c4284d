//===- lib/Validate.cpp - Cross-rank checks before collectives --*- C++ -*-===//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//
//
// Every collective is checked across its group before it touches a buffer.
// Each member contributes a fingerprint of what it is about to run (the op,
// count, dtype, reduction, root and schedule), and one MPI_Iallreduce with
// a user-defined op gives every member the largest and the smallest value
// of each field with the lowest rank holding each (MPI_MAXLOC's rule).
// Equal extremes mean that the group agrees; otherwise every member knows
// which two ranks differ and in what, and all fail alike before any payload
// moved (a count mismatch would otherwise truncate a message, which Open
// MPI 4.1's shared-memory transport turns into a write past the receive
// buffer). The message has the same size on every rank, and an all_reduce
// of up to 1 KiB rides in it: the op reduces the payloads when both sides
// agree, so such an all_reduce costs one collective, not two.
// COMMRT_DEBUG=desync's commrt_debug_check uses the same exchange.
//
// Fingerprints travel on a duplicate of the group's communicator, posted in
// call order. An operation starts its transfers once its fingerprints
// agreed, and the operations of one communicator start in call order (a
// queue per communicator), so that the backend sees collectives in the same
// order on every rank whatever order the caller waits in. A stream-ordered
// backend (nccl) must enqueue at the call: there the call waits for the
// fingerprints.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"
#include "Kernels.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>

using namespace commrt;

namespace {

/// The fields of a fingerprint, each in [0, 2^63).
enum Field { Shape, Count, Chunk, NumFields };

/// The small fields of a collective, packed into one (see pack).
struct ShapeFields {
  int kind = 0, dtype = 0, op = 0, algorithm = 0, channels = 0;
  int64_t root = 0;
};

/// The reduction of an operation that has none.
constexpr int noOp = 15;

int64_t pack(const ShapeFields &f) {
  return int64_t(f.kind) | int64_t(f.dtype) << 4 | int64_t(f.op) << 8 |
         int64_t(f.algorithm) << 12 | int64_t(f.channels) << 16 | f.root << 23;
}

ShapeFields unpack(int64_t v) {
  ShapeFields f;
  f.kind = static_cast<int>(v & 15);
  f.dtype = static_cast<int>((v >> 4) & 15);
  f.op = static_cast<int>((v >> 8) & 15);
  f.algorithm = static_cast<int>((v >> 12) & 15);
  f.channels = static_cast<int>((v >> 16) & 127);
  f.root = v >> 23;
  return f;
}

bool isReduction(OpKind kind) {
  return kind == OpKind::AllReduce || kind == OpKind::ReduceScatter ||
         kind == OpKind::Reduce;
}

bool isRooted(OpKind kind) {
  return kind == OpKind::Broadcast || kind == OpKind::Reduce;
}

/// What every member of the group must agree on about \p args run as
/// \p plan: fields that do not apply are left 0 (or noOp), and a plan is
/// reduced to what shapes its transfers.
std::array<int64_t, NumFields> fingerprintOf(const OpArgs &args,
                                             const commrt_plan *plan) {
  std::array<int64_t, NumFields> fp{};
  ShapeFields f;
  f.kind = static_cast<int>(args.kind);
  bool barrier = args.kind == OpKind::Barrier;
  f.dtype = barrier ? 0 : static_cast<int>(args.dtype);
  f.op = isReduction(args.kind) ? static_cast<int>(args.op) : noOp;
  f.root = isRooted(args.kind) ? args.root : 0;
  if (plan && plan->algorithm != COMMRT_ALGORITHM_DEFAULT &&
      plan->algorithm != COMMRT_ALGORITHM_NVLS) {
    f.algorithm = static_cast<int>(plan->algorithm);
    f.channels = static_cast<int>(std::max<int64_t>(1, plan->channels));
    int64_t elt = static_cast<int64_t>(commrt_dtype_size(args.dtype));
    fp[Chunk] = plan->chunk_bytes > 0
                    ? std::max<int64_t>(1, plan->chunk_bytes / elt)
                    : 0;
  }
  fp[Shape] = pack(f);
  fp[Count] = barrier ? 0 : args.count;
  return fp;
}

/// Payloads up to this size travel inside the fingerprint message: an
/// all_reduce that small is done by the collective that validates it.
constexpr size_t inlineBytes = 1024;

/// The fingerprint message, the same size on every rank whatever it runs
/// (so that no rank truncates another's).
struct Message {
  /// Per field, the largest and the smallest value and the lowest world
  /// rank holding each.
  int64_t max[NumFields], min[NumFields];
  int32_t maxRank[NumFields], minRank[NumFields];
  /// Bytes of payload carried (a small all_reduce), else 0.
  uint64_t inlined;
  alignas(16) unsigned char payload[inlineBytes];
};

bool consistent(const Message &m) {
  for (int f = 0; f < NumFields; ++f)
    if (m.min[f] != m.max[f])
      return false;
  return true;
}

/// The MPI_User_function of the exchange: per field, the larger maximum
/// and the smaller minimum with the lowest rank holding each; the payloads
/// of an all_reduce that both sides agree on are reduced.
void combine(void *inV, void *inoutV, int *len, MPI_Datatype *) {
  auto *in = static_cast<const Message *>(inV);
  auto *io = static_cast<Message *>(inoutV);
  for (int i = 0; i < *len; ++i, ++in, ++io) {
    bool reduce = in->inlined && in->inlined == io->inlined &&
                  consistent(*in) && consistent(*io) &&
                  std::equal(in->max, in->max + NumFields, io->max);
    for (int f = 0; f < NumFields; ++f) {
      if (in->max[f] > io->max[f] ||
          (in->max[f] == io->max[f] && in->maxRank[f] < io->maxRank[f])) {
        io->max[f] = in->max[f];
        io->maxRank[f] = in->maxRank[f];
      }
      if (in->min[f] < io->min[f] ||
          (in->min[f] == io->min[f] && in->minRank[f] < io->minRank[f])) {
        io->min[f] = in->min[f];
        io->minRank[f] = in->minRank[f];
      }
    }
    if (!reduce) {
      io->inlined = 0;
      continue;
    }
    ShapeFields shape = unpack(io->max[Shape]);
    auto op = static_cast<commrt_redop>(shape.op);
    cpu::reduce(io->payload, in->payload, static_cast<size_t>(io->max[Count]),
                static_cast<commrt_dtype>(shape.dtype),
                op == COMMRT_AVG ? COMMRT_SUM : op);
  }
}

/// One exchange of fingerprints over a group (see the file comment).
class Exchange {
public:
  /// Posts \p fp, with \p bytes of \p payload to reduce on the way.
  commrt_status post(commrt_comm *comm,
                     const std::array<int64_t, NumFields> &fp,
                     const void *payload = nullptr, size_t bytes = 0) {
    commrt_context *ctx = comm->ctx;
    for (int f = 0; f < NumFields; ++f) {
      mine.max[f] = mine.min[f] = fp[f];
      mine.maxRank[f] = mine.minRank[f] = ctx->rank;
    }
    mine.inlined = bytes;
    if (bytes)
      std::memcpy(mine.payload, payload, bytes);
    int err = MPI_Iallreduce(&mine, &all, 1, ctx->fingerprintType,
                             ctx->fingerprintOp, comm->fingerprints, &request);
    if (err != MPI_SUCCESS)
      return setError(COMMRT_ERROR_BACKEND,
                      "fingerprint exchange: " +
                          mpiErrorString("MPI_Iallreduce", err));
    return COMMRT_SUCCESS;
  }

  commrt_status test(bool &done) {
    int flag = 0;
    int err = MPI_Test(&request, &flag, MPI_STATUS_IGNORE);
    if (err != MPI_SUCCESS)
      return setError(COMMRT_ERROR_BACKEND,
                      "fingerprint exchange: " +
                          mpiErrorString("MPI_Test", err));
    done = flag != 0;
    return COMMRT_SUCCESS;
  }

  int64_t max(int f) const { return all.max[f]; }
  int maxRank(int f) const { return all.maxRank[f]; }
  int64_t min(int f) const { return all.min[f]; }
  int minRank(int f) const { return all.minRank[f]; }
  bool agreed() const { return consistent(all); }
  /// The reduced payload's bytes, 0 if it was not carried by every member.
  size_t inlined() const { return static_cast<size_t>(all.inlined); }
  const void *payload() const { return all.payload; }

  MPI_Request request = MPI_REQUEST_NULL;

private:
  Message mine, all;
};

/// "rank 0 passed X but rank 2 passed Y", the lower rank first; \p unit
/// follows the first value.
std::string contrast(int a, std::string aText, int b, std::string bText,
                     const char *verb, const char *verbAgain,
                     const std::string &unit = "") {
  if (b < a) {
    std::swap(a, b);
    std::swap(aText, bText);
  }
  return format("rank %d %s %s%s but rank %d %s %s", a, verb, aText.c_str(),
                unit.c_str(), b, verbAgain, bText.c_str());
}

std::string planName(const ShapeFields &f) {
  if (!f.algorithm)
    return "the backend's own collective";
  return format(
      "the planned %s schedule on %d channel%s",
      commrt_algorithm_name(static_cast<commrt_algorithm>(f.algorithm)),
      f.channels, f.channels == 1 ? "" : "s");
}

std::string redName(int op) {
  return op == noOp ? "none" : redopName(static_cast<commrt_redop>(op));
}

/// Why the fingerprints of \p ex differ: for each field, the two ranks
/// holding its extremes and their values.
std::string mismatchMessage(const Exchange &ex) {
  std::vector<std::string> diffs;
  ShapeFields lo = unpack(ex.min(Shape)), hi = unpack(ex.max(Shape));
  int a = ex.minRank(Shape), b = ex.maxRank(Shape);
  if (lo.kind != hi.kind) {
    diffs.push_back(contrast(a, opName(static_cast<OpKind>(lo.kind)), b,
                             opName(static_cast<OpKind>(hi.kind)), "runs",
                             "runs"));
  } else {
    if (lo.dtype != hi.dtype)
      diffs.push_back(
          contrast(a,
                   std::string("dtype ") +
                       commrt_dtype_name(static_cast<commrt_dtype>(lo.dtype)),
                   b,
                   std::string("dtype ") +
                       commrt_dtype_name(static_cast<commrt_dtype>(hi.dtype)),
                   "passed", "passed"));
    if (lo.op != hi.op)
      diffs.push_back(contrast(a, "reduction " + redName(lo.op), b,
                               "reduction " + redName(hi.op), "passed",
                               "passed"));
    if (lo.root != hi.root)
      diffs.push_back(
          contrast(a, format("root %lld", static_cast<long long>(lo.root)), b,
                   format("root %lld", static_cast<long long>(hi.root)),
                   "passed", "passed"));
    if (lo.algorithm != hi.algorithm || lo.channels != hi.channels)
      diffs.push_back(
          contrast(a, planName(lo), b, planName(hi), "runs it as", "as"));
  }
  if (ex.min(Count) != ex.max(Count)) {
    // The dtype is known when the group agrees on it.
    std::string unit = " elements";
    if (lo.dtype == hi.dtype)
      unit = std::string(" ") +
             commrt_dtype_name(static_cast<commrt_dtype>(lo.dtype)) + unit;
    diffs.push_back(contrast(ex.minRank(Count), std::to_string(ex.min(Count)),
                             ex.maxRank(Count), std::to_string(ex.max(Count)),
                             "passed", "passed", unit));
  }
  if (ex.min(Chunk) != ex.max(Chunk)) {
    auto chunk = [](int64_t c) {
      return c ? format("chunks of %lld elements", static_cast<long long>(c))
               : std::string("one chunk");
    };
    diffs.push_back(contrast(ex.minRank(Chunk), chunk(ex.min(Chunk)),
                             ex.maxRank(Chunk), chunk(ex.max(Chunk)),
                             "cuts it in", "in"));
  }
  std::string out = "the ranks of the group disagree on this operation, so "
                    "none of them ran it: ";
  for (size_t i = 0; i < diffs.size(); ++i)
    out += (i ? "; " : "") + diffs[i];
  return out;
}

/// A collective that starts its transfers once its group agreed on it.
class CheckedRequest : public commrt_request {
public:
  CheckedRequest(commrt_context *ctx, const OpArgs &args, const OpArgs &posted,
                 const commrt_plan *plan, std::vector<char> corrupted)
      : commrt_request(ctx, args), posted(posted), planned(plan != nullptr),
        corrupted(std::move(corrupted)) {
    if (plan)
      this->plan = *plan;
  }

  commrt_status poll(bool &done) override {
    done = false;
    if (!decided)
      if (commrt_status s = startInOrder(args.comm))
        return s;
    if (!decided)
      return COMMRT_SUCCESS;
    if (failure)
      return setError(failure, failureMessage);
    if (!inner) {
      done = true; // Carried by the fingerprints.
      return COMMRT_SUCCESS;
    }
    return inner->poll(done);
  }

  void abandon() override {
    if (inner) {
      inner->abandon();
      return;
    }
    // Operations behind it need not wait for it any more.
    std::deque<commrt_request *> &queue = args.comm->unstarted;
    queue.erase(std::remove(queue.begin(), queue.end(), this), queue.end());
  }

  /// Decides the operations of \p comm whose fingerprints arrived, oldest
  /// first, and starts those the group agreed on.
  static commrt_status startInOrder(commrt_comm *comm) {
    commrt_context *ctx = comm->ctx;
    // Starting one may wait (a schedule gathers the nodes once), and waits
    // start what is ready: not again from inside, or later operations
    // would start before this one.
    if (ctx->startingValidated)
      return COMMRT_SUCCESS;
    ctx->startingValidated = true;
    struct Done {
      commrt_context *ctx;
      ~Done() { ctx->startingValidated = false; }
    } done{ctx};
    std::deque<commrt_request *> &queue = comm->unstarted;
    while (!queue.empty()) {
      auto *head = static_cast<CheckedRequest *>(queue.front());
      bool arrived = false;
      if (commrt_status s = head->exchange.test(arrived))
        head->fail(s, lastError());
      else if (!arrived)
        return COMMRT_SUCCESS;
      else
        head->decide();
      queue.pop_front();
    }
    return COMMRT_SUCCESS;
  }

  Exchange exchange;

private:
  void fail(commrt_status status, const std::string &message) {
    decided = true;
    failure = status;
    failureMessage = message;
  }

  void decide() {
    if (!exchange.agreed()) {
      mismatch = true;
      return fail(COMMRT_ERROR_INVALID_ARGUMENT, mismatchMessage(exchange));
    }
    // A member that failed meanwhile may never start it.
    answerRollCalls(ctx);
    std::string why;
    if (peerGaveUp(ctx, args.comm, sequence, why))
      return fail(COMMRT_ERROR_REMOTE, why);
    decided = true;
    if (size_t bytes = exchange.inlined()) {
      // The all_reduce rode in the fingerprints: its result is here.
      std::memcpy(args.recv, exchange.payload(), bytes);
      if (args.op == COMMRT_AVG)
        cpu::divide(args.recv, static_cast<size_t>(args.count), args.dtype,
                    static_cast<long long>(args.comm->ranks.size()));
      ++args.comm->started;
      return;
    }
    posted.validated = true;
    if (commrt_status s = startOp(ctx, args, posted, planned ? &plan : nullptr,
                                  std::move(corrupted), inner))
      return fail(s, lastError());
  }

  OpArgs posted;
  commrt_plan plan{COMMRT_ALGORITHM_DEFAULT, 0, 0};
  bool planned;
  std::vector<char> corrupted;
  bool decided = false;
  commrt_status failure = COMMRT_SUCCESS;
  std::string failureMessage;
  std::unique_ptr<commrt_request> inner;
};

/// Whether \p args can ride in its fingerprints: an all_reduce of MPI's own
/// (no schedule) on host buffers that no CUDA stream still writes, small
/// enough.
bool rides(const commrt_context *ctx, const OpArgs &args,
           const commrt_plan *plan) {
  bool scheduled = plan && plan->algorithm != COMMRT_ALGORITHM_DEFAULT &&
                   plan->algorithm != COMMRT_ALGORITHM_NVLS;
  size_t bytes =
      static_cast<size_t>(args.count) * commrt_dtype_size(args.dtype);
  return args.kind == OpKind::AllReduce && !scheduled && bytes > 0 &&
         bytes <= inlineBytes && !ctx->backend->streamOrdered() &&
         ctx->backend->bufferSpace() == COMMRT_HOST &&
         !(args.stream && args.stream->cuda);
}

/// FNV-1a of a string.
uint64_t hashText(const char *text) {
  uint64_t h = 1469598103934665603ull;
  for (const char *c = text; *c; ++c)
    h = (h ^ static_cast<unsigned char>(*c)) * 1099511628211ull;
  return h;
}

} // namespace

commrt_status commrt::startValidation(commrt_context *ctx) {
  if (!ctx->validate && !ctx->debugDesync)
    return COMMRT_SUCCESS;
  int err =
      MPI_Type_contiguous(sizeof(Message), MPI_BYTE, &ctx->fingerprintType);
  if (err == MPI_SUCCESS)
    err = MPI_Type_commit(&ctx->fingerprintType);
  if (err == MPI_SUCCESS)
    err = MPI_Op_create(combine, /*commute=*/1, &ctx->fingerprintOp);
  if (err != MPI_SUCCESS)
    return setError(
        COMMRT_ERROR_BACKEND,
        "commrt: commrt_init: the fingerprint exchange: " +
            mpiErrorString("MPI_Type_contiguous/MPI_Op_create", err));
  return COMMRT_SUCCESS;
}

void commrt::stopValidation(commrt_context *ctx) {
  // An abandoned exchange may still use them.
  if (ctx->pendingMpi)
    return;
  if (ctx->fingerprintOp != MPI_OP_NULL)
    MPI_Op_free(&ctx->fingerprintOp);
  if (ctx->fingerprintType != MPI_DATATYPE_NULL)
    MPI_Type_free(&ctx->fingerprintType);
}

void commrt::startAgreed(commrt_context *ctx) {
  for (const auto &comm : ctx->comms)
    if (!comm->unstarted.empty())
      CheckedRequest::startInOrder(comm.get());
}

bool commrt::validates(const commrt_context *ctx, const OpArgs &args) {
  return ctx->validate && args.comm && args.comm->ranks.size() > 1;
}

commrt_status commrt::startValidated(commrt_context *ctx, const OpArgs &args,
                                     const OpArgs &posted,
                                     const commrt_plan *plan,
                                     std::vector<char> corrupted,
                                     std::unique_ptr<commrt_request> &out) {
  commrt_comm *comm = args.comm;
  auto req = std::make_unique<CheckedRequest>(ctx, args, posted, plan,
                                              std::move(corrupted));
  // The index run() gives it, needed before that when deciding at once.
  req->sequence = comm->posted;
  size_t bytes = rides(ctx, args, plan) ? static_cast<size_t>(args.count) *
                                              commrt_dtype_size(args.dtype)
                                        : 0;
  // What the backend would send: COMMRT_INJECT may have corrupted it.
  if (commrt_status s = req->exchange.post(comm, fingerprintOf(args, plan),
                                           posted.send, bytes))
    return s;
  comm->unstarted.push_back(req.get());
  if (ctx->backend->streamOrdered()) {
    // Transfers are enqueued on the stream at the call: wait for the
    // fingerprints here.
    if (commrt_status s =
            waitInGroup(ctx, &req->exchange.request, 1,
                        describe(args) + " (checking it across the group)",
                        comm, req->sequence)) {
      req->abandon();
      ctx->pendingMpi = true;
      ctx->abandoned.push_back(std::move(req));
      return s;
    }
    if (commrt_status s = CheckedRequest::startInOrder(comm))
      return s;
  } else {
    // Start now if every member had already arrived: the transfers then
    // overlap what the caller does before it waits, as without the check.
    if (commrt_status s = CheckedRequest::startInOrder(comm))
      return s;
  }
  out = std::move(req);
  return COMMRT_SUCCESS;
}

extern "C" int commrt_debug_desync(commrt_context *ctx) {
  return ctx && ctx->debugDesync ? 1 : 0;
}

extern "C" commrt_status commrt_debug_check(commrt_comm *comm,
                                            const char *what) {
  if (commrt_status s = checkUsable("commrt_debug_check", comm))
    return s;
  commrt_context *ctx = comm->ctx;
  if (!ctx->debugDesync)
    return COMMRT_SUCCESS;
  struct Record {
    uint64_t sequence;
    char what[240];
  };
  Record mine{};
  mine.sequence = comm->debugSequence++;
  std::snprintf(mine.what, sizeof mine.what, "%s", what ? what : "");
  std::string step =
      "desync check of '" + std::string(mine.what) + "' on group " + comm->name;
  // The operation it checks is the next one posted on the group.
  uint64_t sequence = comm->posted;
  // The fingerprint: the check's index and a hash of what it compares. On
  // the heap, and kept if a wait gives up: MPI may still write into it.
  std::array<int64_t, NumFields> fp{};
  fp[Shape] = static_cast<int64_t>(mine.sequence & (~0ull >> 1));
  fp[Count] = static_cast<int64_t>(hashText(mine.what) >> 1);
  auto exchange = std::make_unique<Exchange>();
  if (commrt_status s = exchange->post(comm, fp))
    return raise(ctx, s, "commrt: " + step + ": " + lastError());
  if (commrt_status s =
          waitInGroup(ctx, &exchange->request, 1, step, comm, sequence)) {
    (void)exchange.release();
    return s;
  }
  if (exchange->agreed())
    return COMMRT_SUCCESS;
  // Every member saw the difference: gather the texts to name both.
  auto gathered = std::make_unique<std::vector<Record>>(comm->ranks.size());
  if (commrt_status s = allgatherMpi(ctx, &mine, gathered->data(),
                                     sizeof(Record), comm->fingerprints,
                                     step + " (gathering what each "
                                            "rank runs)",
                                     PartOf{comm, sequence})) {
    (void)gathered.release();
    return s;
  }
  const std::vector<Record> &all = *gathered;
  for (size_t i = 1; i < all.size(); ++i) {
    if (all[i].sequence == all[0].sequence &&
        !std::strncmp(all[i].what, all[0].what, sizeof mine.what))
      continue;
    return setError(
        COMMRT_ERROR_INVALID_ARGUMENT,
        format("commrt: desync on group %s: rank %d runs its operation #%llu "
               "there, %s, but rank %d runs #%llu, %s",
               comm->name.c_str(), comm->ranks[0],
               static_cast<unsigned long long>(all[0].sequence), all[0].what,
               comm->ranks[i], static_cast<unsigned long long>(all[i].sequence),
               all[i].what));
  }
  return COMMRT_SUCCESS;
}
