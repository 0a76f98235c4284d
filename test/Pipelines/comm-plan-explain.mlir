// RUN: comm-opt %s --comm-plan="explain=true" -split-input-file -verify-diagnostics -o /dev/null

// With explain, every planning pass says what it decided: the bucket, the
// wire type, the algorithm. The three gradients are ready together (they
// are arguments), so one bucket finishes them first; it travels as bf16
// under the function's 5% tolerance over NVLink SHARP. Nothing lies between
// the bucket and its use: it stays blocking. comm-plan-compare says how
// the baselines' plans of the same program simulate.
// expected-remark @+1 {{comm-plan: simulated step as comm plans it 83.13 us, naive 178.08 us, ddp 143.74 us, horovod 99.57 us, xla 99.57 us: keeping comm's plan}}
module attributes {comm.topology = "dgx-h100"} {
func.func @explained(%s: tensor<65536xf32>, %a: tensor<1048576xf32>, %b: tensor<1048576xf32>) -> (tensor<65536xf32>, tensor<1048576xf32>, tensor<1048576xf32>) attributes {comm.max_rel_error = 5.0e-02 : f64} {
  // The bucket's collective takes the location of its first member.
  // expected-remark @+3 {{comm-fuse: 3 collectives, 8650752 bytes, in one}}
  // expected-remark @+2 {{comm-reduce-precision: bf16 on the wire, error bound 3.225806e-02 <= 5.000000e-02 allowed}}
  // expected-remark @+1 {{comm-select-algorithm: nvls/simple}}
  %0 = comm.all_reduce sum %s over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<65536xf32>
  %1 = comm.all_reduce sum %a over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<1048576xf32>
  %2 = comm.all_reduce sum %b over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<1048576xf32>
  return %0, %1, %2 : tensor<65536xf32>, tensor<1048576xf32>, tensor<1048576xf32>
}
}

// -----

// Gradients computed layer by layer: each layer's bucket starts as soon as
// its layer is done and hides under the next layer's compute; the last one
// is waited for before the optimizer.
// expected-remark @+1 {{comm-plan: simulated step as comm plans it 1190.25 us, naive 1351.53 us, ddp 1190.33 us, horovod 1190.25 us, xla 1190.25 us: keeping comm's plan}}
module attributes {comm.topology = "dgx-h100"} {
func.func @layers(%x: tensor<1024xf32>, %w: tensor<64xf32>) -> tensor<64xf32> {
  %g2, %b2 = comm.compute "layer2.backward"(%x, %w) time_us 500.0 : (tensor<1024xf32>, tensor<64xf32>) -> (tensor<4194304xf32>, tensor<4096xf32>)
  %g1, %b1 = comm.compute "layer1.backward"(%x, %w) time_us 500.0 : (tensor<1024xf32>, tensor<64xf32>) -> (tensor<4194304xf32>, tensor<4096xf32>)
  // expected-remark @+3 {{comm-fuse: 2 collectives, 16793600 bytes, in one}}
  // expected-remark @+2 {{comm-select-algorithm: nvls/simple}}
  // expected-remark @+1 {{comm-schedule: started after 'comm.compute' (line 31), waited for before 'comm.compute' (line 42), 1 op(s) in between}}
  %r2 = comm.all_reduce sum %g2 over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<4194304xf32>
  %s2 = comm.all_reduce sum %b2 over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<4096xf32>
  // expected-remark @+2 {{comm-fuse: 2 collectives, 16793600 bytes, in one}}
  // expected-remark @+1 {{comm-select-algorithm: nvls/simple}}
  %r1 = comm.all_reduce sum %g1 over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<4194304xf32>
  %s1 = comm.all_reduce sum %b1 over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<4096xf32>
  %u = comm.compute "optimizer"(%r2, %s2, %r1, %s1) time_us 50.0 : (tensor<4194304xf32>, tensor<4096xf32>, tensor<4194304xf32>, tensor<4096xf32>) -> tensor<64xf32>
  return %u : tensor<64xf32>
}
}
