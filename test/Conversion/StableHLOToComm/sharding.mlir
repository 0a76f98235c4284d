// RUN: comm-opt %s -split-input-file --allow-unregistered-dialect --convert-stablehlo-to-comm -verify-diagnostics | FileCheck %s

// A program partitioned by jit shardings instead of shard_map has its
// collectives inserted by XLA's partitioner, which comm does not run: a
// located error where a sharding would have the partitioner split compute
// or reshard a value (it imported as every process computing the whole
// batch, without a collective). shard_map's boundary, seen from outside,
// carries split shardings too: those import.

/// Shardy export of jax.jit(f) on a sharded batch, no shard_map (after
/// review-fe/jx/gspmd_auto.mlir): the dot reads the split value.
"builtin.module"() <{sym_name = "jit_auto"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["d"=8]>, sym_name = "mesh"}> : () -> ()
  "func.func"() <{function_type = (tensor<64x16xf32>, tensor<16x16xf32>) -> tensor<64x16xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%x: tensor<64x16xf32>, %w: tensor<16x16xf32>):
    // expected-note @+1 {{the 'sdy.sharding_constraint' splitting it}}
    %xs = "sdy.sharding_constraint"(%x) <{sharding = #sdy.sharding<@mesh, [{"d"}, {}]>}> : (tensor<64x16xf32>) -> tensor<64x16xf32>
    %ws = "sdy.sharding_constraint"(%w) <{sharding = #sdy.sharding<@mesh, [{}, {}]>}> : (tensor<16x16xf32>) -> tensor<16x16xf32>
    // expected-error @+1 {{'stablehlo.dot_general' reads the value a 'sdy.sharding_constraint' splits, which has sharding #sdy.sharding<@mesh, [{"d"}, {}]>: this program is not partitioned yet. XLA's SPMD partitioner (GSPMD or Shardy) would split it over the devices (or place a value on one device, {maximal device=N}) and insert the collectives it needs; comm does not run the partitioner, so every process would compute the whole program without them. Write the step with jax.shard_map, whose collectives are explicit (see docs/Frontends.md)}}
    %y = "stablehlo.dot_general"(%xs, %ws) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<64x16xf32>, tensor<16x16xf32>) -> tensor<64x16xf32>
    "func.return"(%y) : (tensor<64x16xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 8 : i32} : () -> ()

// -----

/// GSPMD export of the same (after review-fe/jx2/gspmd_auto_gspmdexport.mlir):
/// the argument's sharding splits it.
"builtin.module"() <{sym_name = "jit_auto"}> ({
  "func.func"() <{arg_attrs = [{mhlo.sharding = "{devices=[8,1]<=[8]}"}, {mhlo.sharding = "{replicated}"}], function_type = (tensor<64x16xf32>, tensor<16x16xf32>) -> tensor<64x16xf32>, res_attrs = [{mhlo.sharding = "{replicated}"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%x: tensor<64x16xf32>, %w: tensor<16x16xf32>):
    // expected-error @+1 {{'stablehlo.dot_general' reads argument 0 of @main, which has sharding "{devices=[8,1]<=[8]}": this program is not partitioned yet}}
    %y = "stablehlo.dot_general"(%x, %w) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<64x16xf32>, tensor<16x16xf32>) -> tensor<64x16xf32>
    "func.return"(%y) : (tensor<64x16xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 8 : i32} : () -> ()

// -----

/// A shard_map's split result summed outside it: XLA would all-reduce.
"builtin.module"() <{sym_name = "jit_sum_outside"}> ({
  "func.func"() <{arg_attrs = [{mhlo.sharding = "{devices=[8,1]<=[8]}"}], function_type = (tensor<64x4xf32>) -> tensor<f32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%x: tensor<64x4xf32>):
    %0 = "stablehlo.custom_call"(%x) <{call_target_name = "Sharding"}> {mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<64x4xf32>) -> tensor<64x4xf32>
    %1 = "stablehlo.custom_call"(%0) <{call_target_name = "SPMDFullToShardShape"}> {mhlo.sharding = "{manual}"} : (tensor<64x4xf32>) -> tensor<8x4xf32>
    %2 = "stablehlo.negate"(%1) : (tensor<8x4xf32>) -> tensor<8x4xf32>
    %3 = "stablehlo.custom_call"(%2) <{call_target_name = "Sharding"}> {mhlo.sharding = "{manual}"} : (tensor<8x4xf32>) -> tensor<8x4xf32>
    %4 = "stablehlo.custom_call"(%3) <{call_target_name = "SPMDShardToFullShape"}> {mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<8x4xf32>) -> tensor<64x4xf32>
    %z = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
    // expected-error @+1 {{'stablehlo.reduce' reads a result of a shard_map, which has sharding "{devices=[8,1]<=[8]}": this program is not partitioned yet}}
    %5 = "stablehlo.reduce"(%4, %z) <{dimensions = array<i64: 0, 1>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ()
    }) : (tensor<64x4xf32>, tensor<f32>) -> tensor<f32>
    "func.return"(%5) : (tensor<f32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 8 : i32} : () -> ()

// -----

/// jit's out_shardings replicate a shard_map's split result: XLA would
/// all-gather it.
"builtin.module"() <{sym_name = "jit_gather_out"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["d"=8]>, sym_name = "mesh"}> : () -> ()
  "func.func"() <{function_type = (tensor<64x4xf32>) -> tensor<64x4xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%x: tensor<64x4xf32>):
    %0 = "sdy.manual_computation"(%x) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"d"}, {}]>]>, manual_axes = #sdy<manual_axes{"d"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"d"}, {}]>]>}> ({
    ^bb0(%a: tensor<8x4xf32>):
      "sdy.return"(%a) : (tensor<8x4xf32>) -> ()
    }) : (tensor<64x4xf32>) -> tensor<64x4xf32>
    // expected-error @+1 {{'sdy.sharding_constraint' reads a result of a shard_map, which has sharding #sdy.sharding<@mesh, [{"d"}, {}]>, as #sdy.sharding<@mesh, [{}, {}]>: this program is not partitioned yet}}
    %1 = "sdy.sharding_constraint"(%0) <{sharding = #sdy.sharding<@mesh, [{}, {}]>}> : (tensor<64x4xf32>) -> tensor<64x4xf32>
    "func.return"(%1) : (tensor<64x4xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 8 : i32} : () -> ()

// -----

/// An argument split on rows into a shard_map that takes it split on
/// columns: XLA would reshard it (an all_to_all).
"builtin.module"() <{sym_name = "jit_reshard"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["d"=8]>, sym_name = "mesh"}> : () -> ()
  "func.func"() <{arg_attrs = [{sdy.sharding = #sdy.sharding<@mesh, [{"d"}, {}]>}], function_type = (tensor<64x8xf32>) -> tensor<64x8xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%x: tensor<64x8xf32>):
    // expected-error @+1 {{'sdy.manual_computation' reads argument 0 of @main, which has sharding #sdy.sharding<@mesh, [{"d"}, {}]>, as #sdy.sharding<@mesh, [{}, {"d"}]>: this program is not partitioned yet}}
    %0 = "sdy.manual_computation"(%x) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {"d"}]>]>, manual_axes = #sdy<manual_axes{"d"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{}, {"d"}]>]>}> ({
    ^bb0(%a: tensor<64x1xf32>):
      "sdy.return"(%a) : (tensor<64x1xf32>) -> ()
    }) : (tensor<64x8xf32>) -> tensor<64x8xf32>
    "func.return"(%0) : (tensor<64x8xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 8 : i32} : () -> ()

