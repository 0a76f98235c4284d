// RUN: comm-opt %s --comm-verify-schedule -split-input-file -verify-diagnostics | FileCheck %s

// Schedules that match: rings of sends and receives, collectives over
// several groupings, async transfers on one stream, a loop, a call.
module attributes {comm.world_size = 4 : i64} {
  // CHECK-LABEL: func.func @ring
  func.func @ring(%x: tensor<64xf32>) -> tensor<64xf32> {
    comm.send %x to [[0, 1], [1, 2], [2, 3], [3, 0]] tag 1 : tensor<64xf32>
    %r = comm.recv from [[0, 1], [1, 2], [2, 3], [3, 0]] tag 1 : tensor<64xf32>
    %a = comm.all_reduce sum %r over [[0, 1], [2, 3]] : tensor<64xf32>
    %b = comm.all_reduce sum %a over [[0, 2], [1, 3]] : tensor<64xf32>
    %p = comm.permute %b pairs [[0, 3], [3, 0]] : tensor<64xf32>
    return %p : tensor<64xf32>
  }
  func.func private @helper(%x: tensor<64xf32>) -> tensor<64xf32> {
    %0 = comm.all_gather %x over [[0, 1, 2, 3]] dim 0 : tensor<64xf32> -> tensor<256xf32>
    %1 = comm.reduce_scatter sum %0 over [[0, 1, 2, 3]] dim 0 : tensor<256xf32> -> tensor<64xf32>
    return %1 : tensor<64xf32>
  }
  // CHECK-LABEL: func.func @async
  func.func @async(%x: tensor<64xf32>) -> tensor<64xf32> {
    %c0 = arith.constant 0 : index
    %c3 = arith.constant 3 : index
    %c1 = arith.constant 1 : index
    %t = comm.start {
      %0 = comm.all_reduce sum %x over [[0, 1, 2, 3]] : tensor<64xf32>
      %1 = comm.all_reduce max %x over [[0, 1, 2, 3]] : tensor<64xf32>
      comm.yield %0 : tensor<64xf32>
    }
    scf.for %i = %c0 to %c3 step %c1 {
      %h = func.call @helper(%x) : (tensor<64xf32>) -> tensor<64xf32>
    }
    %r = comm.wait %t : tensor<64xf32>
    return %r : tensor<64xf32>
  }
}

// -----

module attributes {comm.world_size = 4 : i64} {
  func.func @send_without_receive(%x: tensor<64xf32>) {
    // expected-error @+1 {{rank 2's comm.send to rank 3 (tag 4) is never received: a send without its receive}}
    comm.send %x to [[0, 1], [2, 3]] tag 4 : tensor<64xf32>
    %r = comm.recv from [[0, 1]] tag 4 : tensor<64xf32>
    return
  }
}

// -----

module attributes {comm.world_size = 2 : i64} {
  func.func @receive_without_send(%x: tensor<64xf32>) -> tensor<64xf32> {
    // expected-error @+1 {{rank 1 waits here to receive from rank 0 (tag 2), but rank 0 finished without sending it (tag 2): a receive without its send}}
    %r = comm.recv from [[0, 1]] tag 2 : tensor<64xf32>
    return %r : tensor<64xf32>
  }
}

// -----

module attributes {comm.world_size = 2 : i64} {
  func.func @wrong_type(%x: tensor<64xf32>) -> tensor<32xf32> {
    // expected-note @+1 {{the matching comm.send}}
    comm.send %x to [[0, 1]] tag 2 : tensor<64xf32>
    // expected-error @+1 {{rank 1 receives 'tensor<32xf32>' from rank 0 (tag 2), but the matching comm.send sends 'tensor<64xf32>'}}
    %r = comm.recv from [[0, 1]] tag 2 : tensor<32xf32>
    return %r : tensor<32xf32>
  }
}

// -----

