// Collectives whose groups leave ranks of the world out: a rank in no group
// gets zeros (docs/Dialects/Comm.md). A group of one rank once folded to
// the op's input on every rank, so ranks 0, 2 and 3 returned their data.
module attributes {comm.world_size = 4 : i64} {
  func.func @one_rank(%x: tensor<64xf32>) -> tensor<64xf32> {
    %0 = comm.all_reduce sum %x over [[1]] : tensor<64xf32>
    return %0 : tensor<64xf32>
  }
  func.func @broadcast_three(%x: tensor<5x7xf32>) -> tensor<5x7xf32> {
    %0 = comm.broadcast %x over [[2, 0, 3]] root 2 : tensor<5x7xf32>
    return %0 : tensor<5x7xf32>
  }
}