// -----

/// A split result computed outside any shard_map.
"builtin.module"() <{sym_name = "jit_split_result"}> ({
  "func.func"() <{function_type = (tensor<64x4xf32>) -> tensor<64x4xf32>, res_attrs = [{mhlo.sharding = "{devices=[8,1]<=[8]}"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%x: tensor<64x4xf32>):
    %0 = "stablehlo.negate"(%x) : (tensor<64x4xf32>) -> tensor<64x4xf32>
    // expected-error @+1 {{result 0 of @main has sharding "{devices=[8,1]<=[8]}", but is not a result of a shard_map: this program is not partitioned yet}}
    "func.return"(%0) : (tensor<64x4xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 8 : i32} : () -> ()

// -----

/// Compute that asks for a split itself.
"builtin.module"() <{sym_name = "jit_op_sharding"}> ({
  "func.func"() <{function_type = (tensor<64x4xf32>) -> tensor<64x4xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%x: tensor<64x4xf32>):
    // expected-error @+1 {{'stablehlo.negate' asks for sharding "{devices=[4,1,2]<=[8] last_tile_dim_replicate}": this program is not partitioned yet}}
    %0 = "stablehlo.negate"(%x) {mhlo.sharding = "{devices=[4,1,2]<=[8] last_tile_dim_replicate}"} : (tensor<64x4xf32>) -> tensor<64x4xf32>
    "func.return"(%0) : (tensor<64x4xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 8 : i32} : () -> ()

// -----

/// A shard_map manual over "x" only whose sharding also splits over "y":
/// XLA would partition its body over "y".
"builtin.module"() <{sym_name = "jit_partial"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["x"=2, "y"=4]>, sym_name = "mesh"}> : () -> ()
  "func.func"() <{function_type = (tensor<8x8xf32>) -> tensor<8x8xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%x: tensor<8x8xf32>):
    // expected-error @+1 {{'sdy.manual_computation' is manual over #sdy<manual_axes{"x"}> only, but its sharding #sdy.sharding<@mesh, [{"x"}, {"y"}]> also splits over "y", over which XLA would partition its body: this program is not partitioned yet}}
    %0 = "sdy.manual_computation"(%x) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {"y"}]>]>, manual_axes = #sdy<manual_axes{"x"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>}> ({
    ^bb0(%a: tensor<4x8xf32>):
      "sdy.return"(%a) : (tensor<4x8xf32>) -> ()
    }) : (tensor<8x8xf32>) -> tensor<8x8xf32>
    "func.return"(%0) : (tensor<8x8xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 8 : i32} : () -> ()

// -----

/// jax.jit(shard_map(f), in_shardings=P("d"), out_shardings=P("d")) in the
/// GSPMD export: the jit shardings pass the split values on unchanged, the
/// entry takes and returns this process's rows. (Metadata in a sharding
/// does not change its layout.)
// CHECK-LABEL: func.func public @negative_jit_shardings(%arg0: tensor<8x4xf32>) -> tensor<8x4xf32>
// CHECK-NEXT: comm.all_reduce sum %arg0
"builtin.module"() <{sym_name = "jit_negative_jit_shardings"}> ({
  "func.func"() <{arg_attrs = [{mhlo.sharding = "{devices=[8,1]<=[8] metadata={op_name=\"x\"}}"}], function_type = (tensor<64x4xf32>) -> tensor<64x4xf32>, res_attrs = [{mhlo.sharding = "{devices=[8,1]<=[8]}"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%x: tensor<64x4xf32>):
    %0 = "stablehlo.custom_call"(%x) <{call_target_name = "Sharding"}> {mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<64x4xf32>) -> tensor<64x4xf32>
    %1 = "stablehlo.custom_call"(%0) <{call_target_name = "Sharding"}> {mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<64x4xf32>) -> tensor<64x4xf32>
    %2 = "stablehlo.custom_call"(%1) <{call_target_name = "SPMDFullToShardShape"}> {mhlo.sharding = "{manual}"} : (tensor<64x4xf32>) -> tensor<8x4xf32>
    %3 = "stablehlo.all_reduce"(%2) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ()
    }) : (tensor<8x4xf32>) -> tensor<8x4xf32>
    %4 = "stablehlo.custom_call"(%3) <{call_target_name = "Sharding"}> {mhlo.sharding = "{manual}"} : (tensor<8x4xf32>) -> tensor<8x4xf32>
    %5 = "stablehlo.custom_call"(%4) <{call_target_name = "SPMDShardToFullShape"}> {mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<8x4xf32>) -> tensor<64x4xf32>
    %6 = "stablehlo.custom_call"(%5) <{call_target_name = "Sharding"}> {mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<64x4xf32>) -> tensor<64x4xf32>
    "func.return"(%6) : (tensor<64x4xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 8 : i32} : () -> ()

// -----

/// The same in the Shardy export, and a second shard_map taking the first's
/// split result as it is.
// CHECK-LABEL: func.func public @negative_chain(%arg0: tensor<8x4xf32>) -> tensor<8x4xf32>
// CHECK-COUNT-2: comm.all_reduce sum
"builtin.module"() <{sym_name = "jit_negative_chain"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["d"=8]>, sym_name = "mesh"}> : () -> ()
  "func.func"() <{arg_attrs = [{sdy.sharding = #sdy.sharding<@mesh, [{"d"}, {}]>}], function_type = (tensor<64x4xf32>) -> tensor<64x4xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%x: tensor<64x4xf32>):
    %0 = "sdy.sharding_constraint"(%x) <{sharding = #sdy.sharding<@mesh, [{"d"}, {}]>}> : (tensor<64x4xf32>) -> tensor<64x4xf32>
    %1 = "sdy.manual_computation"(%0) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"d", ?}, {?}]>]>, manual_axes = #sdy<manual_axes{"d"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"d"}, {}]>]>}> ({
    ^bb0(%a: tensor<8x4xf32>):
      %r = "stablehlo.all_reduce"(%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%p: tensor<f32>, %q: tensor<f32>):
        %s = "stablehlo.add"(%p, %q) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%s) : (tensor<f32>) -> ()
      }) : (tensor<8x4xf32>) -> tensor<8x4xf32>
      "sdy.return"(%r) : (tensor<8x4xf32>) -> ()
    }) : (tensor<64x4xf32>) -> tensor<64x4xf32>
    %2 = "sdy.manual_computation"(%1) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"d"}, {}]>]>, manual_axes = #sdy<manual_axes{"d"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"d"}, {}]>]>}> ({
    ^bb0(%a: tensor<8x4xf32>):
      %r = "stablehlo.all_reduce"(%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%p: tensor<f32>, %q: tensor<f32>):
        %s = "stablehlo.add"(%p, %q) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%s) : (tensor<f32>) -> ()
      }) : (tensor<8x4xf32>) -> tensor<8x4xf32>
      "sdy.return"(%r) : (tensor<8x4xf32>) -> ()
    }) : (tensor<64x4xf32>) -> tensor<64x4xf32>
    "func.return"(%2) : (tensor<64x4xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 8 : i32} : () -> ()

