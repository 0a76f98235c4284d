//===- CommOps.td - comm operations ------------------------*- tablegen -*-===//

#ifndef COMM_DIALECT_COMM_COMMOPS_TD
#define COMM_DIALECT_COMM_COMMOPS_TD

include "Comm/CommDialect.td"
include "Comm/CommAttrs.td"
include "Comm/CommTypes.td"
include "Comm/CommInterfaces.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Common pieces
//===----------------------------------------------------------------------===//

/// Communication between ranks is ordered: ops touching this resource are
/// neither reordered against each other nor removed when their results are
/// unused (the other ranks are waiting for them).
def Comm_Resource : Resource<"::mlir::comm::CommResource">;
def Comm_CommEffects : MemoryEffects<[MemRead<Comm_Resource>,
                                      MemWrite<Comm_Resource>]>;

def Comm_Tensor : StaticShapeTensorOf<[AnySignlessInteger, AnyFloat]>;

class Comm_CollectiveOp<string mnemonic, list<Trait> traits = []>
    : Comm_Op<mnemonic, !listconcat(traits, [
          Comm_CommEffects, Comm_CollectiveOpInterface])> {
  code collectiveClassDeclaration = [{
    /// CollectiveOpInterface: element type of the data moved.
    ::mlir::Type getCommElementType();
    /// CollectiveOpInterface: payload bytes each rank sends.
    int64_t getBytesSentPerRank();
    /// CollectiveOpInterface: payload bytes each rank receives.
    int64_t getBytesReceivedPerRank();
  }];
  let extraClassDeclaration = collectiveClassDeclaration;
  let hasVerifier = 1;
}

/// A collective whose participants are given as replica groups.
class Comm_GroupedCollectiveOp<string mnemonic, list<Trait> traits = []>
    : Comm_CollectiveOp<mnemonic, traits> {
  code groupedClassDeclaration = collectiveClassDeclaration # [{
    /// CollectiveOpInterface: the groups of ranks that take part.
    ::mlir::comm::ReplicaGroupsAttr getReplicaGroups() {
      return getGroupsAttr();
    }
  }];
  let extraClassDeclaration = groupedClassDeclaration;
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

def Comm_AllReduceOp : Comm_GroupedCollectiveOp<"all_reduce",
    [AllTypesMatch<["input", "result"]>]> {
  let summary = "reduce a tensor across each group and give every rank the result";
  let description = [{
    Every rank of a group contributes `input`; every rank receives the
    element-wise reduction of all contributions of its group.

    ```mlir
    %0 = comm.all_reduce sum %x over [[0, 1, 2, 3]] : tensor<1024xf32>
    %1 = comm.all_reduce max %y over [[0, 1], [2, 3]]
        plan <algorithm = ring, channels = 4> : tensor<16x16xbf16>
    ```
  }];
  let arguments = (ins Comm_Tensor:$input,
                       Comm_ReductionKindAttr:$kind,
                       Comm_ReplicaGroupsAttr:$groups,
                       OptionalAttr<Comm_PlanAttr>:$plan);
  let results = (outs Comm_Tensor:$result);
  let assemblyFormat = [{
    custom<EnumKeyword>($kind) $input `over` custom<ReplicaGroups>($groups) (`plan` $plan^)?
    attr-dict `:` type($input)
  }];
  let hasFolder = 1;
  let extraClassDeclaration = groupedClassDeclaration # [{
    std::optional<::mlir::comm::ReductionKind> getReduction() {
      return getKind();
    }
  }];
}

def Comm_ReduceScatterOp : Comm_GroupedCollectiveOp<"reduce_scatter"> {
  let summary = "reduce across each group and leave each rank one shard";
  let description = [{
    The inputs of a group are reduced element-wise; the result is split
    into `groupSize` equal shards along `dim` and the rank at position `i`
    of its group receives shard `i`. The size of `dim` must be divisible by
    the group size.

    ```mlir
    %0 = comm.reduce_scatter sum %x over [[0, 1, 2, 3]] dim 0
        : tensor<1024xf32> -> tensor<256xf32>
    ```
  }];
  let arguments = (ins Comm_Tensor:$input,
                       Comm_ReductionKindAttr:$kind,
                       Comm_ReplicaGroupsAttr:$groups,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$dim,
                       OptionalAttr<Comm_PlanAttr>:$plan);
  let results = (outs Comm_Tensor:$result);
  let assemblyFormat = [{
    custom<EnumKeyword>($kind) $input `over` custom<ReplicaGroups>($groups) `dim` $dim
    (`plan` $plan^)? attr-dict `:` type($input) `->` type($result)
  }];
  let hasFolder = 1;
  let extraClassDeclaration = groupedClassDeclaration # [{
    std::optional<::mlir::comm::ReductionKind> getReduction() {
      return getKind();
    }
  }];
}

