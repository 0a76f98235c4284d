// A 256 MiB all_reduce started on the backend's own stream, then a blocking
// 4 MiB all_reduce and a send/receive pair, then 100 us of compute. On NCCL
// the blocking calls go on that same CUDA stream: they start when the
// started all_reduce has ended, and the compute waits for them.
module attributes {comm.topology = "dgx-h100"} {
  func.func @step(%a: tensor<67108864xf32>, %b: tensor<1048576xf32>, %p: tensor<1024xf32>, %w: tensor<64xf32>) -> (tensor<67108864xf32>, tensor<1048576xf32>, tensor<1024xf32>) {
    %t = comm.start {
      %x = comm.all_reduce sum %a over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<67108864xf32>
      comm.yield %x : tensor<67108864xf32>
    }
    %y = comm.all_reduce sum %b over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<1048576xf32>
    comm.send %p to [[0, 1], [1, 0]] tag 7 : tensor<1024xf32>
    %q = comm.recv from [[0, 1], [1, 0]] tag 7 : tensor<1024xf32>
    comm.compute "backward"(%w) time_us 100.0 : (tensor<64xf32>) -> ()
    %x = comm.wait %t : tensor<67108864xf32>
    return %x, %y, %q : tensor<67108864xf32>, tensor<1048576xf32>, tensor<1024xf32>
  }
}
