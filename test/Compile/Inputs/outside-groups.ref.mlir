// What outside-groups.mlir computes, written with permutes: rank 1 keeps
// its data; the broadcast's root (rank 3, position 2 of [2, 0, 3]) sends to
// ranks 2, 0 and itself; the others receive nothing, so zeros.
module attributes {comm.world_size = 4 : i64} {
  func.func @one_rank(%x: tensor<64xf32>) -> tensor<64xf32> {
    %0 = comm.permute %x pairs [[1, 1]] : tensor<64xf32>
    return %0 : tensor<64xf32>
  }
  func.func @broadcast_three(%x: tensor<5x7xf32>) -> tensor<5x7xf32> {
    %a = comm.permute %x pairs [[3, 3]] : tensor<5x7xf32>
    %b = comm.permute %x pairs [[3, 2]] : tensor<5x7xf32>
    %c = comm.permute %x pairs [[3, 0]] : tensor<5x7xf32>
    %ab = arith.addf %a, %b : tensor<5x7xf32>
    %0 = arith.addf %ab, %c : tensor<5x7xf32>
    return %0 : tensor<5x7xf32>
  }
}
