// A tensor-parallel MLP block on two DGX H100 machines of eight GPUs each:
// activations are gathered inside each machine (over NVLink), the partial
// outputs reduce-scattered back, and each GPU hands its activations to the
// same GPU of the next machine (over the network), the next pipeline stage.
module attributes {comm.topology = "dgx-h100x2", comm.world_size = 16 : i64} {
  func.func @mlp(%x: tensor<512x1024xbf16>, %w_up: tensor<1024x1024xbf16>,
                 %w_down: tensor<1024x1024xbf16>) -> tensor<512x1024xbf16> {
    %full = comm.all_gather %x over [[0, 1, 2, 3, 4, 5, 6, 7], [8, 9, 10, 11, 12, 13, 14, 15]] dim 0
        : tensor<512x1024xbf16> -> tensor<4096x1024xbf16>
    %h = comm.compute "matmul_up"(%full, %w_up) flops 8.6e+09
        : (tensor<4096x1024xbf16>, tensor<1024x1024xbf16>) -> tensor<4096x1024xbf16>
    %y = comm.compute "matmul_down"(%h, %w_down) flops 8.6e+09
        : (tensor<4096x1024xbf16>, tensor<1024x1024xbf16>) -> tensor<4096x1024xbf16>
    %part = comm.reduce_scatter sum %y over [[0, 1, 2, 3, 4, 5, 6, 7], [8, 9, 10, 11, 12, 13, 14, 15]] dim 0
        : tensor<4096x1024xbf16> -> tensor<512x1024xbf16>
    comm.send %part to [[0, 8], [1, 9], [2, 10], [3, 11], [4, 12], [5, 13], [6, 14], [7, 15]] tag 1 : tensor<512x1024xbf16>
    %next = comm.recv from [[0, 8], [1, 9], [2, 10], [3, 11], [4, 12], [5, 13], [6, 14], [7, 15]] tag 1 : tensor<512x1024xbf16>
    %host = comm.copy %next hbm to pinned_host : tensor<512x1024xbf16>
    return %part : tensor<512x1024xbf16>
  }
}