// Both ends of a transfer must agree on the wire type a plan gives it.
module attributes {comm.world_size = 2 : i64} {
  func.func @negative_wire_precision(%x: tensor<64xf32>) -> tensor<64xf32> {
    // expected-note @+1 {{the matching comm.send}}
    comm.send %x to [[0, 1]] tag 2 plan <precision = bf16> : tensor<64xf32>
    // expected-error @+1 {{rank 1 receives from rank 0 (tag 2) as f32 (no plan precision) on the wire, but the matching comm.send sends bf16}}
    %r = comm.recv from [[0, 1]] tag 2 : tensor<64xf32>
    return %r : tensor<64xf32>
  }
}

// -----

// Each rank receives before it sends: both wait forever.
module attributes {comm.world_size = 2 : i64} {
  func.func @cycle(%x: tensor<64xf32>) -> tensor<64xf32> {
    // expected-error @+2 {{deadlock, a cycle of waits: rank 0 waits here to receive from rank 1 (tag 0)}}
    // expected-note @+1 {{rank 1 waits here to receive from rank 0 (tag 0)}}
    %r = comm.recv from [[0, 1], [1, 0]] tag 0 : tensor<64xf32>
    comm.send %x to [[0, 1], [1, 0]] tag 0 : tensor<64xf32>
    return %r : tensor<64xf32>
  }
}

// -----

// Rank 0 waits to receive what rank 1 sends only after a collective that
// waits for rank 0.
module attributes {comm.world_size = 2 : i64} {
  func.func @cycle_through_collective(%x: tensor<64xf32>) -> tensor<64xf32> {
    // expected-error @+1 {{deadlock, a cycle of waits: rank 0 waits here to receive from rank 1 (tag 3)}}
    %r = comm.recv from [[1, 0]] tag 3 : tensor<64xf32>
    // expected-note @+1 {{rank 1 waits here for rank 0 to join the collective}}
    %a = comm.all_reduce sum %x over [[0, 1]] : tensor<64xf32>
    comm.send %a to [[1, 0]] tag 3 : tensor<64xf32>
    return %r : tensor<64xf32>
  }
}

// -----

// Two collectives over the same ranks in flight at once on two streams:
// the GPUs may run them in different orders.
module attributes {comm.world_size = 4 : i64} {
  func.func @crossed(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
    %t = comm.start {
      // expected-note @+1 {{the other collective}}
      %0 = comm.all_reduce sum %x over [[0, 1, 2, 3]] plan <stream = 1> : tensor<64xf32>
      comm.yield %0 : tensor<64xf32>
    }
    %u = comm.start {
      // expected-error @+1 {{crossed collective order: this collective (stream 2) and another one over shared ranks (stream 1) are in flight at once, so the ranks may run them in different orders}}
      %1 = comm.all_reduce max %x over [[0, 1], [2, 3]] plan <stream = 2> : tensor<64xf32>
      comm.yield %1 : tensor<64xf32>
    }
    %a = comm.wait %t : tensor<64xf32>
    %b = comm.wait %u : tensor<64xf32>
    return %a, %b : tensor<64xf32>, tensor<64xf32>
  }
}

// -----

// A blocking collective on the backend's own stream while one on stream 1
// is in flight crosses it as a started one would.
module attributes {comm.world_size = 4 : i64} {
  func.func @negative_blocking_crosses_started(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
    %t = comm.start {
      // expected-note @+1 {{the other collective}}
      %0 = comm.all_reduce sum %x over [[0, 1, 2, 3]] plan <stream = 1> : tensor<64xf32>
      comm.yield %0 : tensor<64xf32>
    }
    // expected-error @+1 {{crossed collective order: this collective (the backend's own stream) and another one over shared ranks (stream 1) are in flight at once}}
    %b = comm.all_reduce max %x over [[0, 1, 2, 3]] : tensor<64xf32>
    %a = comm.wait %t : tensor<64xf32>
    return %a, %b : tensor<64xf32>, tensor<64xf32>
  }
}

// -----

