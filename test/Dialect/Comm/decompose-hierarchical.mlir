// RUN: comm-opt %s --comm-decompose="hierarchical topology=dgx-h100x2 explain" -verify-diagnostics | FileCheck %s
// RUN: not comm-opt %s --comm-decompose="hierarchical topology=dgx-h9000" 2>&1 | FileCheck %s --check-prefix=TOPO
// TOPO: error: {{.*}}dgx-h9000

// Two DGX H100 machines: an all_reduce over all 16 ranks is split by
// machine, with the model's prediction under explain (on this fabric NCCL's
// own all_reduce is faster: the option is there for fabrics where it is
// not). What stays inside a machine, or has one rank per machine, is kept.
module attributes {comm.world_size = 16 : i64} {
  // CHECK-LABEL: func.func @split
  // CHECK: %[[RS:.*]] = comm.reduce_scatter avg %{{.*}} over {{\[\[}}0, 1, 2, 3, 4, 5, 6, 7], [8, 9, 10, 11, 12, 13, 14, 15]] dim 0 : tensor<64x1024xf32> -> tensor<8x1024xf32>
  // CHECK-NEXT: %[[AR:.*]] = comm.all_reduce avg %[[RS]] over {{\[\[}}0, 8], [1, 9], [2, 10], [3, 11], [4, 12], [5, 13], [6, 14], [7, 15]] : tensor<8x1024xf32>
  // CHECK-NEXT: %[[AG:.*]] = comm.all_gather %[[AR]] over {{\[\[}}0, 1, 2, 3, 4, 5, 6, 7], [8, 9, 10, 11, 12, 13, 14, 15]] dim 0 : tensor<8x1024xf32> -> tensor<64x1024xf32>
  // CHECK-NEXT: return %[[AG]]
  func.func @split(%x: tensor<64x1024xf32>) -> tensor<64x1024xf32> {
    // expected-remark @+1 {{comm-decompose: split by machine (2 machines of 8 ranks)}}
    %0 = comm.all_reduce avg %x over [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]] : tensor<64x1024xf32>
    return %0 : tensor<64x1024xf32>
  }
  // CHECK-LABEL: func.func @kept
  // CHECK-NEXT: comm.all_reduce sum
  // CHECK-NEXT: comm.all_reduce sum
  // CHECK-NEXT: comm.all_reduce sum
  func.func @kept(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) {
    // expected-remark @+1 {{comm-decompose: kept whole: it stays inside one machine}}
    %0 = comm.all_reduce sum %x over [[0, 1, 2, 3, 4, 5, 6, 7], [8, 9, 10, 11, 12, 13, 14, 15]] : tensor<64xf32>
    // expected-remark @+1 {{comm-decompose: kept whole: it has one rank per machine}}
    %1 = comm.all_reduce sum %x over [[0, 8], [1, 9]] : tensor<64xf32>
    // expected-remark @+1 {{comm-decompose: kept whole: it has a different number of ranks on each machine}}
    %2 = comm.all_reduce sum %x over [[0, 1, 8]] : tensor<64xf32>
    return %0, %1, %2 : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
  }
}
