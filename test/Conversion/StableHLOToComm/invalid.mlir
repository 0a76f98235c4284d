// RUN: comm-opt %s -split-input-file --allow-unregistered-dialect --convert-stablehlo-to-comm -verify-diagnostics

"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<8xf32>):
    // expected-error @+1 {{replica_groups names id 4, but there are only 4 (mhlo.num_replicas = 1, mhlo.num_partitions = 4)}}
    %0 = "stablehlo.all_reduce"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1], [2, 4]]> : tensor<2x2xi64>, use_global_device_ids}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ()
    }) : (tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%0) : (tensor<8xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 4 : i32} : () -> ()

// -----

"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<8xf32>):
    // expected-error @+1 {{replica_groups pads a group with -1: groups of unequal size, which comm cannot express}}
    %0 = "stablehlo.all_reduce"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1], [2, -1]]> : tensor<2x2xi64>, use_global_device_ids}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ()
    }) : (tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%0) : (tensor<8xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 4 : i32} : () -> ()

// -----

"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<8xf32>):
    // expected-error @+1 {{replica_groups puts process 1 in more than one group (or twice in one)}}
    %0 = "stablehlo.all_reduce"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>, use_global_device_ids}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ()
    }) : (tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%0) : (tensor<8xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 4 : i32} : () -> ()

// -----

"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<8xf32>):
    // expected-error @+1 {{reduces with a body comm does not know ('stablehlo.subtract'); expected one stablehlo.add, multiply, maximum, minimum, and, or or xor of the body's two arguments, returned}}
    %0 = "stablehlo.all_reduce"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = "stablehlo.subtract"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ()
    }) : (tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%0) : (tensor<8xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 4 : i32} : () -> ()

// -----

"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<8xf32>):
    // expected-error @+1 {{sets use_global_device_ids without a channel_handle; StableHLO needs a channel for global device ids}}
    %0 = "stablehlo.all_reduce"(%arg0) <{replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ()
    }) : (tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%0) : (tensor<8xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 4 : i32} : () -> ()

// -----

// expected-error @+1 {{comm.world_size is 2, but mhlo.num_replicas * mhlo.num_partitions is 4}}
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<8xf32>):
    %0 = "stablehlo.all_reduce"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ()
    }) : (tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%0) : (tensor<8xf32>) -> ()
  }) : () -> ()
}) {comm.world_size = 2 : i64, mhlo.num_partitions = 4 : i32} : () -> ()

// -----

// A larger comm.world_size than JAX's devices was rewritten silently.
// expected-error @+1 {{comm.world_size is 16, but mhlo.num_replicas * mhlo.num_partitions is 4}}
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<8xf32>):
    "func.return"(%arg0) : (tensor<8xf32>) -> ()
  }) : () -> ()
}) {comm.world_size = 16 : i64, mhlo.num_partitions = 4 : i32} : () -> ()

// -----

"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<8xf32>):
    // expected-error @+1 {{calls @helper, which the module does not define}}
    %0 = "func.call"(%arg0) <{callee = @helper}> : (tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%0) : (tensor<8xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 4 : i32} : () -> ()

// -----

// A function that calls itself twice: inlined round by round, its calls
// doubled each round and ran out of memory before the depth check.
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<8xf32>):
    %0 = "func.call"(%arg0) <{callee = @g}> : (tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%0) : (tensor<8xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "g", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<8xf32>):
    // expected-error @+1 {{calls @g back (@g -> @g): recursion; comm imports programs whose calls can be inlined}}
    %0 = "func.call"(%arg0) <{callee = @g}> : (tensor<8xf32>) -> tensor<8xf32>
    %1 = "func.call"(%0) <{callee = @g}> : (tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%1) : (tensor<8xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 4 : i32} : () -> ()

// -----

// Through another function.
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<8xf32>):
    %0 = "func.call"(%arg0) <{callee = @g}> : (tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%0) : (tensor<8xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "g", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<8xf32>):
    %0 = "func.call"(%arg0) <{callee = @h}> : (tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%0) : (tensor<8xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "h", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<8xf32>):
    // expected-error @+1 {{calls @g back (@g -> @h -> @g): recursion}}
    %0 = "func.call"(%arg0) <{callee = @g}> : (tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%0) : (tensor<8xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 4 : i32} : () -> ()