// The other way round: a blocking collective runs on its plan's stream.
module attributes {comm.world_size = 4 : i64} {
  func.func @negative_blocking_on_stream(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
    %t = comm.start {
      // expected-note @+1 {{the other collective}}
      %0 = comm.all_reduce sum %x over [[0, 1, 2, 3]] : tensor<64xf32>
      comm.yield %0 : tensor<64xf32>
    }
    // expected-error @+1 {{crossed collective order: this collective (stream 1) and another one over shared ranks (the backend's own stream) are in flight at once}}
    %b = comm.all_reduce max %x over [[0, 1, 2, 3]] plan <stream = 1> : tensor<64xf32>
    %a = comm.wait %t : tensor<64xf32>
    return %a, %b : tensor<64xf32>, tensor<64xf32>
  }
}

// -----

// Blocking collectives on another stream before the start and after the
// wait do not cross it; nor does one over other ranks while it flies.
module attributes {comm.world_size = 4 : i64} {
  // CHECK-LABEL: func.func @blocking_around_started
  func.func @blocking_around_started(%x: tensor<64xf32>) -> tensor<64xf32> {
    %a = comm.all_reduce max %x over [[0, 1, 2, 3]] plan <stream = 1> : tensor<64xf32>
    %t = comm.start {
      %0 = comm.all_reduce sum %a over [[0, 1], [2, 3]] : tensor<64xf32>
      comm.yield %0 : tensor<64xf32>
    }
    %b = comm.all_reduce max %x over [[0, 2], [1, 3]] plan <stream = 1> : tensor<64xf32>
    %c = comm.wait %t : tensor<64xf32>
    %d = comm.all_reduce max %c over [[0, 1, 2, 3]] plan <stream = 1> : tensor<64xf32>
    return %d : tensor<64xf32>
  }
}

// -----

// A loop whose trip count is known only at run time is checked as one trip
// (every rank runs it equally often); one without transfers is skipped.
module attributes {comm.world_size = 2 : i64} {
  // CHECK-LABEL: func.func @run_time_trips
  func.func @run_time_trips(%x: tensor<64xf32>, %n: index) -> tensor<64xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (tensor<64xf32>) {
      comm.send %a to [[0, 1], [1, 0]] tag 1 : tensor<64xf32>
      %b = comm.recv from [[0, 1], [1, 0]] tag 1 : tensor<64xf32>
      %c = comm.all_reduce sum %b over [[0, 1]] : tensor<64xf32>
      scf.yield %c : tensor<64xf32>
    }
    %s = scf.for %i = %c0 to %n step %c1 iter_args(%a = %r) -> (tensor<64xf32>) {
      %d = arith.addf %a, %a : tensor<64xf32>
      scf.yield %d : tensor<64xf32>
    }
    return %s : tensor<64xf32>
  }
}

// -----

// One trip of a run-time loop must match by itself.
module attributes {comm.world_size = 2 : i64} {
  func.func @negative_run_time_trip(%x: tensor<64xf32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      // expected-error @+1 {{rank 0's comm.send to rank 1 (tag 2) is never received: a send without its receive}}
      comm.send %x to [[0, 1]] tag 2 : tensor<64xf32>
    }
    return
  }
}

// -----

// A branch may differ between ranks: transfers under an scf.if, also in a
// function it calls, cannot be checked.
module attributes {comm.world_size = 2 : i64} {
  func.func private @reduce(%x: tensor<64xf32>) -> tensor<64xf32> {
    %0 = comm.all_reduce sum %x over [[0, 1]] : tensor<64xf32>
    return %0 : tensor<64xf32>
  }
  func.func @negative_branch(%x: tensor<64xf32>, %p: i1) -> tensor<64xf32> {
    // expected-error @+1 {{comm-verify-schedule: cannot check transfers inside 'scf.if'}}
    %r = scf.if %p -> (tensor<64xf32>) {
      %0 = func.call @reduce(%x) : (tensor<64xf32>) -> tensor<64xf32>
      scf.yield %0 : tensor<64xf32>
    } else {
      scf.yield %x : tensor<64xf32>
    }
    return %r : tensor<64xf32>
  }
}
