// RUN: comm-opt %s --comm-plan="explain=true" -verify-diagnostics -o /dev/null

// With explain, every planning pass says what it decided: the bucket, the
// wire type, the algorithm. The first (small) gradient goes alone in the
// first bucket (1 MiB at most); the next two share a bucket, which travels
// as bf16 under the function's 5% tolerance over NVLink SHARP.
module attributes {comm.topology = "dgx-h100"} {
func.func @explained(%s: tensor<65536xf32>, %a: tensor<1048576xf32>, %b: tensor<1048576xf32>) -> (tensor<65536xf32>, tensor<1048576xf32>, tensor<1048576xf32>) attributes {comm.max_rel_error = 5.0e-02 : f64} {
  // expected-remark @+2 {{comm-reduce-precision: kept f32: bf16 would take}}
  // expected-remark @+1 {{comm-select-algorithm: }}
  %0 = comm.all_reduce sum %s over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<65536xf32>
  // The bucket's collective takes the location of its first member.
  // expected-remark @+3 {{comm-fuse: 2 collectives, 8388608 bytes, in one}}
  // expected-remark @+2 {{comm-reduce-precision: bf16 on the wire, error bound 3.225806e-02 <= 5.000000e-02 allowed}}
  // expected-remark @+1 {{comm-select-algorithm: nvls/simple}}
  %1 = comm.all_reduce sum %a over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<1048576xf32>
  %2 = comm.all_reduce sum %b over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<1048576xf32>
  return %0, %1, %2 : tensor<65536xf32>, tensor<1048576xf32>, tensor<1048576xf32>
}
}
