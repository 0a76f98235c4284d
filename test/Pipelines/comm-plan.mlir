// RUN: comm-opt %s --comm-plan="topology=dgx-h100" -split-input-file -verify-diagnostics | FileCheck %s
// RUN: comm-opt %s --comm-plan="topology=dgx-h100 backend=mpi" -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=MPI
// RUN: comm-opt %s --comm-plan="topology=dgx-h100" --dump-pass-pipeline -split-input-file -verify-diagnostics -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPELINE
// An unknown topology: one located error, not followed by the module.
// RUN: not comm-opt %s --comm-plan="topology=dgx-h9000" -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOPE
// NOPE: comm-plan.mlir:{{[0-9]+}}:{{[0-9]+}}: error: cannot load topology 'dgx-h9000': unknown topology preset 'dgx-h9000'
// NOPE-NOT: see current operation
// More ranks than the topology has: located at the module, not followed by it.
// RUN: not comm-opt %S/Inputs/eight-ranks.mlir --comm-plan="topology=pcie-4gpu" -o /dev/null 2>&1 | FileCheck %s --check-prefix=WORLD
// WORLD: eight-ranks.mlir:1:1: error: comm.world_size is 8 but topology 'pcie-4gpu' has 4 GPUs; for 8 ranks use 'pcie-4gpux2'
// WORLD-NOT: see current operation

// The planning pipeline as it stands: the program is checked against the
// topology; then comm-plan-compare plans it with comm's passes and with
// every baseline strategy, simulates each plan and keeps the fastest
// (comm's own unless one is faster). comm's passes: small collectives are
// bucketed, data travels narrower where a tolerance allows it (judged on
// the ops as written, before any is cut), what the backend cannot run
// becomes sends and receives, computes and their all-reduces are cut into
// overlapping parts, every collective gets the cost model's algorithm and
// protocol for the backend, transfers start early and are waited for
// late, the program is simplified, and every rank's schedule is checked.
// PIPELINE: builtin.module(
// PIPELINE-NEXT: comm-plan-options,
// PIPELINE-NEXT: comm-check-topology{explain=false topology=dgx-h100},
// PIPELINE-NEXT: comm-plan-compare{comm=builtin.module(
// PIPELINE-SAME: comm-fuse{backend=nccl cost-params= cycle-us=1.000000e+03 explain=false first-bucket-bytes=1048576 joint=true max-tensors=0 mode=cost threshold-bytes=268435456 topology=dgx-h100},
// PIPELINE-SAME: comm-reduce-precision{allow-f16=false backend=nccl cost-params= explain=false max-rel-error=0.000000e+00 topology=dgx-h100},
// PIPELINE-SAME: comm-plan-hierarchical{mode=auto},
// PIPELINE-SAME: comm-decompose{backend=nccl explain=false hierarchical=false hierarchical-if-faster=false split-all-reduce=false to-p2p=unsupported topology=},
// PIPELINE-SAME: comm-pipeline{backend=nccl chunks=0 cost-params= explain=false max-chunks=8 topology=dgx-h100},
// PIPELINE-SAME: comm-select-algorithm{algorithm= backend=nccl channels=0 chunk-bytes=0 cost-params= explain=false protocol= topology=dgx-h100},
// PIPELINE-SAME: comm-route{backend=nccl choose=true explain=false topology=dgx-h100},
// PIPELINE-SAME: comm-schedule{backend=nccl cost-params= explain=false memory-budget=0 streams=1 topology=dgx-h100},
// PIPELINE-SAME: canonicalize{
// PIPELINE-SAME: comm-verify-schedule{backend=nccl})}

// CHECK-LABEL: func.func @step
// CHECK-NEXT: comm.all_reduce sum %{{.*}} over {{\[\[}}0, 1, 2, 3, 4, 5, 6, 7]] plan <algorithm = {{[a-z_]+}}{{(, protocol = [a-z0-9]+)?}}>
// CHECK-NEXT: return
// MPI-LABEL: func.func @step
// MPI-NEXT: comm.all_reduce sum %{{.*}} plan <algorithm = {{ring|tree|hierarchical|direct|halving_doubling}}>
func.func @step(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  // A barrier of one rank is a no-op: canonicalization removes it.
  comm.barrier over [[0], [1], [2], [3], [4], [5], [6], [7]]
  %0 = comm.all_reduce sum %x over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<1024xf32>
  return %0 : tensor<1024xf32>
}

// -----

func.func @beyond(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  // expected-error @+1 {{rank 8 is not a GPU of topology 'dgx-h100' (8 GPUs, ranks 0-7)}}
  %0 = comm.all_reduce sum %x over [[0, 8]] : tensor<1024xf32>
  return %0 : tensor<1024xf32>
}

