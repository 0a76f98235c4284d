// A one-rank program for the GPU integration test (test/Compile/gpu.test):
// the pieces of planned schedules on device memory, checked against
// one-rank-schedule.ref.mlir, which computes the same with other kernels: a
// rotation (one chunk: a copy), a scaling by a splat constant (commrt_scale
// against an addition), a rowwise compute in two parts each all-reduced
// (the stand-in on device buffers), joined into a 2-D tensor by a pack.
func.func @pieces(%x: tensor<64x8xf32>, %w: tensor<8x8xf32>) -> tensor<64x8xf32> {
  %r = comm.rotate %x over [[0]] shift 0 : tensor<64x8xf32>
  %f = arith.constant dense<2.000000e+00> : tensor<64x8xf32>
  %h = arith.mulf %r, %f : tensor<64x8xf32>
  %h0, %h1 = comm.unpack %h offsets [0, 256] : tensor<64x8xf32> -> tensor<32x8xf32>, tensor<32x8xf32>
  %p0 = comm.compute "mlp"(%h0, %w) time_us 5.0 part [0, 2] rowwise : (tensor<32x8xf32>, tensor<8x8xf32>) -> tensor<32x8xf32>
  %a0 = comm.all_reduce sum %p0 over [[0]] : tensor<32x8xf32>
  %p1 = comm.compute "mlp"(%h1, %w) time_us 5.0 part [1, 2] rowwise : (tensor<32x8xf32>, tensor<8x8xf32>) -> tensor<32x8xf32>
  %a1 = comm.all_reduce sum %p1 over [[0]] : tensor<32x8xf32>
  %j = comm.pack %a0, %a1 offsets [0, 256] : tensor<32x8xf32>, tensor<32x8xf32> -> tensor<64x8xf32>
  return %j : tensor<64x8xf32>
}
