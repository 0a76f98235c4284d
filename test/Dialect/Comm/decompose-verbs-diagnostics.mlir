// RUN: comm-opt %s --comm-decompose="backend=verbs" -verify-diagnostics -o /dev/null


// On verbs, which carries point to point only, what cannot be decomposed
// is an error.
module attributes {comm.world_size = 4 : i64} {
  func.func @verbs(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
    // expected-error @+1 {{comm.reduce cannot run on the verbs backend, which carries point to point only}}
    %0 = comm.reduce sum %x over [[0, 1, 2]] root 0 : tensor<8x4xf32>
    return %0 : tensor<8x4xf32>
  }
}
