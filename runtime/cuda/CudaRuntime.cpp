//===- cuda/CudaRuntime.cpp - Devices, memory, streams, events --*- C++ -*-===//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//
//
// Thin wrappers over the CUDA runtime API that turn cudaError_t into commrt
// statuses with messages. Errors that mean "there is no usable GPU here"
// (no device, no or too old a driver) become COMMRT_ERROR_UNAVAILABLE so
// that a machine without a GPU reports it plainly.
//
//===----------------------------------------------------------------------===//

#include "../lib/Internal.h"
#include "Cuda.h"

#include <cuda_runtime_api.h>

using namespace commrt;

namespace {

commrt_status statusOf(cudaError_t err) {
  switch (err) {
  case cudaErrorNoDevice:
  case cudaErrorInsufficientDriver:
  case cudaErrorDevicesUnavailable:
  case cudaErrorSystemDriverMismatch:
  case cudaErrorCompatNotSupportedOnDevice:
  case cudaErrorInitializationError:
  case cudaErrorNoKernelImageForDevice:
  case cudaErrorUnsupportedPtxVersion:
    return COMMRT_ERROR_UNAVAILABLE;
  case cudaErrorMemoryAllocation:
    return COMMRT_ERROR_OUT_OF_MEMORY;
  case cudaErrorInvalidValue:
  case cudaErrorInvalidDevicePointer:
  case cudaErrorInvalidDevice:
    return COMMRT_ERROR_INVALID_ARGUMENT;
  default:
    return COMMRT_ERROR_BACKEND;
  }
}

commrt_status check(const char *call, cudaError_t err) {
  if (err == cudaSuccess)
    return COMMRT_SUCCESS;
  // Clear the error unless it is sticky, so later calls are not blamed.
  cudaGetLastError();
  commrt_status status = statusOf(err);
  if (status == COMMRT_ERROR_UNAVAILABLE &&
      err != cudaErrorNoKernelImageForDevice &&
      err != cudaErrorUnsupportedPtxVersion)
    return setError(status, format("cuda: no CUDA device (%s: %s)", call,
                                   cudaGetErrorString(err)));
  return setError(status,
                  format("cuda: %s: %s (%s)", call, cudaGetErrorString(err),
                         cudaGetErrorName(err)));
}

cudaStream_t asStream(void *stream) {
  return static_cast<cudaStream_t>(stream);
}
cudaEvent_t asEvent(void *event) { return static_cast<cudaEvent_t>(event); }

} // namespace

commrt_status cuda::deviceCount(int &count) {
  count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    cudaGetLastError();
    count = 0;
    return setError(COMMRT_ERROR_UNAVAILABLE,
                    format("no CUDA device (cudaGetDeviceCount: %s)",
                           cudaGetErrorString(err)));
  }
  if (count == 0)
    return setError(COMMRT_ERROR_UNAVAILABLE,
                    "no CUDA device (cudaGetDeviceCount returned 0 devices)");
  return COMMRT_SUCCESS;
}

commrt_status cuda::setDevice(int device) {
  return check("cudaSetDevice", cudaSetDevice(device));
}

int cuda::hostNumaNode(int device) {
  int node = -1;
  if (cudaDeviceGetAttribute(&node, cudaDevAttrHostNumaId, device) !=
      cudaSuccess) {
    cudaGetLastError();
    return -1;
  }
  return node;
}

commrt_status cuda::deviceMalloc(void **ptr, size_t bytes) {
  return check("cudaMalloc", cudaMalloc(ptr, bytes));
}

commrt_status cuda::deviceFree(void *ptr) {
  return check("cudaFree", cudaFree(ptr));
}

commrt_status cuda::poolCreate(void **pool, int device, size_t keepBytes) {
  *pool = nullptr;
  int supported = 0;
  if (commrt_status s =
          check("cudaDeviceGetAttribute",
                cudaDeviceGetAttribute(
                    &supported, cudaDevAttrMemoryPoolsSupported, device)))
    return s;
  if (!supported)
    return setError(COMMRT_ERROR_UNAVAILABLE,
                    "cuda: device " + std::to_string(device) +
                        " has no stream-ordered memory pools");
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  cudaMemPool_t handle = nullptr;
  if (commrt_status s =
          check("cudaMemPoolCreate", cudaMemPoolCreate(&handle, &props)))
    return s;
  uint64_t threshold = keepBytes; // the attribute is a cuuint64_t
  if (commrt_status s =
          check("cudaMemPoolSetAttribute",
                cudaMemPoolSetAttribute(handle, cudaMemPoolAttrReleaseThreshold,
                                        &threshold))) {
    cudaMemPoolDestroy(handle);
    return s;
  }
  *pool = handle;
  return COMMRT_SUCCESS;
}

