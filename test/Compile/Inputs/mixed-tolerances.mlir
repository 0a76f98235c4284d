// Tolerances are per entry point: @exact sends only f32 and is checked at
// f32's; @calls reaches a bf16 transfer through a private function and is
// checked at bf16's; @bf16_data sums bf16 values, at bf16's too.
module attributes {comm.world_size = 4 : i64} {
  func.func @exact(%x: tensor<64xf32>) -> tensor<64xf32> {
    %0 = comm.all_reduce sum %x over [[0, 1, 2, 3]] : tensor<64xf32>
    return %0 : tensor<64xf32>
  }
  func.func @calls(%x: tensor<64xf32>) -> tensor<64xf32> {
    %0 = func.call @narrow(%x) : (tensor<64xf32>) -> tensor<64xf32>
    return %0 : tensor<64xf32>
  }
  func.func private @narrow(%x: tensor<64xf32>) -> tensor<64xf32> {
    %0 = comm.all_reduce sum %x over [[0, 1, 2, 3]] plan <precision = bf16> : tensor<64xf32>
    return %0 : tensor<64xf32>
  }
  func.func @bf16_data(%x: tensor<16xbf16>) -> tensor<16xbf16> {
    %0 = comm.all_reduce sum %x over [[0, 1, 2, 3]] : tensor<16xbf16>
    return %0 : tensor<16xbf16>
  }
}