// -----

/// Shardings that split nothing: an axis of one device, tiles of 1 beside a
/// replicated subgroup, replicated and manual. Compute may read these
/// values (each process holds them whole).
// CHECK-LABEL: func.func public @negative_whole
// CHECK: comm.compute "stablehlo.add"
"builtin.module"() <{sym_name = "jit_negative_whole"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["d"=8, "one"=1]>, sym_name = "mesh"}> : () -> ()
  "func.func"() <{arg_attrs = [{sdy.sharding = #sdy.sharding<@mesh, [{"one"}, {}]>}, {mhlo.sharding = "{devices=[1,1,8]<=[8] last_tile_dim_replicate}"}], function_type = (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%x: tensor<8x4xf32>, %y: tensor<8x4xf32>):
    %0 = "sdy.sharding_constraint"(%x) <{sharding = #sdy.sharding<@mesh, [{}, {}], replicated={"d"}>}> : (tensor<8x4xf32>) -> tensor<8x4xf32>
    %1 = "stablehlo.add"(%0, %y) {mhlo.sharding = "{replicated}"} : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    %2 = "stablehlo.custom_call"(%1) <{call_target_name = "Sharding"}> {mhlo.sharding = "{manual}"} : (tensor<8x4xf32>) -> tensor<8x4xf32>
    "func.return"(%2) : (tensor<8x4xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 8 : i32} : () -> ()

// -----

/// Compute on a value no sharding splits, into a shard_map that takes it
/// split: each process computes it whole and takes its rows (as XLA's
/// partitioner would, without a collective).
// CHECK-LABEL: func.func public @negative_whole_into_split
// CHECK: comm.compute "stablehlo.negate"(%arg0)
// CHECK: comm.compute "stablehlo.shard_to_local"
"builtin.module"() <{sym_name = "jit_negative_whole_into_split"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["d"=8]>, sym_name = "mesh"}> : () -> ()
  "func.func"() <{function_type = (tensor<64x4xf32>) -> tensor<64x4xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%x: tensor<64x4xf32>):
    %n = "stablehlo.negate"(%x) : (tensor<64x4xf32>) -> tensor<64x4xf32>
    %0 = "sdy.manual_computation"(%n) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"d"}, {}]>]>, manual_axes = #sdy<manual_axes{"d"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"d"}, {}]>]>}> ({
    ^bb0(%a: tensor<8x4xf32>):
      "sdy.return"(%a) : (tensor<8x4xf32>) -> ()
    }) : (tensor<64x4xf32>) -> tensor<64x4xf32>
    "func.return"(%0) : (tensor<64x4xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 8 : i32} : () -> ()

