// Ranks 0 and 1 each receive from the other before they send: both wait
// forever (test/Sim/errors.test).
module attributes {comm.topology = "dgx-h100", comm.world_size = 8 : i64} {
  func.func @f(%x: tensor<1024xf32>) -> tensor<1024xf32> {
    %r = comm.recv from [[0, 1], [1, 0]] tag 5 : tensor<1024xf32>
    comm.send %x to [[0, 1], [1, 0]] tag 5 : tensor<1024xf32>
    return %r : tensor<1024xf32>
  }
}
