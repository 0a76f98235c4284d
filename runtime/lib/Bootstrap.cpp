//===- lib/Bootstrap.cpp - MPI bootstrap and timed waits --------*- C++ -*-===//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//
//
// Every wait in commrt goes through here: the MPI steps of the bootstrap
// (init, comm_create) and the completion of requests. Each polls with a
// deadline instead of blocking, so that a rank that never joins turns into
// a timeout naming the op, the group and the rank instead of a hang.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <cstdio>

using namespace commrt;

void commrt::trace(commrt_context *ctx, int level, const char *fmt, ...) {
  if (!ctx || ctx->opts.verbose < level)
    return;
  char text[1024];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(text, sizeof(text), fmt, args);
  va_end(args);
  std::fprintf(stderr, "[commrt rank %d] %s\n", ctx->rank, text);
}

namespace {
/// Waits for \p reqs. For an exchange of \p comm (if any), its operation
/// #\p sequence: fails early when a member announced it left, or when
/// members wait for each other in different groups (DeadlockProbe); on
/// timeout, names the members that did not join; without \p comm it says
/// \p unnamed instead.
commrt_status waitAll(commrt_context *ctx, MPI_Request *reqs, int count,
                      const std::string &what, commrt_comm *comm,
                      uint64_t sequence, const char *unnamed) {
  Deadline deadline(ctx->opts.timeout_ms);
  Backoff backoff(ctx->oversubscribed);
  DeadlockProbe probe(ctx, comm, sequence);
  for (unsigned polls = 0;; ++polls) {
    if (ctx->backend)
      ctx->backend->pollPending();
    startAgreed(ctx);
    int flag = 0;
    int err = MPI_Testall(count, reqs, &flag, MPI_STATUSES_IGNORE);
    if (err != MPI_SUCCESS)
      return raise(ctx, COMMRT_ERROR_BACKEND,
                   format("commrt: %s on rank %d: %s", what.c_str(), ctx->rank,
                          mpiErrorString("MPI_Testall", err).c_str()));
    if (flag)
      return COMMRT_SUCCESS;
    answerRollCalls(ctx);
    std::string why;
    if (comm && polls % 64 == 63) {
      commrt_status status = COMMRT_SUCCESS;
      if (peerGaveUp(ctx, comm, sequence, why))
        status = COMMRT_ERROR_REMOTE;
      else if (probe.found(deadline.elapsedMs(), why))
        status = COMMRT_ERROR_INVALID_ARGUMENT;
      if (status) {
        ctx->pendingMpi = true;
        std::string message = format("commrt: %s on rank %d failed: %s",
                                     what.c_str(), ctx->rank, why.c_str());
        probe.abandonOther(message); // after a deadlock only
        return raise(ctx, status, message, /*fatal=*/true);
      }
    }
    if (deadline.expired()) {
      ctx->pendingMpi = true;
      probe.cancel();
      why = comm ? rollCall(ctx, comm, sequence) : unnamed;
      return raise(ctx, COMMRT_ERROR_TIMEOUT,
                   format("commrt: %s timed out after %lld ms on rank %d "
                          "(%s; waited %lld ms)",
                          what.c_str(),
                          static_cast<long long>(deadline.timeout()), ctx->rank,
                          why.c_str(),
                          static_cast<long long>(deadline.elapsedMs())));
    }
    backoff.pause();
  }
}
} // namespace

commrt_status commrt::waitMpi(commrt_context *ctx, MPI_Request *reqs, int count,
                              const std::string &what, const char *unnamed) {
  return waitAll(ctx, reqs, count, what, nullptr, 0, unnamed);
}

commrt_status commrt::waitInGroup(commrt_context *ctx, MPI_Request *reqs,
                                  int count, const std::string &what,
                                  commrt_comm *comm, uint64_t sequence) {
  struct Answering {
    commrt_context *ctx;
    const std::string *what;
    uint64_t comm, sequence;
    ~Answering() {
      ctx->waitingIn = what;
      ctx->waitingInComm = comm;
      ctx->waitingInSequence = sequence;
    }
  } answering{ctx, ctx->waitingIn, ctx->waitingInComm, ctx->waitingInSequence};
  ctx->waitingIn = &what;
  ctx->waitingInComm = comm->id;
  ctx->waitingInSequence = sequence;
  commrt_status status =
      waitAll(ctx, reqs, count, what, comm, sequence, /*unnamed=*/nullptr);
  if (status) {
    // The exchange is abandoned on the group's fingerprint communicator:
    // nothing more can run on the group. Tell the others why this rank
    // left, as a failed operation does.
    comm->failed = true;
    comm->failure = lastError();
    announceFailure(ctx, comm, sequence, what, comm->failure);
  }
  return status;
}

PartOf commrt::nextWorldOperation(commrt_context *ctx) {
  commrt_comm *world = ctx->worldGroup.get();
  return world ? PartOf{world, world->posted} : PartOf{};
}

