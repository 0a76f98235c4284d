//===- nccl/NcclBackend.cpp - NCCL backend ----------------------*- C++ -*-===//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//
//
// Device buffers, one NCCL communicator per group (unique id from position 0
// broadcast over the group's MPI communicator, then ncclCommInitRank), plus
// one over the world for point to point. Every operation is enqueued on a
// CUDA stream (the caller's or the backend's own) and followed by an event;
// a request is complete when its event is. Inside commrt_group_start/end
// the NCCL calls sit between ncclGroupStart and ncclGroupEnd and their
// events are recorded after ncclGroupEnd. A request that times out aborts
// its NCCL communicator (ncclCommAbort), the only way to stop NCCL kernels
// that wait for a peer which never comes.
//
//===----------------------------------------------------------------------===//

#include "../cuda/Cuda.h"
#include "../lib/Internal.h"

#include <cuda_runtime_api.h>
#include <nccl.h>

using namespace commrt;

namespace {

/// An NCCL communicator and whether it was aborted.
struct NcclComm {
  ncclComm_t comm = nullptr;
  bool aborted = false;
};

commrt_status ncclFailed(const char *call, ncclResult_t result,
                         ncclComm_t comm) {
  const char *detail = ncclGetLastError(comm);
  commrt_status status = COMMRT_ERROR_BACKEND;
  if (result == ncclRemoteError)
    status = COMMRT_ERROR_REMOTE;
  else if (result == ncclInvalidArgument)
    status = COMMRT_ERROR_INVALID_ARGUMENT;
  return setError(
      status, format("nccl backend: %s failed: %s%s%s%s", call,
                     ncclGetErrorString(result), detail && *detail ? " (" : "",
                     detail ? detail : "", detail && *detail ? ")" : ""));
}

commrt_status cudaFailed(const char *call, cudaError_t err) {
  cudaGetLastError();
  return setError(
      err == cudaErrorMemoryAllocation ? COMMRT_ERROR_OUT_OF_MEMORY
                                       : COMMRT_ERROR_BACKEND,
      format("nccl backend: %s failed: %s", call, cudaGetErrorString(err)));
}

ncclDataType_t ncclType(commrt_dtype dtype) {
  switch (dtype) {
  case COMMRT_F32:
    return ncclFloat32;
  case COMMRT_F64:
    return ncclFloat64;
  case COMMRT_F16:
    return ncclFloat16;
  case COMMRT_BF16:
    return ncclBfloat16;
  case COMMRT_I8:
    return ncclInt8;
  case COMMRT_U8:
    return ncclUint8;
  case COMMRT_I32:
    return ncclInt32;
  case COMMRT_U32:
    return ncclUint32;
  case COMMRT_I64:
    return ncclInt64;
  case COMMRT_U64:
    return ncclUint64;
  }
  return ncclFloat32;
}

class NcclBackend;

class NcclRequest : public commrt_request {
public:
  NcclRequest(commrt_context *ctx, const OpArgs &args, NcclComm *comm,
              cudaStream_t stream)
      : commrt_request(ctx, args), comm(comm), stream(stream) {}
  ~NcclRequest() override {
    if (event)
      cudaEventDestroy(event);
  }

  commrt_status poll(bool &done) override {
    done = false;
    if (!recorded)
      return COMMRT_SUCCESS; // launched at the end of the group
    if (comm->aborted)
      return setError(COMMRT_ERROR_BACKEND,
                      "nccl backend: the NCCL communicator was aborted after "
                      "an earlier failure");
    ncclResult_t async = ncclSuccess;
    ncclResult_t r = ncclCommGetAsyncError(comm->comm, &async);
    if (r != ncclSuccess)
      return ncclFailed("ncclCommGetAsyncError", r, comm->comm);
    if (async != ncclSuccess && async != ncclInProgress)
      return ncclFailed("the NCCL operation", async, comm->comm);
    cudaError_t err = cudaEventQuery(event);
    if (err == cudaErrorNotReady)
      return COMMRT_SUCCESS;
    if (err != cudaSuccess)
      return cudaFailed("cudaEventQuery", err);
    if (temporary) {
      cudaFreeAsync(temporary, stream);
      temporary = nullptr;
    }
    done = true;
    return COMMRT_SUCCESS;
  }

