// Two 4 MiB all_reduces in two comm.starts, then 1000 us of compute: both
// run while the compute does.
module attributes {comm.topology = "dgx-h100"} {
  func.func @step(%a: tensor<1048576xf32>, %b: tensor<1048576xf32>, %w: tensor<64xf32>) -> (tensor<1048576xf32>, tensor<1048576xf32>) {
    %t = comm.start {
      %x = comm.all_reduce sum %a over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<1048576xf32>
      comm.yield %x : tensor<1048576xf32>
    }
    %u = comm.start {
      %y = comm.all_reduce sum %b over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<1048576xf32>
      comm.yield %y : tensor<1048576xf32>
    }
    comm.compute "backward"(%w) time_us 1000.0 : (tensor<64xf32>) -> ()
    %x = comm.wait %t : tensor<1048576xf32>
    %y = comm.wait %u : tensor<1048576xf32>
    return %x, %y : tensor<1048576xf32>, tensor<1048576xf32>
  }
}
