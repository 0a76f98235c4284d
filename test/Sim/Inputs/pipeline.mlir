// Pipeline stages on two machines: point-to-point transfers over the
// network, a loop of micro-batches, host copies and a barrier.
module attributes {comm.topology = "dgx-h100x2", comm.world_size = 16 : i64} {
  func.func @stage(%x: tensor<4194304xbf16>) {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %c4 step %c1 {
      comm.compute "forward"() flops 1.0e+11 : () -> ()
      comm.send %x to [[0, 8], [1, 9]] tag 0 : tensor<4194304xbf16>
      %y = comm.recv from [[0, 8], [1, 9]] tag 0 : tensor<4194304xbf16>
    }
    %h = comm.copy %x hbm to pinned_host : tensor<4194304xbf16>
    comm.barrier over [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]]
    return
  }
}
