// loop.mlir unrolled: what its loops must compute.
module attributes {comm.world_size = 4 : i64} {
  func.func @ring(%x: tensor<64xi32>) -> (tensor<64xi32>, tensor<64xi32>) {
    %n1 = comm.permute %x pairs [[0, 1], [1, 2], [2, 3], [3, 0]] : tensor<64xi32>
    %s1 = arith.addi %x, %n1 : tensor<64xi32>
    %n2 = comm.permute %n1 pairs [[0, 1], [1, 2], [2, 3], [3, 0]] : tensor<64xi32>
    %s2 = arith.addi %s1, %n2 : tensor<64xi32>
    %n3 = comm.permute %n2 pairs [[0, 1], [1, 2], [2, 3], [3, 0]] : tensor<64xi32>
    %s3 = arith.addi %s2, %n3 : tensor<64xi32>
    return %s3, %n3 : tensor<64xi32>, tensor<64xi32>
  }
  func.func @swap(%x: tensor<32xi32>) -> (tensor<32xi32>, tensor<32xi32>, tensor<32xi32>) {
    %x2 = arith.addi %x, %x : tensor<32xi32>
    %p1 = comm.permute %x pairs [[0, 3], [1, 0], [2, 1], [3, 2]] : tensor<32xi32>
    %p2 = comm.permute %p1 pairs [[0, 3], [1, 0], [2, 1], [3, 2]] : tensor<32xi32>
    %p3 = comm.permute %p2 pairs [[0, 3], [1, 0], [2, 1], [3, 2]] : tensor<32xi32>
    // Three swaps leave the first two swapped.
    return %x2, %x, %p3 : tensor<32xi32>, tensor<32xi32>, tensor<32xi32>
  }
}
