//===- lib/Ops.cpp - Collectives, point to point, requests ------*- C++ -*-===//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//
//
// Every communication entry point validates its arguments here, hands one
// OpArgs to the backend, and either returns the request (i-forms), keeps it
// for commrt_group_end (blocking forms inside a group), or waits for it
// with the timeout (blocking forms).
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#if COMMRT_HAVE_CUDA
#include "../cuda/Cuda.h"
#endif

#include <algorithm>
#include <cstdio>
#include <cstring>

using namespace commrt;

commrt_status commrt::checkUsable(const char *fn, commrt_comm *comm) {
  if (!comm)
    return setError(COMMRT_ERROR_INVALID_ARGUMENT,
                    format("commrt: %s: comm is NULL (a rank in no group "
                           "must skip the collective)",
                           fn));
  if (comm->references <= 0)
    return setError(COMMRT_ERROR_INVALID_STATE,
                    format("commrt: %s: the communicator of group %s was "
                           "destroyed",
                           fn, comm->name.c_str()));
  if (comm->failed)
    return setError(COMMRT_ERROR_INVALID_STATE,
                    format("commrt: %s: the communicator of group %s failed "
                           "earlier and cannot be used: %s",
                           fn, comm->name.c_str(), comm->failure.c_str()));
  return COMMRT_SUCCESS;
}

commrt_status commrt::startOp(commrt_context *ctx, const OpArgs &args,
                              const OpArgs &posted, const commrt_plan *plan,
                              std::vector<char> corrupted,
                              std::unique_ptr<commrt_request> &out) {
  bool scheduled = plan && plan->algorithm != COMMRT_ALGORITHM_DEFAULT &&
                   plan->algorithm != COMMRT_ALGORITHM_NVLS;
  // The checksums are of the caller's data, before any injected fault.
  std::vector<uint64_t> sent = sentChecksums(ctx, args);
  std::unique_ptr<commrt_request> started;
  if (commrt_status s = scheduled ? postPlanned(ctx, posted, *plan, started)
                                  : ctx->backend->post(posted, started))
    return s;
  started->injected = std::move(corrupted);
  if (args.comm)
    ++args.comm->started;
  if (commrt_status s = addChecksum(ctx, args, sent, started))
    return s;
  out = std::move(started);
  return COMMRT_SUCCESS;
}

