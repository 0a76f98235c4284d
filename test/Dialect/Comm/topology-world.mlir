// Every pass that reads a topology refuses a program with more ranks than
// it, as comm-check-topology does: a plan for 4 ranks made on one process
// would be a silent wrong answer.
// RUN: comm-opt %s --comm-check-topology=topology=host1 -verify-diagnostics
// RUN: comm-opt %s --comm-fuse="mode=cost topology=host1" -verify-diagnostics
// RUN: comm-opt %s --comm-schedule=topology=host1 -verify-diagnostics
// RUN: comm-opt %s --comm-reduce-precision="topology=host1 max-rel-error=0.01" -verify-diagnostics
// RUN: comm-opt %s --comm-select-algorithm=topology=host1 -verify-diagnostics
// RUN: comm-opt %s --comm-decompose="hierarchical=true topology=host1" -verify-diagnostics
// RUN: comm-opt %s --comm-pipeline=topology=host1 -verify-diagnostics
// RUN: comm-opt %s --comm-route=topology=host1 -verify-diagnostics

// expected-error @+1 {{comm.world_size is 4 but topology 'host1' has 1 rank; for 4 ranks use 'host4'}}
module attributes {comm.world_size = 4 : i64} {
  func.func @grads(%x: tensor<1024xf32>, %w: tensor<1024xf32>) -> (tensor<1024xf32>, tensor<1024xf32>) {
    %g = comm.compute "grad"(%x) time_us 10.0 : (tensor<1024xf32>) -> tensor<1024xf32>
    %a = comm.all_reduce sum %g over [[0, 1, 2, 3]] : tensor<1024xf32>
    %b = comm.all_reduce sum %w over [[0, 1, 2, 3]] : tensor<1024xf32>
    return %a, %b : tensor<1024xf32>, tensor<1024xf32>
  }
}
