// RUN: not comm-opt %s --comm-pipeline=chunks=1 2>&1 | FileCheck %s --check-prefix=ONE
// RUN: not comm-opt %s --comm-pipeline=max-chunks=1 2>&1 | FileCheck %s --check-prefix=MAX
// RUN: not comm-opt %s --comm-pipeline 2>&1 | FileCheck %s --check-prefix=TOPO
// RUN: comm-opt %s --comm-pipeline="chunks=4 explain" -verify-diagnostics -o /dev/null
// ONE: error: comm-pipeline: chunks must be 0 (the cost model chooses) or at least 2, and max-chunks in [2, 1024], got chunks=1 max-chunks=8
// MAX: error: comm-pipeline: chunks must be 0 (the cost model chooses) or at least 2, and max-chunks in [2, 1024], got chunks=0 max-chunks=1
// TOPO: error: no topology

module attributes {comm.world_size = 2 : i64} {
  func.func @odd(%x: tensor<6x3xf32>) -> tensor<6x3xf32> {
    %y = comm.compute "f"(%x) time_us 10.0 : (tensor<6x3xf32>) -> tensor<6x3xf32>
    // expected-remark @+1 {{comm-pipeline: kept whole: dimension 0 (6) does not divide into 4 parts}}
    %r = comm.all_reduce sum %y over [[0, 1]] : tensor<6x3xf32>
    return %r : tensor<6x3xf32>
  }
  // A rowwise compute with a weight of as many rows as a part: each part
  // would read the weight row by row (the results changed).
  func.func @weight(%x: tensor<8x3xf32>, %w: tensor<2x3xf32>) -> tensor<8x3xf32> {
    %y = comm.compute "g"(%x, %w) time_us 10.0 rowwise : (tensor<8x3xf32>, tensor<2x3xf32>) -> tensor<8x3xf32>
    // expected-remark @+1 {{comm-pipeline: kept whole: 'g' reads an input whole that has as many rows as one of 4 parts (2), which a part would read row by row}}
    %r = comm.all_reduce sum %y over [[0, 1]] : tensor<8x3xf32>
    return %r : tensor<8x3xf32>
  }
}
