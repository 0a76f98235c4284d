//===- mpi/Collectives.cpp - MPI backend collectives ------------*- C++ -*-===//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//
//
// Starts every operation as MPI's non-blocking form (MPI_Iallreduce,
// MPI_Ireduce_scatter_block, MPI_Iallgather, MPI_Ialltoall, MPI_Ibcast,
// MPI_Ireduce, MPI_Ibarrier, MPI_Isend; receives in Receive.cpp). Send buffers
// that overlap the receive buffer other than in MPI_IN_PLACE's way are copied
// to scratch first. Averages are sums divided when the request completes.
//
//===----------------------------------------------------------------------===//

#include "../lib/Kernels.h"
#include "MpiBackend.h"

#if COMMRT_HAVE_CUDA
#include "../cuda/Cuda.h"
#endif

#include <climits>
#include <cstring>

using namespace commrt;
using namespace commrt::mpi;

namespace {

/// Copies \p bytes of \p src into the request's scratch and returns it.
const void *stage(MpiRequest &req, const void *src, size_t bytes) {
  req.scratch.assign(static_cast<const char *>(src),
                     static_cast<const char *>(src) + bytes);
  return req.scratch.data();
}

commrt_status mpiFailed(const char *call, int err) {
  return setError(COMMRT_ERROR_BACKEND,
                  "mpi backend: " + mpiErrorString(call, err));
}

} // namespace

commrt_status MpiBackend::check(const OpArgs &args) const {
  if (args.count > INT_MAX)
    return setError(COMMRT_ERROR_INVALID_ARGUMENT,
                    format("mpi backend: count %lld exceeds the 2^31-1 "
                           "elements one MPI 3.1 call can carry",
                           static_cast<long long>(args.count)));
  // Open MPI here is not CUDA-aware: refuse GPU memory instead of crashing.
  for (const void *buffer : {args.send, static_cast<const void *>(args.recv)})
    if (isGpuMemory(ctx, buffer))
      return setError(COMMRT_ERROR_INVALID_ARGUMENT,
                      "mpi backend: a buffer is GPU memory, but the mpi "
                      "backend moves host memory (use the nccl backend, or "
                      "stage it with commrt_copy)");
  return COMMRT_SUCCESS;
}