commrt_status commrt::waitExchange(commrt_context *ctx, MPI_Request *req,
                                   MPI_Comm comm, const std::string &what,
                                   PartOf partOf) {
  if (partOf.group)
    return waitInGroup(ctx, req, 1, what, partOf.group, partOf.sequence);
  commrt_comm *world = ctx->worldGroup.get();
  if (comm != ctx->world || !world)
    return waitMpi(ctx, req, 1, what);
  // A rank that gives up on the exchange tells the others that it left
  // before it (started counts the exchanges it completed): an exchange one
  // rank abandoned cannot be waited out.
  uint64_t sequence = world->posted++;
  commrt_status status = waitInGroup(ctx, req, 1, what, world, sequence);
  if (!status)
    world->started = world->posted;
  return status;
}

commrt_comm *commrt::findCommById(commrt_context *ctx, uint64_t id) {
  commrt_comm *found = nullptr;
  for (const auto &c : ctx->comms)
    if (c->id == id && (!found || c->posted > found->posted))
      found = c.get();
  if (!found && ctx->worldGroup && ctx->worldGroup->id == id)
    found = ctx->worldGroup.get();
  return found;
}

commrt_status commrt::allreduceMpi(commrt_context *ctx, const void *send,
                                   void *recv, int count, MPI_Datatype type,
                                   MPI_Op op, MPI_Comm comm,
                                   const std::string &what, PartOf partOf) {
  MPI_Request req;
  int err = MPI_Iallreduce(send, recv, count, type, op, comm, &req);
  if (err != MPI_SUCCESS)
    return raise(ctx, COMMRT_ERROR_BACKEND,
                 format("commrt: %s on rank %d: %s", what.c_str(), ctx->rank,
                        mpiErrorString("MPI_Iallreduce", err).c_str()));
  return waitExchange(ctx, &req, comm, what, partOf);
}

commrt_status commrt::barrierMpi(commrt_context *ctx, MPI_Comm comm,
                                 const std::string &what, PartOf partOf) {
  MPI_Request req;
  int err = MPI_Ibarrier(comm, &req);
  if (err != MPI_SUCCESS)
    return raise(ctx, COMMRT_ERROR_BACKEND,
                 format("commrt: %s on rank %d: %s", what.c_str(), ctx->rank,
                        mpiErrorString("MPI_Ibarrier", err).c_str()));
  return waitExchange(ctx, &req, comm, what, partOf);
}

commrt_status commrt::allgatherMpi(commrt_context *ctx, const void *send,
                                   void *recv, int bytes, MPI_Comm comm,
                                   const std::string &what, PartOf partOf) {
  MPI_Request req;
  int err =
      MPI_Iallgather(send, bytes, MPI_BYTE, recv, bytes, MPI_BYTE, comm, &req);
  if (err != MPI_SUCCESS)
    return raise(ctx, COMMRT_ERROR_BACKEND,
                 format("commrt: %s on rank %d: %s", what.c_str(), ctx->rank,
                        mpiErrorString("MPI_Iallgather", err).c_str()));
  return waitExchange(ctx, &req, comm, what, partOf);
}

commrt_status commrt::bcastMpi(commrt_context *ctx, void *buf, int count,
                               MPI_Datatype type, int root, MPI_Comm comm,
                               const std::string &what, PartOf partOf) {
  MPI_Request req;
  int err = MPI_Ibcast(buf, count, type, root, comm, &req);
  if (err != MPI_SUCCESS)
    return raise(ctx, COMMRT_ERROR_BACKEND,
                 format("commrt: %s on rank %d: %s", what.c_str(), ctx->rank,
                        mpiErrorString("MPI_Ibcast", err).c_str()));
  return waitExchange(ctx, &req, comm, what, partOf);
}

commrt_status commrt::agree(commrt_context *ctx, commrt_status local,
                            MPI_Comm comm, const std::string &what,
                            PartOf partOf) {
  int commSize = 1;
  MPI_Comm_size(comm, &commSize);
  // The lowest world rank that failed, or the world size if none did.
  int mine = local == COMMRT_SUCCESS ? ctx->size : ctx->rank;
  int first = ctx->size;
  std::string kept = lastError();
  if (commrt_status s =
          allreduceMpi(ctx, &mine, &first, 1, MPI_INT, MPI_MIN, comm,
                       what + " (agreeing on the outcome)", partOf))
    return s;
  if (local != COMMRT_SUCCESS)
    return setError(local, kept);
  if (first == ctx->size)
    return COMMRT_SUCCESS;
  return raise(ctx, COMMRT_ERROR_REMOTE,
               format("commrt: %s failed on rank %d (see its message), so it "
                      "fails on rank %d too",
                      what.c_str(), first, ctx->rank));
}

