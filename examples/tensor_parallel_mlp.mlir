// A tensor-parallel MLP block on two nodes of four GPUs: activations are
// gathered inside each node, the partial outputs reduce-scattered back, and
// the pipeline stages hand activations to the next node point to point.
module attributes {comm.world_size = 8 : i64} {
  func.func @mlp(%x: tensor<512x1024xbf16>, %w_up: tensor<1024x1024xbf16>,
                 %w_down: tensor<1024x1024xbf16>) -> tensor<512x1024xbf16> {
    %full = comm.all_gather %x over [[0, 1, 2, 3], [4, 5, 6, 7]] dim 0
        : tensor<512x1024xbf16> -> tensor<2048x1024xbf16>
    %h = comm.compute "matmul_up"(%full, %w_up) flops 4.3e+09
        : (tensor<2048x1024xbf16>, tensor<1024x1024xbf16>) -> tensor<2048x1024xbf16>
    %y = comm.compute "matmul_down"(%h, %w_down) flops 4.3e+09
        : (tensor<2048x1024xbf16>, tensor<1024x1024xbf16>) -> tensor<2048x1024xbf16>
    %part = comm.reduce_scatter sum %y over [[0, 1, 2, 3], [4, 5, 6, 7]] dim 0
        : tensor<2048x1024xbf16> -> tensor<512x1024xbf16>
    comm.send %part to [[0, 4], [1, 5], [2, 6], [3, 7]] tag 1 : tensor<512x1024xbf16>
    %next = comm.recv from [[0, 4], [1, 5], [2, 6], [3, 7]] tag 1 : tensor<512x1024xbf16>
    %host = comm.copy %next hbm to pinned_host : tensor<512x1024xbf16>
    return %part : tensor<512x1024xbf16>
  }
}
