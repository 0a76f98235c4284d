// Names that are markup in SVG and quotes in DOT: the outputs escape them
// (test/Sim/hostile-names.test).
module attributes {comm.world_size = 2 : i64} {
  func.func @step(%g: tensor<1024xf32>, %w: tensor<64xf32>) -> tensor<1024xf32> {
    comm.compute "attn<q&k>\"x\"" (%w) time_us 10.0 : (tensor<64xf32>) -> ()
    %r = comm.all_reduce sum %g over [[0, 1]] : tensor<1024xf32>
    return %r : tensor<1024xf32>
  }
}