namespace {

/// Largest tag a caller may use; the bits above are reserved.
constexpr int64_t maxTag = (int64_t(1) << 30) - 1;

commrt_status invalid(const char *fn, const std::string &what) {
  return setError(COMMRT_ERROR_INVALID_ARGUMENT,
                  std::string("commrt: ") + fn + ": " + what);
}

commrt_status checkBuffer(const char *fn, const char *name, const void *ptr,
                          size_t bytes) {
  if (bytes && !ptr)
    return invalid(fn, format("%s is NULL", name));
  return COMMRT_SUCCESS;
}

/// Checks dtype and op of a reduction.
commrt_status checkReduction(const char *fn, commrt_dtype dtype,
                             commrt_redop op) {
  if (!isValidRedop(op))
    return invalid(fn, format("unknown reduction op %d", static_cast<int>(op)));
  if (op >= COMMRT_BAND && isFloatDtype(dtype))
    return invalid(fn, format("bitwise reduction %s on floating-point dtype %s",
                              redopName(op), commrt_dtype_name(dtype)));
  return COMMRT_SUCCESS;
}

/// Checks that \p count elements times \p factor stays representable.
commrt_status checkScaledCount(const char *fn, int64_t count, int64_t factor,
                               commrt_dtype dtype, size_t *bytes) {
  if (commrt_status s = checkCount(fn, count, dtype, nullptr))
    return s;
  if (factor > 0 && count > (int64_t(1) << 62) / factor)
    return invalid(fn, format("count %lld times group size %lld overflows",
                              static_cast<long long>(count),
                              static_cast<long long>(factor)));
  return checkCount(fn, count * factor, dtype, bytes);
}

/// Starts \p args and finishes according to the form of the call.
commrt_status run(const char *fn, commrt_context *ctx, const OpArgs &args,
                  commrt_request **req, const commrt_plan *plan = nullptr) {
  if (ctx->opts.verbose >= 2)
    trace(ctx, 2, "%s: %s, %lld x %s%s%s", fn, describe(args).c_str(),
          static_cast<long long>(args.count), commrt_dtype_name(args.dtype),
          plan ? ", algorithm " : "",
          plan ? commrt_algorithm_name(plan->algorithm) : "");
  auto failed = [&](commrt_status s) {
    return raise(ctx, s,
                 format("commrt: %s on rank %d: %s", describe(args).c_str(),
                        ctx->rank, lastError().c_str()));
  };
  if (commrt_status s = ctx->backend->check(args))
    return failed(s);
  // COMMRT_INJECT counts every operation posted here; a corrupted copy of
  // the send buffer replaces it in what the backend sees.
  OpArgs posted = args;
  std::vector<char> corrupted;
  uint64_t index = ctx->posted++;
  if (commrt_status s = injectFault(ctx, index, posted, corrupted))
    return failed(s);
  std::unique_ptr<commrt_request> started;
  if (commrt_status s =
          validates(ctx, args)
              ? startValidated(ctx, args, posted, plan, std::move(corrupted),
                               started)
              : startOp(ctx, args, posted, plan, std::move(corrupted), started))
    return failed(s);
  if (args.comm)
    started->sequence = args.comm->posted++;
  if (ctx->groupDepth > 0)
    ctx->groupStarted.push_back(started.get());
  if (req) {
    *req = started.release();
    return COMMRT_SUCCESS;
  }
  if (ctx->groupDepth > 0) {
    ctx->groupBlocking.push_back(std::move(started));
    return COMMRT_SUCCESS;
  }
  return completeRequest(std::move(started));
}

/// Prepares the common part of a collective.
commrt_status begin(const char *fn, commrt_comm *comm, commrt_dtype dtype,
                    commrt_request **req, bool nonBlocking) {
  if (commrt_status s = checkUsable(fn, comm))
    return s;
  if (!isValidDtype(dtype))
    return invalid(fn, format("unknown dtype %d", static_cast<int>(dtype)));
  if (nonBlocking && !req)
    return invalid(fn, "req is NULL");
  if (req)
    *req = nullptr;
  return COMMRT_SUCCESS;
}

commrt_status allReduce(const char *fn, commrt_comm *comm, const void *send,
                        void *recv, int64_t count, commrt_dtype dtype,
                        commrt_redop op, commrt_stream *stream,
                        commrt_request **req, bool nonBlocking,
                        const commrt_plan *plan = nullptr) {
  if (commrt_status s = begin(fn, comm, dtype, req, nonBlocking))
    return s;
  size_t bytes = 0;
  if (commrt_status s = checkCount(fn, count, dtype, &bytes))
    return s;
  if (commrt_status s = checkReduction(fn, dtype, op))
    return s;
  if (checkBuffer(fn, "send", send, bytes) ||
      checkBuffer(fn, "recv", recv, bytes))
    return COMMRT_ERROR_INVALID_ARGUMENT;
  OpArgs args;
  args.kind = OpKind::AllReduce;
  args.comm = comm;
  args.send = send;
  args.recv = recv;
  args.count = count;
  args.dtype = dtype;
  args.op = op;
  args.stream = stream;
  return run(fn, comm->ctx, args, req, plan);
}

commrt_status reduceScatter(const char *fn, commrt_comm *comm, const void *send,
                            void *recv, int64_t recvCount, commrt_dtype dtype,
                            commrt_redop op, commrt_stream *stream,
                            commrt_request **req, bool nonBlocking,
                            const commrt_plan *plan = nullptr) {
  if (commrt_status s = begin(fn, comm, dtype, req, nonBlocking))
    return s;
  size_t recvBytes = 0, sendBytes = 0;
  if (commrt_status s = checkCount(fn, recvCount, dtype, &recvBytes))
    return s;
  if (commrt_status s = checkScaledCount(
          fn, recvCount, static_cast<int64_t>(comm->ranks.size()), dtype,
          &sendBytes))
    return s;
  if (commrt_status s = checkReduction(fn, dtype, op))
    return s;
  if (checkBuffer(fn, "send", send, sendBytes) ||
      checkBuffer(fn, "recv", recv, recvBytes))
    return COMMRT_ERROR_INVALID_ARGUMENT;
  OpArgs args;
  args.kind = OpKind::ReduceScatter;
  args.comm = comm;
  args.send = send;
  args.recv = recv;
  args.count = recvCount;
  args.dtype = dtype;
  args.op = op;
  args.stream = stream;
  return run(fn, comm->ctx, args, req, plan);
}

commrt_status gatherLike(const char *fn, OpKind kind, commrt_comm *comm,
                         const void *send, void *recv, int64_t count,
                         commrt_dtype dtype, commrt_stream *stream,
                         commrt_request **req, bool nonBlocking,
                         const commrt_plan *plan = nullptr) {
  if (commrt_status s = begin(fn, comm, dtype, req, nonBlocking))
    return s;
  size_t blockBytes = 0, totalBytes = 0;
  if (commrt_status s = checkCount(fn, count, dtype, &blockBytes))
    return s;
  if (commrt_status s =
          checkScaledCount(fn, count, static_cast<int64_t>(comm->ranks.size()),
                           dtype, &totalBytes))
    return s;
  if (checkBuffer(fn, "send", send,
                  kind == OpKind::AllGather ? blockBytes : totalBytes) ||
      checkBuffer(fn, "recv", recv, totalBytes))
    return COMMRT_ERROR_INVALID_ARGUMENT;
  OpArgs args;
  args.kind = kind;
  args.comm = comm;
  args.send = send;
  args.recv = recv;
  args.count = count;
  args.dtype = dtype;
  args.stream = stream;
  return run(fn, comm->ctx, args, req, plan);
}

commrt_status rooted(const char *fn, OpKind kind, commrt_comm *comm,
                     const void *send, void *recv, int64_t count,
                     commrt_dtype dtype, commrt_redop op, int64_t root,
                     commrt_stream *stream, commrt_request **req,
                     bool nonBlocking, const commrt_plan *plan = nullptr) {
  if (commrt_status s = begin(fn, comm, dtype, req, nonBlocking))
    return s;
  size_t bytes = 0;
  if (commrt_status s = checkCount(fn, count, dtype, &bytes))
    return s;
  if (kind == OpKind::Reduce)
    if (commrt_status s = checkReduction(fn, dtype, op))
      return s;
  int64_t size = static_cast<int64_t>(comm->ranks.size());
  if (root < 0 || root >= size)
    return invalid(fn, format("root %lld is outside group %s (positions 0 to "
                              "%lld)",
                              static_cast<long long>(root), comm->name.c_str(),
                              static_cast<long long>(size - 1)));
  bool isRoot = comm->position == root;
  if (checkBuffer(fn, "send", send,
                  kind == OpKind::Reduce || isRoot ? bytes : 0) ||
      checkBuffer(fn, "recv", recv, bytes))
    return COMMRT_ERROR_INVALID_ARGUMENT;
  OpArgs args;
  args.kind = kind;
  args.comm = comm;
  args.send = send;
  args.recv = recv;
  args.count = count;
  args.dtype = dtype;
  args.op = op;
  args.root = static_cast<int>(root);
  args.stream = stream;
  return run(fn, comm->ctx, args, req, plan);
}

commrt_status barrier(const char *fn, commrt_comm *comm, commrt_stream *stream,
                      commrt_request **req, bool nonBlocking) {
  if (commrt_status s = begin(fn, comm, COMMRT_U8, req, nonBlocking))
    return s;
  OpArgs args;
  args.kind = OpKind::Barrier;
  args.comm = comm;
  args.dtype = COMMRT_U8;
  args.stream = stream;
  return run(fn, comm->ctx, args, req);
}

commrt_status pointToPoint(const char *fn, OpKind kind, commrt_context *ctx,
                           const void *send, void *recv, int64_t count,
                           commrt_dtype dtype, int64_t peer, int64_t tag,
                           commrt_stream *stream, commrt_request **req,
                           bool nonBlocking) {
  if (!ctx)
    return invalid(fn, "ctx is NULL");
  if (nonBlocking && !req)
    return invalid(fn, "req is NULL");
  if (req)
    *req = nullptr;
  size_t bytes = 0;
  if (commrt_status s = checkCount(fn, count, dtype, &bytes))
    return s;
  if (peer < 0 || peer >= ctx->size)
    return invalid(fn, format("peer %lld is outside the world of %d ranks",
                              static_cast<long long>(peer), ctx->size));
  if (tag < 0 || tag > maxTag)
    return invalid(fn, format("tag %lld is outside [0, 2^30)",
                              static_cast<long long>(tag)));
  if (checkBuffer(fn, "buf", kind == OpKind::Send ? send : recv, bytes))
    return COMMRT_ERROR_INVALID_ARGUMENT;
  OpArgs args;
  args.kind = kind;
  args.send = send;
  args.recv = recv;
  args.count = count;
  args.dtype = dtype;
  args.peer = static_cast<int>(peer);
  args.tag = static_cast<int>(tag);
  args.stream = stream;
  return run(fn, ctx, args, req);
}

/// Zeroes the receive buffer of a rank that no pair targets.
commrt_status zeroBuffer(commrt_context *ctx, void *ptr, size_t bytes,
                         commrt_stream *stream) {
  if (!bytes)
    return COMMRT_SUCCESS;
  // The verbs backend carries host or GPU memory.
  if (ctx->backend->bufferSpace() != COMMRT_HBM && !isGpuMemory(ctx, ptr)) {
    std::memset(ptr, 0, bytes);
    return COMMRT_SUCCESS;
  }
#if COMMRT_HAVE_CUDA
  // A polled backend (verbs) completes the permute without the stream.
  return cuda::fill(ptr, 0, bytes, cudaStreamOf(stream),
                    /*synchronous=*/!ctx->backend->streamOrdered());
#else
  (void)stream;
  return setError(COMMRT_ERROR_UNAVAILABLE, "built without CUDA");
#endif
}

commrt_status permute(const char *fn, commrt_context *ctx, const void *send,
                      void *recv, int64_t count, commrt_dtype dtype,
                      const int64_t *pairs, int64_t numPairs,
                      commrt_stream *stream, commrt_request **req,
                      bool nonBlocking) {
  if (!ctx)
    return invalid(fn, "ctx is NULL");
  if (nonBlocking && !req)
    return invalid(fn, "req is NULL");
  if (req)
    *req = nullptr;
  size_t bytes = 0;
  if (commrt_status s = checkCount(fn, count, dtype, &bytes))
    return s;
  if (numPairs < 0)
    return invalid(fn, format("num_pairs %lld is negative",
                              static_cast<long long>(numPairs)));
  if (numPairs > 0 && !pairs)
    return invalid(fn, "pairs is NULL");
  std::vector<char> isSource(static_cast<size_t>(ctx->size), 0),
      isTarget(static_cast<size_t>(ctx->size), 0);
  OpArgs args;
  args.kind = OpKind::Permute;
  for (int64_t i = 0; i < numPairs; ++i) {
    int64_t source = pairs[2 * i], target = pairs[2 * i + 1];
    for (int64_t r : {source, target})
      if (r < 0 || r >= ctx->size)
        return invalid(fn, format("pair #%lld [%lld, %lld] names rank %lld "
                                  "outside the world of %d ranks",
                                  static_cast<long long>(i),
                                  static_cast<long long>(source),
                                  static_cast<long long>(target),
                                  static_cast<long long>(r), ctx->size));
    if (isSource[static_cast<size_t>(source)]++)
      return invalid(fn, format("rank %lld is the source of two pairs",
                                static_cast<long long>(source)));
    if (isTarget[static_cast<size_t>(target)]++)
      return invalid(fn, format("rank %lld is the target of two pairs",
                                static_cast<long long>(target)));
    if (source == ctx->rank)
      args.sendTo = static_cast<int>(target);
    if (target == ctx->rank)
      args.recvFrom = static_cast<int>(source);
  }
  if (checkBuffer(fn, "send", send, args.sendTo >= 0 ? bytes : 0) ||
      checkBuffer(fn, "recv", recv, bytes))
    return COMMRT_ERROR_INVALID_ARGUMENT;
  if (args.sendTo >= 0 && args.recvFrom >= 0 && bytes) {
    auto s = reinterpret_cast<uintptr_t>(send);
    auto r = reinterpret_cast<uintptr_t>(recv);
    if (s < r + bytes && r < s + bytes)
      return invalid(fn, "send and recv overlap");
  }
  if (args.recvFrom < 0)
    if (commrt_status s = zeroBuffer(ctx, recv, bytes, stream))
      return raise(ctx, s,
                   format("commrt: %s on rank %d: zeroing recv: %s", fn,
                          ctx->rank, lastError().c_str()));
  args.send = send;
  args.recv = recv;
  args.count = count;
  args.dtype = dtype;
  args.stream = stream;
  return run(fn, ctx, args, req);
}

} // namespace

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

