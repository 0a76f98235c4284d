// The busiest cut counts when its transfers can start and what must follow
// them. On pcie-4gpu each 64 MiB all_reduce sends 64 MiB across the 10 GB/s
// link between the CPUs (6710.89 us). %late's input is ready only after
// "forward" (5000 us on the compute stream), and "update" (2000 us) reads its
// result: the step takes at least 5000 + 6710.89 + 2000 = 13710.89 us. Both
// transfers counted from 0 with nothing after give less (13421.77 us), and
// so does the sum without the compute around it. The step lower bound
// (any plan on one stream) takes the larger.

// RUN: comm-sim run %s --topology pcie-4gpu | FileCheck %s
// CHECK: lower bound{{ +}}13710.89 us ({{.*}}the busiest cut: rank 0's transfers
// CHECK: busiest cut{{ +}}13710.89 us (any streams and algorithms: rank 0's transfers (the buffer into the GPUs of cpu{{[01]}} across cpu0 - cpu1 (cpu_interconnect, 10.0 GB/s)), the first of them ready at 5000.00 us, 2000.00 us of compute after the last)

// Without the compute after it, %late alone from 5000 us bounds less
// (11710.89 us) than both transfers from 0 (13421.77 us): the bound is the
// larger, and names no start or compute.
// The same program with %late in a comm.start: its result reaches "update"
// through the wait, and the bound is the same.
// RUN: comm-sim run %s --topology pcie-4gpu --entry started | FileCheck %s --check-prefix=STARTED
// STARTED: busiest cut{{ +}}13710.89 us ({{.*}}, the first of them ready at 5000.00 us, 2000.00 us of compute after the last)

// RUN: comm-sim run %s --topology pcie-4gpu --entry nothing_after | FileCheck %s --check-prefix=AFTER
// AFTER: busiest cut{{ +}}13421.77 us (any streams and algorithms: rank 0's transfers (the buffer into the GPUs of cpu{{[01]}} across cpu0 - cpu1 (cpu_interconnect, 10.0 GB/s)))

module attributes {comm.world_size = 4 : i64} {
  func.func @main(%x: tensor<16777216xf32>) -> (tensor<16777216xf32>, tensor<16777216xf32>) {
    %early = comm.all_reduce sum %x over [[0, 1, 2, 3]] : tensor<16777216xf32>
    %a = comm.compute "forward"(%x) time_us 5000.0 : (tensor<16777216xf32>) -> tensor<16777216xf32>
    %late = comm.all_reduce sum %a over [[0, 1, 2, 3]] : tensor<16777216xf32>
    %b = comm.compute "update"(%late) time_us 2000.0 : (tensor<16777216xf32>) -> tensor<16777216xf32>
    return %early, %b : tensor<16777216xf32>, tensor<16777216xf32>
  }
  func.func @started(%x: tensor<16777216xf32>) -> (tensor<16777216xf32>, tensor<16777216xf32>) {
    %early = comm.all_reduce sum %x over [[0, 1, 2, 3]] : tensor<16777216xf32>
    %a = comm.compute "forward"(%x) time_us 5000.0 : (tensor<16777216xf32>) -> tensor<16777216xf32>
    %t = comm.start {
      %late = comm.all_reduce sum %a over [[0, 1, 2, 3]] : tensor<16777216xf32>
      comm.yield %late : tensor<16777216xf32>
    }
    %r = comm.wait %t : tensor<16777216xf32>
    %b = comm.compute "update"(%r) time_us 2000.0 : (tensor<16777216xf32>) -> tensor<16777216xf32>
    return %early, %b : tensor<16777216xf32>, tensor<16777216xf32>
  }
  func.func @nothing_after(%x: tensor<16777216xf32>) -> (tensor<16777216xf32>, tensor<16777216xf32>) {
    %early = comm.all_reduce sum %x over [[0, 1, 2, 3]] : tensor<16777216xf32>
    %a = comm.compute "forward"(%x) time_us 5000.0 : (tensor<16777216xf32>) -> tensor<16777216xf32>
    %late = comm.all_reduce sum %a over [[0, 1, 2, 3]] : tensor<16777216xf32>
    return %early, %late : tensor<16777216xf32>, tensor<16777216xf32>
  }
}
