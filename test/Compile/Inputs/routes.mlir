// Point-to-point transfers of several shapes for comm-route: a ring of
// sends ahead of receives, a permute with a rank sending to itself and a
// rank nobody sends to, a receive whose result feeds a second transfer,
// and transfers started early and waited for late.
module attributes {comm.world_size = 4 : i64} {
func.func @ring(%x: tensor<16x4xi64>, %y: tensor<7xf64>) -> (tensor<16x4xi64>, tensor<7xf64>) {
  comm.send %x to [[0, 1], [1, 2], [2, 3], [3, 0]] tag 4 : tensor<16x4xi64>
  comm.send %y to [[0, 3], [3, 2], [2, 1], [1, 0]] tag 5 : tensor<7xf64>
  %a = comm.recv from [[0, 1], [1, 2], [2, 3], [3, 0]] tag 4 : tensor<16x4xi64>
  %b = comm.recv from [[0, 3], [3, 2], [2, 1], [1, 0]] tag 5 : tensor<7xf64>
  return %a, %b : tensor<16x4xi64>, tensor<7xf64>
}
func.func @permute(%x: tensor<33xf32>) -> tensor<33xf32> {
  %0 = comm.permute %x pairs [[0, 2], [2, 0], [1, 1]] : tensor<33xf32>
  return %0 : tensor<33xf32>
}
func.func @chain(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  comm.send %x to [[0, 2], [1, 3]] tag 1 : tensor<8x8xf32>
  %0 = comm.recv from [[0, 2], [1, 3]] tag 1 : tensor<8x8xf32>
  %1 = comm.permute %0 pairs [[2, 1], [3, 0]] : tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
}
func.func @async(%x: tensor<64xi32>) -> tensor<64xi32> {
  %t = comm.start {
    comm.send %x to [[0, 3], [3, 0], [1, 2], [2, 1]] tag 9 : tensor<64xi32>
    %r = comm.recv from [[0, 3], [3, 0], [1, 2], [2, 1]] tag 9 : tensor<64xi32>
    comm.yield %r : tensor<64xi32>
  }
  %r = comm.wait %t : tensor<64xi32>
  return %r : tensor<64xi32>
}
}
