// all_reduce decomposed into a ring of point-to-point transfers and local
// additions (what comm-decompose produces for algorithm = ring on a
// program it cannot slice per rank): every rank forwards what it received
// and accumulates. Checked against a single comm.all_reduce.
func.func @ring(%x: tensor<1000xf32>) -> tensor<1000xf32> {
  comm.send %x to [[0, 1], [1, 2], [2, 3], [3, 0]] tag 0 : tensor<1000xf32>
  %r1 = comm.recv from [[0, 1], [1, 2], [2, 3], [3, 0]] tag 0 : tensor<1000xf32>
  %s1 = arith.addf %x, %r1 : tensor<1000xf32>
  comm.send %r1 to [[0, 1], [1, 2], [2, 3], [3, 0]] tag 1 : tensor<1000xf32>
  %r2 = comm.recv from [[0, 1], [1, 2], [2, 3], [3, 0]] tag 1 : tensor<1000xf32>
  %s2 = arith.addf %s1, %r2 : tensor<1000xf32>
  comm.send %r2 to [[0, 1], [1, 2], [2, 3], [3, 0]] tag 2 : tensor<1000xf32>
  %r3 = comm.recv from [[0, 1], [1, 2], [2, 3], [3, 0]] tag 2 : tensor<1000xf32>
  %s3 = arith.addf %s2, %r3 : tensor<1000xf32>
  return %s3 : tensor<1000xf32>
}
