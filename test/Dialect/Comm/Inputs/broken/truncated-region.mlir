func.func @f(%x: tensor<4xf32>) {
  %t = comm.start {
    %0 = comm.all_reduce sum %x over [[0, 1]] : tensor<4xf32>
