// A shift written as point-to-point sends and receives, with the sends
// ahead of the receives on every rank. Checked against comm.permute.
func.func @shift(%x: tensor<16x4xi64>, %y: tensor<7xf64>) -> (tensor<16x4xi64>, tensor<7xf64>) {
  comm.send %x to [[0, 1], [1, 2], [2, 3], [3, 0]] tag 4 : tensor<16x4xi64>
  comm.send %y to [[0, 3], [3, 2], [2, 1], [1, 0]] tag 5 : tensor<7xf64>
  %a = comm.recv from [[0, 1], [1, 2], [2, 3], [3, 0]] tag 4 : tensor<16x4xi64>
  %b = comm.recv from [[0, 3], [3, 2], [2, 1], [1, 0]] tag 5 : tensor<7xf64>
  return %a, %b : tensor<16x4xi64>, tensor<7xf64>
}

// A relay from rank 0 to rank 3: each send reads what the receive before
// it wrote, so the run's group closes (and the receive completes) first.
func.func @relay(%x: tensor<5x3xi32>) -> tensor<5x3xi32> {
  comm.send %x to [[0, 1]] tag 1 : tensor<5x3xi32>
  %a = comm.recv from [[0, 1]] tag 1 : tensor<5x3xi32>
  comm.send %a to [[1, 2]] tag 2 : tensor<5x3xi32>
  %b = comm.recv from [[1, 2]] tag 2 : tensor<5x3xi32>
  comm.send %b to [[2, 3]] tag 3 : tensor<5x3xi32>
  %c = comm.recv from [[2, 3]] tag 3 : tensor<5x3xi32>
  return %c : tensor<5x3xi32>
}
