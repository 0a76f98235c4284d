// RUN: comm-opt %s -split-input-file --allow-unregistered-dialect --convert-shard-to-comm -verify-diagnostics

// expected-error @+1 {{grid @g has a dynamic extent on axis 1; comm needs the number of processes: give every axis a static extent}}
shard.grid @g(shape = 2x?)
func.func @dynamic_grid(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

shard.grid @g(shape = 4)
func.func @generic_reduction(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{uses the 'generic' reduction, which comm cannot express; expected sum, max, min, product, average or a bitwise one}}
  %0 = shard.all_reduce %x on @g grid_axes = [0] reduction = generic : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

shard.grid @g(shape = 4)
func.func @unpartitioned(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'shard.sharding' is a sharding annotation: partition the program first (comm-opt --sharding-propagation --shard-partition) so that every collective is explicit}}
  %s = shard.sharding @g split_axes = [[0]] : !shard.sharding
  %0 = shard.shard %x to %s : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

shard.grid @g(shape = 2x2)
func.func @dynamic_root(%x: tensor<4xf32>, %r: index) -> tensor<4xf32> {
  // expected-error @+1 {{has a dynamic root; comm needs it at compile time}}
  %0 = shard.broadcast %x on @g grid_axes = [1] root = [%r] : (tensor<4xf32>, index) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

shard.grid @g(shape = 4)
func.func @send_to_many(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{sends to one process from each of the other 3 processes of its group; comm pairs every sender with one receiver, so shard's send and recv are imported only on groups of two}}
  %0 = shard.send %x on @g grid_axes = [0] destination = [0] : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

shard.grid @g(shape = 2)
func.func @recv_any(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{receives from any source; comm pairs every receive with one sender: give a source}}
  %0 = shard.recv %x on @g grid_axes = [0] : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

shard.grid @g(shape = 2)
func.func @memref(%x: memref<4xf32>) -> memref<4xf32> {
  // expected-error @+1 {{operates on a memref; comm imports tensor programs (bufferize after importing, with comm-bufferize)}}
  %0 = shard.all_reduce %x on @g grid_axes = [0] : memref<4xf32> -> memref<4xf32>
  return %0 : memref<4xf32>
}

// -----

shard.grid @g(shape = 2)
func.func @widening(%x: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{changes the type from 'tensor<4xf16>' to 'tensor<4xf32>'; comm reduces in the input's type}}
  %0 = shard.all_reduce %x on @g grid_axes = [0] : tensor<4xf16> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

shard.grid @g(shape = 4)
func.func @shift_nothing(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{shifts by 4 along axis 0 of extent 4 without rotate: no process receives anything, which comm cannot express}}
  %0 = shard.shift %x on @g grid_axes = [0] shift_axis = 0 offset = 4 : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

shard.grid @g(shape = 4)
func.func @rank_dependent(%x: tensor<4xf32>) -> index {
  // expected-error @+1 {{'shard.process_linear_index' has no comm equivalent, and its result is used by 'func.return', which comm cannot express without it}}
  %i = shard.process_linear_index on @g : index
  // expected-note @+1 {{used here}}
  return %i : index
}

// -----

shard.grid @g(shape = 4)
func.func @opaque(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-warning @+1 {{'test.unknown' has no cost rule; imported as opaque compute that counts only its memory traffic (32 bytes)}}
  %0 = "test.unknown"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = shard.all_reduce %0 on @g grid_axes = [0] : tensor<4xf32> -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

shard.grid @g(shape = 4)
func.func @dynamic_shape(%x: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+2 {{'comm.all_reduce' op operand #0 must be statically shaped tensor}}
  // expected-error @+1 {{could not be imported: the comm op it becomes is invalid (see above)}}
  %0 = shard.all_reduce %x on @g grid_axes = [0] : tensor<?xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

shard.grid @g(shape = 4)
func.func @halo(%x: tensor<10xf32>) -> tensor<10xf32> {
  // expected-error @+1 {{'shard.update_halo' is part of a halo exchange (a sharding with halo_sizes), which comm does not import yet: it has no op for exchanging halos with neighbours}}
  %0 = shard.update_halo %x on @g split_axes = [[0]] halo_sizes = [1, 1] : tensor<10xf32>
  return %0 : tensor<10xf32>
}
