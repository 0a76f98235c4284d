// Rank 1 receives twice what rank 0 sends; then a receive in another
// element type. comm-compile refuses both (comm-verify-schedule), the
// runtime would too: comm-sim run must not time them.
module attributes {comm.topology = "dgx-h100", comm.world_size = 2 : i64} {
  func.func @bigger(%x: tensor<1024xf32>) -> tensor<2048xf32> {
    comm.send %x to [[0, 1]] tag 1 : tensor<1024xf32>
    %a = comm.recv from [[0, 1]] tag 1 : tensor<2048xf32>
    return %a : tensor<2048xf32>
  }
  func.func @retyped(%x: tensor<1024xf32>) -> tensor<1024xi32> {
    %t = comm.start {
      %a = comm.recv from [[0, 1]] tag 2 : tensor<1024xi32>
      comm.yield %a : tensor<1024xi32>
    }
    comm.send %x to [[0, 1]] tag 2 : tensor<1024xf32>
    %a = comm.wait %t : tensor<1024xi32>
    return %a : tensor<1024xi32>
  }
}
