// One comm.start holding two 4 MiB all_reduces, then 1000 us of compute:
// the second runs after the first on the stream, both under the compute.
module attributes {comm.topology = "dgx-h100"} {
  func.func @step(%a: tensor<1048576xf32>, %b: tensor<1048576xf32>, %w: tensor<64xf32>) -> (tensor<1048576xf32>, tensor<1048576xf32>) {
    %t = comm.start {
      %x = comm.all_reduce sum %a over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<1048576xf32>
      %y = comm.all_reduce sum %b over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<1048576xf32>
      comm.yield %x, %y : tensor<1048576xf32>, tensor<1048576xf32>
    }
    comm.compute "backward"(%w) time_us 1000.0 : (tensor<64xf32>) -> ()
    %x, %y = comm.wait %t : tensor<1048576xf32>, tensor<1048576xf32>
    return %x, %y : tensor<1048576xf32>, tensor<1048576xf32>
  }
}
