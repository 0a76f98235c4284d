// RUN: comm-opt %s --comm-plan="topology=dgx-h100 memory-budget=-5" -verify-diagnostics
// RUN: not comm-opt %s --comm-plan="topology=dgx-h100 strategy=ddp memory-budget=-1" 2>&1 | FileCheck %s --check-prefix=DDP
// RUN: not comm-opt %s --comm-plan="topology=dgx-h100 max-rel-error=2" 2>&1 | FileCheck %s --check-prefix=TOLERANCE
// RUN: not comm-opt %s --comm-plan="topology=dgx-h100 max-rel-error=nan" 2>&1 | FileCheck %s --check-prefix=NAN
// RUN: not comm-opt %s --comm-plan="topology=dgx-h100 max-rel-error=-0.1" 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: comm-opt %s --comm-plan="topology=dgx-h100 memory-budget=0 max-rel-error=0" | FileCheck %s --check-prefix=OK
// An option given twice is refused (MLIR kept the last without a word),
// for a pipeline, a pass, and a textual pipeline's passes; a value's
// blanks and braces are not options.
// RUN: not comm-opt %s --comm-plan="topology=dgx-h100 explain topology=pcie-4gpu" 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not comm-opt %s --comm-fuse="mode=cost explain explain=false" 2>&1 | FileCheck %s --check-prefix=TWICEFLAG
// RUN: not comm-opt %s --pass-pipeline='builtin.module(comm-fuse{mode=cost},comm-schedule{topology="a b" streams=2 streams=3})' 2>&1 | FileCheck %s --check-prefix=TWICEPIPE
// RUN: not comm-opt %s --pass-pipeline='builtin.module(comm-schedule{topology="dgx-h100 streams=2" streams=2})' 2>&1 | FileCheck %s --check-prefix=QUOTED
// The ranks of `host` are CPU processes: every strategy plans them for
// mpi (the baselines wrote nccl plans no tool could run).
// RUN: not comm-opt %s --comm-plan="topology=host strategy=ddp" 2>&1 | FileCheck %s --check-prefix=HOSTNCCL
// RUN: not comm-opt %s --comm-plan="topology=host" 2>&1 | FileCheck %s --check-prefix=HOSTNCCL
// RUN: comm-opt %s --comm-plan="topology=host strategy=ddp backend=mpi" | FileCheck %s --check-prefix=OK
// HOSTNCCL: comm-plan-options.mlir:{{[0-9]+}}:1: error: comm-plan: the ranks of 'host' are processes on the CPU, which the mpi backend runs; backend=nccl cannot run them: give comm-plan backend=mpi
// TWICE: comm-opt: error: comm-plan's option 'topology' is given twice ('topology=dgx-h100', then 'topology=pcie-4gpu'): give it once
// TWICEFLAG: comm-opt: error: comm-fuse's option 'explain' is given twice ('explain', then 'explain=false')
// QUOTED: error: cannot load topology 'dgx-h100 streams=2'
// TWICEPIPE: comm-opt: error: comm-schedule's option 'streams' is given twice ('streams=2', then 'streams=3')

// negative_: comm-plan's own options are checked before any pass runs and
// named as comm-plan names them, not as the passes it runs (comm-schedule's
// memory-budget beside its streams, comm-reduce-precision's max-rel-error)
// do, for every strategy.
// DDP: error: comm-plan: memory-budget must be a number of bytes (0: no bound), got -1
// DDP-NOT: comm-schedule
// TOLERANCE: error: comm-plan: max-rel-error must be in [0, 1) (a relative error; 0: results as exact as written), got 2
// TOLERANCE-NOT: comm-reduce-precision
// NAN: error: comm-plan: max-rel-error must be in [0, 1) {{.*}}, got nan
// NEGATIVE: error: comm-plan: max-rel-error must be in [0, 1) {{.*}}, got -0.1{{$}}
// OK: comm.all_reduce
// expected-error @+1 {{comm-plan: memory-budget must be a number of bytes (0: no bound), got -5}}
module attributes {comm.world_size = 4 : i64} {
  func.func @negative_options(%x: tensor<1024xf32>) -> tensor<1024xf32> {
    %0 = comm.all_reduce sum %x over [[0, 1, 2, 3]] : tensor<1024xf32>
    return %0 : tensor<1024xf32>
  }
}