// -----

"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<8xf32>):
    // expected-error @+1 {{splits into 2 parts over groups of 4; expected one part per process}}
    %0 = "stablehlo.all_to_all"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, concat_dimension = 0 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, split_count = 2 : i64, split_dimension = 0 : i64}> : (tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%0) : (tensor<8xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 4 : i32} : () -> ()

// -----

"builtin.module"() ({
  // expected-error @+1 {{result 1 of @main is '!stablehlo.token': a token}}
  "func.func"() <{function_type = (tensor<8xf32>) -> (tensor<8xf32>, !stablehlo.token), sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<8xf32>):
    %t = "stablehlo.after_all"() : () -> !stablehlo.token
    "func.return"(%arg0, %t) : (tensor<8xf32>, !stablehlo.token) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 4 : i32} : () -> ()

// -----

"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<8xf32>):
    // expected-warning @+1 {{'stablehlo.custom_call' @my_kernel has no cost rule; imported as opaque compute that counts only its memory traffic (64 bytes)}}
    %0 = "stablehlo.custom_call"(%arg0) <{call_target_name = "my_kernel"}> : (tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%0) : (tensor<8xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 4 : i32} : () -> ()

// -----

"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<16xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<8xf32>):
    // expected-error @+2 {{'comm.all_gather' op expected result type 'tensor<32xf32>' for groups of 4, got 'tensor<16xf32>'}}
    // expected-error @+1 {{could not be imported: the comm op it becomes is invalid (see above)}}
    %0 = "stablehlo.all_gather"(%arg0) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> : (tensor<8xf32>) -> tensor<16xf32>
    "func.return"(%0) : (tensor<16xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 4 : i32} : () -> ()

// -----

"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8xf32>, tensor<i32>) -> tensor<8xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<8xf32>, %n: tensor<i32>):
    %c0 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    // expected-note @+1 {{the 'stablehlo.while' is here}}
    %r:2 = "stablehlo.while"(%c0, %arg0) ({
    ^bb0(%i: tensor<i32>, %x: tensor<8xf32>):
      %lt = "stablehlo.compare"(%i, %n) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%lt) : (tensor<i1>) -> ()
    }, {
    ^bb0(%i: tensor<i32>, %x: tensor<8xf32>):
      // expected-error @+1 {{'stablehlo.collective_permute' inside 'stablehlo.while' is not imported: comm takes collectives in functions and in counted loops (a fori_loop: a counter from a constant, compared less-than a constant, incremented by a positive constant), and this loop is not one}}
      %y = "stablehlo.collective_permute"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<8xf32>) -> tensor<8xf32>
      %one = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
      %j = "stablehlo.add"(%i, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%j, %y) : (tensor<i32>, tensor<8xf32>) -> ()
    }) : (tensor<i32>, tensor<8xf32>) -> (tensor<i32>, tensor<8xf32>)
    "func.return"(%r#1) : (tensor<8xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 2 : i32} : () -> ()

// -----

// Verifying is deferred to the pass: what inlining relies on is checked.
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<8xf32>):
    // expected-error @+1 {{calls @empty, whose body does not end in func.return}}
    %0 = "func.call"(%arg0) <{callee = @empty}> : (tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%0) : (tensor<8xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "empty", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<8xf32>):
  }) : () -> ()
}) : () -> ()

// -----

"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<8xf32>):
    // expected-error @+1 {{has an empty body; expected one ending in sdy.return}}
    %0 = "sdy.manual_computation"(%arg0) ({
    ^bb0(%a: tensor<2xf32>):
    }) : (tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%0) : (tensor<8xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 4 : i32} : () -> ()

// -----

