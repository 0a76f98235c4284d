// A shift written as point-to-point sends and receives, with the sends
// ahead of the receives on every rank. Checked against comm.permute.
func.func @shift(%x: tensor<16x4xi64>, %y: tensor<7xf64>) -> (tensor<16x4xi64>, tensor<7xf64>) {
  comm.send %x to [[0, 1], [1, 2], [2, 3], [3, 0]] tag 4 : tensor<16x4xi64>
  comm.send %y to [[0, 3], [3, 2], [2, 1], [1, 0]] tag 5 : tensor<7xf64>
  %a = comm.recv from [[0, 1], [1, 2], [2, 3], [3, 0]] tag 4 : tensor<16x4xi64>
  %b = comm.recv from [[0, 3], [3, 2], [2, 1], [1, 0]] tag 5 : tensor<7xf64>
  return %a, %b : tensor<16x4xi64>, tensor<7xf64>
}
