// Every algorithm the lowering realizes, with channels and pipelined
// chunks, on several collectives, groups and dim layouts: the default
// reference is the same program without its plans (the backend's own
// collectives), and every result must be equal.
func.func @all_reduce(%x: tensor<4099xi32>, %y: tensor<1000xf32>)
    -> (tensor<4099xi32>, tensor<4099xi32>, tensor<4099xi32>, tensor<4099xi32>,
        tensor<4099xi32>, tensor<1000xf32>, tensor<1000xf32>) {
  %0 = comm.all_reduce sum %x over [[0, 1, 2, 3]] plan <algorithm = ring, channels = 2, chunk_bytes = 1024> : tensor<4099xi32>
  %1 = comm.all_reduce max %x over [[3, 1, 0, 2]] plan <algorithm = tree, chunk_bytes = 512> : tensor<4099xi32>
  %2 = comm.all_reduce xor %x over [[0, 1], [2, 3]] plan <algorithm = direct> : tensor<4099xi32>
  %3 = comm.all_reduce sum %x over [[0, 1, 2]] plan <algorithm = halving_doubling, channels = 3> : tensor<4099xi32>
  %4 = comm.all_reduce min %x over [[0, 1, 2, 3]] plan <algorithm = hierarchical> : tensor<4099xi32>
  %5 = comm.all_reduce avg %y over [[0, 1, 2, 3]] plan <algorithm = ring, precision = bf16> : tensor<1000xf32>
  %6 = comm.all_reduce sum %y over [[0, 1, 2, 3]] plan <algorithm = halving_doubling, chunk_bytes = 256> : tensor<1000xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4099xi32>, tensor<4099xi32>, tensor<4099xi32>, tensor<4099xi32>, tensor<4099xi32>, tensor<1000xf32>, tensor<1000xf32>
}

func.func @others(%x: tensor<6x8xi32>, %z: tensor<515xf32>)
    -> (tensor<6x2xi32>, tensor<6x2xi32>, tensor<6x32xi32>, tensor<24x8xi32>,
        tensor<515xf32>, tensor<515xf32>, tensor<515xf32>, tensor<515xf32>,
        tensor<515xf32>, tensor<515xf32>) {
  %0 = comm.reduce_scatter sum %x over [[0, 1, 2, 3]] dim 1 plan <algorithm = ring, channels = 2> : tensor<6x8xi32> -> tensor<6x2xi32>
  %1 = comm.reduce_scatter max %x over [[0, 1, 2, 3]] dim 1 plan <algorithm = direct> : tensor<6x8xi32> -> tensor<6x2xi32>
  %2 = comm.all_gather %x over [[0, 1, 2, 3]] dim 1 plan <algorithm = ring, chunk_bytes = 16> : tensor<6x8xi32> -> tensor<6x32xi32>
  %3 = comm.all_gather %x over [[2, 0, 3, 1]] dim 0 plan <algorithm = direct> : tensor<6x8xi32> -> tensor<24x8xi32>
  %4 = comm.broadcast %z over [[0, 1, 2, 3]] root 2 plan <algorithm = ring, chunk_bytes = 256> : tensor<515xf32>
  %5 = comm.broadcast %z over [[0, 1, 2, 3]] root 3 plan <algorithm = tree> : tensor<515xf32>
  %6 = comm.broadcast %z over [[0, 1], [2, 3]] root 1 plan <algorithm = direct> : tensor<515xf32>
  %7 = comm.reduce sum %z over [[0, 1, 2, 3]] root 1 plan <algorithm = ring, channels = 4> : tensor<515xf32>
  %8 = comm.reduce max %z over [[0, 1, 2, 3]] root 0 plan <algorithm = tree, chunk_bytes = 128> : tensor<515xf32>
  %9 = comm.reduce sum %z over [[0, 1, 2, 3]] root 3 plan <algorithm = direct> : tensor<515xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<6x2xi32>, tensor<6x2xi32>, tensor<6x32xi32>, tensor<24x8xi32>, tensor<515xf32>, tensor<515xf32>, tensor<515xf32>, tensor<515xf32>, tensor<515xf32>, tensor<515xf32>
}

// Started together: two planned all_reduces in flight at once.
func.func @async(%x: tensor<2048xf32>, %y: tensor<777xi32>) -> (tensor<2048xf32>, tensor<777xi32>) {
  %t = comm.start {
    %0 = comm.all_reduce sum %x over [[0, 1, 2, 3]] plan <algorithm = ring, chunk_bytes = 2048> : tensor<2048xf32>
    %1 = comm.all_reduce sum %y over [[0, 1, 2, 3]] plan <algorithm = tree, channels = 2> : tensor<777xi32>
    comm.yield %0, %1 : tensor<2048xf32>, tensor<777xi32>
  }
  %a, %b = comm.wait %t : tensor<2048xf32>, tensor<777xi32>
  return %a, %b : tensor<2048xf32>, tensor<777xi32>
}

// Halving-doubling (folded on three ranks) and hierarchical for the other
// collectives: reduce_scatter, all_gather, broadcast and reduce.
func.func @levels(%x: tensor<6x8xi32>, %z: tensor<515xf32>)
    -> (tensor<2x8xi32>, tensor<6x2xi32>, tensor<18x8xi32>, tensor<6x32xi32>,
        tensor<515xf32>, tensor<515xf32>, tensor<515xf32>, tensor<515xf32>,
        tensor<515xf32>, tensor<515xf32>) {
  %0 = comm.reduce_scatter sum %x over [[0, 1, 2]] dim 0 plan <algorithm = halving_doubling> : tensor<6x8xi32> -> tensor<2x8xi32>
  %1 = comm.reduce_scatter max %x over [[0, 1, 2, 3]] dim 1 plan <algorithm = hierarchical, channels = 2> : tensor<6x8xi32> -> tensor<6x2xi32>
  %2 = comm.all_gather %x over [[0, 1, 2]] dim 0 plan <algorithm = halving_doubling, chunk_bytes = 64> : tensor<6x8xi32> -> tensor<18x8xi32>
  %3 = comm.all_gather %x over [[1, 3, 0, 2]] dim 1 plan <algorithm = hierarchical> : tensor<6x8xi32> -> tensor<6x32xi32>
  %4 = comm.broadcast %z over [[0, 1, 2, 3]] root 1 plan <algorithm = halving_doubling> : tensor<515xf32>
  %5 = comm.broadcast %z over [[0, 1, 2]] root 2 plan <algorithm = halving_doubling, chunk_bytes = 256> : tensor<515xf32>
  %6 = comm.broadcast %z over [[0, 1, 2, 3]] root 3 plan <algorithm = hierarchical> : tensor<515xf32>
  %7 = comm.reduce sum %z over [[0, 1, 2, 3]] root 2 plan <algorithm = halving_doubling, channels = 2> : tensor<515xf32>
  %8 = comm.reduce max %z over [[0, 1, 2]] root 0 plan <algorithm = halving_doubling> : tensor<515xf32>
  %9 = comm.reduce sum %z over [[0, 1, 2, 3]] root 1 plan <algorithm = hierarchical, chunk_bytes = 512> : tensor<515xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<2x8xi32>, tensor<6x2xi32>, tensor<18x8xi32>, tensor<6x32xi32>, tensor<515xf32>, tensor<515xf32>, tensor<515xf32>, tensor<515xf32>, tensor<515xf32>, tensor<515xf32>
}
