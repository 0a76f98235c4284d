//===- CommBufferOps.td - comm operations on buffers -------*- tablegen -*-===//
//
// The bufferized form of the comm ops: they read and write memrefs instead
// of producing tensors. comm-bufferize creates them; convert-comm-to-emitc
// turns them into calls of the commrt runtime.
//
//===----------------------------------------------------------------------===//

#ifndef COMM_DIALECT_COMM_COMMBUFFEROPS_TD
#define COMM_DIALECT_COMM_COMMBUFFEROPS_TD

include "Comm/CommDialect.td"
include "Comm/CommAttrs.td"
include "Comm/CommOps.td"
include "mlir/IR/CommonTypeConstraints.td"

def Comm_Buffer : StaticShapeMemRefOf<[AnySignlessInteger, AnyFloat]>;

class Comm_BufferOp<string mnemonic, list<Trait> traits = []>
    : Comm_Op<"buffer." # mnemonic, !listconcat(traits, [Comm_CommEffects])> {
  let hasVerifier = 1;
}

/// A collective that reads `source` and writes `target`.
class Comm_BufferCollectiveOp<string mnemonic, string what>
    : Comm_BufferOp<mnemonic> {
  let summary = what # " on buffers";
  let description = [{
    The bufferized form of `comm.}] # mnemonic # [{`: reads `source` and
    writes `target`, which may be the same buffer for an in-place operation
    where the shapes allow it.

    ```mlir
    comm.buffer.}] # mnemonic # [{ %src, %dst {...} : memref<...>, memref<...>
    ```
  }];
  let assemblyFormat = [{
    $source `,` $target attr-dict `:` type($source) `,` type($target)
  }];
}

def Comm_BufferAllReduceOp
    : Comm_BufferCollectiveOp<"all_reduce", "all_reduce"> {
  let arguments = (ins Comm_Buffer:$source, Comm_Buffer:$target,
                       Comm_ReductionKindAttr:$kind,
                       Comm_ReplicaGroupsAttr:$groups,
                       OptionalAttr<Comm_PlanAttr>:$plan);
}

def Comm_BufferReduceScatterOp
    : Comm_BufferCollectiveOp<"reduce_scatter", "reduce_scatter"> {
  let arguments = (ins Comm_Buffer:$source, Comm_Buffer:$target,
                       Comm_ReductionKindAttr:$kind,
                       Comm_ReplicaGroupsAttr:$groups, I64Attr:$dim,
                       OptionalAttr<Comm_PlanAttr>:$plan);
}

def Comm_BufferAllGatherOp
    : Comm_BufferCollectiveOp<"all_gather", "all_gather"> {
  let arguments = (ins Comm_Buffer:$source, Comm_Buffer:$target,
                       Comm_ReplicaGroupsAttr:$groups, I64Attr:$dim,
                       OptionalAttr<Comm_PlanAttr>:$plan);
}

def Comm_BufferAllToAllOp
    : Comm_BufferCollectiveOp<"all_to_all", "all_to_all"> {
  let arguments = (ins Comm_Buffer:$source, Comm_Buffer:$target,
                       Comm_ReplicaGroupsAttr:$groups, I64Attr:$split_dim,
                       I64Attr:$concat_dim, OptionalAttr<Comm_PlanAttr>:$plan);
}

def Comm_BufferBroadcastOp
    : Comm_BufferCollectiveOp<"broadcast", "broadcast"> {
  let arguments = (ins Comm_Buffer:$source, Comm_Buffer:$target,
                       Comm_ReplicaGroupsAttr:$groups, I64Attr:$root,
                       OptionalAttr<Comm_PlanAttr>:$plan);
}

def Comm_BufferReduceOp : Comm_BufferCollectiveOp<"reduce", "reduce"> {
  let arguments = (ins Comm_Buffer:$source, Comm_Buffer:$target,
                       Comm_ReductionKindAttr:$kind,
                       Comm_ReplicaGroupsAttr:$groups, I64Attr:$root,
                       OptionalAttr<Comm_PlanAttr>:$plan);
}