def Comm_AllGatherOp : Comm_GroupedCollectiveOp<"all_gather"> {
  let summary = "concatenate the shards of each group on every rank";
  let description = [{
    Every rank of a group receives the concatenation along `dim` of the
    inputs of all ranks of its group, in group order.

    ```mlir
    %0 = comm.all_gather %x over [[0, 1, 2, 3]] dim 0
        : tensor<256xf32> -> tensor<1024xf32>
    ```
  }];
  let arguments = (ins Comm_Tensor:$input,
                       Comm_ReplicaGroupsAttr:$groups,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$dim,
                       OptionalAttr<Comm_PlanAttr>:$plan);
  let results = (outs Comm_Tensor:$result);
  let assemblyFormat = [{
    $input `over` custom<ReplicaGroups>($groups) `dim` $dim
    (`plan` $plan^)? attr-dict `:` type($input) `->` type($result)
  }];
  let hasFolder = 1;
}

def Comm_AllToAllOp : Comm_GroupedCollectiveOp<"all_to_all"> {
  let summary = "exchange one shard between every pair of ranks of a group";
  let description = [{
    The input is split into `groupSize` shards along `split_dim`; shard `j`
    goes to the rank at position `j` of the group, and the shards received
    are concatenated along `concat_dim` in group order. The size of
    `split_dim` must be divisible by the group size.

    ```mlir
    %0 = comm.all_to_all %x over [[0, 1, 2, 3]] split 0 concat 1
        : tensor<8x2xf32> -> tensor<2x8xf32>
    ```
  }];
  let arguments = (ins Comm_Tensor:$input,
                       Comm_ReplicaGroupsAttr:$groups,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$split_dim,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$concat_dim,
                       OptionalAttr<Comm_PlanAttr>:$plan);
  let results = (outs Comm_Tensor:$result);
  let assemblyFormat = [{
    $input `over` custom<ReplicaGroups>($groups) `split` $split_dim
    `concat` $concat_dim (`plan` $plan^)? attr-dict
    `:` type($input) `->` type($result)
  }];
  let hasFolder = 1;
}

def Comm_BroadcastOp : Comm_GroupedCollectiveOp<"broadcast",
    [AllTypesMatch<["input", "result"]>]> {
  let summary = "copy the root's tensor to every rank of its group";
  let description = [{
    Every rank of a group receives the input of the rank at position `root`
    of that group (a position in the group, not a global rank).

    ```mlir
    %0 = comm.broadcast %x over [[0, 1, 2, 3]] root 0 : tensor<64xf32>
    ```
  }];
  let arguments = (ins Comm_Tensor:$input,
                       Comm_ReplicaGroupsAttr:$groups,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$root,
                       OptionalAttr<Comm_PlanAttr>:$plan);
  let results = (outs Comm_Tensor:$result);
  let assemblyFormat = [{
    $input `over` custom<ReplicaGroups>($groups) `root` $root
    (`plan` $plan^)? attr-dict `:` type($input)
  }];
  let hasFolder = 1;
  let extraClassDeclaration = groupedClassDeclaration # [{
    /// CollectiveOpInterface: the root's position in its group.
    std::optional<int64_t> getRootPosition() {
      return static_cast<int64_t>(getRoot());
    }
  }];
}

