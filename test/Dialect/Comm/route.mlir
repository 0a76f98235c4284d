// RUN: comm-opt %s --comm-route="topology=dgx-h100x2" | FileCheck %s --check-prefix=DGX
// RUN: comm-opt %s --comm-route="topology=pcie-4gpux2" | FileCheck %s --check-prefix=PCIE
// RUN: comm-opt %s --comm-route="topology=pcie-4gpux2 backend=verbs" | FileCheck %s --check-prefix=VERBS
// RUN: comm-opt %s --comm-route="topology=%S/../../Topology/Inputs/nccl/ndv2-topo.xml" | FileCheck %s --check-prefix=NDV2
// RUN: comm-opt %s --comm-route="topology=dgx-h100x2 backend=mpi" | FileCheck %s --check-prefix=MPI
// RUN: comm-opt %s --comm-route="topology=host8 explain" 2>&1 | FileCheck %s --check-prefix=HOST
// RUN: comm-opt %s --comm-route="topology=pcie-4gpux2 explain" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// Running it twice changes nothing.
// RUN: comm-opt %s --comm-route="topology=pcie-4gpux2 backend=verbs" -o %t.once.mlir
// RUN: comm-opt %t.once.mlir --comm-route="topology=pcie-4gpux2 backend=verbs" -o %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir

module attributes {comm.world_size = 8 : i64} {
  // On pcie-4gpux2 ranks 0 and 1 share a PCIe switch, 0 and 2 sit under
  // different sockets, 0 and 4 are on different machines, and 2 and 6
  // have no GPUDirect RDMA (their NIC is under the other socket). On
  // dgx-h100x2 ranks 0 to 7 share a machine's NVSwitches.
  func.func @pairs(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) {
    comm.send %x to [[0, 1]] tag 1 : tensor<64xf32>
    %a = comm.recv from [[0, 1]] tag 1 : tensor<64xf32>
    comm.send %x to [[0, 2]] tag 2 : tensor<64xf32>
    %b = comm.recv from [[0, 2]] tag 2 : tensor<64xf32>
    // The farthest pair sets the route; a rank's pair with itself has none.
    %c = comm.permute %x pairs [[0, 1], [1, 4], [4, 0], [2, 6], [3, 3]] : tensor<64xf32>
    return %a, %b, %c : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
  }
  func.func @self(%x: tensor<64xf32>) -> tensor<64xf32> {
    %0 = comm.permute %x pairs [[3, 3]] : tensor<64xf32>
    return %0 : tensor<64xf32>
  }
}

// DGX-LABEL: func.func @pairs
// DGX: comm.send %arg0 to {{\[\[}}0, 1]] tag 1 plan <route = nvlink>
// DGX: comm.recv from {{\[\[}}0, 1]] tag 1 plan <route = nvlink>
// DGX: comm.send %arg0 to {{\[\[}}0, 2]] tag 2 plan <route = nvlink>
// DGX: comm.permute %arg0 pairs {{.*}} plan <route = nvlink>
// DGX-LABEL: func.func @self
// DGX: comm.permute %arg0 pairs {{\[\[}}3, 3]] : tensor<64xf32>
// DGX-NOT: comm.copy

// NCCL stages what crosses sockets itself (its SHM transport): the route
// says so, and no copies are added.
// PCIE-LABEL: func.func @pairs
// PCIE: comm.send %arg0 to {{\[\[}}0, 1]] tag 1 plan <route = pcie>
// PCIE: comm.send %arg0 to {{\[\[}}0, 2]] tag 2 plan <route = host_staged>
// PCIE: comm.permute %arg0 pairs {{.*}} plan <route = host_staged>
// PCIE-NOT: comm.copy

// VERBS-LABEL: func.func @pairs
// VERBS: comm.send %arg0 to {{\[\[}}0, 1]] tag 1 plan <route = gdr>
// VERBS: %[[A:.*]] = comm.recv from {{\[\[}}0, 1]] tag 1 plan <route = gdr> :
// VERBS: %[[H:.*]] = comm.copy %arg0 hbm to pinned_host
// VERBS: comm.send %[[H]] to {{\[\[}}0, 2]] tag 2 plan <route = host_staged>
// VERBS: %[[R:.*]] = comm.recv from {{\[\[}}0, 2]] tag 2 plan <route = host_staged> {comm.space = #comm<memory_space pinned_host>}
// VERBS: %[[B:.*]] = comm.copy %[[R]] pinned_host to hbm
// VERBS: %[[H2:.*]] = comm.copy %arg0 hbm to pinned_host
// VERBS: %[[P:.*]] = comm.permute %[[H2]] pairs {{.*}} plan <route = host_staged> {comm.space = #comm<memory_space pinned_host>}
// VERBS: %[[C:.*]] = comm.copy %[[P]] pinned_host to hbm
// VERBS: return %[[A]], %[[B]], %[[C]]

// NDv2's GPUs meet at the CPU's host bridge in its NCCL topology file.
// NDV2-LABEL: func.func @pairs
// NDV2: comm.send %arg0 to {{\[\[}}0, 1]] tag 1 plan <route = host_staged>

// MPI-LABEL: func.func @pairs
// MPI-NOT: route
// MPI-NOT: comm.copy

// HOST: remark: comm-route: the ranks are processes on a host: there is no GPU memory to route
// HOST-NOT: route =

// EXPLAIN: remark: comm-route: chose route pcie (farthest pair rank 0 -> rank 1: the path is PIX (PCIe through at most one PCIe switch), within NCCL's default NCCL_P2P_LEVEL (PXB))
// EXPLAIN: remark: comm-route: chose route host_staged (farthest pair rank 0 -> rank 2: the path is SYS (PCIe across the inter-socket interconnect), beyond NCCL's default NCCL_P2P_LEVEL (PXB): NCCL stages it through host memory)
// EXPLAIN: remark: comm-route: chose route host_staged (farthest pair rank 2 -> rank 6: the path is NET (across the network), without GPUDirect RDMA at both ends: the data is staged through host memory)
// EXPLAIN: remark: comm-route: no route: every pair is a rank with itself (a local copy)
