// RUN: comm-opt %s | comm-opt | FileCheck %s
// RUN: comm-opt %s --mlir-print-op-generic | comm-opt | FileCheck %s

// Every op of the dialect, printed, parsed again and printed again. The
// second RUN line goes through the generic form, which checks that the
// attributes themselves (#comm.groups, #comm.plan, enums) round-trip.

module attributes {comm.world_size = 8 : i64} {

// CHECK-LABEL: func.func @collectives
func.func @collectives(%x: tensor<1024xf32>, %y: tensor<8x2xi32>,
                       %z: tensor<16x16xbf16>) {
  // CHECK: comm.all_reduce sum %{{.*}} over {{\[}}[0, 1, 2, 3], [4, 5, 6, 7]] : tensor<1024xf32>
  %0 = comm.all_reduce sum %x over [[0, 1, 2, 3], [4, 5, 6, 7]] : tensor<1024xf32>
  // CHECK: comm.all_reduce max %{{.*}} over {{\[}}[0, 1], [2, 3]] plan <algorithm = ring, channels = 4> : tensor<16x16xbf16>
  %1 = comm.all_reduce max %z over [[0, 1], [2, 3]] plan <algorithm = ring, channels = 4> : tensor<16x16xbf16>
  // CHECK: comm.all_reduce avg
  %2 = comm.all_reduce avg %x over [[0, 1]] : tensor<1024xf32>
  // CHECK: comm.all_reduce and {{.*}} : tensor<8x2xi32>
  %3 = comm.all_reduce and %y over [[0, 1]] : tensor<8x2xi32>
  // CHECK: comm.all_reduce or
  %4 = comm.all_reduce or %y over [[0, 1]] : tensor<8x2xi32>
  // CHECK: comm.all_reduce xor
  %5 = comm.all_reduce xor %y over [[0, 1]] : tensor<8x2xi32>
  // CHECK: comm.all_reduce prod
  %6 = comm.all_reduce prod %y over [[0, 1]] : tensor<8x2xi32>
  // CHECK: comm.all_reduce min
  %7 = comm.all_reduce min %x over [[0, 1]] : tensor<1024xf32>
  // CHECK: comm.reduce_scatter sum %{{.*}} over {{\[}}[0, 1, 2, 3]] dim 0 : tensor<1024xf32> -> tensor<256xf32>
  %8 = comm.reduce_scatter sum %x over [[0, 1, 2, 3]] dim 0 : tensor<1024xf32> -> tensor<256xf32>
  // CHECK: comm.reduce_scatter max %{{.*}} dim 1 : tensor<8x2xi32> -> tensor<8x1xi32>
  %9 = comm.reduce_scatter max %y over [[0, 1], [2, 3]] dim 1 : tensor<8x2xi32> -> tensor<8x1xi32>
  // CHECK: comm.all_gather %{{.*}} over {{\[}}[0, 1, 2, 3]] dim 0 : tensor<256xf32> -> tensor<1024xf32>
  %10 = comm.all_gather %8 over [[0, 1, 2, 3]] dim 0 : tensor<256xf32> -> tensor<1024xf32>
  // CHECK: comm.all_to_all %{{.*}} over {{\[}}[0, 1, 2, 3]] split 0 concat 1 : tensor<8x2xi32> -> tensor<2x8xi32>
  %11 = comm.all_to_all %y over [[0, 1, 2, 3]] split 0 concat 1 : tensor<8x2xi32> -> tensor<2x8xi32>
  // CHECK: comm.all_to_all %{{.*}} split 0 concat 0 : tensor<8x2xi32> -> tensor<8x2xi32>
  %12 = comm.all_to_all %y over [[0, 1]] split 0 concat 0 : tensor<8x2xi32> -> tensor<8x2xi32>
  // CHECK: comm.broadcast %{{.*}} over {{\[}}[0, 1, 2, 3]] root 2 : tensor<1024xf32>
  %13 = comm.broadcast %x over [[0, 1, 2, 3]] root 2 : tensor<1024xf32>
  // CHECK: comm.reduce sum %{{.*}} over {{\[}}[4, 5, 6, 7]] root 0 plan <algorithm = tree> : tensor<8x2xi32>
  %14 = comm.reduce sum %y over [[4, 5, 6, 7]] root 0 plan <algorithm = tree> : tensor<8x2xi32>
  // CHECK: comm.permute %{{.*}} pairs {{\[}}[0, 1], [1, 2], [2, 3], [3, 0]] : tensor<1024xf32>
  %15 = comm.permute %x pairs [[0, 1], [1, 2], [2, 3], [3, 0]] : tensor<1024xf32>
  // CHECK: comm.barrier over {{\[}}[0, 1, 2, 3, 4, 5, 6, 7]]
  comm.barrier over [[0, 1, 2, 3, 4, 5, 6, 7]]
  // CHECK: comm.barrier over {{\[}}[0, 1], [2, 3]] plan <algorithm = halving_doubling>
  comm.barrier over [[0, 1], [2, 3]] plan <algorithm = halving_doubling>
  return
}

// CHECK-LABEL: func.func @point_to_point
func.func @point_to_point(%x: tensor<256xf16>) -> tensor<256xf16> {
  // CHECK: comm.send %{{.*}} to {{\[}}[0, 1], [2, 3]] tag 7 : tensor<256xf16>
  comm.send %x to [[0, 1], [2, 3]] tag 7 : tensor<256xf16>
  // CHECK: comm.recv from {{\[}}[0, 1], [2, 3]] tag 7 plan <route = nvlink> : tensor<256xf16>
  %0 = comm.recv from [[0, 1], [2, 3]] tag 7 plan <route = nvlink> : tensor<256xf16>
  return %0 : tensor<256xf16>
}

// CHECK-LABEL: func.func @copies
func.func @copies(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  // CHECK: comm.copy %{{.*}} hbm to pinned_host : tensor<1024xf32>
  %0 = comm.copy %x hbm to pinned_host : tensor<1024xf32>
  // CHECK: comm.copy %{{.*}} pinned_host to host : tensor<1024xf32>
  %1 = comm.copy %0 pinned_host to host : tensor<1024xf32>
  // CHECK: comm.copy %{{.*}} host to hbm plan <route = pcie, stream = 2> : tensor<1024xf32>
  %2 = comm.copy %1 host to hbm plan <route = pcie, stream = 2> : tensor<1024xf32>
  return %2 : tensor<1024xf32>
}

// CHECK-LABEL: func.func @buffers
func.func @buffers(%a: tensor<64xf32>, %b: tensor<8x8xf32>) -> (tensor<64xf32>, tensor<8x8xf32>) {
  // CHECK: %[[BUF:.*]] = comm.pack %{{.*}}, %{{.*}} offsets [0, 64] : tensor<64xf32>, tensor<8x8xf32> -> tensor<128xf32>
  %0 = comm.pack %a, %b offsets [0, 64] : tensor<64xf32>, tensor<8x8xf32> -> tensor<128xf32>
  // CHECK: comm.pack %{{.*}}, %{{.*}} offsets [72, 0] : tensor<64xf32>, tensor<8x8xf32> -> tensor<136xbf16>
  %1 = comm.pack %a, %b offsets [72, 0] : tensor<64xf32>, tensor<8x8xf32> -> tensor<136xbf16>
  // CHECK: comm.unpack %[[BUF]] offsets [0, 64] : tensor<128xf32> -> tensor<64xf32>, tensor<8x8xf32>
  %2:2 = comm.unpack %0 offsets [0, 64] : tensor<128xf32> -> tensor<64xf32>, tensor<8x8xf32>
  // CHECK: comm.unpack %{{.*}} offsets [72, 0] : tensor<136xbf16> -> tensor<64xf32>, tensor<8x8xf32>
  %3:2 = comm.unpack %1 offsets [72, 0] : tensor<136xbf16> -> tensor<64xf32>, tensor<8x8xf32>
  // CHECK: comm.pack %{{.*}}, %{{.*}} offsets [0, 16] blocks 4 : tensor<64xf32>, tensor<8x8xf32> -> tensor<128xf32>
  %4 = comm.pack %a, %b offsets [0, 16] blocks 4 : tensor<64xf32>, tensor<8x8xf32> -> tensor<128xf32>
  // CHECK: comm.unpack %{{.*}} offsets [0, 16] blocks 4 : tensor<128xf32> -> tensor<64xf32>, tensor<8x8xf32>
  %5:2 = comm.unpack %4 offsets [0, 16] blocks 4 : tensor<128xf32> -> tensor<64xf32>, tensor<8x8xf32>
  return %2#0, %3#1 : tensor<64xf32>, tensor<8x8xf32>
}

// CHECK-LABEL: func.func @compute_and_async
func.func @compute_and_async(%x: tensor<1024xf32>, %w: tensor<32x32xf32>) -> (tensor<1024xf32>, tensor<32x32xf32>) {
  // CHECK: %[[TOK:.*]] = comm.start {
  // CHECK-NEXT: %[[R:.*]] = comm.all_reduce sum
  // CHECK-NEXT: comm.yield %[[R]] : tensor<1024xf32>
  // CHECK-NEXT: }
  %t = comm.start {
    %0 = comm.all_reduce sum %x over [[0, 1, 2, 3]] : tensor<1024xf32>
    comm.yield %0 : tensor<1024xf32>
  }
  // CHECK: comm.compute "gemm"(%{{.*}}) flops 2.000000e+09 bytes 8192 : (tensor<32x32xf32>) -> tensor<32x32xf32>
  %c = comm.compute "gemm"(%w) flops 2.0e9 bytes 8192 : (tensor<32x32xf32>) -> tensor<32x32xf32>
  // CHECK: comm.compute "optimizer"() time_us 1.250000e+01 : () -> ()
  comm.compute "optimizer"() time_us 12.5 : () -> ()
  // CHECK: comm.wait %[[TOK]] : tensor<1024xf32>
  %r = comm.wait %t : tensor<1024xf32>
  // CHECK: %[[T2:.*]] = comm.start {
  // CHECK-NEXT: comm.send
  // CHECK-NEXT: comm.yield
  // CHECK-NEXT: }
  %t2 = comm.start {
    comm.send %x to [[0, 1]] tag 0 : tensor<1024xf32>
    comm.yield
  }
  // CHECK: comm.wait %[[T2]]{{$}}
  comm.wait %t2
  return %r, %c : tensor<1024xf32>, tensor<32x32xf32>
}

// CHECK-LABEL: func.func @plans
func.func @plans(%x: tensor<1024xf32>) {
  // CHECK: plan <algorithm = hierarchical, protocol = ll128, channels = 8, chunk_bytes = 1048576, precision = bf16, route = gdr, stream = 1>
  %0 = comm.all_reduce sum %x over [[0, 1, 2, 3, 4, 5, 6, 7]] plan <stream = 1, route = gdr, precision = bf16, chunk_bytes = 1048576, channels = 8, protocol = ll128, algorithm = hierarchical> : tensor<1024xf32>
  // CHECK: plan <algorithm = nvls, protocol = ll> : tensor<1024xf32>
  %1 = comm.all_reduce sum %x over [[0, 1, 2, 3]] plan <algorithm = nvls, protocol = ll> : tensor<1024xf32>
  // CHECK: plan <precision = f16, route = host_staged>
  %2 = comm.all_gather %x over [[0, 1]] dim 0 plan <precision = f16, route = host_staged> : tensor<1024xf32> -> tensor<2048xf32>
  // CHECK: plan <algorithm = direct, protocol = simple>
  %3 = comm.all_to_all %x over [[0, 1]] split 0 concat 0 plan <algorithm = direct, protocol = simple> : tensor<1024xf32> -> tensor<1024xf32>
  // CHECK: plan <> : tensor<1024xf32>
  %4 = comm.broadcast %x over [[0, 1]] root 0 plan <> : tensor<1024xf32>
  return
}

// CHECK-LABEL: func.func @attributes
// CHECK-SAME: test.groups = #comm.groups<{{\[}}[0, 2], [1, 3]]>
// CHECK-SAME: test.kind = #comm<reduction xor>
// CHECK-SAME: test.plan = #comm.plan<algorithm = tree>
// CHECK-SAME: test.space = #comm<memory_space pinned_host>
func.func @attributes() attributes {
    test.groups = #comm.groups<[[0, 2], [1, 3]]>,
    test.kind = #comm<reduction xor>,
    test.plan = #comm.plan<algorithm = tree>,
    test.space = #comm<memory_space pinned_host>} {
  return
}

// CHECK-LABEL: func.func @token_type
// CHECK-SAME: !comm.token
func.func @token_type(%t: !comm.token) {
  comm.wait %t
  return
}

// CHECK-LABEL: func.func @rotate
func.func @rotate(%x: tensor<16xf32>) -> tensor<16xf32> {
  // CHECK: %[[R:.*]] = comm.rotate %{{.*}} over {{\[\[}}0, 1, 2, 3]] shift 0 : tensor<16xf32>
  %0 = comm.rotate %x over [[0, 1, 2, 3]] shift 0 : tensor<16xf32>
  // CHECK: comm.rotate %[[R]] over {{\[\[}}0, 1], [2, 3]] shift 1 inverse : tensor<16xf32>
  %1 = comm.rotate %0 over [[0, 1], [2, 3]] shift 1 inverse : tensor<16xf32>
  return %1 : tensor<16xf32>
}

// CHECK-LABEL: func.func @compute_part
func.func @compute_part(%x: tensor<8x4xf32>) -> tensor<2x4xf32> {
  // CHECK: comm.compute "mlp"(%{{.*}}) flops 1.000000e+06 part [1, 4] rowwise : (tensor<8x4xf32>) -> tensor<2x4xf32>
  %0 = comm.compute "mlp"(%x) flops 1.0e+06 part [1, 4] rowwise : (tensor<8x4xf32>) -> tensor<2x4xf32>
  // CHECK: comm.compute "mlp"(%{{.*}}) flops 1.000000e+06 part [1, 4] rotated over {{\[\[}}3, 2, 1, 0]] rowwise : (tensor<8x4xf32>) -> tensor<2x4xf32>
  %r = comm.compute "mlp"(%x) flops 1.0e+06 part [1, 4] rotated over [[3, 2, 1, 0]] rowwise : (tensor<8x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

}