  void abandon() override {
    if (!comm->aborted) {
      ncclCommAbort(comm->comm);
      comm->aborted = true;
    }
  }

  /// Records the completion event on the stream (after ncclGroupEnd when
  /// started inside a group).
  commrt_status record() {
    cudaError_t err = cudaEventRecord(event, stream);
    if (err != cudaSuccess)
      return cudaFailed("cudaEventRecord", err);
    recorded = true;
    return COMMRT_SUCCESS;
  }

  NcclComm *comm;
  cudaStream_t stream;
  cudaEvent_t event = nullptr;
  bool recorded = false;
  void *temporary = nullptr; ///< Staging copy of an in-place all_to_all.
};

class NcclBackend : public Backend {
public:
  explicit NcclBackend(commrt_context *ctx) : Backend(ctx) {}
  ~NcclBackend() override {
    if (world.comm && !world.aborted)
      ncclCommDestroy(world.comm);
    if (scratch)
      cudaFree(scratch);
    if (stream)
      cudaStreamDestroy(stream);
  }

  commrt_backend kind() const override { return COMMRT_BACKEND_NCCL; }
  const char *name() const override { return "nccl"; }
  commrt_memory_space bufferSpace() const override { return COMMRT_HBM; }

  commrt_status init() override {
    // Local set-up, then agree before the collective part so that a rank
    // without a GPU cannot leave the others waiting in the broadcast.
    commrt_status local = setUpDevice();
    if (commrt_status s = agree(ctx, local, ctx->world,
                                "commrt_init (nccl backend device set-up)"))
      return s;
    ncclUniqueId id;
    if (ctx->rank == 0)
      if (ncclResult_t r = ncclGetUniqueId(&id))
        local = ncclFailed("ncclGetUniqueId", r, nullptr);
    if (commrt_status s =
            agree(ctx, local, ctx->world, "commrt_init (nccl unique id)"))
      return s;
    if (commrt_status s =
            bcastMpi(ctx, &id, sizeof(id), MPI_BYTE, 0, ctx->world,
                     "commrt_init (broadcast of the nccl id)"))
      return s;
    if (ncclResult_t r =
            ncclCommInitRank(&world.comm, ctx->size, id, ctx->rank))
      return ncclFailed("ncclCommInitRank (world)", r, nullptr);
    return COMMRT_SUCCESS;
  }

  commrt_status createComm(commrt_comm *comm) override {
    ncclUniqueId id;
    commrt_status local = COMMRT_SUCCESS;
    if (comm->position == 0)
      if (ncclResult_t r = ncclGetUniqueId(&id))
        local = ncclFailed("ncclGetUniqueId", r, nullptr);
    std::string what = "comm_create of group " + comm->name;
    // Steps of the comm_create, which ends in the world's next operation.
    if (commrt_status s = agree(ctx, local, comm->mpi, what + " (nccl id)",
                                nextWorldOperation(ctx)))
      return s;
    if (commrt_status s = bcastMpi(ctx, &id, sizeof(id), MPI_BYTE, 0, comm->mpi,
                                   what + " (broadcast of the nccl id)",
                                   nextWorldOperation(ctx)))
      return s;
    auto handle = std::make_unique<NcclComm>();
    if (ncclResult_t r = ncclCommInitRank(&handle->comm,
                                          static_cast<int>(comm->ranks.size()),
                                          id, comm->position))
      return ncclFailed("ncclCommInitRank", r, nullptr);
    comm->backendData = handle.release();
    return COMMRT_SUCCESS;
  }