commrt_status MpiBackend::post(const OpArgs &args,
                               std::unique_ptr<commrt_request> &out) {
  // check() ran on the operation these transfers belong to.
#if COMMRT_HAVE_CUDA
  // Host buffers may be produced by GPU work queued on the stream.
  if (args.stream && args.stream->cuda)
    if (commrt_status s = cuda::streamSynchronize(args.stream->cuda))
      return s;
#endif

  auto req = std::make_unique<MpiRequest>(ctx, args, *this);
  MpiRequest *r = req.get();
  MPI_Datatype type = datatype(args.dtype);
  MPI_Op op = reduction(args.dtype, args.op);
  int count = static_cast<int>(args.count);
  size_t elt = commrt_dtype_size(args.dtype);
  size_t bytes = static_cast<size_t>(args.count) * elt;
  commrt_comm *comm = args.comm;
  int groupSize = comm ? static_cast<int>(comm->ranks.size()) : 1;
  r->requests.resize(1, MPI_REQUEST_NULL);
  MPI_Request *slot = &r->requests[0];

  // Divides the reduced buffer by the group size once the sum is complete.
  auto average = [r, groupSize](void *buffer, size_t n, commrt_dtype dtype) {
    r->onComplete = [=] { cpu::divide(buffer, n, dtype, groupSize); };
  };

  int err = MPI_SUCCESS;
  const char *call = "";
  switch (args.kind) {
  case OpKind::AllReduce: {
    call = "MPI_Iallreduce";
    const void *send = args.send;
    if (send == args.recv)
      send = MPI_IN_PLACE;
    else if (overlaps(send, bytes, args.recv, bytes))
      send = stage(*r, send, bytes);
    err = MPI_Iallreduce(send, args.recv, count, type, op, comm->mpi, slot);
    if (args.op == COMMRT_AVG)
      average(args.recv, args.count, args.dtype);
    break;
  }
  case OpKind::ReduceScatter: {
    call = "MPI_Ireduce_scatter_block";
    const void *send = args.send;
    if (overlaps(send, bytes * groupSize, args.recv, bytes))
      send = stage(*r, send, bytes * groupSize);
    err = MPI_Ireduce_scatter_block(send, args.recv, count, type, op, comm->mpi,
                                    slot);
    if (args.op == COMMRT_AVG)
      average(args.recv, args.count, args.dtype);
    break;
  }
  case OpKind::AllGather: {
    call = "MPI_Iallgather";
    const void *send = args.send;
    const char *mine = static_cast<const char *>(args.recv) +
                       static_cast<size_t>(comm->position) * bytes;
    if (send == mine && bytes)
      send = MPI_IN_PLACE;
    else if (overlaps(send, bytes, args.recv, bytes * groupSize))
      send = stage(*r, send, bytes);
    err = MPI_Iallgather(send, count, type, args.recv, count, type, comm->mpi,
                         slot);
    break;
  }
  case OpKind::AllToAll: {
    call = "MPI_Ialltoall";
    const void *send = args.send;
    if (overlaps(send, bytes * groupSize, args.recv, bytes * groupSize))
      send = stage(*r, send, bytes * groupSize);
    err = MPI_Ialltoall(send, count, type, args.recv, count, type, comm->mpi,
                        slot);
    break;
  }
  case OpKind::Broadcast: {
    call = "MPI_Ibcast";
    if (comm->position == args.root && args.send != args.recv && bytes)
      std::memmove(args.recv, args.send, bytes);
    err = MPI_Ibcast(args.recv, count, type, args.root, comm->mpi, slot);
    break;
  }
  case OpKind::Reduce: {
    call = "MPI_Ireduce";
    const void *send = args.send;
    if (comm->position == args.root) {
      if (send == args.recv)
        send = MPI_IN_PLACE;
      else if (overlaps(send, bytes, args.recv, bytes))
        send = stage(*r, send, bytes);
      if (args.op == COMMRT_AVG)
        average(args.recv, args.count, args.dtype);
    } else if (args.send != args.recv && bytes) {
      // The comm dialect's reduce leaves a non-root rank its own input.
      void *recv = args.recv;
      const void *input = args.send;
      r->onComplete = [=] { std::memmove(recv, input, bytes); };
    }
    err = MPI_Ireduce(send, args.recv, count, type, op, args.root, comm->mpi,
                      slot);
    break;
  }
  case OpKind::Barrier:
    call = "MPI_Ibarrier";
    err = MPI_Ibarrier(comm->mpi, slot);
    break;
  case OpKind::Send:
    call = "MPI_Isend";
    // With a communicator: a transfer of a planned collective, the peer a
    // position in the group (lib/Schedule.cpp).
    err = MPI_Isend(args.send, count, type, args.peer, args.tag,
                    comm ? comm->mpi : ctx->p2p, slot);
    break;
  case OpKind::Recv:
    if (args.validated) {
      // A transfer of a schedule whose sizes the group agreed on.
      call = "MPI_Irecv";
      err = MPI_Irecv(args.recv, count, type, args.peer, args.tag, comm->mpi,
                      slot);
      break;
    }
    // Posted once the message arrived with the expected size (Receive.cpp).
    r->expected = {comm ? comm->mpi : ctx->p2p,
                   args.peer,
                   args.tag,
                   args.recv,
                   count,
                   type,
                   0};
    r->expecting = true;
    break;
  case OpKind::Permute: {
    r->requests.clear();
    if (args.recvFrom >= 0) {
      r->requests.push_back(MPI_REQUEST_NULL);
      r->expected = {ctx->internal, args.recvFrom, 0, args.recv,
                     count,         type,          0};
      r->expecting = true;
    }
    if (err == MPI_SUCCESS && args.sendTo >= 0) {
      r->requests.push_back(MPI_REQUEST_NULL);
      err = MPI_Isend(args.send, count, type, args.sendTo, 0, ctx->internal,
                      &r->requests.back());
      call = "MPI_Isend";
    }
    break;
  }
  }
  if (err != MPI_SUCCESS) {
    // Nothing was started for a failed call; cancel what the permute posted.
    for (MPI_Request &posted : r->requests)
      if (posted != MPI_REQUEST_NULL) {
        MPI_Cancel(&posted);
        MPI_Request_free(&posted);
      }
    return mpiFailed(call, err);
  }
  if (r->expecting)
    expect(r);
  out = std::move(req);
  return COMMRT_SUCCESS;
}