// Found by the fuzzer: a call without its callee (a mutated Shardy export).
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<8xf32>):
    // expected-error @+1 {{'func.call' op requires attribute 'callee'}}
    %0 = "func.call"(%arg0) <{ cleeal= @relu}> : (tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%0) : (tensor<8xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// Found by the fuzzer: a function without its type, whose return's verifier
// would read it (parents are checked first).
"builtin.module"() ({
  // expected-error @+1 {{'func.func' op requires attribute 'function_type'}}
  "func.func"() <{function1type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<8xf32>):
    "func.return"(%arg0) : (tensor<8xf32>) -> ()
  }) : () -> ()
}) : () -> ()

// -----

// A function whose type attribute is misspelled, called from another (a
// fuzzer found MLIR's call verifier reading the missing type): each op's
// invariants are checked, parents first, before anything reads them.
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "main"}> ({
  ^bb0(%arg0: tensor<4xf32>):
    %0 = "func.call"(%arg0) <{callee = @body}> : (tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%0) : (tensor<4xf32>) -> ()
  }) : () -> ()
  // expected-error @+1 {{'func.func' op requires attribute 'function_type'}}
  "func.func"() <{funscfon_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "body", sym_visibility = "private"}> ({
  ^bb0(%arg1: tensor<4xf32>):
    "func.return"(%arg1) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} : () -> ()

// -----

// A counted loop of 2^64 - 2 trips: more than a 64-bit trip count holds
// (computed in 64 bits it was -2 trips).
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<8xf32>):
    %c0 = "stablehlo.constant"() <{value = dense<-9223372036854775807> : tensor<i64>}> : () -> tensor<i64>
    // expected-error @+1 {{'stablehlo.while' counts 18446744073709551614 trips (from -9223372036854775807 to below 9223372036854775807 by 1), more than a 64-bit trip count holds; comm imports counted loops of at most 9223372036854775807 trips}}
    %r:2 = "stablehlo.while"(%c0, %arg0) ({
    ^bb0(%i: tensor<i64>, %x: tensor<8xf32>):
      %lim = "stablehlo.constant"() <{value = dense<9223372036854775807> : tensor<i64>}> : () -> tensor<i64>
      %p = "stablehlo.compare"(%i, %lim) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i64>, tensor<i64>) -> tensor<i1>
      "stablehlo.return"(%p) : (tensor<i1>) -> ()
    }, {
    ^bb0(%i: tensor<i64>, %x: tensor<8xf32>):
      %one = "stablehlo.constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i64>
      %n = "stablehlo.add"(%i, %one) : (tensor<i64>, tensor<i64>) -> tensor<i64>
      "stablehlo.return"(%n, %x) : (tensor<i64>, tensor<8xf32>) -> ()
    }) : (tensor<i64>, tensor<8xf32>) -> (tensor<i64>, tensor<8xf32>)
    "func.return"(%r#1) : (tensor<8xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_replicas = 4 : i32} : () -> ()

// -----

// An i32 counter from 0 below INT32_MAX by 2: the last increment gives
// 2^31, which wraps, so the loop does not end after its count.
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<8xf32>):
    %c0 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    // expected-error @+1 {{'stablehlo.while' counts from 0 to below 2147483647 by 2, but its 'i32' counter overflows on the last increment (0 + 1073741824 x 2 = 2147483648): it would wrap around instead of ending the loop, which comm does not import}}
    %r:2 = "stablehlo.while"(%c0, %arg0) ({
    ^bb0(%i: tensor<i32>, %x: tensor<8xf32>):
      %lim = "stablehlo.constant"() <{value = dense<2147483647> : tensor<i32>}> : () -> tensor<i32>
      %p = "stablehlo.compare"(%i, %lim) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%p) : (tensor<i1>) -> ()
    }, {
    ^bb0(%i: tensor<i32>, %x: tensor<8xf32>):
      %two = "stablehlo.constant"() <{value = dense<2> : tensor<i32>}> : () -> tensor<i32>
      %n = "stablehlo.add"(%i, %two) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%n, %x) : (tensor<i32>, tensor<8xf32>) -> ()
    }) : (tensor<i32>, tensor<8xf32>) -> (tensor<i32>, tensor<8xf32>)
    "func.return"(%r#1) : (tensor<8xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_replicas = 4 : i32} : () -> ()

// -----

// A fori_loop (counted: an scf.for once imported) inside a case: every op
// up to the function is checked, not only the loop around the collective,
// which gave "'stablehlo.return' has no comm equivalent" at the case's
// return.
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8xf32>, tensor<i32>) -> tensor<8xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<8xf32>, %k: tensor<i32>):
    // expected-note @+1 {{the 'stablehlo.case' is here}}
    %r = "stablehlo.case"(%k) ({
      "stablehlo.return"(%arg0) : (tensor<8xf32>) -> ()
    }, {
      %c0 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
      %w:2 = "stablehlo.while"(%c0, %arg0) ({
      ^bb0(%i: tensor<i32>, %x: tensor<8xf32>):
        %lim = "stablehlo.constant"() <{value = dense<2> : tensor<i32>}> : () -> tensor<i32>
        %lt = "stablehlo.compare"(%i, %lim) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
        "stablehlo.return"(%lt) : (tensor<i1>) -> ()
      }, {
      ^bb0(%i: tensor<i32>, %x: tensor<8xf32>):
        // expected-error @+1 {{'stablehlo.all_reduce' inside 'stablehlo.case' is not imported: comm takes collectives in functions and in counted loops (a fori_loop: a counter from a constant, compared less-than a constant, incremented by a positive constant)}}
        %y = "stablehlo.all_reduce"(%x) <{replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>}> ({
        ^bb0(%a: tensor<f32>, %b: tensor<f32>):
          %s = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
          "stablehlo.return"(%s) : (tensor<f32>) -> ()
        }) : (tensor<8xf32>) -> tensor<8xf32>
        %one = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
        %j = "stablehlo.add"(%i, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>
        "stablehlo.return"(%j, %y) : (tensor<i32>, tensor<8xf32>) -> ()
      }) : (tensor<i32>, tensor<8xf32>) -> (tensor<i32>, tensor<8xf32>)
      "stablehlo.return"(%w#1) : (tensor<8xf32>) -> ()
    }) : (tensor<i32>) -> tensor<8xf32>
    "func.return"(%r) : (tensor<8xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_replicas = 4 : i32} : () -> ()

// -----

// A fori_loop inside a data-dependent while: the outer loop is named.
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8xf32>, tensor<i1>) -> tensor<8xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<8xf32>, %go: tensor<i1>):
    // expected-note @+1 {{the 'stablehlo.while' is here}}
    %r = "stablehlo.while"(%arg0) ({
    ^bb0(%x: tensor<8xf32>):
      "stablehlo.return"(%go) : (tensor<i1>) -> ()
    }, {
    ^bb0(%x: tensor<8xf32>):
      %c0 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
      %w:2 = "stablehlo.while"(%c0, %x) ({
      ^bb0(%i: tensor<i32>, %v: tensor<8xf32>):
        %lim = "stablehlo.constant"() <{value = dense<3> : tensor<i32>}> : () -> tensor<i32>
        %lt = "stablehlo.compare"(%i, %lim) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
        "stablehlo.return"(%lt) : (tensor<i1>) -> ()
      }, {
      ^bb0(%i: tensor<i32>, %v: tensor<8xf32>):
        // expected-error @+1 {{'stablehlo.all_reduce' inside 'stablehlo.while' is not imported: comm takes collectives in functions and in counted loops (a fori_loop: a counter from a constant, compared less-than a constant, incremented by a positive constant), and this loop is not one}}
        %y = "stablehlo.all_reduce"(%v) <{replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>}> ({
        ^bb0(%a: tensor<f32>, %b: tensor<f32>):
          %s = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
          "stablehlo.return"(%s) : (tensor<f32>) -> ()
        }) : (tensor<8xf32>) -> tensor<8xf32>
        %one = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
        %j = "stablehlo.add"(%i, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>
        "stablehlo.return"(%j, %y) : (tensor<i32>, tensor<8xf32>) -> ()
      }) : (tensor<i32>, tensor<8xf32>) -> (tensor<i32>, tensor<8xf32>)
      "stablehlo.return"(%w#1) : (tensor<8xf32>) -> ()
    }) : (tensor<8xf32>) -> tensor<8xf32>
    "func.return"(%r) : (tensor<8xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_replicas = 4 : i32} : () -> ()

// -----

// A counted loop whose condition holds a collective: the condition is not
// dropped for the trip count (comm once lost the collective).
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%x: tensor<4xf32>):
    %c0 = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    // expected-note @+1 {{the 'stablehlo.while' is here}}
    %r:2 = "stablehlo.while"(%c0, %x) ({
    ^bb0(%i: tensor<i32>, %v: tensor<4xf32>):
      %lim = "stablehlo.constant"() <{value = dense<5> : tensor<i32>}> : () -> tensor<i32>
      %p = "stablehlo.compare"(%i, %lim) <{comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type SIGNED>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      // expected-error @+1 {{'stablehlo.all_reduce' inside 'stablehlo.while' is not imported: comm takes collectives in functions and in counted loops (a fori_loop: a counter from a constant, compared less-than a constant, incremented by a positive constant), and this one is in the loop's condition}}
      %s = "stablehlo.all_reduce"(%v) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
        ^bb0(%a: tensor<f32>, %b: tensor<f32>):
          %t = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
          "stablehlo.return"(%t) : (tensor<f32>) -> ()
        }) : (tensor<4xf32>) -> tensor<4xf32>
      "stablehlo.return"(%p) : (tensor<i1>) -> ()
    }, {
    ^bb0(%i: tensor<i32>, %v: tensor<4xf32>):
      %one = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
      %n = "stablehlo.add"(%i, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%n, %v) : (tensor<i32>, tensor<4xf32>) -> ()
    }) : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>)
    "func.return"(%r#1) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_replicas = 2 : i32} : () -> ()

// -----

// XLA's ragged_all_to_all arrives as a custom call (as jax.lax.
// ragged_all_to_all exports it): as compute it would lose its communication.
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<2x8xf32>, tensor<8xi32>) -> tensor<2x8xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%x: tensor<2x8xf32>, %n: tensor<8xi32>):
    // expected-error @+1 {{'stablehlo.custom_call' @ragged_all_to_all communicates between processes (its backend_config names replica_groups), which comm does not import: as compute it would drop the communication}}
    %0 = "stablehlo.custom_call"(%x, %x, %n, %n, %n, %n) <{api_version = 4 : i32, backend_config = {channel_id = 1 : i64, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>}, call_target_name = "ragged_all_to_all"}> : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>, tensor<8xi32>) -> tensor<2x8xf32>
    "func.return"(%0) : (tensor<2x8xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 8 : i32} : () -> ()

