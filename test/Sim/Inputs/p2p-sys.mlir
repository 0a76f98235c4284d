// 64 MiB from rank 0 to rank 1, whose GPUs hang off different sockets
// (p2p-bound.test runs it on Azure NC A100 v4).
module attributes {comm.world_size = 2 : i64} {
  func.func @step(%x: tensor<16777216xf32>) -> tensor<16777216xf32> {
    comm.send %x to [[0, 1]] tag 1 : tensor<16777216xf32>
    %a = comm.recv from [[0, 1]] tag 1 : tensor<16777216xf32>
    return %a : tensor<16777216xf32>
  }
}
