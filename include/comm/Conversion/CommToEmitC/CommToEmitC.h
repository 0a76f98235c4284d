//===- CommToEmitC.h - bufferized comm to EmitC calls -----------*- C++ -*-===//
//
// The patterns of convert-comm-to-emitc, for passes that lower comm inside
// a larger conversion, and the C spellings of comm's types, entry points
// and strings, shared by the lowering, the harness generator and
// comm-compile's header writer so that they always agree.
//
//===----------------------------------------------------------------------===//

#ifndef COMM_CONVERSION_COMMTOEMITC_COMMTOEMITC_H
#define COMM_CONVERSION_COMMTOEMITC_COMMTOEMITC_H

#include "comm/Pipelines/CompileOptions.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Types.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <string>

namespace mlir {
class RewritePatternSet;
class TypeConverter;
namespace comm {

//===----------------------------------------------------------------------===//
// C spellings
//===----------------------------------------------------------------------===//

/// The commrt_dtype enumerator of a buffer element type ("COMMRT_F32"), or
/// "" if commrt has none for it.
StringRef getCommrtDtypeName(Type elementType);

/// The C type holding one element or scalar of `type` ("float", "uint16_t"
/// for f16 and bf16, "size_t" for index, "int32_t", ...), or "" if none.
std::string getCTypeName(Type type);

/// `text` as a C string literal, quotes included.
std::string quoteCString(StringRef text);

/// The C prototype of the entry point of a public function `name` that
/// takes `parameters` (tensors or buffers, passed as pointers to their
/// elements, then scalars by value), without the trailing `;`:
///   int32_t name(commrt_context *ctx, float *arg0, int64_t arg1)
/// Parameters are named `names[i]`, or argI when `names` is empty. The
/// lowering defines entry points with it, the harness and the library
/// header declare them with it.
std::string getEntryPointPrototype(StringRef name, ArrayRef<Type> parameters,
                                   ArrayRef<std::string> names = {});

/// The C identifier of the user function implementing a comm.compute.
std::string getComputeSymbol(StringRef name);

/// Whether a buffer of `type` can be lowered: a static shape, the identity
/// layout and an element type commrt knows.
bool isLowerableBuffer(MemRefType type);

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

/// What the patterns share: the target, and the async handle of the
/// comm.start each op of an async body belonged to.
struct CommToEmitCState {
  explicit CommToEmitCState(Target target)
      : target(target), cuda(isCudaTarget(target)),
        defaultSpace(cuda ? "COMMRT_HBM" : "COMMRT_HOST") {}

  Target target;
  bool cuda;
  /// Where buffers live unless comm-bufferize recorded another space.
  StringRef defaultSpace;
  /// Ops moved out of a comm.start body -> the async handle of that start.
  llvm::DenseMap<Operation *, Value> asyncOf;
  /// comm.start -> its async handle.
  llvm::DenseMap<Operation *, Value> startHandle;
  /// The first and last ops of every run of blocking sends and receives
  /// (commgen::p2p_begin/p2p_end bracket it).
  llvm::DenseSet<Operation *> p2pRunBegins, p2pRunEnds;
};

/// Buffers as pointers to their elements, tokens as commgen::Async handles.
void populateCommToEmitCTypeConversions(TypeConverter &converter);

/// Moves the ops of every comm.start body in front of it, after a call that
/// creates the start's async handle, and records in `state` which ops each
/// start issues (the patterns pass the handle to every call).
void prepareCommToEmitCAsyncBodies(ModuleOp module, CommToEmitCState &state);

/// Records in `state` the runs of two or more blocking comm.buffer.send
/// and comm.buffer.recv ops of one block with only pure ops and
/// memref.alloc between them
/// (after prepareCommToEmitCAsyncBodies: ops of a comm.start are not
/// blocking). Each run is started as one commrt group (commrt_gen.h).
void markCommToEmitCP2pRuns(ModuleOp module, CommToEmitCState &state);

/// The patterns that turn comm.buffer ops, comm.start/wait/barrier and
/// memref allocations and copies into calls of commrt_gen.h's helpers.
/// `state` must outlive the conversion.
void populateCommToEmitCPatterns(const TypeConverter &converter,
                                 RewritePatternSet &patterns,
                                 const CommToEmitCState &state);

/// The X-macro lists that tell commrt_gen_cuda.cuh which kernels a program
/// uses (its packs', unpacks' and combines' type pairs).
std::string getCudaKernelLists(ModuleOp module);

} // namespace comm
} // namespace mlir

#endif // COMM_CONVERSION_COMMTOEMITC_COMMTOEMITC_H
