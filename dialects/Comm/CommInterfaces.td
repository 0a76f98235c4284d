//===- CommInterfaces.td - comm op interfaces --------------*- tablegen -*-===//

#ifndef COMM_DIALECT_COMM_COMMINTERFACES_TD
#define COMM_DIALECT_COMM_COMMINTERFACES_TD

include "mlir/IR/OpBase.td"

def Comm_CollectiveOpInterface : OpInterface<"CollectiveOpInterface"> {
  let cppNamespace = "::mlir::comm";
  let description = [{
    What the cost model, the simulator and the planning passes need to know
    about a collective without knowing which one it is: the groups of ranks
    that take part, the element type, and the payload each participating
    rank sends into and receives out of the collective. The payload is the
    collective's logical contract (what a rank hands in and gets back), not
    the traffic of any particular algorithm: a ring all_reduce of N bytes
    sends 2(n-1)/n * N bytes per rank, but its payload is N in and N out.
  }];
  let methods = [
    InterfaceMethod<
      "The groups of ranks that run this collective. For a permute, a "
      "single group holding every rank that sends or receives.",
      "::mlir::comm::ReplicaGroupsAttr", "getReplicaGroups">,
    InterfaceMethod<"Number of ranks in each group.",
      "int64_t", "getGroupSize", (ins), [{
        return $_op.getReplicaGroups().getGroupSize();
      }]>,
    InterfaceMethod<"Element type of the data moved; null for a barrier.",
      "::mlir::Type", "getCommElementType">,
    InterfaceMethod<"Payload bytes each participating rank sends.",
      "int64_t", "getBytesSentPerRank">,
    InterfaceMethod<"Payload bytes each participating rank receives.",
      "int64_t", "getBytesReceivedPerRank">,
    InterfaceMethod<"The reduction applied, if any.",
      "std::optional<::mlir::comm::ReductionKind>", "getReduction", (ins),
      [{}], [{ return std::nullopt; }]>,
    InterfaceMethod<"The root's position in its group (broadcast, reduce).",
      "std::optional<int64_t>", "getRootPosition", (ins),
      [{}], [{ return std::nullopt; }]>,
    InterfaceMethod<"The plan attached to the op, or null.",
      "::mlir::comm::PlanAttr", "getPlanAttr">,
    InterfaceMethod<"Attaches `plan` to the op.",
      "void", "setPlanAttr", (ins "::mlir::comm::PlanAttr":$plan)>,
  ];
}

def Comm_PointToPointOpInterface : OpInterface<"PointToPointOpInterface"> {
  let cppNamespace = "::mlir::comm";
  let description = [{
    Ops that move a tensor along `[source, target]` pairs of ranks
    (`comm.send`, `comm.recv`, `comm.permute`): what the cost model, the
    simulator and the topology check need to know of them. A send and the
    recv that matches it name the same pair and tag.
  }];
  let methods = [
    InterfaceMethod<"The pairs, flattened: source0, target0, source1, ...",
      "::llvm::ArrayRef<int64_t>", "getSourceTargetPairs", (ins),
      [{ return $_op.getPairs(); }]>,
    InterfaceMethod<"The tensor type each pair moves.",
      "::mlir::Type", "getTransferType", (ins),
      [{
        return $_op->getNumResults() ? $_op->getResult(0).getType()
                                     : $_op->getOperand(0).getType();
      }]>,
    InterfaceMethod<"The tag that matches a send with its recv, if any.",
      "std::optional<int64_t>", "getTransferTag", (ins),
      [{ return $_op.getTransferTag(); }]>,
    InterfaceMethod<"The plan attached to the op, or null.",
      "::mlir::comm::PlanAttr", "getPlanAttr", (ins),
      [{ return $_op.getPlanAttr(); }]>,
  ];
}

#endif // COMM_DIALECT_COMM_COMMINTERFACES_TD
