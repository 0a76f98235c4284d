// 64 MiB from rank 0 to rank 8 (another machine) and from rank 1 to rank 2
// (the same machine, the same socket on pcie-4gpu); comm-route writes the
// routes.
module attributes {comm.world_size = 16 : i64} {
  func.func @step(%x: tensor<16777216xf32>) -> (tensor<16777216xf32>, tensor<16777216xf32>) {
    comm.send %x to [[0, 8]] tag 1 : tensor<16777216xf32>
    %a = comm.recv from [[0, 8]] tag 1 : tensor<16777216xf32>
    comm.send %x to [[1, 3]] tag 2 : tensor<16777216xf32>
    %b = comm.recv from [[1, 3]] tag 2 : tensor<16777216xf32>
    return %a, %b : tensor<16777216xf32>, tensor<16777216xf32>
  }
}