#define COMMRT_GUARD(fn, ...) return guard(fn, [&] { return __VA_ARGS__; })

extern "C" commrt_status commrt_all_reduce(commrt_comm *comm, const void *send,
                                           void *recv, int64_t count,
                                           commrt_dtype dtype, commrt_redop op,
                                           commrt_stream *stream) {
  COMMRT_GUARD("commrt_all_reduce",
               allReduce("commrt_all_reduce", comm, send, recv, count, dtype,
                         op, stream, nullptr, false));
}

extern "C" commrt_status commrt_iall_reduce(commrt_comm *comm, const void *send,
                                            void *recv, int64_t count,
                                            commrt_dtype dtype, commrt_redop op,
                                            commrt_stream *stream,
                                            commrt_request **req) {
  COMMRT_GUARD("commrt_iall_reduce",
               allReduce("commrt_iall_reduce", comm, send, recv, count, dtype,
                         op, stream, req, true));
}

extern "C" commrt_status
commrt_reduce_scatter(commrt_comm *comm, const void *send, void *recv,
                      int64_t recv_count, commrt_dtype dtype, commrt_redop op,
                      commrt_stream *stream) {
  COMMRT_GUARD("commrt_reduce_scatter",
               reduceScatter("commrt_reduce_scatter", comm, send, recv,
                             recv_count, dtype, op, stream, nullptr, false));
}