def Comm_ReduceOp : Comm_GroupedCollectiveOp<"reduce",
    [AllTypesMatch<["input", "result"]>]> {
  let summary = "reduce across each group onto its root";
  let description = [{
    The rank at position `root` of a group receives the element-wise
    reduction of the inputs of its group. Every other rank of the group
    gets its own input back, unchanged; a rank in no group gets zeros, as
    from every grouped collective (docs/Lowering.md).

    ```mlir
    %0 = comm.reduce sum %x over [[0, 1, 2, 3]] root 2 : tensor<64xi32>
    ```
  }];
  let arguments = (ins Comm_Tensor:$input,
                       Comm_ReductionKindAttr:$kind,
                       Comm_ReplicaGroupsAttr:$groups,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$root,
                       OptionalAttr<Comm_PlanAttr>:$plan);
  let results = (outs Comm_Tensor:$result);
  let assemblyFormat = [{
    custom<EnumKeyword>($kind) $input `over` custom<ReplicaGroups>($groups) `root` $root
    (`plan` $plan^)? attr-dict `:` type($input)
  }];
  let hasFolder = 1;
  let extraClassDeclaration = groupedClassDeclaration # [{
    std::optional<::mlir::comm::ReductionKind> getReduction() {
      return getKind();
    }
    /// CollectiveOpInterface: the root's position in its group.
    std::optional<int64_t> getRootPosition() {
      return static_cast<int64_t>(getRoot());
    }
  }];
}

def Comm_PermuteOp : Comm_CollectiveOp<"permute",
    [AllTypesMatch<["input", "result"]>, Comm_PointToPointOpInterface]> {
  let summary = "send each rank's tensor to another rank";
  let description = [{
    For every `[source, target]` pair, `target` receives the input of
    `source`. A rank that is the target of no pair receives zeros. No rank
    is the source of two pairs nor the target of two pairs.

    ```mlir
    // A ring shift over four ranks.
    %0 = comm.permute %x pairs [[0, 1], [1, 2], [2, 3], [3, 0]]
        : tensor<128xf32>
    ```
  }];
  let arguments = (ins Comm_Tensor:$input,
                       DenseI64ArrayAttr:$pairs,
                       OptionalAttr<Comm_PlanAttr>:$plan);
  let results = (outs Comm_Tensor:$result);
  let assemblyFormat = [{
    $input `pairs` custom<Pairs>($pairs) (`plan` $plan^)? attr-dict
    `:` type($input)
  }];
  let extraClassDeclaration = collectiveClassDeclaration # [{
    /// CollectiveOpInterface: one group holding every rank that takes part.
    ::mlir::comm::ReplicaGroupsAttr getReplicaGroups();
    /// Number of source/target pairs.
    int64_t getNumPairs() { return getPairs().size() / 2; }
    /// PointToPointOpInterface: a permute matches no tag.
    std::optional<int64_t> getTransferTag() { return std::nullopt; }
  }];
}

