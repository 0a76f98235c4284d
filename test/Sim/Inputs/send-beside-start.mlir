// A send posted while a comm.start's all_reduce runs: it is on no stream
// (test/Sim/p2p-bound.test).
module attributes {comm.world_size = 8 : i64, comm.topology = "dgx-h100"} {
  func.func @step(%x: tensor<16777216xf32>, %a: tensor<1048576xf32>, %w: tensor<64xf32>) -> (tensor<16777216xf32>, tensor<1048576xf32>) {
    %t = comm.start {
      %y = comm.all_reduce sum %a over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<1048576xf32>
      comm.yield %y : tensor<1048576xf32>
    }
    comm.compute "c"(%w) time_us 30.0 : (tensor<64xf32>) -> ()
    comm.send %x to [[0, 1]] tag 1 : tensor<16777216xf32>
    %r = comm.recv from [[0, 1]] tag 1 : tensor<16777216xf32>
    %y = comm.wait %t : tensor<1048576xf32>
    return %r, %y : tensor<16777216xf32>, tensor<1048576xf32>
  }
}