commrt_status cuda::poolDestroy(void *pool) {
  return check("cudaMemPoolDestroy",
               cudaMemPoolDestroy(static_cast<cudaMemPool_t>(pool)));
}

commrt_status cuda::poolMallocAsync(void **ptr, size_t bytes, void *pool,
                                    void *stream) {
  return check("cudaMallocFromPoolAsync",
               cudaMallocFromPoolAsync(ptr, bytes,
                                       static_cast<cudaMemPool_t>(pool),
                                       asStream(stream)));
}

commrt_status cuda::freeAsync(void *ptr, void *stream) {
  return check("cudaFreeAsync", cudaFreeAsync(ptr, asStream(stream)));
}

commrt_status cuda::hostMalloc(void **ptr, size_t bytes) {
  return check("cudaMallocHost", cudaMallocHost(ptr, bytes));
}

commrt_status cuda::hostFree(void *ptr) {
  return check("cudaFreeHost", cudaFreeHost(ptr));
}

commrt_status cuda::copy(void *dst, const void *src, size_t bytes, void *stream,
                         bool synchronous) {
  if (commrt_status s = check(
          "cudaMemcpyAsync", cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault,
                                             asStream(stream))))
    return s;
  return synchronous ? streamSynchronize(stream) : COMMRT_SUCCESS;
}

commrt_status cuda::copyPeer(void *dst, int dstDevice, const void *src,
                             int srcDevice, size_t bytes, void *stream,
                             bool synchronous) {
  if (commrt_status s =
          check("cudaMemcpyPeerAsync",
                cudaMemcpyPeerAsync(dst, dstDevice, src, srcDevice, bytes,
                                    asStream(stream))))
    return s;
  return synchronous ? streamSynchronize(stream) : COMMRT_SUCCESS;
}

commrt_status cuda::fill(void *ptr, int value, size_t bytes, void *stream,
                         bool synchronous) {
  if (commrt_status s =
          check("cudaMemsetAsync",
                cudaMemsetAsync(ptr, value, bytes, asStream(stream))))
    return s;
  return synchronous ? streamSynchronize(stream) : COMMRT_SUCCESS;
}

commrt_status cuda::streamCreate(void **stream) {
  cudaStream_t s = nullptr;
  if (commrt_status status =
          check("cudaStreamCreateWithFlags",
                cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)))
    return status;
  *stream = s;
  return COMMRT_SUCCESS;
}

commrt_status cuda::streamDestroy(void *stream) {
  return check("cudaStreamDestroy", cudaStreamDestroy(asStream(stream)));
}

commrt_status cuda::streamQuery(void *stream, bool &done) {
  cudaError_t err = cudaStreamQuery(asStream(stream));
  done = err == cudaSuccess;
  return err == cudaErrorNotReady ? COMMRT_SUCCESS
                                  : check("cudaStreamQuery", err);
}

commrt_status cuda::streamSynchronize(void *stream) {
  return check("cudaStreamSynchronize",
               cudaStreamSynchronize(asStream(stream)));
}

commrt_status cuda::streamWaitEvent(void *stream, void *event) {
  return check("cudaStreamWaitEvent",
               cudaStreamWaitEvent(asStream(stream), asEvent(event), 0));
}

commrt_status cuda::eventCreate(void **event) {
  cudaEvent_t e = nullptr;
  if (commrt_status s = check("cudaEventCreate", cudaEventCreate(&e)))
    return s;
  *event = e;
  return COMMRT_SUCCESS;
}

commrt_status cuda::eventDestroy(void *event) {
  return check("cudaEventDestroy", cudaEventDestroy(asEvent(event)));
}

commrt_status cuda::eventRecord(void *event, void *stream) {
  return check("cudaEventRecord",
               cudaEventRecord(asEvent(event), asStream(stream)));
}

commrt_status cuda::eventQuery(void *event, bool &done) {
  cudaError_t err = cudaEventQuery(asEvent(event));
  done = err == cudaSuccess;
  return err == cudaErrorNotReady ? COMMRT_SUCCESS
                                  : check("cudaEventQuery", err);
}

commrt_status cuda::eventElapsedMs(void *start, void *end, float &ms) {
  return check("cudaEventElapsedTime",
               cudaEventElapsedTime(&ms, asEvent(start), asEvent(end)));
}

bool cuda::isDevicePointer(const void *ptr) {
  cudaPointerAttributes attributes;
  if (cudaPointerGetAttributes(&attributes, ptr) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return attributes.type == cudaMemoryTypeDevice ||
         attributes.type == cudaMemoryTypeManaged;
}