// -----

"builtin.module"() ({
  "func.func"() <{function_type = (tensor<2x8xf32>) -> tensor<2x8xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%x: tensor<2x8xf32>):
    // expected-error @+1 {{'stablehlo.custom_call' @my_collective communicates between processes (it has channel_handle), which comm does not import: as compute it would drop the communication}}
    %0 = "stablehlo.custom_call"(%x) <{call_target_name = "my_collective"}> {channel_handle = 1 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    "func.return"(%0) : (tensor<2x8xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 8 : i32} : () -> ()

// -----

"builtin.module"() ({
  "func.func"() <{function_type = (tensor<2x8xui32>) -> tensor<2x8xui32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%x: tensor<2x8xui32>):
    // expected-error @+1 {{moves 'tensor<2x8xui32>'; comm carries signless integers and floating-point values only, not unsigned integers (jax.lax.bitcast_convert_type to the signed type of the same width moves the same bits, and sums, products and bitwise reductions of them are the same bits; max and min are not)}}
    %0 = "stablehlo.collective_permute"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<2x8xui32>) -> tensor<2x8xui32>
    "func.return"(%0) : (tensor<2x8xui32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 2 : i32} : () -> ()

// -----

"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%x: tensor<8xcomplex<f32>>):
    // expected-error @+1 {{moves 'tensor<8xcomplex<f32>>'; comm carries signless integers and floating-point values only, not complex numbers (send the real and imaginary parts, jnp.real and jnp.imag, as two floating-point tensors)}}
    %0 = "stablehlo.all_reduce"(%x) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
    ^bb0(%a: tensor<complex<f32>>, %b: tensor<complex<f32>>):
      %s = "stablehlo.add"(%a, %b) : (tensor<complex<f32>>, tensor<complex<f32>>) -> tensor<complex<f32>>
      "stablehlo.return"(%s) : (tensor<complex<f32>>) -> ()
    }) : (tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>>
    "func.return"(%0) : (tensor<8xcomplex<f32>>) -> ()
  }) : () -> ()
}) {mhlo.num_replicas = 2 : i32} : () -> ()