// -----

// jax.jit(lambda a: with_sharding_constraint(a * 2, P("x"))): each process
// returns its slice of the product, which the partitioner computes; comm
// once returned the whole product from every process.
"builtin.module"() <{sym_name = "jit__lambda"}> ({
  "sdy.mesh"() <{mesh = #sdy.mesh<["x"=8]>, sym_name = "mesh"}> : () -> ()
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<16x8xf32>) -> tensor<16x8xf32>, res_attrs = [{jax.result_info = "result"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<16x8xf32>):
    %0 = "stablehlo.multiply"(%arg0, %arg0) : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    // expected-note @+1 {{the 'sdy.sharding_constraint' splitting it}}
    %1 = "sdy.sharding_constraint"(%0) <{sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}> : (tensor<16x8xf32>) -> tensor<16x8xf32>
    // expected-error @+1 {{result 0 of @main is the value a 'sdy.sharding_constraint' splits (#sdy.sharding<@mesh, [{"x"}, {}]>), which each process returns only its slice of: this program is not partitioned yet}}
    "func.return"(%1) : (tensor<16x8xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} : () -> ()

// -----

// The same in GSPMD's export, with the result's sharding written too.
"builtin.module"() <{sym_name = "jit__lambda"}> ({
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<16x8xf32>) -> tensor<16x8xf32>, res_attrs = [{mhlo.sharding = "{devices=[8,1]<=[8]}"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<16x8xf32>):
    %0 = "stablehlo.multiply"(%arg0, %arg0) : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    // expected-note @+1 {{the 'stablehlo.custom_call' @Sharding splitting it}}
    %1 = "stablehlo.custom_call"(%0) <{api_version = 1 : i32, backend_config = "", call_target_name = "Sharding", called_computations = [], has_side_effect = false}> {mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<16x8xf32>) -> tensor<16x8xf32>
    // expected-error @+1 {{result 0 of @main is the value a 'stablehlo.custom_call' @Sharding splits ("{devices=[8,1]<=[8]}"), which each process returns only its slice of: this program is not partitioned yet}}
    "func.return"(%1) : (tensor<16x8xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} : () -> ()

// -----

// A value placed on one device ({maximal device=3}) is the partitioner's
// to move too; the message says so.
"builtin.module"() <{sym_name = "jit_f"}> ({
  "func.func"() <{arg_attrs = [{mhlo.sharding = "{maximal device=3}"}], function_type = (tensor<8x8xf32>) -> tensor<8x8xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%x: tensor<8x8xf32>):
    // expected-error @+1 {{reads argument 0 of @main, which has sharding "{maximal device=3}": this program is not partitioned yet. XLA's SPMD partitioner (GSPMD or Shardy) would split it over the devices (or place a value on one device, {maximal device=N})}}
    %0 = "stablehlo.multiply"(%x, %x) : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
    "func.return"(%0) : (tensor<8x8xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