def Comm_BufferPermuteOp : Comm_BufferCollectiveOp<"permute", "permute"> {
  let arguments = (ins Comm_Buffer:$source, Comm_Buffer:$target,
                       DenseI64ArrayAttr:$pairs,
                       OptionalAttr<Comm_PlanAttr>:$plan);
}

def Comm_BufferCopyOp : Comm_BufferCollectiveOp<"copy", "copy"> {
  let arguments = (ins Comm_Buffer:$source, Comm_Buffer:$target,
                       Comm_MemorySpaceAttr:$src, Comm_MemorySpaceAttr:$dst,
                       OptionalAttr<Comm_PlanAttr>:$plan);
}

def Comm_BufferSendOp : Comm_BufferOp<"send"> {
  let summary = "send a buffer to a peer rank";
  let description = [{
    The bufferized form of `comm.send`.

    ```mlir
    comm.buffer.send %buf {pairs = array<i64: 0, 1>, tag = 0 : i64} : memref<16xf32>
    ```
  }];
  let arguments = (ins Comm_Buffer:$source, DenseI64ArrayAttr:$pairs,
                       I64Attr:$tag, OptionalAttr<Comm_PlanAttr>:$plan);
  let assemblyFormat = "$source attr-dict `:` type($source)";
}

def Comm_BufferRecvOp : Comm_BufferOp<"recv"> {
  let summary = "receive into a buffer from a peer rank";
  let description = [{
    The bufferized form of `comm.recv`: ranks that are the target of no pair
    write zeros.

    ```mlir
    comm.buffer.recv %buf {pairs = array<i64: 0, 1>, tag = 0 : i64} : memref<16xf32>
    ```
  }];
  let arguments = (ins Comm_Buffer:$target, DenseI64ArrayAttr:$pairs,
                       I64Attr:$tag, OptionalAttr<Comm_PlanAttr>:$plan);
  let assemblyFormat = "$target attr-dict `:` type($target)";
}