extern "C" commrt_status
commrt_ireduce_scatter(commrt_comm *comm, const void *send, void *recv,
                       int64_t recv_count, commrt_dtype dtype, commrt_redop op,
                       commrt_stream *stream, commrt_request **req) {
  COMMRT_GUARD("commrt_ireduce_scatter",
               reduceScatter("commrt_ireduce_scatter", comm, send, recv,
                             recv_count, dtype, op, stream, req, true));
}

extern "C" commrt_status commrt_all_gather(commrt_comm *comm, const void *send,
                                           void *recv, int64_t send_count,
                                           commrt_dtype dtype,
                                           commrt_stream *stream) {
  COMMRT_GUARD("commrt_all_gather",
               gatherLike("commrt_all_gather", OpKind::AllGather, comm, send,
                          recv, send_count, dtype, stream, nullptr, false));
}

extern "C" commrt_status commrt_iall_gather(commrt_comm *comm, const void *send,
                                            void *recv, int64_t send_count,
                                            commrt_dtype dtype,
                                            commrt_stream *stream,
                                            commrt_request **req) {
  COMMRT_GUARD("commrt_iall_gather",
               gatherLike("commrt_iall_gather", OpKind::AllGather, comm, send,
                          recv, send_count, dtype, stream, req, true));
}

