// RUN: comm-opt %s --comm-select-algorithm=explain -verify-diagnostics -o /dev/null
// RUN: not comm-opt %s --comm-select-algorithm="algorithm=butterfly" 2>&1 | FileCheck %s --check-prefix=ALGO
// RUN: not comm-opt %s --comm-select-algorithm="protocol=ll64" 2>&1 | FileCheck %s --check-prefix=PROTO
// RUN: not comm-opt %s --comm-select-algorithm="channels=65" 2>&1 | FileCheck %s --check-prefix=CHANNELS
// RUN: not comm-opt %s --comm-select-algorithm="topology=dgx-h9000" 2>&1 | FileCheck %s --check-prefix=TOPO
// ALGO: error: comm-select-algorithm: unknown algorithm 'butterfly'; expected one of ring, tree, direct, halving_doubling, hierarchical, nvls
// PROTO: error: comm-select-algorithm: unknown protocol 'll64'; expected one of simple, ll, ll128
// CHANNELS: error: comm-select-algorithm: channels must be in [0, 64] and chunk-bytes non-negative, got channels=65 chunk-bytes=0
// TOPO: error: cannot load topology 'dgx-h9000': unknown topology preset 'dgx-h9000'
// A forced field that cannot apply to an op is a warning that says why and
// what was chosen instead.
// RUN: comm-opt %S/Inputs/forced-nvls.mlir --comm-select-algorithm="algorithm=nvls" -o /dev/null 2>&1 | FileCheck %s --check-prefix=DROPPED
// DROPPED: forced-nvls.mlir:4:10: warning: comm-select-algorithm: algorithm=nvls does not apply here ({{.+}}); chose {{[a-z_]+}}/{{[a-z0-9]+}} {{[0-9.]+}} us
// RUN: comm-opt %S/Inputs/forced-nvls.mlir --comm-select-algorithm="algorithm=nvls backend=mpi" -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNREALIZED
// UNREALIZED: warning: comm-select-algorithm: algorithm=nvls does not apply here (the mpi backend does not run nvls for comm.all_reduce); chose
// A protocol forced on the runtime's own schedule: its sends and receives
// take the protocol NCCL chooses by size (Simple for these 1 MiB).
// RUN: comm-opt %S/Inputs/forced-nvls.mlir --comm-select-algorithm="algorithm=ring protocol=ll128" 2>&1 | FileCheck %s --check-prefix=SCHEDULE
// SCHEDULE: warning: comm-select-algorithm: protocol=ll128 does not apply here (the runtime's ring schedule sends with ncclSend and ncclRecv, whose protocol NCCL chooses by size); chose ring/simple
// SCHEDULE: plan <algorithm = ring> : tensor<1048576xf32>
// MPI and verbs have no protocols: a forced one is said not to apply, the
// model times the op without it (it chose direct/ll on mpi), and each
// forced field that does not apply gives its own reason.
// RUN: comm-opt %S/Inputs/forced-nvls.mlir --comm-select-algorithm="protocol=ll backend=mpi explain=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOPROTO
// NOPROTO: warning: comm-select-algorithm: protocol=ll does not apply here (the mpi backend has no protocols; LL and LL128 are NCCL's); chose {{[a-z_]+}}/simple
// NOPROTO: remark: comm-select-algorithm: {{[a-z_]+}}/simple {{.*}}; its plan: #comm.plan<algorithm = {{[a-z_]+}}{{[,>]}}
// RUN: comm-opt %S/Inputs/forced-nvls.mlir --comm-select-algorithm="algorithm=nvls protocol=ll128 backend=mpi" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BOTH
// BOTH: warning: comm-select-algorithm: algorithm=nvls does not apply here (the mpi backend does not run nvls for comm.all_reduce); protocol=ll128 does not apply here (the mpi backend has no protocols; LL and LL128 are NCCL's); chose

// A chunk-bytes option that cuts a buffer into more chunks than the runtime
// runs (COMMRT_MAX_CHUNKS_PER_CHANNEL) fails at the op, by the verifier.
// RUN: not comm-opt %S/Inputs/forced-nvls.mlir --comm-select-algorithm="algorithm=ring chunk-bytes=1" 2>&1 | FileCheck %s --check-prefix=CHUNKS
// CHUNKS: error: 'comm.all_reduce' op plan 'chunk_bytes' 1 cuts each channel's 4194304 bytes into 1048576 chunks; the runtime runs at most 4096 per channel (chunk_bytes >= 1024, or more channels)

// With explain, every op planned says what the model predicts, what
// bounds it, and what came next.
module attributes {comm.topology = "dgx-h100"} {
  func.func @f(%x: tensor<256xf32>, %y: tensor<67108864xf32>, %z: tensor<0xf32>) -> tensor<67108864xf32> {
    // expected-remark @+1 {{comm-select-algorithm: direct/ll 27.28 us on the nccl backend (bound 0.30 us, 1% of it); limited by each GPU's own link; next best halving_doubling/ll 29.30 us; its plan: #comm.plan<algorithm = direct>}}
    %0 = comm.all_reduce sum %x over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<256xf32>
    // expected-remark @+1 {{comm-select-algorithm: nvls/simple}}
    %1 = comm.all_reduce sum %y over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<67108864xf32>
    // A barrier takes no algorithm: the remark says what its plan keeps.
    // expected-remark @+1 {{next best direct/ll 27.13 us; its plan: #comm.plan<protocol = ll>}}
    comm.barrier over [[0, 1, 2, 3, 4, 5, 6, 7]]
    // An empty tensor moves nothing: no plan.
    // expected-remark @+1 {{comm-select-algorithm: moves 0 bytes; no plan}}
    %2 = comm.all_reduce sum %z over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<0xf32>
    return %1 : tensor<67108864xf32>
  }
}
