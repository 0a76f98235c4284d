// comm-pipeline's plan for host of a 10 GFLOP compute and the all-reduce of
// its result: eight parts, each part's sum started after it and waited at
// the end (comm-opt --comm-plan="topology=host backend=mpi").
module attributes {comm.world_size = 4 : i64} {
  func.func @tp(%arg0: tensor<1024xf32>) -> tensor<1024xf32> {
    %0 = comm.compute "mm"(%arg0) flops 1.250000e+09 part [0, 8] : (tensor<1024xf32>) -> tensor<128xf32>
    %1 = comm.start {
      %24 = comm.all_reduce sum %0 over [[0, 1, 2, 3]] plan <algorithm = tree> : tensor<128xf32>
      comm.yield %24 : tensor<128xf32>
    }
    %2 = comm.compute "mm"(%arg0) flops 1.250000e+09 part [1, 8] : (tensor<1024xf32>) -> tensor<128xf32>
    %3 = comm.start {
      %24 = comm.all_reduce sum %2 over [[0, 1, 2, 3]] plan <algorithm = tree> : tensor<128xf32>
      comm.yield %24 : tensor<128xf32>
    }
    %4 = comm.compute "mm"(%arg0) flops 1.250000e+09 part [2, 8] : (tensor<1024xf32>) -> tensor<128xf32>
    %5 = comm.start {
      %24 = comm.all_reduce sum %4 over [[0, 1, 2, 3]] plan <algorithm = tree> : tensor<128xf32>
      comm.yield %24 : tensor<128xf32>
    }
    %6 = comm.compute "mm"(%arg0) flops 1.250000e+09 part [3, 8] : (tensor<1024xf32>) -> tensor<128xf32>
    %7 = comm.start {
      %24 = comm.all_reduce sum %6 over [[0, 1, 2, 3]] plan <algorithm = tree> : tensor<128xf32>
      comm.yield %24 : tensor<128xf32>
    }
    %8 = comm.compute "mm"(%arg0) flops 1.250000e+09 part [4, 8] : (tensor<1024xf32>) -> tensor<128xf32>
    %9 = comm.start {
      %24 = comm.all_reduce sum %8 over [[0, 1, 2, 3]] plan <algorithm = tree> : tensor<128xf32>
      comm.yield %24 : tensor<128xf32>
    }
    %10 = comm.compute "mm"(%arg0) flops 1.250000e+09 part [5, 8] : (tensor<1024xf32>) -> tensor<128xf32>
    %11 = comm.start {
      %24 = comm.all_reduce sum %10 over [[0, 1, 2, 3]] plan <algorithm = tree> : tensor<128xf32>
      comm.yield %24 : tensor<128xf32>
    }
    %12 = comm.compute "mm"(%arg0) flops 1.250000e+09 part [6, 8] : (tensor<1024xf32>) -> tensor<128xf32>
    %13 = comm.start {
      %24 = comm.all_reduce sum %12 over [[0, 1, 2, 3]] plan <algorithm = tree> : tensor<128xf32>
      comm.yield %24 : tensor<128xf32>
    }
    %14 = comm.compute "mm"(%arg0) flops 1.250000e+09 part [7, 8] : (tensor<1024xf32>) -> tensor<128xf32>
    %15 = comm.all_reduce sum %14 over [[0, 1, 2, 3]] plan <algorithm = tree> : tensor<128xf32>
    %16 = comm.wait %1 : tensor<128xf32>
    %17 = comm.wait %3 : tensor<128xf32>
    %18 = comm.wait %5 : tensor<128xf32>
    %19 = comm.wait %7 : tensor<128xf32>
    %20 = comm.wait %9 : tensor<128xf32>
    %21 = comm.wait %11 : tensor<128xf32>
    %22 = comm.wait %13 : tensor<128xf32>
    %23 = comm.pack %16, %17, %18, %19, %20, %21, %22, %15 offsets [0, 128, 256, 384, 512, 640, 768, 896] : tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32> -> tensor<1024xf32>
    return %23 : tensor<1024xf32>
  }
}
