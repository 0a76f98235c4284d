//===- cuda/Cuda.h - The cuda module's internal interface -------*- C++ -*-===//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//
//
// What the core (lib/) and the nccl backend call when commrt is built with
// CUDA (COMMRT_HAVE_CUDA). Handles are passed as void * so that callers need
// no CUDA headers. Every function returns a status and, on failure, sets the
// last error to "cuda: <call>: <cudaGetErrorString>" (callers add context).
//
//===----------------------------------------------------------------------===//

#ifndef COMMRT_CUDA_CUDA_H
#define COMMRT_CUDA_CUDA_H

#include "commrt.h"

#include <cstddef>

namespace commrt {
namespace cuda {

/// Number of CUDA devices; UNAVAILABLE with "no CUDA device
/// (cudaGetDeviceCount: ...)" when there is none or no driver.
commrt_status deviceCount(int &count);
/// cudaSetDevice.
commrt_status setDevice(int device);
/// The NUMA node of the CPU closest to \p device (cudaDevAttrHostNumaId),
/// or -1 where the system reports none.
int hostNumaNode(int device);

commrt_status deviceMalloc(void **ptr, size_t bytes);
commrt_status deviceFree(void *ptr);
/// A stream-ordered memory pool of \p device that keeps up to
/// \p keepBytes between uses (cudaMemPoolCreate, release threshold);
/// UNAVAILABLE where the device has no memory pools.
commrt_status poolCreate(void **pool, int device, size_t keepBytes);
commrt_status poolDestroy(void *pool);
/// cudaMallocFromPoolAsync / cudaFreeAsync: the memory is usable by work
/// queued on \p stream after the call, and free for reuse once the work
/// queued before the free has run.
commrt_status poolMallocAsync(void **ptr, size_t bytes, void *pool,
                              void *stream);
commrt_status freeAsync(void *ptr, void *stream);
commrt_status hostMalloc(void **ptr, size_t bytes);
commrt_status hostFree(void *ptr);

/// cudaMemcpyAsync(cudaMemcpyDefault) on \p stream; with a NULL stream the
/// copy is complete on return.
commrt_status copy(void *dst, const void *src, size_t bytes, void *stream,
                   bool synchronous);
/// cudaMemcpyPeerAsync.
commrt_status copyPeer(void *dst, int dstDevice, const void *src, int srcDevice,
                       size_t bytes, void *stream, bool synchronous);
/// cudaMemsetAsync.
commrt_status fill(void *ptr, int value, size_t bytes, void *stream,
                   bool synchronous);

commrt_status streamCreate(void **stream);
commrt_status streamDestroy(void *stream);
/// cudaStreamQuery: done when all work on \p stream completed.
commrt_status streamQuery(void *stream, bool &done);
/// cudaStreamSynchronize (no timeout; for short kernels).
commrt_status streamSynchronize(void *stream);
commrt_status streamWaitEvent(void *stream, void *event);

commrt_status eventCreate(void **event);
commrt_status eventDestroy(void *event);
commrt_status eventRecord(void *event, void *stream);
commrt_status eventQuery(void *event, bool &done);
commrt_status eventElapsedMs(void *start, void *end, float &ms);

/// True if \p ptr is device (or managed) memory; false for host memory or
/// when the query fails.
bool isDevicePointer(const void *ptr);

//===----------------------------------------------------------------------===//
// Kernels (cuda/Kernels.cu); arguments validated by the caller, launched on
// \p stream without synchronizing.
//===----------------------------------------------------------------------===//

commrt_status launchConvert(void *dst, commrt_dtype dstType, const void *src,
                            commrt_dtype srcType, size_t n, void *stream);
commrt_status launchReduce(void *dst, const void *src, size_t n,
                           commrt_dtype dtype, commrt_redop op, void *stream);
commrt_status launchScale(void *dst, size_t n, commrt_dtype dtype,
                          double factor, void *stream);

} // namespace cuda
} // namespace commrt

#endif // COMMRT_CUDA_CUDA_H
