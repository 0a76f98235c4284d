// A baseline strategy says which of comm-plan's options it does not use,
// instead of dropping them silently (a warning; the plan is made).
// RUN: comm-opt %s --comm-plan="topology=dgx-h100 strategy=naive hierarchical=always memory-budget=1000 max-rel-error=0.05" -verify-diagnostics | FileCheck %s
// (MLIR 22's driver reports expected-* lines that match nothing even
// without -verify-diagnostics: the other runs read the file without them.)
// RUN: sed '/expected-/d' %s > %t.mlir
// RUN: comm-opt %t.mlir --comm-plan="topology=dgx-h100 strategy=ddp max-rel-error=0.05" 2>&1 >/dev/null | FileCheck %s --check-prefix=DDP
// RUN: comm-opt %t.mlir --comm-plan="topology=dgx-h100 strategy=ddp hierarchical=always memory-budget=1000" 2>&1 | FileCheck %s --check-prefix=QUIET
// DDP: warning: comm-plan: strategy=ddp sends every transfer at the precision the program wrote; max-rel-error applies to strategy=comm only
// DDP-NOT: warning
// QUIET-NOT: warning
// CHECK: comm.all_reduce sum
// CHECK-NOT: precision

// expected-warning @+3 {{comm-plan: strategy=naive sends every transfer at the precision the program wrote; max-rel-error applies to strategy=comm only}}
// expected-warning @+2 {{comm-plan: strategy=naive runs the program as written; hierarchical=always splits nothing there}}
// expected-warning @+1 {{comm-plan: strategy=naive starts no transfer early; memory-budget bounds nothing there}}
module attributes {comm.world_size = 4 : i64} {
  func.func @negative_baseline_options(%x: tensor<1024xf32>) -> tensor<1024xf32> {
    %0 = comm.all_reduce sum %x over [[0, 1, 2, 3]] : tensor<1024xf32>
    return %0 : tensor<1024xf32>
  }
}
