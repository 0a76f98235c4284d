// Planning a planned program again. comm-reduce-precision judges an op
// whole before the hierarchical split cuts it into a reduce_scatter, an
// all_reduce and an all_gather; planned again, each piece was judged alone
// (3.2%, 0.79% and 0.39%, each under 4%, about 4.4% together) and went
// bf16 (found by an audit, 2026-12-07). A judged op records its bound (0
// where it stayed f32), its pieces inherit it, and an op with a bound keeps
// its decision: the second plan is the first.
// RUN: comm-opt %s --comm-plan="topology=dgx-h100x2 hierarchical=always max-rel-error=0.05" -o %t.once.mlir
// RUN: comm-opt %t.once.mlir --comm-plan="topology=dgx-h100x2 hierarchical=always max-rel-error=0.05" -o %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir
// RUN: FileCheck %s < %t.twice.mlir
// On verbs the ring of sends comm-decompose writes is its op's pieces too.
// RUN: comm-opt %s --comm-plan="topology=pcie-4gpux4 backend=verbs" | comm-opt --comm-plan="topology=pcie-4gpux4 backend=verbs" | FileCheck %s --check-prefix=VERBS
// negative_: a tolerance tighter than a bound already recorded is an error,
// not a silent keep.
// RUN: not comm-opt %t.once.mlir --comm-plan="topology=dgx-h100x2 hierarchical=always max-rel-error=0.001" 2>&1 | FileCheck %s --check-prefix=TIGHT
// negative_: planned again for another backend or machine, comm-plan kept
// the fields chosen for the first (nvls, a hierarchical split) in a plan
// that could not run them; it refuses and says where to start.
// RUN: not comm-opt %t.once.mlir --comm-plan="backend=mpi" 2>&1 | FileCheck %s --check-prefix=OTHER
// RUN: not comm-opt %t.once.mlir --comm-plan="topology=dgx-h100x4" 2>&1 | FileCheck %s --check-prefix=OTHERTOPO
// OTHER: once.mlir:1:1: error: comm-plan: this program was planned for the nccl backend on dgx-h100x2 (its comm.backend and comm.topology), and comm-plan keeps the plan fields it finds; to plan for backend=mpi, plan the program from before that plan
// OTHERTOPO: error: comm-plan: this program was planned for the nccl backend on dgx-h100x2 {{.*}}; to plan for backend=nccl on dgx-h100x4, plan the program from before that plan

// CHECK-LABEL: func.func @split
// CHECK: comm.reduce_scatter sum {{.*}} {comm.error_bound = 0.000000e+00 : f64}
// CHECK: comm.all_reduce sum {{.*}} {comm.error_bound = 0.000000e+00 : f64}
// CHECK: comm.all_gather {{.*}} {comm.error_bound = 0.000000e+00 : f64}
// CHECK-LABEL: func.func @narrow
// CHECK: comm.all_reduce sum {{.*}} precision = bf16> {comm.error_bound = 0.032258064516129031 : f64}
// VERBS-LABEL: func.func @split
// VERBS-NOT: bf16
// VERBS-LABEL: func.func @narrow
// TIGHT: once.mlir:{{[0-9]+}}:{{[0-9]+}}: error: comm-reduce-precision: this op's data was narrowed with an error bound of 0.032 (its comm.error_bound), above the tolerance 0.001 it is under now: plan the program from before its precision was reduced
module attributes {comm.world_size = 16 : i64} {
  func.func @split(%x: tensor<1024xf32>) -> tensor<16777216xf32> attributes {comm.max_rel_error = 4.0e-02 : f64} {
    %g = comm.compute "backward"(%x) time_us 100.0 : (tensor<1024xf32>) -> tensor<16777216xf32>
    %r = comm.all_reduce sum %g over [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]] : tensor<16777216xf32>
    return %r : tensor<16777216xf32>
  }
  func.func @narrow(%x: tensor<1024xf32>) -> tensor<16777216xf32> {
    %g = comm.compute "backward"(%x) time_us 100.0 : (tensor<1024xf32>) -> tensor<16777216xf32>
    %r = comm.all_reduce sum %g over [[0, 1, 2, 3, 4, 5, 6, 7], [8, 9, 10, 11, 12, 13, 14, 15]] : tensor<16777216xf32>
    return %r : tensor<16777216xf32>
  }
}
