// RUN: comm-opt %s --comm-decompose="to-p2p=all explain" -verify-diagnostics -o /dev/null
// RUN: not comm-opt %s --comm-decompose="to-p2p=some" 2>&1 | FileCheck %s --check-prefix=MODE
// MODE: error: comm-decompose: to-p2p='some' is not a mode: expected unsupported, all or none

// What has no point-to-point schedule is kept, and says why under explain.
module attributes {comm.world_size = 4 : i64} {
  func.func @kept(%x: tensor<8x4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x1xf32>, tensor<8x4xf32>) {
    // An average of floats is decomposed (summed, then scaled).
    %0 = comm.all_reduce avg %x over [[0, 1, 2, 3]] : tensor<8x4xf32>
    // expected-remark @+1 {{comm-decompose: kept: it has groups that leave ranks of comm.world_size out (or no comm.world_size): its schedule would leave those ranks their own data where they must get zeros}}
    %1 = comm.reduce max %x over [[0, 1, 2]] root 0 : tensor<8x4xf32>
    // Along dimension 1, each rank's part is put together from its rows.
    %2 = comm.reduce_scatter sum %x over [[0, 1, 2, 3]] dim 1 : tensor<8x4xf32> -> tensor<8x1xf32>
    // expected-remark @+1 {{comm-decompose: kept: it has groups that leave ranks of comm.world_size out (or no comm.world_size): its schedule would leave those ranks their own data where they must get zeros}}
    %3 = comm.all_reduce sum %x over [[0, 1]] : tensor<8x4xf32>
    return %0, %1, %2, %3 : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x1xf32>, tensor<8x4xf32>
  }
}

