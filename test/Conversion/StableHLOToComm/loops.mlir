// RUN: comm-opt %s -split-input-file --allow-unregistered-dialect --convert-stablehlo-to-comm -verify-diagnostics | FileCheck %s

// A fori_loop (a counter from a constant, compared less-than a constant,
// incremented by a positive constant) becomes an scf.for of its exact trip
// count, worked out without overflowing the counter's type.

/// A step of INT64_MAX: one trip (0, then INT64_MAX >= 10). Computing
/// limit - init + step - 1 in 64 bits overflowed and gave 0 trips, and the
/// all_reduce vanished.
// CHECK-LABEL: func.func public @step_max
// CHECK: %[[N:.*]] = arith.constant 1 : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[N]] step
// CHECK: comm.all_reduce sum
"builtin.module"() <{sym_name = "jit_step_max"}> ({
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<8xf32>):
    %c0 = "stablehlo.constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
    %r:2 = "stablehlo.while"(%c0, %arg0) ({
    ^bb0(%i: tensor<i64>, %x: tensor<8xf32>):
      %lim = "stablehlo.constant"() <{value = dense<10> : tensor<i64>}> : () -> tensor<i64>
      %p = "stablehlo.compare"(%i, %lim) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i64>, tensor<i64>) -> tensor<i1>
      "stablehlo.return"(%p) : (tensor<i1>) -> ()
    }, {
    ^bb0(%i: tensor<i64>, %x: tensor<8xf32>):
      %step = "stablehlo.constant"() <{value = dense<9223372036854775807> : tensor<i64>}> : () -> tensor<i64>
      %n = "stablehlo.add"(%i, %step) : (tensor<i64>, tensor<i64>) -> tensor<i64>
      %y = "stablehlo.all_reduce"(%x) <{replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>}> ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %s = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%s) : (tensor<f32>) -> ()
      }) : (tensor<8xf32>) -> tensor<8xf32>
      "stablehlo.return"(%n, %y) : (tensor<i64>, tensor<8xf32>) -> ()
    }) : (tensor<i64>, tensor<8xf32>) -> (tensor<i64>, tensor<8xf32>)
    "func.return"(%r#1) : (tensor<8xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_replicas = 4 : i32} : () -> ()

// -----

/// An unsigned counter below 4000000000 (more than a signed i32 holds):
/// the constants are read as unsigned. Without collectives the loop is one
/// compute: 9 FLOPs a trip (the negate's 8, the counter's add) x 4e9 trips.
// CHECK-LABEL: func.func public @unsigned_counter
// CHECK: comm.compute "scf.for"(%arg0) flops 3.600000e+10
"builtin.module"() <{sym_name = "jit_unsigned_counter"}> ({
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<8xf32>):
    %c0 = "stablehlo.constant"() <{value = dense<0> : tensor<ui32>}> : () -> tensor<ui32>
    %r:2 = "stablehlo.while"(%c0, %arg0) ({
    ^bb0(%i: tensor<ui32>, %x: tensor<8xf32>):
      %lim = "stablehlo.constant"() <{value = dense<4000000000> : tensor<ui32>}> : () -> tensor<ui32>
      %p = "stablehlo.compare"(%i, %lim) <{compare_type = #stablehlo<comparison_type UNSIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
      "stablehlo.return"(%p) : (tensor<i1>) -> ()
    }, {
    ^bb0(%i: tensor<ui32>, %x: tensor<8xf32>):
      %one = "stablehlo.constant"() <{value = dense<1> : tensor<ui32>}> : () -> tensor<ui32>
      %n = "stablehlo.add"(%i, %one) : (tensor<ui32>, tensor<ui32>) -> tensor<ui32>
      %y = "stablehlo.negate"(%x) : (tensor<8xf32>) -> tensor<8xf32>
      "stablehlo.return"(%n, %y) : (tensor<ui32>, tensor<8xf32>) -> ()
    }) : (tensor<ui32>, tensor<8xf32>) -> (tensor<ui32>, tensor<8xf32>)
    "func.return"(%r#1) : (tensor<8xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_replicas = 4 : i32} : () -> ()

// -----

/// A step that is not positive: not a counted loop, so the while stays
/// (opaque compute, as any loop without collectives).
// CHECK-LABEL: func.func public @negative_step
// CHECK-NOT: scf.for
// CHECK: comm.compute "stablehlo.while"
"builtin.module"() <{sym_name = "jit_negative_step"}> ({
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<8xf32>):
    %c0 = "stablehlo.constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
    // expected-warning @+1 {{'stablehlo.while' has no cost rule}}
    %r:2 = "stablehlo.while"(%c0, %arg0) ({
    ^bb0(%i: tensor<i64>, %x: tensor<8xf32>):
      %lim = "stablehlo.constant"() <{value = dense<10> : tensor<i64>}> : () -> tensor<i64>
      %p = "stablehlo.compare"(%i, %lim) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i64>, tensor<i64>) -> tensor<i1>
      "stablehlo.return"(%p) : (tensor<i1>) -> ()
    }, {
    ^bb0(%i: tensor<i64>, %x: tensor<8xf32>):
      %step = "stablehlo.constant"() <{value = dense<-1> : tensor<i64>}> : () -> tensor<i64>
      %n = "stablehlo.add"(%i, %step) : (tensor<i64>, tensor<i64>) -> tensor<i64>
      %y = "stablehlo.negate"(%x) : (tensor<8xf32>) -> tensor<8xf32>
      "stablehlo.return"(%n, %y) : (tensor<i64>, tensor<8xf32>) -> ()
    }) : (tensor<i64>, tensor<8xf32>) -> (tensor<i64>, tensor<8xf32>)
    "func.return"(%r#1) : (tensor<8xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_replicas = 4 : i32} : () -> ()

// -----

/// A signless i8 counter compared UNSIGNED (as JAX writes a uint8 counter
/// after a bitcast): 200 is dense<-56> in i8 and is read as 200, so the loop
/// runs 200 trips, not none (comm once missed the comparison type and read
/// the limit as -56).
// CHECK-LABEL: func.func public @signless_unsigned_compare
// CHECK: %[[N:.*]] = arith.constant 200 : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[N]]
// CHECK: comm.all_reduce sum
"builtin.module"() <{sym_name = "jit_signless_unsigned_compare"}> ({
  "func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%x: tensor<4xf32>):
    %c0 = "stablehlo.constant"() <{value = dense<0> : tensor<i8>}> : () -> tensor<i8>
    %r:2 = "stablehlo.while"(%c0, %x) ({
    ^bb0(%i: tensor<i8>, %v: tensor<4xf32>):
      %lim = "stablehlo.constant"() <{value = dense<-56> : tensor<i8>}> : () -> tensor<i8>
      %p = "stablehlo.compare"(%i, %lim) <{comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type UNSIGNED>}> : (tensor<i8>, tensor<i8>) -> tensor<i1>
      "stablehlo.return"(%p) : (tensor<i1>) -> ()
    }, {
    ^bb0(%i: tensor<i8>, %v: tensor<4xf32>):
      %one = "stablehlo.constant"() <{value = dense<1> : tensor<i8>}> : () -> tensor<i8>
      %n = "stablehlo.add"(%i, %one) : (tensor<i8>, tensor<i8>) -> tensor<i8>
      %s = "stablehlo.all_reduce"(%v) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
        ^bb0(%a: tensor<f32>, %b: tensor<f32>):
          %t = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
          "stablehlo.return"(%t) : (tensor<f32>) -> ()
        }) : (tensor<4xf32>) -> tensor<4xf32>
      "stablehlo.return"(%n, %s) : (tensor<i8>, tensor<4xf32>) -> ()
    }) : (tensor<i8>, tensor<4xf32>) -> (tensor<i8>, tensor<4xf32>)
    "func.return"(%r#1) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_replicas = 2 : i32} : () -> ()
