// A send without its receive.
module attributes {comm.topology = "dgx-h100", comm.world_size = 8 : i64} {
  func.func @f(%x: tensor<1024xf32>) {
    comm.send %x to [[0, 1]] tag 5 : tensor<1024xf32>
    return
  }
}
