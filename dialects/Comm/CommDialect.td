//===- CommDialect.td - comm dialect definition ------------*- tablegen -*-===//

#ifndef COMM_DIALECT_COMM_COMMDIALECT_TD
#define COMM_DIALECT_COMM_COMMDIALECT_TD

include "mlir/IR/OpBase.td"

def Comm_Dialect : Dialect {
  let name = "comm";
  let cppNamespace = "::mlir::comm";
  let summary = "Tensor movement between ranks and memory spaces";
  let description = [{
    The `comm` dialect describes how tensors move in an SPMD program: every
    rank runs the same function, and the ops below say which data crosses
    between ranks (collectives, point-to-point transfers) or between memory
    spaces (copies between GPU memory and host memory). It says *what* moves;
    the planning passes decide *how*, and record each decision in a
    `#comm.plan` attribute on the op, where it can also be written by hand.

    Groups of ranks are XLA-style replica groups: a list of disjoint rank
    lists of equal size, each running the collective independently.

    ```mlir
    module attributes {comm.world_size = 8 : i64} {
      func.func @step(%grad: tensor<1024xf32>) -> tensor<1024xf32> {
        %0 = comm.all_reduce sum %grad over [[0, 1, 2, 3], [4, 5, 6, 7]]
            : tensor<1024xf32>
        return %0 : tensor<1024xf32>
      }
    }
    ```

    Module attributes understood by the dialect:
    - `comm.world_size` (positive integer): the number of ranks; every rank
      named by a group or a source/target pair must be below it.
    - `comm.topology` (string): the hardware the program targets: a preset
      (`dgx-h100`), a cluster of a preset (`dgx-h100x4`), an NCCL topology
      XML file or a comm YAML file (see docs/Topology.md).
    - `comm.cost_params` (string): a cost model parameter file (YAML, as
      `comm-sim calibrate --write-params` writes it, e.g. from the user's
      own nccl-tests runs) that planning passes and `comm-sim run` use
      instead of the built-in calibration.
    - `comm.backend` (string: `mpi`, `nccl` or `verbs`): the runtime backend
      `comm-plan` planned the module for (its `backend` option), recorded
      with `comm.topology`; `comm-sim run` simulates on it unless told
      otherwise, and `comm-compile` refuses a target that calls another.
    - `comm.target` (string): what `convert-comm-to-emitc` lowered the
      module for (`cpu-mpi`, `cuda-nccl`, `cuda-verbs`); the C++ translator
      reads it.

    Attributes of ops:
    - `comm.max_rel_error` (float in (0, 1)), on a collective, a
      point-to-point op, or a function or module holding them: the error
      the results may take, relative to the sum of the magnitudes of the
      contributions, so that `comm-reduce-precision` may send floating-point
      data in a narrower type.
    - `comm.error_bound` (float in [0, 1)): the bound `comm-reduce-precision`
      estimated for the precision it chose, in the same terms.
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Name of the module attribute that holds the number of ranks.
    static constexpr ::llvm::StringLiteral getWorldSizeAttrName() {
      return ::llvm::StringLiteral("comm.world_size");
    }
    /// Name of the module attribute that names the target topology.
    static constexpr ::llvm::StringLiteral getTopologyAttrName() {
      return ::llvm::StringLiteral("comm.topology");
    }
    static constexpr ::llvm::StringLiteral getCostParamsAttrName() {
      return ::llvm::StringLiteral("comm.cost_params");
    }
    /// Name of the attribute giving the error a transfer's results may take
    /// (on the op, or on a function or module holding it).
    static constexpr ::llvm::StringLiteral getMaxRelErrorAttrName() {
      return ::llvm::StringLiteral("comm.max_rel_error");
    }
    /// Name of the attribute recording the error bound of a reduced wire
    /// precision.
    static constexpr ::llvm::StringLiteral getErrorBoundAttrName() {
      return ::llvm::StringLiteral("comm.error_bound");
    }
    /// Name of the module attribute comm-plan records the backend it
    /// planned for in.
    static constexpr ::llvm::StringLiteral getBackendAttrName() {
      return ::llvm::StringLiteral("comm.backend");
    }
    /// Name of the module attribute the lowering records its target in.
    static constexpr ::llvm::StringLiteral getTargetAttrName() {
      return ::llvm::StringLiteral("comm.target");
    }
    /// Name of the attribute comm-bufferize puts on the allocation of a
    /// buffer that lives in another memory space than the target's default
    /// (the result of a comm.copy), and comm-route on a comm.recv or
    /// comm.permute whose result arrives in host memory (a host-staged
    /// transfer).
    static constexpr ::llvm::StringLiteral getSpaceAttrName() {
      return ::llvm::StringLiteral("comm.space");
    }

  private:
    void registerAttributes();
    void registerTypes();

  public:
  }];
}

class Comm_Op<string mnemonic, list<Trait> traits = []>
    : Op<Comm_Dialect, mnemonic, traits>;

#endif // COMM_DIALECT_COMM_COMMDIALECT_TD
