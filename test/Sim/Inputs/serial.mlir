// The same all-reduce, waited for before the compute: nothing overlaps.
module attributes {comm.topology = "dgx-h100", comm.world_size = 8 : i64} {
  func.func @step(%g: tensor<67108864xf32>, %w: tensor<64xf32>) -> tensor<67108864xf32> {
    %r = comm.all_reduce sum %g over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<67108864xf32>
    comm.compute "backward"(%w) time_us 3000.0 : (tensor<64xf32>) -> ()
    return %r : tensor<67108864xf32>
  }
}
