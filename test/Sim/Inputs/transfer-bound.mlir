// Two all-reduces of one group and one of another, with little compute:
// the transfers bound the step. The bound counts the first group's two as
// one buffer (no bucketing beats it) and adds the other's.
module attributes {comm.topology = "dgx-h100", comm.world_size = 8 : i64} {
  func.func @step(%a: tensor<67108864xf32>, %b: tensor<67108864xf32>, %w: tensor<64xf32>)
      -> (tensor<67108864xf32>, tensor<67108864xf32>, tensor<67108864xf32>) {
    %x = comm.all_reduce sum %a over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<67108864xf32>
    %y = comm.all_reduce sum %b over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<67108864xf32>
    %z = comm.all_reduce sum %a over [[0, 1, 2, 3], [4, 5, 6, 7]] : tensor<67108864xf32>
    comm.compute "tail"(%w) time_us 10.0 : (tensor<64xf32>) -> ()
    return %x, %y, %z : tensor<67108864xf32>, tensor<67108864xf32>, tensor<67108864xf32>
  }
}