extern "C" commrt_status commrt_all_to_all(commrt_comm *comm, const void *send,
                                           void *recv, int64_t count,
                                           commrt_dtype dtype,
                                           commrt_stream *stream) {
  COMMRT_GUARD("commrt_all_to_all",
               gatherLike("commrt_all_to_all", OpKind::AllToAll, comm, send,
                          recv, count, dtype, stream, nullptr, false));
}

extern "C" commrt_status commrt_iall_to_all(commrt_comm *comm, const void *send,
                                            void *recv, int64_t count,
                                            commrt_dtype dtype,
                                            commrt_stream *stream,
                                            commrt_request **req) {
  COMMRT_GUARD("commrt_iall_to_all",
               gatherLike("commrt_iall_to_all", OpKind::AllToAll, comm, send,
                          recv, count, dtype, stream, req, true));
}

extern "C" commrt_status commrt_broadcast(commrt_comm *comm, const void *send,
                                          void *recv, int64_t count,
                                          commrt_dtype dtype, int64_t root,
                                          commrt_stream *stream) {
  COMMRT_GUARD("commrt_broadcast",
               rooted("commrt_broadcast", OpKind::Broadcast, comm, send, recv,
                      count, dtype, COMMRT_SUM, root, stream, nullptr, false));
}

extern "C" commrt_status commrt_ibroadcast(commrt_comm *comm, const void *send,
                                           void *recv, int64_t count,
                                           commrt_dtype dtype, int64_t root,
                                           commrt_stream *stream,
                                           commrt_request **req) {
  COMMRT_GUARD("commrt_ibroadcast",
               rooted("commrt_ibroadcast", OpKind::Broadcast, comm, send, recv,
                      count, dtype, COMMRT_SUM, root, stream, req, true));
}

extern "C" commrt_status commrt_reduce(commrt_comm *comm, const void *send,
                                       void *recv, int64_t count,
                                       commrt_dtype dtype, commrt_redop op,
                                       int64_t root, commrt_stream *stream) {
  COMMRT_GUARD("commrt_reduce",
               rooted("commrt_reduce", OpKind::Reduce, comm, send, recv, count,
                      dtype, op, root, stream, nullptr, false));
}

extern "C" commrt_status commrt_ireduce(commrt_comm *comm, const void *send,
                                        void *recv, int64_t count,
                                        commrt_dtype dtype, commrt_redop op,
                                        int64_t root, commrt_stream *stream,
                                        commrt_request **req) {
  COMMRT_GUARD("commrt_ireduce",
               rooted("commrt_ireduce", OpKind::Reduce, comm, send, recv, count,
                      dtype, op, root, stream, req, true));
}

extern "C" const char *commrt_algorithm_name(commrt_algorithm algorithm) {
  switch (algorithm) {
  case COMMRT_ALGORITHM_DEFAULT:
    return "default";
  case COMMRT_ALGORITHM_RING:
    return "ring";
  case COMMRT_ALGORITHM_TREE:
    return "tree";
  case COMMRT_ALGORITHM_DIRECT:
    return "direct";
  case COMMRT_ALGORITHM_HALVING_DOUBLING:
    return "halving_doubling";
  case COMMRT_ALGORITHM_HIERARCHICAL:
    return "hierarchical";
  case COMMRT_ALGORITHM_NVLS:
    return "nvls";
  }
  return "unknown";
}

