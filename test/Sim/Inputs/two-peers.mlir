// Rank 0 sends 64 MiB to each of two peers: both leave through its links
// (test/Sim/p2p-bound.test).
module attributes {comm.world_size = 8 : i64, comm.topology = "dgx-h100"} {
  func.func @step(%x: tensor<16777216xf32>) -> (tensor<16777216xf32>, tensor<16777216xf32>) {
    comm.send %x to [[0, 1]] tag 1 : tensor<16777216xf32>
    comm.send %x to [[0, 2]] tag 2 : tensor<16777216xf32>
    %a = comm.recv from [[0, 1]] tag 1 : tensor<16777216xf32>
    %b = comm.recv from [[0, 2]] tag 2 : tensor<16777216xf32>
    return %a, %b : tensor<16777216xf32>, tensor<16777216xf32>
  }
}
