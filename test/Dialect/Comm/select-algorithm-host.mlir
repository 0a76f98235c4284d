// RUN: comm-opt %s --comm-select-algorithm="topology=host backend=mpi" -split-input-file | FileCheck %s
// RUN: comm-opt %s --comm-select-algorithm="topology=host backend=mpi explain=true" -split-input-file -verify-diagnostics -o /dev/null

// Among the processes of the host preset every candidate is timed from the
// measured host profile, MPI's own collective among them: a plan names the
// runtime's schedule only where it was measured faster by more than the
// measurements' noise (10%): direct for a 64 MiB all_reduce (0.81x MPI's
// time), direct for a 64 KiB reduce (0.75x). Where a schedule is faster by
// less (tree at 4 KiB, 0.92x; ring at 1 MiB, 0.91x) or slower (an
// all_gather of 256 B, a broadcast of 1 MiB), MPI's own collective stays.
// MPI has no protocols: none is written. A hand-written algorithm stays.
// CHECK-LABEL: func.func @host
// CHECK: comm.all_reduce sum %{{.*}} over {{\[}}[0, 1, 2, 3]] : tensor<1024xf32>
// CHECK: comm.all_reduce sum %{{.*}} over {{\[}}[0, 1, 2, 3]] : tensor<262144xf32>
// CHECK: comm.all_reduce sum %{{.*}} plan <algorithm = direct> : tensor<16777216xf32>
// CHECK: comm.reduce sum %{{.*}} plan <algorithm = direct> : tensor<16384xf32>
// CHECK: comm.all_gather %{{.*}} over {{\[}}[0, 1, 2, 3]] dim 0 : tensor<16xf32> -> tensor<64xf32>
// CHECK: comm.broadcast %{{.*}} over {{\[}}[0, 1, 2, 3]] root 0 : tensor<262144xf32>
// CHECK: comm.reduce_scatter sum %{{.*}} plan <algorithm = hierarchical> :
// CHECK: comm.send %{{.*}} plan <algorithm = direct> :
func.func @host(%a: tensor<1024xf32>, %b: tensor<262144xf32>, %c: tensor<16xf32>, %d: tensor<262144xf32>, %e: tensor<1024xf32>, %f: tensor<16777216xf32>, %g: tensor<16384xf32>) -> (tensor<1024xf32>, tensor<262144xf32>, tensor<64xf32>, tensor<262144xf32>, tensor<256xf32>, tensor<16777216xf32>, tensor<16384xf32>) {
  // expected-remark @+1 {{comm-select-algorithm: native 16.80 us on the mpi backend (bound 3.54 us, 21% of it); limited by the host's shared memory and cores (measured); the backend's own collective: no schedule is predicted more than 10% faster (the measurements' noise); next best tree 15.50 us}}
  %0 = comm.all_reduce sum %a over [[0, 1, 2, 3]] : tensor<1024xf32>
  // expected-remark @+1 {{comm-select-algorithm: native 664.50 us on the mpi backend}}
  %1 = comm.all_reduce sum %b over [[0, 1, 2, 3]] : tensor<262144xf32>
  // expected-remark @+1 {{comm-select-algorithm: direct 75716.40 us on the mpi backend}}
  %5 = comm.all_reduce sum %f over [[0, 1, 2, 3]] : tensor<16777216xf32>
  // expected-remark @+1 {{comm-select-algorithm: direct 29.80 us on the mpi backend}}
  %6 = comm.reduce sum %g over [[0, 1, 2, 3]] root 0 : tensor<16384xf32>
  // expected-remark @+1 {{comm-select-algorithm: native 4.60 us on the mpi backend}}
  %2 = comm.all_gather %c over [[0, 1, 2, 3]] dim 0 : tensor<16xf32> -> tensor<64xf32>
  // expected-remark @+1 {{limited by the host's shared memory and cores (measured); the backend's own collective beats every schedule; next best direct 346.80 us}}
  %3 = comm.broadcast %d over [[0, 1, 2, 3]] root 0 : tensor<262144xf32>
  // expected-remark @+1 {{comm-select-algorithm: hierarchical}}
  %4 = comm.reduce_scatter sum %e over [[0, 1, 2, 3]] dim 0 plan <algorithm = hierarchical> : tensor<1024xf32> -> tensor<256xf32>
  // expected-remark @+1 {{comm-select-algorithm: direct/simple}}
  comm.send %a to [[0, 1]] tag 0 : tensor<1024xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<1024xf32>, tensor<262144xf32>, tensor<64xf32>, tensor<262144xf32>, tensor<256xf32>, tensor<16777216xf32>, tensor<16384xf32>
}

// -----

// A plan MPI's own collective wins keeps the fields a person wrote
// (precision) and gets no algorithm.
// CHECK-LABEL: func.func @kept
// CHECK: comm.all_gather %{{.*}} plan <precision = bf16> :
func.func @kept(%c: tensor<256xf32>) -> tensor<1024xf32> {
  // expected-remark @+1 {{comm-select-algorithm: native}}
  %0 = comm.all_gather %c over [[0, 1, 2, 3]] dim 0 plan <precision = bf16> : tensor<256xf32> -> tensor<1024xf32>
  return %0 : tensor<1024xf32>
}
