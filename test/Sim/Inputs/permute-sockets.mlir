// A permute on pcie-4gpu whose pairs 0 -> 3 and 2 -> 1 cross the sockets
// (SYS: NCCL stages them through host memory) and 1 -> 0, 3 -> 2 stay
// behind one PCIe switch (PIX: peer to peer). comm-route writes the
// farthest pair's route, host_staged, on the op.
module attributes {comm.topology = "pcie-4gpu", comm.world_size = 4 : i64} {
  func.func @plain(%x: tensor<262144xf32>) -> tensor<262144xf32> {
    %0 = comm.permute %x pairs [[0, 3], [1, 0], [2, 1], [3, 2]] : tensor<262144xf32>
    return %0 : tensor<262144xf32>
  }
  func.func @routed(%x: tensor<262144xf32>) -> tensor<262144xf32> {
    %0 = comm.permute %x pairs [[0, 3], [1, 0], [2, 1], [3, 2]] plan <route = host_staged> : tensor<262144xf32>
    return %0 : tensor<262144xf32>
  }
}
