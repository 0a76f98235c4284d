//===- CommAttrs.td - comm enums and attributes ------------*- tablegen -*-===//

#ifndef COMM_DIALECT_COMM_COMMATTRS_TD
#define COMM_DIALECT_COMM_COMMATTRS_TD

include "Comm/CommDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Comm_ReductionKind : I32EnumAttr<"ReductionKind",
    "how the contributions of the ranks are combined", [
      I32EnumAttrCase<"sum", 0>,
      I32EnumAttrCase<"prod", 1>,
      I32EnumAttrCase<"min", 2>,
      I32EnumAttrCase<"max", 3>,
      I32EnumAttrCase<"avg", 4>,
      I32EnumAttrCase<"band", 5, "and">,
      I32EnumAttrCase<"bor", 6, "or">,
      I32EnumAttrCase<"bxor", 7, "xor">
    ]> {
  let cppNamespace = "::mlir::comm";
  let genSpecializedAttr = 0;
}

def Comm_ReductionKindAttr
    : EnumAttr<Comm_Dialect, Comm_ReductionKind, "reduction"> {
  let summary = "reduction kind of a collective";
  let description = [{
    How the ranks' contributions are combined: `sum`, `prod`, `min`, `max`,
    `avg` (floating point only), and the bitwise `and`, `or`, `xor`
    (integers only). Printed bare inside ops, `#comm<reduction sum>` alone.
  }];
}

def Comm_MemorySpace : I32EnumAttr<"MemorySpace",
    "where a tensor lives", [
      I32EnumAttrCase<"hbm", 0>,
      I32EnumAttrCase<"host", 1>,
      I32EnumAttrCase<"pinned_host", 2>
    ]> {
  let cppNamespace = "::mlir::comm";
  let genSpecializedAttr = 0;
}

def Comm_MemorySpaceAttr
    : EnumAttr<Comm_Dialect, Comm_MemorySpace, "memory_space"> {
  let summary = "memory space of a tensor";
  let description = [{
    `hbm` is the GPU's own memory, `host` pageable host memory, and
    `pinned_host` page-locked host memory that DMA engines and NICs can reach
    directly. Example: `#comm<memory_space pinned_host>`.
  }];
}

