// The step's bounds count the link every path into one CPU's GPUs crosses.
// On pcie-4gpu, whatever reaches GPUs 2 and 3 from GPUs 0 and 1 crosses the
// 10 GB/s link between the CPUs, by any algorithm on any stream:
//   all_reduce of 64 MiB: the other socket's sum, 64 MiB: 6710.89 us;
//   all_gather to 64 MiB: the other socket's half, 32 MiB: 3355.44 us;
//   reduce_scatter of 64 MiB: the socket's own half of the other sums,
//   32 MiB: 3355.44 us;
//   all_to_all of 64 MiB per rank: 2 * 2 / 4 of it, 64 MiB: 6710.89 us;
//   broadcast of 64 MiB from rank 0: into cpu1's GPUs, 6710.89 us.
// A rank's own PCIe link (24 GB/s) bounds each less tightly. The busiest
// cut sums them (any streams); the one-stream lower bound adds each one's
// path latency too. Inside one socket there is no such cut, and on
// dgx-h100 (NVSwitch) the paths into a socket share no link.

// RUN: comm-sim run %s --topology pcie-4gpu --entry across | FileCheck %s --check-prefix=ACROSS
// ACROSS: lower bound{{ +}}26850.05 us ({{.*}}the buffer into the GPUs of cpu{{[01]}} across cpu0 - cpu1 (cpu_interconnect, 10.0 GB/s)
// ACROSS: busiest cut{{ +}}26843.55 us (any streams and algorithms: rank 0's transfers (the buffer into the GPUs of cpu1 across cpu0 - cpu1

// RUN: comm-sim run %s --topology pcie-4gpu --entry inside | FileCheck %s --check-prefix=INSIDE
// INSIDE: lower bound{{ +}}{{[0-9.]+}} us ({{.*}}2(n-1)/n of the buffer through a GPU's 24.0 GB/s
// INSIDE: busiest cut{{ +}}2796.20 us (any streams and algorithms: rank 0's transfers (2(n-1)/n of the buffer through a GPU's 24.0 GB/s

// RUN: comm-sim run %s --topology dgx-h100 --entry across | FileCheck %s --check-prefix=DGX
// DGX-NOT: across cpu
// DGX: busiest cut
// DGX-NOT: across cpu

module attributes {comm.world_size = 4 : i64} {
  func.func @across(%x: tensor<16777216xf32>, %y: tensor<4194304xf32>)
      -> (tensor<16777216xf32>, tensor<16777216xf32>, tensor<4194304xf32>,
          tensor<16777216xf32>, tensor<16777216xf32>) {
    %0 = comm.all_reduce sum %x over [[0, 1, 2, 3]] : tensor<16777216xf32>
    %1 = comm.all_gather %y over [[0, 1, 2, 3]] dim 0 : tensor<4194304xf32> -> tensor<16777216xf32>
    %2 = comm.reduce_scatter sum %x over [[0, 1, 2, 3]] dim 0 : tensor<16777216xf32> -> tensor<4194304xf32>
    %3 = comm.all_to_all %x over [[0, 1, 2, 3]] split 0 concat 0 : tensor<16777216xf32> -> tensor<16777216xf32>
    %4 = comm.broadcast %x over [[0, 1, 2, 3]] root 0 : tensor<16777216xf32>
    return %0, %1, %2, %3, %4 : tensor<16777216xf32>, tensor<16777216xf32>, tensor<4194304xf32>, tensor<16777216xf32>, tensor<16777216xf32>
  }
  func.func @inside(%x: tensor<16777216xf32>) -> tensor<16777216xf32> {
    %0 = comm.all_reduce sum %x over [[0, 1], [2, 3]] : tensor<16777216xf32>
    return %0 : tensor<16777216xf32>
  }
}
