//===- CommPasses.td - comm passes -------------------------*- tablegen -*-===//

#ifndef COMM_DIALECT_COMM_COMMPASSES_TD
#define COMM_DIALECT_COMM_COMMPASSES_TD

include "mlir/Pass/PassBase.td"

def CommCheckTopology : Pass<"comm-check-topology", "::mlir::ModuleOp"> {
  let summary = "check a program against the hardware topology it targets";
  let description = [{
    Loads the topology named by the module attribute `comm.topology` (a
    preset such as `dgx-h100`, a cluster `dgx-h100x4`, an NCCL topology XML
    file or a comm YAML file), or by the `topology` option, which takes
    precedence. Reports an error for every rank the program names that the
    topology does not have (one rank per GPU, machine after machine), and
    for a `comm.world_size` larger than the topology's GPU count. With
    `explain`, every point-to-point pair and permute pair gets a remark
    with its path: kind, bottleneck bandwidth and link, latency.

    ```mlir
    module attributes {comm.topology = "dgx-h100", comm.world_size = 8 : i64} {
      func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
        // error: rank 9 is not a GPU of topology 'dgx-h100' (8 GPUs)
        %0 = comm.permute %x pairs [[0, 9]] : tensor<4xf32>
        return %0 : tensor<4xf32>
      }
    }
    ```
  }];
  let options = [
    Option<"topology", "topology", "std::string", /*default=*/"\"\"",
           "Topology to check against (overrides the comm.topology module "
           "attribute): a preset, <preset>x<N>, or a .xml/.yaml file">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Emit a remark with the path of every point-to-point pair">,
  ];
  let statistics = [
    Statistic<"numOpsChecked", "ops-checked",
              "Number of communication ops checked">,
  ];
}

def CommBufferize : Pass<"comm-bufferize", "::mlir::ModuleOp"> {
  let summary = "turn comm ops on tensors into comm ops on buffers";
  let description = [{
    Rewrites every function: tensor arguments and results become memrefs,
    every tensor a comm op produces becomes a `memref.alloc` written by the
    op's `comm.buffer.*` form, element-wise arith ops on tensors become
    `comm.buffer.combine`, `comm.start` bodies write into buffers allocated
    before the start (so that `comm.wait` has nothing to return), and
    buffers that do not escape are freed at the end of their block. Loops
    (`scf.for` without iteration arguments) and calls are rewritten in place.
    Ops it cannot bufferize are a located error.

    ```mlir
    %0 = comm.all_reduce sum %x over [[0, 1]] : tensor<4xf32>
    // becomes
    %alloc = memref.alloc() : memref<4xf32>
    comm.buffer.all_reduce %x, %alloc {...} : memref<4xf32>, memref<4xf32>
    ```
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

#endif // COMM_DIALECT_COMM_COMMPASSES_TD