def Comm_Algorithm : I32EnumAttr<"Algorithm",
    "collective algorithm", [
      I32EnumAttrCase<"ring", 0>,
      I32EnumAttrCase<"tree", 1>,
      I32EnumAttrCase<"direct", 2>,
      I32EnumAttrCase<"halving_doubling", 3>,
      I32EnumAttrCase<"hierarchical", 4>,
      I32EnumAttrCase<"nvls", 5>
    ]> {
  let cppNamespace = "::mlir::comm";
  let genSpecializedAttr = 0;
  let description = [{
    - `ring`: bandwidth-optimal ring (NCCL's RING).
    - `tree`: double binary tree (NCCL's TREE).
    - `direct`: one-shot, every rank exchanges with every other rank directly.
    - `halving_doubling`: recursive halving / doubling.
    - `hierarchical`: two levels, inside each node then across nodes.
    - `nvls`: reduction in the NVSwitch (NVLink SHARP).
  }];
}

def Comm_Backend : I32EnumAttr<"Backend",
    "runtime backend a program is compiled for", [
      I32EnumAttrCase<"mpi", 0>,
      I32EnumAttrCase<"nccl", 1>,
      I32EnumAttrCase<"verbs", 2>
    ]> {
  let cppNamespace = "::mlir::comm";
  let genSpecializedAttr = 0;
  let description = [{
    The commrt backend that carries a compiled program's transfers:
    `mpi` (host buffers), `nccl` (device buffers, NCCL), `verbs` (device or
    host buffers by RDMA, point to point only). Which algorithms a plan may
    name for each collective on each backend is one table
    (`comm/Dialect/Comm/IR/CommAlgorithms.h`), read by the verifier, the cost
    model, the simulator and the lowering, and tested against the runtime.
  }];
}

def Comm_Protocol : I32EnumAttr<"Protocol",
    "wire protocol of a transfer", [
      I32EnumAttrCase<"simple", 0>,
      I32EnumAttrCase<"ll", 1>,
      I32EnumAttrCase<"ll128", 2>
    ]> {
  let cppNamespace = "::mlir::comm";
  let genSpecializedAttr = 0;
}

def Comm_Route : I32EnumAttr<"Route",
    "path a transfer takes through the machine", [
      I32EnumAttrCase<"nvlink", 0>,
      I32EnumAttrCase<"pcie", 1>,
      I32EnumAttrCase<"host_staged", 2>,
      I32EnumAttrCase<"gdr", 3>
    ]> {
  let cppNamespace = "::mlir::comm";
  let genSpecializedAttr = 0;
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

class Comm_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Comm_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Comm_ReplicaGroupsAttr : Comm_Attr<"ReplicaGroups", "groups"> {
  let summary = "disjoint groups of ranks of equal size";
  let description = [{
    XLA-style replica groups: a list of disjoint rank lists, all of the same
    size. Each group runs the collective independently of the others.

    ```mlir
    #comm.groups<[[0, 1, 2, 3], [4, 5, 6, 7]]>
    ```

    Inside ops the list is written bare: `over [[0, 1], [2, 3]]`. Ranks are
    non-negative, appear at most once, and no group is empty.
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t", "ranks of all groups, group after group">:$ranks,
    "int64_t":$groupSize
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Number of groups.
    int64_t getNumGroups() const {
      return getGroupSize() == 0 ? 0 : getRanks().size() / getGroupSize();
    }
    /// The ranks of group `index`.
    ::llvm::ArrayRef<int64_t> getGroup(int64_t index) const {
      return getRanks().slice(index * getGroupSize(), getGroupSize());
    }
    /// Largest rank named by any group.
    int64_t getMaxRank() const;
    /// Position of `rank` within its group, or -1 when no group holds it.
    int64_t getPositionOf(int64_t rank) const;
    /// Index of the group holding `rank`, or -1.
    int64_t getGroupIndexOf(int64_t rank) const;
    /// Builds the groups from a list of lists, which must be of equal size.
    static ReplicaGroupsAttr get(::mlir::MLIRContext *context,
        ::llvm::ArrayRef<::llvm::SmallVector<int64_t>> groups);
    /// Prints the bare `[[...], [...]]` form used inside ops.
    void printBare(::mlir::AsmPrinter &printer) const;
    /// Parses the bare `[[...], [...]]` form with located diagnostics.
    static ReplicaGroupsAttr parseBare(::mlir::AsmParser &parser);
  }];
}

def Comm_PlanAttr : Comm_Attr<"Plan", "plan"> {
  let summary = "how a transfer is carried out";
  let description = [{
    A plan records every decision the planner made for one op, or what a
    person wrote by hand to override it. Every field is optional; a missing
    field is left to the planner or to the runtime's default.

    - `algorithm`: `ring`, `tree`, `direct`, `halving_doubling`,
      `hierarchical`, `nvls` (checked against the op it is attached to).
    - `protocol`: `simple`, `ll`, `ll128` (NCCL's). It applies where
      NCCL's own collective runs the op (no algorithm, or `nvls`); the
      runtime's schedules (every other algorithm) send with ncclSend and
      ncclRecv, whose protocol NCCL chooses by size, and MPI has none.
    - `channels`: number of parallel channels (>= 1).
    - `chunk_bytes`: pipelining chunk size in bytes (>= 1).
    - `precision`: floating-point type the data is sent in (e.g. `bf16`).
    - `route`: `nvlink`, `pcie`, `host_staged`, `gdr`.
    - `stream`: index of the stream the transfer is issued on (>= 0).

    ```mlir
    #comm.plan<algorithm = ring, protocol = ll128, channels = 8,
               chunk_bytes = 1048576, precision = bf16, route = nvlink,
               stream = 1>
    ```
  }];
  let parameters = (ins
    OptionalParameter<"std::optional<::mlir::comm::Algorithm>">:$algorithm,
    OptionalParameter<"std::optional<::mlir::comm::Protocol>">:$protocol,
    OptionalParameter<"std::optional<int64_t>">:$channels,
    OptionalParameter<"std::optional<int64_t>">:$chunkBytes,
    OptionalParameter<"::mlir::Type">:$precision,
    OptionalParameter<"std::optional<::mlir::comm::Route>">:$route,
    OptionalParameter<"std::optional<int64_t>">:$stream
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

#endif // COMM_DIALECT_COMM_COMMATTRS_TD
