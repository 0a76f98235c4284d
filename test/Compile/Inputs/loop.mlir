// Loops that carry tensors between trips (a ring accumulation, and two
// arguments that trade places every trip, which the bufferized loop must
// copy through a temporary); loop.ref.mlir unrolls them.
module attributes {comm.world_size = 4 : i64} {
  func.func @ring(%x: tensor<64xi32>) -> (tensor<64xi32>, tensor<64xi32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %r:2 = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %x, %cur = %x) -> (tensor<64xi32>, tensor<64xi32>) {
      %next = comm.permute %cur pairs [[0, 1], [1, 2], [2, 3], [3, 0]] : tensor<64xi32>
      %sum = arith.addi %acc, %next : tensor<64xi32>
      scf.yield %sum, %next : tensor<64xi32>, tensor<64xi32>
    }
    return %r#0, %r#1 : tensor<64xi32>, tensor<64xi32>
  }
  func.func @swap(%x: tensor<32xi32>) -> (tensor<32xi32>, tensor<32xi32>, tensor<32xi32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %x2 = arith.addi %x, %x : tensor<32xi32>
    %r:3 = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x, %b = %x2, %c = %x) -> (tensor<32xi32>, tensor<32xi32>, tensor<32xi32>) {
      %p = comm.permute %c pairs [[0, 3], [1, 0], [2, 1], [3, 2]] : tensor<32xi32>
      scf.yield %b, %a, %p : tensor<32xi32>, tensor<32xi32>, tensor<32xi32>
    }
    return %r#0, %r#1, %r#2 : tensor<32xi32>, tensor<32xi32>, tensor<32xi32>
  }
}
