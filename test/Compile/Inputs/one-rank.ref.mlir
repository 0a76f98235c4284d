// What one-rank.mlir computes on one rank, without transfers: identities,
// and the f32 data rounded through bf16 by the packed path is compared
// within the bf16 tolerance of the harness (--rtol).
func.func @kernels(%a: tensor<1000xf32>, %b: tensor<24x8xf32>, %c: tensor<4096xbf16>)
    -> (tensor<1000xf32>, tensor<24x8xf32>, tensor<4096xbf16>, tensor<1000xf32>, tensor<4096xbf16>) {
  %s = arith.addf %a, %a : tensor<1000xf32>
  return %a, %b, %c, %s, %c : tensor<1000xf32>, tensor<24x8xf32>, tensor<4096xbf16>, tensor<1000xf32>, tensor<4096xbf16>
}