def Comm_BarrierOp : Comm_GroupedCollectiveOp<"barrier"> {
  let summary = "wait until every rank of the group has arrived";
  let description = [{
    No rank of a group continues past the barrier before every rank of its
    group has reached it.

    ```mlir
    comm.barrier over [[0, 1, 2, 3, 4, 5, 6, 7]]
    ```
  }];
  let arguments = (ins Comm_ReplicaGroupsAttr:$groups,
                       OptionalAttr<Comm_PlanAttr>:$plan);
  let assemblyFormat = [{
    `over` custom<ReplicaGroups>($groups) (`plan` $plan^)? attr-dict
  }];
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Point to point
//===----------------------------------------------------------------------===//

def Comm_SendOp : Comm_Op<"send",
    [Comm_CommEffects, Comm_PointToPointOpInterface]> {
  let summary = "send a tensor to a peer rank";
  let description = [{
    For every `[source, target]` pair, rank `source` sends its `input` to
    rank `target`; ranks that are the source of no pair send nothing. The
    matching `comm.recv` on the target names the same pair and `tag`.
    A send does not block: the rank goes on once it is posted, and the
    runtime completes it before the function returns (the simulator and
    `comm-verify-schedule` read it the same way), so every rank of a ring
    may send before it receives. A receive blocks until its data is there.

    ```mlir
    comm.send %x to [[0, 1], [2, 3]] tag 7 : tensor<256xf16>
    ```
  }];
  let arguments = (ins Comm_Tensor:$input,
                       DenseI64ArrayAttr:$pairs,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$tag,
                       OptionalAttr<Comm_PlanAttr>:$plan);
  let assemblyFormat = [{
    $input `to` custom<Pairs>($pairs) `tag` $tag (`plan` $plan^)? attr-dict
    `:` type($input)
  }];
  let extraClassDeclaration = [{
    /// PointToPointOpInterface: the tag that matches sends with receives.
    std::optional<int64_t> getTransferTag() {
      return static_cast<int64_t>(getTag());
    }
  }];
  let hasVerifier = 1;
}

def Comm_RecvOp : Comm_Op<"recv",
    [Comm_CommEffects, Comm_PointToPointOpInterface]> {
  let summary = "receive a tensor from a peer rank";
  let description = [{
    For every `[source, target]` pair, rank `target` receives the tensor
    that `source` sends with the same `tag`. Ranks that are the target of no
    pair receive zeros.

    ```mlir
    %0 = comm.recv from [[0, 1], [2, 3]] tag 7 : tensor<256xf16>
    ```
  }];
  let arguments = (ins DenseI64ArrayAttr:$pairs,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$tag,
                       OptionalAttr<Comm_PlanAttr>:$plan);
  let results = (outs Comm_Tensor:$result);
  let assemblyFormat = [{
    `from` custom<Pairs>($pairs) `tag` $tag (`plan` $plan^)? attr-dict
    `:` type($result)
  }];
  let extraClassDeclaration = [{
    /// PointToPointOpInterface: the tag that matches sends with receives.
    std::optional<int64_t> getTransferTag() {
      return static_cast<int64_t>(getTag());
    }
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Memory movement
//===----------------------------------------------------------------------===//

def Comm_CopyOp : Comm_Op<"copy", [Pure, AllTypesMatch<["input", "result"]>]> {
  let summary = "move a tensor between memory spaces of one rank";
  let description = [{
    The value is unchanged; where it lives changes: `hbm` to `host` is a
    device-to-host copy, `pinned_host` to `hbm` a host-to-device DMA, `hbm`
    to `hbm` a device-to-device copy.

    ```mlir
    %0 = comm.copy %x hbm to pinned_host : tensor<1024xf32>
    ```
  }];
  let arguments = (ins Comm_Tensor:$input,
                       Comm_MemorySpaceAttr:$src,
                       Comm_MemorySpaceAttr:$dst,
                       OptionalAttr<Comm_PlanAttr>:$plan);
  let results = (outs Comm_Tensor:$result);
  let assemblyFormat = [{
    $input custom<EnumKeyword>($src) `to` custom<EnumKeyword>($dst) (`plan` $plan^)? attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

def Comm_PackOp : Comm_Op<"pack", [Pure]> {
  let summary = "place several tensors into one flat buffer";
  let description = [{
    Input `i` is flattened and written at element offset `offsets[i]` of
    the result, whose elements count in row-major order (usually 1-D; a
    shaped result joins parts along dimension 0 without a reshape);
    elements covered by no input are zero. Inputs must not
    overlap. The result may use a different floating-point element type
    than the inputs, in which case the values are converted (rounded to
    nearest even) as they are packed.

    With `blocks k`, the result is `k` equal blocks and every input is cut
    into `k` equal parts: part `r` of input `i` goes to offset `offsets[i]`
    of block `r`. This is the layout a reduce_scatter over `k` ranks needs
    to hand each rank its part of every tensor (and an all_gather leaves
    for `comm.unpack ... blocks k`).

    ```mlir
    %0 = comm.pack %a, %b offsets [0, 64]
        : tensor<64xf32>, tensor<8x8xf32> -> tensor<128xf32>
    // Packing with conversion to bf16 for a reduced-precision transfer.
    %1 = comm.pack %a, %b offsets [0, 64]
        : tensor<64xf32>, tensor<8x8xf32> -> tensor<128xbf16>
    // Four blocks of 32: elements 16r..16r+15 of %a, then of %b, in block r.
    %2 = comm.pack %a, %b offsets [0, 16] blocks 4
        : tensor<64xf32>, tensor<8x8xf32> -> tensor<128xf32>
    ```
  }];
  let arguments = (ins Variadic<Comm_Tensor>:$inputs,
                       DenseI64ArrayAttr:$offsets,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$blocks);
  let results = (outs Comm_Tensor:$result);
  let assemblyFormat = [{
    $inputs `offsets` $offsets (`blocks` $blocks^)? attr-dict `:` type($inputs) `->` type($result)
  }];
  let extraClassDeclaration = [{
    /// How many blocks the buffer is cut into (1 without `blocks`).
    int64_t getNumBlocks() { return getBlocks().value_or(1); }
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Comm_UnpackOp : Comm_Op<"unpack", [Pure]> {
  let summary = "read several tensors out of one flat buffer";
  let description = [{
    Result `i` is read from element offset `offsets[i]` of the input (its
    elements in row-major order) and reshaped to its type. A result with a different floating-point
    element type than the buffer is converted as it is read. With
    `blocks k`, the input is `k` equal blocks and result `i` is the
    concatenation of what each block holds at `offsets[i]` (the layout an
    all_gather over `k` ranks of a packed buffer produces).

    ```mlir
    %a, %b = comm.unpack %buf offsets [0, 64]
        : tensor<128xf32> -> tensor<64xf32>, tensor<8x8xf32>
    %c, %d = comm.unpack %gathered offsets [0, 16] blocks 4
        : tensor<128xf32> -> tensor<64xf32>, tensor<8x8xf32>
    ```
  }];
  let arguments = (ins Comm_Tensor:$input, DenseI64ArrayAttr:$offsets,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$blocks);
  let results = (outs Variadic<Comm_Tensor>:$results);
  let assemblyFormat = [{
    $input `offsets` $offsets (`blocks` $blocks^)? attr-dict `:` type($input) `->` type($results)
  }];
  let extraClassDeclaration = [{
    /// How many blocks the buffer is cut into (1 without `blocks`).
    int64_t getNumBlocks() { return getBlocks().value_or(1); }
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Comm_RotateOp : Comm_Op<"rotate",
    [Pure, AllTypesMatch<["input", "result"]>]> {
  let summary = "shift a tensor's chunks cyclically by the rank's place in its group";
  let description = [{
    The input is cut along dimension 0 into as many equal chunks as each
    group has ranks (`n`). On the rank at position `p` of its group, chunk
    `j` of the result is chunk `(j + p + shift) mod n` of the input; with
    `inverse`, chunk `(j - p + shift) mod n`. A rank in no group gets its
    input back.

    This is comm's one rank-dependent local op: the point-to-point schedules
    `comm-decompose` writes for collectives rotate the data once, so that
    every rank sends and receives the same chunk indices at every step, and
    rotate back at the end.

    ```mlir
    // On rank 1 of [[0, 1, 2, 3]]: chunks 1, 2, 3, 0 of %x.
    %0 = comm.rotate %x over [[0, 1, 2, 3]] shift 0 : tensor<16xf32>
    // Undoes it.
    %1 = comm.rotate %0 over [[0, 1, 2, 3]] shift 0 inverse : tensor<16xf32>
    ```
  }];
  let arguments = (ins Comm_Tensor:$input,
                       Comm_ReplicaGroupsAttr:$groups,
                       I64Attr:$shift,
                       UnitAttr:$inverse);
  let results = (outs Comm_Tensor:$result);
  let assemblyFormat = [{
    $input `over` custom<ReplicaGroups>($groups) `shift` $shift
    (`inverse` $inverse^)? attr-dict `:` type($input)
  }];
  let extraClassDeclaration = [{
    /// The input chunk that result chunk `chunk` holds on the rank at
    /// `position` of its group.
    int64_t getSourceChunk(int64_t chunk, int64_t position);
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Compute stand-in
//===----------------------------------------------------------------------===//

def Comm_ComputeOp : Comm_Op<"compute", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "an opaque compute step with a cost";
  let description = [{
    Stands for the compute of the program (a matmul, an attention block)
    so that planning and simulation can reason about overlapping transfers
    with it. It is lowered to a call of the external function `name`, which
    takes the inputs and returns the results. `flops` and `bytes` (memory
    traffic) are its cost; `time_us`, when given, overrides the time the
    simulator derives from them.

    `part [i, k]` says the op computes part `i` of `k` of each result: the
    `i`-th of `k` equal slices along dimension 0 of the result the op would
    have without it. `comm-pipeline` splits a compute so, and the
    implementation is told which part to compute (`comm_compute_args.part`
    and `.parts`). With `rotated over [[...]]` (groups of `k` ranks) the
    part depends on the rank: the rank at position `p` of its group
    computes part `(i + p) mod k`, as the ring schedules of windowed
    einsums visit the ranks' rows in an order that starts at their own.

    `rowwise` says each row (index along dimension 0) of a result depends
    only on the same row of the inputs whose dimension 0 has the result's
    size; other inputs (weights) are read whole. A token-wise MLP is
    rowwise, attention over a sequence is not. A rowwise compute can be
    split into parts that each read only their rows of those inputs, so
    `comm-pipeline` can start a part as soon as its rows arrive.

    ```mlir
    %y = comm.compute "gemm"(%a, %b) flops 2.0e+09 bytes 8388608
        : (tensor<1024x1024xf32>, tensor<1024x1024xf32>)
        -> tensor<1024x1024xf32>
    // The second quarter of its rows.
    %q = comm.compute "gemm"(%a, %b) flops 5.0e+08 bytes 2097152 part [1, 4]
        : (tensor<1024x1024xf32>, tensor<1024x1024xf32>)
        -> tensor<256x1024xf32>
    // The quarter after the rank's own (rank 2: the fourth).
    %r = comm.compute "gemm"(%a, %b) flops 5.0e+08 part [1, 4]
        rotated over [[0, 1, 2, 3]]
        : (tensor<1024x1024xf32>, tensor<1024x1024xf32>)
        -> tensor<256x1024xf32>
    ```
  }];
  let arguments = (ins StrAttr:$name,
                       Variadic<AnyRankedTensor>:$inputs,
                       OptionalAttr<F64Attr>:$flops,
                       OptionalAttr<I64Attr>:$bytes,
                       OptionalAttr<F64Attr>:$time_us,
                       OptionalAttr<DenseI64ArrayAttr>:$part,
                       UnitAttr:$rowwise,
                       OptionalAttr<Comm_ReplicaGroupsAttr>:$part_groups);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    $name `(` $inputs `)` (`flops` $flops^)? (`bytes` $bytes^)?
    (`time_us` $time_us^)? (`part` $part^)?
    (`rotated` `over` custom<ReplicaGroups>($part_groups)^)?
    (`rowwise` $rowwise^)? attr-dict
    `:` functional-type($inputs, $results)
  }];
  let extraClassDeclaration = [{
    /// The part this op computes and how many there are ({0, 1} without
    /// `part`); with `rotated over`, the index before the rotation.
    std::pair<int64_t, int64_t> getPartIndex() {
      if (auto part = getPart(); part && part->size() == 2)
        return {(*part)[0], (*part)[1]};
      return {0, 1};
    }
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Async
//===----------------------------------------------------------------------===//

def Comm_StartOp : Comm_Op<"start", [
    RecursiveMemoryEffects, SingleBlock]> {
  let summary = "begin transfers that complete at the matching wait";
  let description = [{
    The ops of the body are issued without waiting for them to finish; the
    values the body yields become available from the `comm.wait` on the
    returned token. The schedule pass moves starts up and waits down so the
    transfer overlaps the compute in between.

    ```mlir
    %t = comm.start {
      %0 = comm.all_reduce sum %x over [[0, 1, 2, 3]] : tensor<1024xf32>
      comm.yield %0 : tensor<1024xf32>
    }
    %c = comm.compute "gemm"(%a) flops 1.0e+09 : (tensor<64xf32>) -> tensor<64xf32>
    %r = comm.wait %t : tensor<1024xf32>
    ```
  }];
  let results = (outs Comm_TokenType:$token);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$body attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The terminator of the body.
    ::mlir::comm::YieldOp getYield();
  }];
}

def Comm_YieldOp : Comm_Op<"yield", [
    Pure, Terminator, HasParent<"StartOp">]> {
  let summary = "values a comm.start makes available to its wait";
  let description = [{
    Terminates the body of a `comm.start`.

    ```mlir
    comm.yield %0, %1 : tensor<4xf32>, tensor<8xi32>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

def Comm_WaitOp : Comm_Op<"wait", [Comm_CommEffects]> {
  let summary = "wait for the transfers of a token and take their results";
  let description = [{
    Blocks until every transfer started by the `comm.start` that produced
    `token` has completed, and returns the values its body yielded.

    ```mlir
    %r = comm.wait %t : tensor<1024xf32>
    comm.wait %t2
    ```
  }];
  let arguments = (ins Comm_TokenType:$token);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = "$token attr-dict (`:` type($results)^)?";
  let hasVerifier = 1;
}

#endif // COMM_DIALECT_COMM_COMMOPS_TD