// -----

// StableHLO lets an all_reduce's body compute in a wider type than its
// input (is_promotable); comm reduces in the input's type.
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8xbf16>) -> tensor<8xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%x: tensor<8xbf16>):
    // expected-error @+1 {{changes the element type from 'bf16' to 'f32' (its reduction body computes in 'f32'); comm reduces and moves values in the input's type}}
    %0 = "stablehlo.all_reduce"(%x) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ()
    }) : (tensor<8xbf16>) -> tensor<8xf32>
    "func.return"(%0) : (tensor<8xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_replicas = 2 : i32} : () -> ()

// -----

// An empty module (an empty file) imported to a program of nothing.
// expected-error @+1 {{holds no function to import (JAX writes its program as @main)}}
module {
}

// -----

// A token in the entry's signature was kept, and comm-sim and comm-compile
// could not parse the result.
"builtin.module"() ({
  // expected-error @+1 {{argument 0 of @main is '!stablehlo.token': a token, which orders side effects (host callbacks such as jax.debug.print or an ordered io_callback, infeed, outfeed) that comm's programs do not have; take them out of the step}}
  "func.func"() <{function_type = (!stablehlo.token, tensor<8xf32>) -> (!stablehlo.token, tensor<8xf32>), sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%t: !stablehlo.token, %arg0: tensor<8xf32>):
    "func.return"(%t, %arg0) : (!stablehlo.token, tensor<8xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 4 : i32} : () -> ()

// -----

// A tuple argument: its elements became compute that read nothing.
"builtin.module"() ({
  // expected-error @+1 {{argument 0 of @main is 'tuple<tensor<8xf32>, tensor<8xf32>>': a tuple; comm imports tensors: pass its elements as arguments of their own}}
  "func.func"() <{function_type = (tuple<tensor<8xf32>, tensor<8xf32>>) -> tensor<8xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tuple<tensor<8xf32>, tensor<8xf32>>):
    %0 = "stablehlo.get_tuple_element"(%arg0) <{index = 0 : i32}> : (tuple<tensor<8xf32>, tensor<8xf32>>) -> tensor<8xf32>
    "func.return"(%0) : (tensor<8xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 4 : i32} : () -> ()

// -----

"builtin.module"() ({
  // expected-error @+1 {{result 0 of @main is 'tuple<tensor<8xf32>, tensor<8xf32>>': a tuple; comm imports tensors: return its elements as results of their own}}
  "func.func"() <{function_type = (tensor<8xf32>) -> tuple<tensor<8xf32>, tensor<8xf32>>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<8xf32>):
    %0 = "stablehlo.tuple"(%arg0, %arg0) : (tensor<8xf32>, tensor<8xf32>) -> tuple<tensor<8xf32>, tensor<8xf32>>
    "func.return"(%0) : (tuple<tensor<8xf32>, tensor<8xf32>>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 4 : i32} : () -> ()

// -----

// jax.debug.print: a custom call with no result, named by its target.
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<8xf32>) -> tensor<8xf32>, sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<8xf32>):
    // expected-error @+1 {{'stablehlo.custom_call' @xla_ffi_python_cpu_callback has no comm equivalent; it returns nothing, so it runs for a side effect (a host callback such as jax.debug.print or io_callback), which comm's programs do not have: take it out of the step}}
    "stablehlo.custom_call"(%arg0) <{api_version = 1 : i32, backend_config = "", call_target_name = "xla_ffi_python_cpu_callback", has_side_effect = true}> : (tensor<8xf32>) -> ()
    "func.return"(%arg0) : (tensor<8xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 4 : i32} : () -> ()
