// RUN: comm-opt %s --allow-unregistered-dialect --convert-stablehlo-to-comm | FileCheck %s

// The process groups of each of StableHLO's four ways of naming processes
// (spec, "Parallel execution" and "Collective ops"), with 2 replicas and 4
// partitions, so that every mode gives a different answer. Process
// (replica r, partition p) is rank r * 4 + p.
//   cross_replica (no channel): each replica group, once per partition;
//   cross_replica_and_partition (a channel, no global ids): each replica
//     group times every partition, partitions outer: [[0, 1]] gives
//     (0,0) (1,0) (0,1) (1,1) (0,2) (1,2) (0,3) (1,3), ranks 0 4 1 5 2 6 3 7,
//     the order all_gather concatenates in and reduce_scatter scatters in;
//   flattened_ids (a channel and use_global_device_ids): ranks as written;
//   cross_partition (all_to_all, collective_permute with a channel): each
//     partition group, once per replica.

// CHECK-LABEL: func.func public @modes(
"builtin.module"() <{sym_name = "jit_modes"}> ({
  "func.func"() <{function_type = (tensor<8xf32>) -> (tensor<8xf32>, tensor<64xf32>, tensor<1xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>), sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%x: tensor<8xf32>):
    // CHECK: comm.all_reduce sum %{{.*}} over {{\[\[}}0, 4], [1, 5], [2, 6], [3, 7]]
    %0 = "stablehlo.all_reduce"(%x) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ()
    }) : (tensor<8xf32>) -> tensor<8xf32>
    // CHECK: comm.all_gather %{{.*}} over {{\[\[}}0, 4, 1, 5, 2, 6, 3, 7]] dim 0
    %1 = "stablehlo.all_gather"(%x) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<8xf32>) -> tensor<64xf32>
    // CHECK: comm.reduce_scatter sum %{{.*}} over {{\[\[}}4, 0, 5, 1, 6, 2, 7, 3]] dim 0
    %2 = "stablehlo.reduce_scatter"(%x) <{scatter_dimension = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ()
    }) : (tensor<8xf32>) -> tensor<1xf32>
    // CHECK: comm.all_reduce max %{{.*}} over {{\[\[}}0, 2, 4, 6], [1, 3, 5, 7]]
    %3 = "stablehlo.all_reduce"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>, replica_groups = dense<[[0, 2, 4, 6], [1, 3, 5, 7]]> : tensor<2x4xi64>, use_global_device_ids}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = "stablehlo.maximum"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ()
    }) : (tensor<8xf32>) -> tensor<8xf32>
    // CHECK: comm.all_to_all %{{.*}} over {{\[\[}}1, 0], [3, 2], [5, 4], [7, 6]] split 0 concat 0
    %4 = "stablehlo.all_to_all"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 4, type = 1>, concat_dimension = 0 : i64, replica_groups = dense<[[1, 0], [3, 2]]> : tensor<2x2xi64>, split_count = 2 : i64, split_dimension = 0 : i64}> : (tensor<8xf32>) -> tensor<8xf32>
    // CHECK: comm.all_to_all %{{.*}} over {{\[\[}}0, 4], [1, 5], [2, 6], [3, 7]] split 0 concat 0
    %5 = "stablehlo.all_to_all"(%x) <{concat_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, split_count = 2 : i64, split_dimension = 0 : i64}> : (tensor<8xf32>) -> tensor<8xf32>
    // CHECK: comm.permute %{{.*}} pairs {{\[\[}}0, 1], [1, 0], [4, 5], [5, 4]]
    %6 = "stablehlo.collective_permute"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 5, type = 1>, source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%0, %1, %2, %3, %4, %5, %6) : (tensor<8xf32>, tensor<64xf32>, tensor<1xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 2 : i32} : () -> ()