  void destroyComm(commrt_comm *comm) override {
    auto *handle = static_cast<NcclComm *>(comm->backendData);
    if (!handle)
      return;
    if (!handle->aborted)
      ncclCommDestroy(handle->comm);
    delete handle;
    comm->backendData = nullptr;
  }

  commrt_status groupStart() override {
    if (ncclResult_t r = ncclGroupStart())
      return ncclFailed("ncclGroupStart", r, nullptr);
    return COMMRT_SUCCESS;
  }

  commrt_status
  groupEnd(const std::vector<commrt_request *> &started) override {
    if (ncclResult_t r = ncclGroupEnd())
      return ncclFailed("ncclGroupEnd", r, nullptr);
    for (commrt_request *req : started)
      if (commrt_status s = static_cast<NcclRequest *>(req)->record())
        return s;
    return COMMRT_SUCCESS;
  }

  commrt_status post(const OpArgs &args,
                     std::unique_ptr<commrt_request> &out) override;

  bool streamOrdered() const override { return true; }
  commrt_stream *ownStream() override {
    own.ctx = ctx;
    own.cuda = stream;
    own.owned = false;
    return &own;
  }

private:
  commrt_status setUpDevice() {
    int count = 0;
    if (cuda::deviceCount(count))
      return setError(COMMRT_ERROR_UNAVAILABLE, "nccl backend: " + lastError());
    if (ctx->cudaDevice < 0)
      return setError(COMMRT_ERROR_UNAVAILABLE,
                      "nccl backend: " + ctx->cudaMissing);
    if (cudaError_t err = cudaSetDevice(ctx->cudaDevice))
      return cudaFailed("cudaSetDevice", err);
    if (cudaError_t err =
            cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking))
      return cudaFailed("cudaStreamCreateWithFlags", err);
    if (cudaError_t err = cudaMalloc(&scratch, sizeof(int32_t)))
      return cudaFailed("cudaMalloc", err);
    if (cudaError_t err = cudaMemset(scratch, 0, sizeof(int32_t)))
      return cudaFailed("cudaMemset", err);
    return COMMRT_SUCCESS;
  }

  NcclComm world;
  cudaStream_t stream = nullptr;
  commrt_stream own;       ///< Wraps `stream` for schedules (ownStream).
  void *scratch = nullptr; ///< One int32 for barriers.
};

