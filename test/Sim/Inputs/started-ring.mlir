// A ring whose sends and receives are in one comm.start on every rank (the
// generated code starts them in one group): the send does not hold the
// stream, so each rank's receive runs while its send does
// (test/Sim/p2p-bound.test).
module attributes {comm.world_size = 4 : i64, comm.topology = "pcie-4gpu"} {
  func.func @step(%x: tensor<1048576xf32>, %w: tensor<64xf32>) -> tensor<1048576xf32> {
    %t = comm.start {
      comm.send %x to [[0, 3], [1, 0], [2, 1], [3, 2]] tag 4 : tensor<1048576xf32>
      %r = comm.recv from [[0, 3], [1, 0], [2, 1], [3, 2]] tag 4 : tensor<1048576xf32>
      comm.yield %r : tensor<1048576xf32>
    }
    comm.compute "c"(%w) time_us 100.0 : (tensor<64xf32>) -> ()
    %r = comm.wait %t : tensor<1048576xf32>
    return %r : tensor<1048576xf32>
  }
}
