// A tensor-parallel chain: each compute's result is all-reduced and fed to
// the next compute (test/Compile/pipeline.test): comm-pipeline splits the
// first compute and its all_reduce into parts, and carries the parts on
// through the rowwise computes that follow (the second all_reduce too, and
// a last compute whose rows are wider); the results must not change.
module attributes {comm.world_size = 4 : i64} {
  func.func @chain(%x: tensor<64x12xf32>, %w: tensor<12x12xf32>) -> tensor<64x20xf32> {
    %a = comm.compute "proj"(%x, %w) time_us 20.0 : (tensor<64x12xf32>, tensor<12x12xf32>) -> tensor<64x12xf32>
    %b = comm.all_reduce sum %a over [[0, 1, 2, 3]] : tensor<64x12xf32>
    %c = comm.compute "mlp"(%b, %w) time_us 40.0 rowwise : (tensor<64x12xf32>, tensor<12x12xf32>) -> tensor<64x12xf32>
    %d = comm.all_reduce max %c over [[0, 1], [2, 3]] : tensor<64x12xf32>
    %e = comm.compute "widen"(%d, %w) time_us 10.0 rowwise : (tensor<64x12xf32>, tensor<12x12xf32>) -> tensor<64x20xf32>
    return %e : tensor<64x20xf32>
  }
  func.func @flat(%x: tensor<96xbf16>) -> tensor<96xbf16> {
    %a = comm.compute "grad"(%x) time_us 10.0 : (tensor<96xbf16>) -> tensor<96xbf16>
    %b = comm.all_reduce sum %a over [[0, 1, 2, 3]] : tensor<96xbf16>
    return %b : tensor<96xbf16>
  }
}
