// One step of a ring: every rank sends to its successor, then receives from
// its predecessor. Sends do not block, so this completes
// (test/Sim/run.test).
module attributes {comm.topology = "dgx-h100", comm.world_size = 4 : i64} {
  func.func @f(%x: tensor<1048576xf32>) -> tensor<1048576xf32> {
    comm.send %x to [[0, 1], [1, 2], [2, 3], [3, 0]] tag 1 : tensor<1048576xf32>
    %r = comm.recv from [[0, 1], [1, 2], [2, 3], [3, 0]] tag 1 : tensor<1048576xf32>
    %s = arith.addf %x, %r : tensor<1048576xf32>
    return %s : tensor<1048576xf32>
  }
}