namespace {

const char *collectiveName(commrt_collective kind) {
  switch (kind) {
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
  return "unknown";
}

/// Checks that \p plan names an algorithm commrt implements for \p kind on
/// the backend of \p comm.
commrt_status checkPlan(const char *fn, commrt_comm *comm,
                        commrt_collective kind, const commrt_plan &plan) {
  commrt_algorithm a = plan.algorithm;
  if (std::string(commrt_algorithm_name(a)) == "unknown")
    return invalid(fn, format("unknown algorithm %d", static_cast<int>(a)));
  if (plan.channels < 0 || plan.channels > COMMRT_MAX_CHANNELS)
    return invalid(fn, format("channels %lld is outside [0, %d]",
                              static_cast<long long>(plan.channels),
                              COMMRT_MAX_CHANNELS));
  if (plan.chunk_bytes < 0)
    return invalid(fn, format("chunk_bytes %lld is negative",
                              static_cast<long long>(plan.chunk_bytes)));
  if (a == COMMRT_ALGORITHM_DEFAULT)
    return COMMRT_SUCCESS;
  bool ok = false;
  const char *supported = "";
  switch (kind) {
  case COMMRT_COLLECTIVE_ALL_REDUCE:
    ok = true;
    break;
  case COMMRT_COLLECTIVE_REDUCE_SCATTER:
  case COMMRT_COLLECTIVE_ALL_GATHER:
    ok = a == COMMRT_ALGORITHM_RING || a == COMMRT_ALGORITHM_DIRECT ||
         a == COMMRT_ALGORITHM_HALVING_DOUBLING ||
         a == COMMRT_ALGORITHM_HIERARCHICAL;
    supported = "default, ring, direct, halving_doubling or hierarchical";
    break;
  case COMMRT_COLLECTIVE_BROADCAST:
  case COMMRT_COLLECTIVE_REDUCE:
    ok = a != COMMRT_ALGORITHM_NVLS;
    supported = "default, ring, tree, direct, halving_doubling or hierarchical";
    break;
  }
  if (!ok)
    return invalid(fn, format("algorithm %s is not implemented for %s "
                              "(expected %s)",
                              commrt_algorithm_name(a), collectiveName(kind),
                              supported));
  commrt_backend backend = comm->ctx->backendKind;
  if (a == COMMRT_ALGORITHM_NVLS && backend != COMMRT_BACKEND_NCCL)
    return setError(COMMRT_ERROR_UNAVAILABLE,
                    format("commrt: %s: algorithm nvls is NVLink SHARP, which "
                           "only the nccl backend reaches (this is the %s "
                           "backend)",
                           fn, backendName(backend)));
  if (backend == COMMRT_BACKEND_VERBS)
    return setError(COMMRT_ERROR_UNAVAILABLE,
                    format("commrt: %s: the verbs backend carries point to "
                           "point only; planned collectives need the mpi or "
                           "nccl backend",
                           fn));
  return COMMRT_SUCCESS;
}

/// Checks that \p plan cuts each channel's slice of \p count elements
/// (reduce_scatter, all_gather: of one block) into at most
/// COMMRT_MAX_CHUNKS_PER_CHANNEL chunks. The backend's own collective and
/// NVLS take no chunks.
commrt_status checkChunks(const char *fn, const commrt_plan &plan,
                          int64_t count, commrt_dtype dtype) {
  if (plan.chunk_bytes <= 0 || plan.algorithm == COMMRT_ALGORITHM_DEFAULT ||
      plan.algorithm == COMMRT_ALGORITHM_NVLS || count <= 0)
    return COMMRT_SUCCESS;
  int64_t elt = static_cast<int64_t>(commrt_dtype_size(dtype));
  if (elt <= 0)
    return COMMRT_SUCCESS; // the collective reports the dtype
  int64_t channels = std::max<int64_t>(1, plan.channels);
  int64_t chunks =
      commrt_plan_chunks_per_channel(count, channels, plan.chunk_bytes, elt);
  if (chunks <= COMMRT_MAX_CHUNKS_PER_CHANNEL)
    return COMMRT_SUCCESS;
  int64_t slice = (count + channels - 1) / channels;
  int64_t least = (slice + COMMRT_MAX_CHUNKS_PER_CHANNEL - 1) /
                  COMMRT_MAX_CHUNKS_PER_CHANNEL * elt;
  return invalid(fn, format("chunk_bytes %lld cuts each channel's %lld "
                            "bytes into %lld chunks, more than %d; use "
                            "chunk_bytes >= %lld or more channels",
                            static_cast<long long>(plan.chunk_bytes),
                            static_cast<long long>(slice * elt),
                            static_cast<long long>(chunks),
                            COMMRT_MAX_CHUNKS_PER_CHANNEL,
                            static_cast<long long>(least)));
}

commrt_status collectivePlanned(const char *fn, commrt_comm *comm,
                                commrt_collective kind, const void *send,
                                void *recv, int64_t count, commrt_dtype dtype,
                                commrt_redop op, int64_t root,
                                const commrt_plan *plan, commrt_stream *stream,
                                commrt_request **req) {
  if (commrt_status s = checkUsable(fn, comm))
    return s;
  commrt_plan none{COMMRT_ALGORITHM_DEFAULT, 0, 0};
  const commrt_plan &p = plan ? *plan : none;
  if (commrt_status s = checkPlan(fn, comm, kind, p))
    return s;
  if (commrt_status s = checkChunks(fn, p, count, dtype))
    return s;
  if (comm->ctx->groupDepth > 0 && p.algorithm != none.algorithm)
    return setError(COMMRT_ERROR_INVALID_STATE,
                    format("commrt: %s: a planned collective cannot run "
                           "inside commrt_group_start/end",
                           fn));
  bool nonBlocking = req != nullptr;
  switch (kind) {
  case COMMRT_COLLECTIVE_ALL_REDUCE:
    return allReduce(fn, comm, send, recv, count, dtype, op, stream, req,
                     nonBlocking, &p);
  case COMMRT_COLLECTIVE_REDUCE_SCATTER:
    return reduceScatter(fn, comm, send, recv, count, dtype, op, stream, req,
                         nonBlocking, &p);
  case COMMRT_COLLECTIVE_ALL_GATHER:
    return gatherLike(fn, OpKind::AllGather, comm, send, recv, count, dtype,
                      stream, req, nonBlocking, &p);
  case COMMRT_COLLECTIVE_BROADCAST:
    return rooted(fn, OpKind::Broadcast, comm, send, recv, count, dtype, op,
                  root, stream, req, nonBlocking, &p);
  case COMMRT_COLLECTIVE_REDUCE:
    return rooted(fn, OpKind::Reduce, comm, send, recv, count, dtype, op, root,
                  stream, req, nonBlocking, &p);
  }
  return invalid(fn, format("unknown collective %d", static_cast<int>(kind)));
}

} // namespace

extern "C" commrt_status commrt_collective_planned(
    commrt_comm *comm, commrt_collective kind, const void *send, void *recv,
    int64_t count, commrt_dtype dtype, commrt_redop op, int64_t root,
    const commrt_plan *plan, commrt_stream *stream, commrt_request **req) {
  COMMRT_GUARD("commrt_collective_planned",
               collectivePlanned("commrt_collective_planned", comm, kind, send,
                                 recv, count, dtype, op, root, plan, stream,
                                 req));
}

extern "C" commrt_status commrt_barrier(commrt_comm *comm,
                                        commrt_stream *stream) {
  COMMRT_GUARD("commrt_barrier",
               barrier("commrt_barrier", comm, stream, nullptr, false));
}

extern "C" commrt_status commrt_ibarrier(commrt_comm *comm,
                                         commrt_stream *stream,
                                         commrt_request **req) {
  COMMRT_GUARD("commrt_ibarrier",
               barrier("commrt_ibarrier", comm, stream, req, true));
}

//===----------------------------------------------------------------------===//
// Point to point and permute
//===----------------------------------------------------------------------===//

extern "C" commrt_status commrt_send(commrt_context *ctx, const void *buf,
                                     int64_t count, commrt_dtype dtype,
                                     int64_t peer, int64_t tag,
                                     commrt_stream *stream) {
  COMMRT_GUARD("commrt_send",
               pointToPoint("commrt_send", OpKind::Send, ctx, buf, nullptr,
                            count, dtype, peer, tag, stream, nullptr, false));
}

extern "C" commrt_status commrt_isend(commrt_context *ctx, const void *buf,
                                      int64_t count, commrt_dtype dtype,
                                      int64_t peer, int64_t tag,
                                      commrt_stream *stream,
                                      commrt_request **req) {
  COMMRT_GUARD("commrt_isend",
               pointToPoint("commrt_isend", OpKind::Send, ctx, buf, nullptr,
                            count, dtype, peer, tag, stream, req, true));
}

extern "C" commrt_status commrt_recv(commrt_context *ctx, void *buf,
                                     int64_t count, commrt_dtype dtype,
                                     int64_t peer, int64_t tag,
                                     commrt_stream *stream) {
  COMMRT_GUARD("commrt_recv",
               pointToPoint("commrt_recv", OpKind::Recv, ctx, nullptr, buf,
                            count, dtype, peer, tag, stream, nullptr, false));
}

extern "C" commrt_status commrt_irecv(commrt_context *ctx, void *buf,
                                      int64_t count, commrt_dtype dtype,
                                      int64_t peer, int64_t tag,
                                      commrt_stream *stream,
                                      commrt_request **req) {
  COMMRT_GUARD("commrt_irecv",
               pointToPoint("commrt_irecv", OpKind::Recv, ctx, nullptr, buf,
                            count, dtype, peer, tag, stream, req, true));
}

extern "C" commrt_status commrt_permute(commrt_context *ctx, const void *send,
                                        void *recv, int64_t count,
                                        commrt_dtype dtype,
                                        const int64_t *pairs, int64_t num_pairs,
                                        commrt_stream *stream) {
  COMMRT_GUARD("commrt_permute",
               permute("commrt_permute", ctx, send, recv, count, dtype, pairs,
                       num_pairs, stream, nullptr, false));
}

extern "C" commrt_status
commrt_ipermute(commrt_context *ctx, const void *send, void *recv,
                int64_t count, commrt_dtype dtype, const int64_t *pairs,
                int64_t num_pairs, commrt_stream *stream,
                commrt_request **req) {
  COMMRT_GUARD("commrt_ipermute",
               permute("commrt_ipermute", ctx, send, recv, count, dtype, pairs,
                       num_pairs, stream, req, true));
}

//===----------------------------------------------------------------------===//
// Groups
//===----------------------------------------------------------------------===//

extern "C" commrt_status commrt_group_start(commrt_context *ctx) {
  return guard("commrt_group_start", [&]() -> commrt_status {
    if (!ctx)
      return invalid("commrt_group_start", "ctx is NULL");
    if (ctx->groupDepth == 0)
      if (commrt_status s = ctx->backend->groupStart())
        return raise(ctx, s,
                     format("commrt: commrt_group_start on rank %d: %s",
                            ctx->rank, lastError().c_str()));
    ++ctx->groupDepth;
    return COMMRT_SUCCESS;
  });
}

extern "C" commrt_status commrt_group_end(commrt_context *ctx) {
  return guard("commrt_group_end", [&]() -> commrt_status {
    if (!ctx)
      return invalid("commrt_group_end", "ctx is NULL");
    if (ctx->groupDepth == 0)
      return setError(COMMRT_ERROR_INVALID_STATE,
                      "commrt: commrt_group_end without commrt_group_start");
    if (--ctx->groupDepth > 0)
      return COMMRT_SUCCESS;
    std::vector<commrt_request *> started;
    started.swap(ctx->groupStarted);
    std::vector<std::unique_ptr<commrt_request>> blocking;
    blocking.swap(ctx->groupBlocking);
    commrt_status status = ctx->backend->groupEnd(started);
    if (status) {
      status = raise(ctx, status,
                     format("commrt: commrt_group_end on rank %d: %s",
                            ctx->rank, lastError().c_str()));
      for (auto &req : blocking) {
        req->abandon();
        ctx->abandoned.push_back(std::move(req));
      }
      return status;
    }
    for (auto &req : blocking) {
      if (status) {
        // An earlier one failed: the rest cannot be trusted to complete.
        req->abandon();
        ctx->abandoned.push_back(std::move(req));
        continue;
      }
      status = completeRequest(std::move(req));
    }
    return status;
  });
}

//===----------------------------------------------------------------------===//
// Requests
//===----------------------------------------------------------------------===//

extern "C" commrt_status commrt_wait(commrt_request *req) {
  return guard("commrt_wait", [&]() -> commrt_status {
    if (!req)
      return COMMRT_SUCCESS;
    commrt_context *ctx = req->ctx;
    if (ctx->groupDepth > 0 &&
        std::find(ctx->groupStarted.begin(), ctx->groupStarted.end(), req) !=
            ctx->groupStarted.end())
      return setError(COMMRT_ERROR_INVALID_STATE,
                      format("commrt: commrt_wait: the %s was started inside "
                             "the open group; call commrt_group_end first",
                             describe(req->args).c_str()));
    return completeRequest(std::unique_ptr<commrt_request>(req));
  });
}

extern "C" commrt_status commrt_wait_all(commrt_request **reqs, int64_t count) {
  if (count < 0 || (count > 0 && !reqs))
    return setError(COMMRT_ERROR_INVALID_ARGUMENT,
                    "commrt: commrt_wait_all: reqs is NULL or count negative");
  commrt_status first = COMMRT_SUCCESS;
  std::string message;
  for (int64_t i = 0; i < count; ++i) {
    commrt_status s = commrt_wait(reqs[i]);
    reqs[i] = nullptr;
    if (s && !first) {
      first = s;
      message = lastError();
    }
  }
  if (first)
    setError(first, message);
  return first;
}

extern "C" commrt_status commrt_test(commrt_request *req, int *done) {
  return guard("commrt_test", [&]() -> commrt_status {
    if (!req || !done)
      return setError(COMMRT_ERROR_INVALID_ARGUMENT,
                      std::string("commrt: commrt_test: ") +
                          (req ? "done" : "req") + " is NULL");
    bool finished = false;
    commrt_status s = pollRequest(req, finished);
    *done = finished ? 1 : 0;
    return s;
  });
}
