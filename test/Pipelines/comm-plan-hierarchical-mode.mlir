// RUN: comm-opt %s --comm-plan="topology=pcie-4gpu hierarchical=sometimes" -verify-diagnostics
// RUN: comm-opt %s --comm-plan="topology=dgx-h100 strategy=ddp hierarchical=sometimes" -verify-diagnostics

// negative_: a hierarchical mode comm-plan does not know, with any
// strategy, is an error at the module.
// expected-error @+1 {{comm-plan: hierarchical='sometimes' is not a mode: expected auto, never, faster or always}}
module attributes {comm.world_size = 4 : i64} {
  func.func @negative_mode(%x: tensor<1024xf32>) -> tensor<1024xf32> {
    %0 = comm.all_reduce sum %x over [[0, 1, 2, 3]] : tensor<1024xf32>
    return %0 : tensor<1024xf32>
  }
}
