// A ring shift in a loop: each iteration sends the loop-carried tensor and
// receives the next one. Bufferized, the loop carries one buffer that each
// iteration's received tensor is copied into, while the iteration's send
// (which returns before it has read its buffer: 4 MiB is far over MPI's
// eager limit) may still read it. The runtime completes a send before
// anything writes what it reads (commrt_gen.h, beforeWrite); before, 4 of
// 4 runs on 4 ranks gave wrong results.
module attributes {comm.world_size = 4 : i64} {
  func.func @ring(%x: tensor<1048576xf32>) -> tensor<1048576xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %x) -> (tensor<1048576xf32>) {
      comm.send %acc to [[0, 1], [1, 2], [2, 3], [3, 0]] tag 4 : tensor<1048576xf32>
      %b = comm.recv from [[0, 1], [1, 2], [2, 3], [3, 0]] tag 4 : tensor<1048576xf32>
      scf.yield %b : tensor<1048576xf32>
    }
    return %r : tensor<1048576xf32>
  }
}
