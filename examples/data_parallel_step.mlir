// One step of data-parallel training on 8 ranks: the backward pass produces
// gradients layer by layer, each is all-reduced (averaged) across the ranks,
// and the optimizer consumes them. The all-reduces of the first layers are
// started asynchronously so they can overlap the backward compute of the
// layers that follow.
module attributes {comm.topology = "dgx-h100", comm.world_size = 8 : i64} {
  func.func @train_step(%act: tensor<64x1024xf32>,
                        %w0: tensor<1024x1024xf32>,
                        %w1: tensor<1024x1024xf32>,
                        %bias: tensor<1024xf32>) -> (tensor<1024x1024xf32>, tensor<1024x1024xf32>, tensor<1024xf32>) {
    %g1 = comm.compute "backward_layer1"(%act, %w1) flops 1.3e+08 bytes 8650752
        : (tensor<64x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
    %t1 = comm.start {
      %r = comm.all_reduce avg %g1 over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<1024x1024xf32>
      comm.yield %r : tensor<1024x1024xf32>
    }
    %g0, %gb = comm.compute "backward_layer0"(%act, %w0) flops 1.3e+08 bytes 8650752
        : (tensor<64x1024xf32>, tensor<1024x1024xf32>) -> (tensor<1024x1024xf32>, tensor<1024xf32>)
    // The small bias gradient travels in the same buffer as the layer-0
    // gradient: one transfer instead of two.
    %buf = comm.pack %g0, %gb offsets [0, 1048576]
        : tensor<1024x1024xf32>, tensor<1024xf32> -> tensor<1049600xf32>
    %red = comm.all_reduce avg %buf over [[0, 1, 2, 3, 4, 5, 6, 7]]
        plan <algorithm = ring, channels = 8> : tensor<1049600xf32>
    %r0, %rb = comm.unpack %red offsets [0, 1048576]
        : tensor<1049600xf32> -> tensor<1024x1024xf32>, tensor<1024xf32>
    %r1 = comm.wait %t1 : tensor<1024x1024xf32>
    // Buckets of one rank would be a no-op: canonicalization removes them.
    %same = comm.all_reduce sum %rb over [[0], [1], [2], [3], [4], [5], [6], [7]] : tensor<1024xf32>
    return %r0, %r1, %same : tensor<1024x1024xf32>, tensor<1024x1024xf32>, tensor<1024xf32>
  }
}
