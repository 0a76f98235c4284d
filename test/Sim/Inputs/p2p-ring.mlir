// A ring shift on pcie-4gpu: every rank sends 16 MiB to the next and
// receives from the one before. Its send does not hold the stream: it runs
// beside the receive (test/Sim/p2p-bound.test).
module attributes {comm.world_size = 4 : i64, comm.topology = "pcie-4gpu"} {
  func.func @step(%x: tensor<4194304xf32>) -> tensor<4194304xf32> {
    comm.send %x to [[0, 1], [1, 2], [2, 3], [3, 0]] tag 4 : tensor<4194304xf32>
    %b = comm.recv from [[0, 1], [1, 2], [2, 3], [3, 0]] tag 4 : tensor<4194304xf32>
    return %b : tensor<4194304xf32>
  }
}
