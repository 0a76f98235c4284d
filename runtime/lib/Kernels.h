//===- lib/Kernels.h - CPU kernels ------------------------------*- C++ -*-===//
//
// Part of the comm project: a compiler for communication between GPUs.
//
//===----------------------------------------------------------------------===//
//
// Element-wise loops behind commrt_pack/unpack/convert/reduce_local/scale on
// host memory, also used by the mpi backend (averages, f16/bf16 reduction
// ops). Arguments are validated by the callers.
//
//===----------------------------------------------------------------------===//

#ifndef COMMRT_LIB_KERNELS_H
#define COMMRT_LIB_KERNELS_H

#include "commrt.h"

#include <cstddef>

namespace commrt {
namespace cpu {

/// True if \p src converts to \p dst (see commrt.h for the list).
bool canConvert(commrt_dtype dst, commrt_dtype src);

/// Converts \p n elements. \p dst and \p src must not overlap unless they
/// are equal and both types have the same size.
void convert(void *dst, commrt_dtype dstType, const void *src,
             commrt_dtype srcType, size_t n);

/// dst[i] = dst[i] op src[i]. \p op is not COMMRT_AVG; bitwise ops only for
/// integer types.
void reduce(void *dst, const void *src, size_t n, commrt_dtype dtype,
            commrt_redop op);

/// dst[i] = dst[i] * factor (floating-point types).
void scale(void *dst, size_t n, commrt_dtype dtype, double factor);

/// dst[i] = dst[i] / divisor: floats divide (f16/bf16 in f32), integers
/// truncate. The last step of an average.
void divide(void *dst, size_t n, commrt_dtype dtype, long long divisor);

} // namespace cpu
} // namespace commrt

#endif // COMMRT_LIB_KERNELS_H
