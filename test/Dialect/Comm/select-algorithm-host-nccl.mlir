// RUN: comm-opt %s --comm-select-algorithm="topology=host backend=nccl" -verify-diagnostics -o /dev/null

// The host's ranks are processes: only the mpi backend runs them.
func.func @f(%a: tensor<1024xf32>) -> tensor<1024xf32> {
  // expected-error @+1 {{comm-select-algorithm: the ranks of 'host' are processes on the CPU, which the mpi backend runs; the nccl backend cannot run them (plan and simulate with the mpi backend: comm-plan's backend=mpi, comm-sim's --backend mpi)}}
  %0 = comm.all_reduce sum %a over [[0, 1, 2, 3]] : tensor<1024xf32>
  return %0 : tensor<1024xf32>
}