namespace {

/// Why a wait of \p args can stall, for the timeout message.
std::string waitingFor(const OpArgs &args) {
  switch (args.kind) {
  case OpKind::Send:
    return format("waiting for rank %d to receive", args.peer);
  case OpKind::Recv:
    return format("waiting for rank %d to send", args.peer);
  case OpKind::Permute:
    // The send and the receive are one request: name both peers.
    if (args.recvFrom >= 0 && args.sendTo >= 0)
      return format("waiting for rank %d to send or rank %d to receive",
                    args.recvFrom, args.sendTo);
    if (args.recvFrom >= 0)
      return format("waiting for rank %d to send", args.recvFrom);
    if (args.sendTo >= 0)
      return format("waiting for rank %d to receive", args.sendTo);
    return "waiting for the peers of the permute";
  default:
    return "waiting for ranks that did not join";
  }
}

} // namespace

/// Marks \p req failed with \p message and raises it; other ranks are
/// told, unless the failure is a mismatch every member saw.
static commrt_status failRequest(commrt_request *req, commrt_status status,
                                 const std::string &message,
                                 bool fatal = false) {
  fatal = fatal || isFatal(status);
  req->abandon();
  req->ctx->pendingMpi = true;
  req->failedStatus = status;
  req->failedMessage = message;
  if (commrt_comm *comm = req->args.comm) {
    if (fatal) {
      comm->failed = true;
      comm->failure = message;
    }
  }
  if (!req->mismatch || !req->args.comm)
    announceFailure(req->ctx, req->args.comm, req->sequence,
                    describe(req->args), message);
  return raise(req->ctx, status, message, fatal || req->mismatch);
}

commrt_status commrt::pollRequest(commrt_request *req, bool &done) {
  done = false;
  if (req->completed) {
    done = true;
    return COMMRT_SUCCESS;
  }
  if (req->failedStatus)
    return raise(req->ctx, req->failedStatus, req->failedMessage);
  // Whatever this request waits for may wait for others.
  req->ctx->backend->pollPending();
  startAgreed(req->ctx);
  if (commrt_status s = req->poll(done)) {
    done = false;
    return failRequest(req, s,
                       format("commrt: %s on rank %d failed: %s",
                              describe(req->args).c_str(), req->ctx->rank,
                              lastError().c_str()));
  }
  if (done)
    req->completed = true;
  return COMMRT_SUCCESS;
}

commrt_status commrt::waitRequest(commrt_request *req) {
  commrt_context *ctx = req->ctx;
  Deadline deadline(ctx->opts.timeout_ms);
  Backoff backoff(ctx->oversubscribed);
  // What this rank answers to roll calls meanwhile.
  struct Waiting {
    commrt_context *ctx;
    const commrt_request *before;
    ~Waiting() { ctx->waitingFor = before; }
  } waiting{ctx, ctx->waitingFor};
  ctx->waitingFor = req;
  DeadlockProbe probe(ctx, req->args.comm, req->sequence);
  for (unsigned polls = 0;; ++polls) {
    bool done = false;
    if (commrt_status s = pollRequest(req, done))
      return s;
    if (done)
      return COMMRT_SUCCESS;
    // Roll calls and notices come only after someone failed: no hurry.
    if (polls % 64 == 63) {
      answerRollCalls(ctx);
      std::string why;
      if (peerGaveUp(ctx, req->args.comm, req->sequence, why))
        return failRequest(req, COMMRT_ERROR_REMOTE,
                           format("commrt: %s on rank %d failed: %s",
                                  describe(req->args).c_str(), ctx->rank,
                                  why.c_str()));
      // Ranks that disagree on the order of two groups' collectives: an
      // error of the program, found without waiting for the timeout.
      if (probe.found(deadline.elapsedMs(), why)) {
        std::string message =
            format("commrt: %s on rank %d failed: %s",
                   describe(req->args).c_str(), ctx->rank, why.c_str());
        probe.abandonOther(message);
        return failRequest(req, COMMRT_ERROR_INVALID_ARGUMENT, message,
                           /*fatal=*/true);
      }
    }
    if (deadline.expired()) {
      probe.cancel();
      int64_t waited = deadline.elapsedMs();
      // A collective asks its group who is missing; point to point names
      // its peer already.
      std::string why = req->args.comm
                            ? rollCall(ctx, req->args.comm, req->sequence)
                            : waitingFor(req->args);
      return failRequest(
          req, COMMRT_ERROR_TIMEOUT,
          format("commrt: %s timed out after %lld ms on rank %d (%s; waited "
                 "%lld ms)",
                 describe(req->args).c_str(),
                 static_cast<long long>(deadline.timeout()), ctx->rank,
                 why.c_str(), static_cast<long long>(waited)));
    }
    backoff.pause();
  }
}

commrt_status commrt::completeRequest(std::unique_ptr<commrt_request> req) {
  commrt_context *ctx = req->ctx;
  commrt_status status = waitRequest(req.get());
  if (status)
    ctx->abandoned.push_back(std::move(req));
  return status;
}