def Comm_BufferPackOp : Comm_BufferOp<"pack"> {
  let summary = "place several buffers into one flat buffer";
  let description = [{
    The bufferized form of `comm.pack`: writes every input at its offset of
    `target` (of each block's, in parts, with `blocks`), converting the
    element type when they differ, and zeros the rest.

    ```mlir
    comm.buffer.pack %a, %b into %buf {offsets = array<i64: 0, 64>}
        : memref<64xf32>, memref<8x8xf32> into memref<128xf32>
    ```
  }];
  let arguments = (ins Variadic<Comm_Buffer>:$inputs, Comm_Buffer:$target,
                       DenseI64ArrayAttr:$offsets,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$blocks);
  let assemblyFormat = [{
    $inputs `into` $target attr-dict `:` type($inputs) `into` type($target)
  }];
  let extraClassDeclaration = [{
    int64_t getNumBlocks() { return getBlocks().value_or(1); }
  }];
}

def Comm_BufferUnpackOp : Comm_BufferOp<"unpack"> {
  let summary = "read several buffers out of one flat buffer";
  let description = [{
    The bufferized form of `comm.unpack`.

    ```mlir
    comm.buffer.unpack %buf into %a, %b {offsets = array<i64: 0, 64>}
        : memref<128xf32> into memref<64xf32>, memref<8x8xf32>
    ```
  }];
  let arguments = (ins Comm_Buffer:$source, Variadic<Comm_Buffer>:$outputs,
                       DenseI64ArrayAttr:$offsets,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$blocks);
  let assemblyFormat = [{
    $source `into` $outputs attr-dict `:` type($source) `into` type($outputs)
  }];
  let extraClassDeclaration = [{
    int64_t getNumBlocks() { return getBlocks().value_or(1); }
  }];
}

def Comm_BufferComputeOp : Comm_BufferOp<"compute", [AttrSizedOperandSegments]> {
  let summary = "an opaque compute step on buffers";
  let description = [{
    The bufferized form of `comm.compute`: a call of the external function
    `name` with the input buffers and then the output buffers.

    ```mlir
    comm.buffer.compute "gemm"(%a) outs(%c) : (memref<64xf32>) outs(memref<64xf32>)
    ```
  }];
  let arguments = (ins StrAttr:$name, Variadic<AnyMemRef>:$inputs,
                       Variadic<AnyMemRef>:$outputs,
                       OptionalAttr<F64Attr>:$flops,
                       OptionalAttr<I64Attr>:$bytes,
                       OptionalAttr<F64Attr>:$time_us,
                       OptionalAttr<DenseI64ArrayAttr>:$part,
                       UnitAttr:$rowwise,
                       OptionalAttr<Comm_ReplicaGroupsAttr>:$part_groups);
  let assemblyFormat = [{
    $name `(` $inputs `)` `outs` `(` $outputs `)` attr-dict
    `:` custom<TypeList>(type($inputs)) `outs` `` custom<TypeList>(type($outputs))
  }];
}

def Comm_BufferRotateOp
    : Comm_BufferOp<"rotate", [AllTypesMatch<["source", "target"]>]> {
  let summary = "comm.rotate on buffers";
  let description = [{
    The bufferized form of `comm.rotate`: writes the chunks of `source`,
    shifted by the rank's position in its group, to `target` (a different
    buffer).

    ```mlir
    comm.buffer.rotate %src, %dst over [[0, 1, 2, 3]] shift 1 : memref<16xf32>
    ```
  }];
  let arguments = (ins Comm_Buffer:$source, Comm_Buffer:$target,
                       Comm_ReplicaGroupsAttr:$groups, I64Attr:$shift,
                       UnitAttr:$inverse);
  let assemblyFormat = [{
    $source `,` $target `over` custom<ReplicaGroups>($groups) `shift` $shift
    (`inverse` $inverse^)? attr-dict `:` type($source)
  }];
}

def Comm_BufferScaleOp
    : Comm_BufferOp<"scale", [AllTypesMatch<["source", "target"]>]> {
  let summary = "multiply a floating-point buffer by a constant";
  let description = [{
    `target[i] = source[i] * factor` (bf16 and f16 in f32, rounded once):
    the division of an average that a point-to-point schedule sums.
    comm-bufferize makes it from `arith.mulf` by a splat constant tensor.

    ```mlir
    comm.buffer.scale %a by 2.500000e-01 into %b : memref<1024xf32>
    ```
  }];
  let arguments = (ins Comm_Buffer:$source, F64Attr:$factor,
                       Comm_Buffer:$target);
  let assemblyFormat = [{
    $source `by` $factor `into` $target attr-dict `:` type($target)
  }];
}

def Comm_BufferCombineOp
    : Comm_BufferOp<"combine", [AllTypesMatch<["lhs", "rhs", "target"]>]> {
  let summary = "combine two buffers element-wise into a third";
  let description = [{
    `target[i] = lhs[i] (kind) rhs[i]`: the local reduction of
    point-to-point schedules (bf16 and f16 accumulate in f32). comm-bufferize
    makes it from element-wise arith ops on tensors (arith.addf, arith.addi,
    arith.mulf, arith.muli, arith.maximumf, arith.minimumf, arith.maxsi,
    arith.minsi, arith.andi, arith.ori, arith.xori).

    ```mlir
    comm.buffer.combine sum %a, %b into %c : memref<1024xf32>
    ```
  }];
  let arguments = (ins Comm_ReductionKindAttr:$kind, Comm_Buffer:$lhs,
                       Comm_Buffer:$rhs, Comm_Buffer:$target);
  let assemblyFormat = [{
    custom<EnumKeyword>($kind) $lhs `,` $rhs `into` $target attr-dict `:`
    type($target)
  }];
}

#endif // COMM_DIALECT_COMM_COMMBUFFEROPS_TD