commrt_status NcclBackend::post(const OpArgs &args,
                                std::unique_ptr<commrt_request> &out) {
  NcclComm *comm =
      args.comm ? static_cast<NcclComm *>(args.comm->backendData) : &world;
  if (comm->aborted)
    return setError(COMMRT_ERROR_INVALID_STATE,
                    "nccl backend: the NCCL communicator was aborted after an "
                    "earlier failure");
  ncclRedOp_t op = ncclSum;
  switch (args.op) {
  case COMMRT_SUM:
    op = ncclSum;
    break;
  case COMMRT_PROD:
    op = ncclProd;
    break;
  case COMMRT_MIN:
    op = ncclMin;
    break;
  case COMMRT_MAX:
    op = ncclMax;
    break;
  case COMMRT_AVG:
    op = ncclAvg;
    break;
  case COMMRT_BAND:
  case COMMRT_BOR:
  case COMMRT_BXOR:
    if (args.kind == OpKind::AllReduce || args.kind == OpKind::ReduceScatter ||
        args.kind == OpKind::Reduce)
      return setError(COMMRT_ERROR_UNAVAILABLE,
                      format("nccl backend: NCCL has no bitwise reductions "
                             "(%s); use the mpi backend for them",
                             redopName(args.op)));
    break;
  }
  cudaStream_t stream = args.stream && args.stream->cuda
                            ? static_cast<cudaStream_t>(args.stream->cuda)
                            : this->stream;
  ncclDataType_t type = ncclType(args.dtype);
  size_t count = static_cast<size_t>(args.count);
  size_t bytes = count * commrt_dtype_size(args.dtype);
  size_t groupSize = args.comm ? args.comm->ranks.size() : 1;
  ncclComm_t c = comm->comm;

  auto req = std::make_unique<NcclRequest>(ctx, args, comm, stream);
  if (cudaError_t err =
          cudaEventCreateWithFlags(&req->event, cudaEventDisableTiming))
    return cudaFailed("cudaEventCreateWithFlags", err);

  ncclResult_t r = ncclSuccess;
  const char *call = "";
  switch (args.kind) {
  case OpKind::AllReduce:
    call = "ncclAllReduce";
    r = ncclAllReduce(args.send, args.recv, count, type, op, c, stream);
    break;
  case OpKind::ReduceScatter:
    call = "ncclReduceScatter";
    r = ncclReduceScatter(args.send, args.recv, count, type, op, c, stream);
    break;
  case OpKind::AllGather:
    call = "ncclAllGather";
    r = ncclAllGather(args.send, args.recv, count, type, c, stream);
    break;
  case OpKind::AllToAll: {
    call = "ncclAlltoAll";
    const void *send = args.send;
    size_t total = bytes * groupSize;
    if (overlaps(args.send, total, args.recv, total)) {
      // Stage an overlapping send buffer; freed when the request completes.
      if (cudaError_t err = cudaMallocAsync(&req->temporary, total, stream))
        return cudaFailed("cudaMallocAsync", err);
      if (cudaError_t err = cudaMemcpyAsync(req->temporary, args.send, total,
                                            cudaMemcpyDeviceToDevice, stream))
        return cudaFailed("cudaMemcpyAsync", err);
      send = req->temporary;
    }
    r = ncclAlltoAll(send, args.recv, count, type, c, stream);
    break;
  }
  case OpKind::Broadcast:
    call = "ncclBroadcast";
    r = ncclBroadcast(args.send, args.recv, count, type, args.root, c, stream);
    break;
  case OpKind::Reduce:
    call = "ncclReduce";
    r = ncclReduce(args.send, args.recv, count, type, op, args.root, c, stream);
    // The comm dialect's reduce leaves a non-root rank its own input.
    if (r == ncclSuccess && args.comm->position != args.root &&
        args.send != args.recv && bytes)
      if (cudaError_t err = cudaMemcpyAsync(args.recv, args.send, bytes,
                                            cudaMemcpyDeviceToDevice, stream))
        return cudaFailed("cudaMemcpyAsync", err);
    break;
  case OpKind::Barrier:
    call = "ncclAllReduce (barrier)";
    r = ncclAllReduce(scratch, scratch, 1, ncclInt32, ncclSum, c, stream);
    break;
  case OpKind::Send:
    call = "ncclSend";
    r = ncclSend(args.send, count, type, args.peer, c, stream);
    break;
  case OpKind::Recv:
    call = "ncclRecv";
    r = ncclRecv(args.recv, count, type, args.peer, c, stream);
    break;
  case OpKind::Permute:
    call = "ncclSend/ncclRecv (permute)";
    r = ncclGroupStart();
    if (r == ncclSuccess && args.sendTo >= 0)
      r = ncclSend(args.send, count, type, args.sendTo, c, stream);
    if (r == ncclSuccess && args.recvFrom >= 0)
      r = ncclRecv(args.recv, count, type, args.recvFrom, c, stream);
    if (ncclResult_t end = ncclGroupEnd(); r == ncclSuccess)
      r = end;
    break;
  }
  if (r != ncclSuccess)
    return ncclFailed(call, r, c);
  if (ctx->groupDepth == 0)
    if (commrt_status s = req->record())
      return s;
  out = std::move(req);
  return COMMRT_SUCCESS;
}

} // namespace

commrt_status commrt::createNcclBackend(commrt_context *ctx,
                                        std::unique_ptr<Backend> &out) {
  out = std::make_unique<NcclBackend>(ctx);
  return COMMRT_SUCCESS;
}
