// A host profile measured on the user's own machine plans for it: written
// by `mpirun -np 4 comm-bench-algorithms --profile --write-params FILE`
// (test/Runtime/host-profile.test runs that), read with --cost-params. The
// file's profile times all_reduce and broadcast; other collectives keep the
// built-in profile.
//
// RUN: comm-opt %s --comm-select-algorithm="topology=host backend=mpi cost-params=%S/Inputs/host-profile.yaml" | FileCheck %s
// RUN: comm-opt %s --comm-select-algorithm="topology=host backend=mpi cost-params=%S/Inputs/host-profile.yaml explain=true" -verify-diagnostics -o /dev/null
// RUN: comm-opt %s --comm-select-algorithm="topology=host backend=mpi" | FileCheck %s --check-prefix=BUILTIN
// RUN: comm-opt %s --comm-plan="topology=host backend=mpi cost-params=%S/Inputs/host-profile.yaml" | FileCheck %s --check-prefix=PLAN
// RUN: comm-sim run %s --topology host --backend mpi --cost-params %S/Inputs/host-profile.yaml | FileCheck %s --check-prefix=SIM

// CHECK: comm.all_reduce sum %{{.*}} plan <algorithm = tree> : tensor<1024xf32>
// CHECK: comm.all_reduce sum %{{.*}} over {{\[}}[0, 1, 2, 3]] : tensor<262144xf32>
// The built-in profile finds no schedule faster than MPI's by more than
// its noise at these sizes.
// BUILTIN: comm.all_reduce sum %{{.*}} over {{\[}}[0, 1, 2, 3]] : tensor<1024xf32>
// BUILTIN: comm.all_reduce sum %{{.*}} over {{\[}}[0, 1, 2, 3]] : tensor<262144xf32>
// PLAN: comm.all_reduce sum %{{.*}} : tensor<262144xf32>
// SIM: step time{{ +}}524.60 us
module attributes {comm.world_size = 4 : i64} {
  func.func @f(%a: tensor<1024xf32>, %b: tensor<262144xf32>, %c: tensor<16xf32>) -> (tensor<1024xf32>, tensor<262144xf32>, tensor<64xf32>) {
    // expected-remark @+1 {{comm-select-algorithm: tree 10.00 us on the mpi backend}}
    %0 = comm.all_reduce sum %a over [[0, 1, 2, 3]] : tensor<1024xf32>
    // expected-remark @+1 {{comm-select-algorithm: native 500.00 us on the mpi backend (bound 395.22 us, 79% of it); limited by the host's shared memory and cores (measured); the backend's own collective beats every schedule; next best tree 800.00 us}}
    %1 = comm.all_reduce sum %b over [[0, 1, 2, 3]] : tensor<262144xf32>
    // expected-remark @+1 {{comm-select-algorithm: native 4.60 us on the mpi backend}}
    %2 = comm.all_gather %c over [[0, 1, 2, 3]] dim 0 : tensor<16xf32> -> tensor<64xf32>
    return %0, %1, %2 : tensor<1024xf32>, tensor<262144xf32>, tensor<64xf32>
  }
}

// Each malformed profile is an error naming the file, the line of the
// profile or of the row, and what is wrong.
// RUN: sed 's/^  ranks: .*/  ranks: 1/' %S/Inputs/host-profile.yaml > %t.ranks.yaml
// RUN: not comm-opt %s --comm-select-algorithm="topology=host backend=mpi cost-params=%t.ranks.yaml" 2>&1 | FileCheck %s --check-prefix=RANKS
// RANKS: error: cannot use cost model parameters '{{.*}}ranks.yaml': {{.*}}ranks.yaml:33: error: host_profile: 'ranks' must be at least 2 (the ranks it was measured on), got 1
// RUN: sed 's/\[ 4096, 1048576 \]/[ 1048576, 4096 ]/' %S/Inputs/host-profile.yaml > %t.order.yaml
// RUN: not comm-opt %s --comm-select-algorithm="topology=host backend=mpi cost-params=%t.order.yaml" 2>&1 | FileCheck %s --check-prefix=ORDER
// ORDER: host_profile: 'bytes' must be positive and ascending; entry 2 is 4096
// RUN: sed 's/\[ 30, 900 \]/[ 30 ]/' %S/Inputs/host-profile.yaml > %t.count.yaml
// RUN: not comm-opt %s --comm-select-algorithm="topology=host backend=mpi cost-params=%t.count.yaml" 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: host_profile: 'all_reduce ring' has 1 times for 2 sizes
// RUN: sed 's/collective:      broadcast/collective:      broadcats/' %S/Inputs/host-profile.yaml > %t.kind.yaml
// RUN: not comm-opt %s --comm-select-algorithm="topology=host backend=mpi cost-params=%t.kind.yaml" 2>&1 | FileCheck %s --check-prefix=KIND
// KIND: host_profile: unknown collective 'broadcats'
// RUN: sed 's/algorithm:       ring/algorithm:       rign/' %S/Inputs/host-profile.yaml > %t.algo.yaml
// RUN: not comm-opt %s --comm-select-algorithm="topology=host backend=mpi cost-params=%t.algo.yaml" 2>&1 | FileCheck %s --check-prefix=ALGO
// ALGO: algo.yaml:40: error: host_profile: unknown algorithm 'rign' for all_reduce; expected mpi (MPI's own) or a schedule (ring, tree, direct, halving_doubling, hierarchical)
// RUN: sed 's/\[ 10, 800 \]/[ 10, -800 ]/' %S/Inputs/host-profile.yaml > %t.time.yaml
// RUN: not comm-opt %s --comm-select-algorithm="topology=host backend=mpi cost-params=%t.time.yaml" 2>&1 | FileCheck %s --check-prefix=TIME
// TIME: host_profile: 'all_reduce tree' has the time -800; times are non-negative microseconds
// RUN: sed 's/algorithm:       ring/algorithm:       tree/' %S/Inputs/host-profile.yaml > %t.twice.yaml
// RUN: not comm-opt %s --comm-select-algorithm="topology=host backend=mpi cost-params=%t.twice.yaml" 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: host_profile: 'all_reduce tree' is listed twice
// RUN: sed '$s/algorithm:       mpi/algorithm:       ring/' %S/Inputs/host-profile.yaml > %t.nompi.yaml
// RUN: sed -i '/^    - collective:      broadcast/{n;s/mpi/ring/}' %t.nompi.yaml
// RUN: not comm-opt %s --comm-select-algorithm="topology=host backend=mpi cost-params=%t.nompi.yaml" 2>&1 | FileCheck %s --check-prefix=NOMPI
// NOMPI: host_profile: 'broadcast' has schedules but no 'mpi' row (MPI's own collective, which the schedules are compared with)
