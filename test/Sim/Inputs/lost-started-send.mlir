// A comm.start sends to rank 1, which never receives (test/Sim/errors.test).
module attributes {comm.world_size = 4 : i64, comm.topology = "pcie-4gpu"} {
  func.func @step(%x: tensor<1024xf32>) {
    %t = comm.start {
      comm.send %x to [[0, 1]] tag 9 : tensor<1024xf32>
      comm.yield
    }
    comm.wait %t
    return
  }
}
