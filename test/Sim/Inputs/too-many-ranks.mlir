module attributes {comm.topology = "pcie-4gpu"} {
  func.func @f(%x: tensor<1024xf32>) -> tensor<1024xf32> {
    %0 = comm.all_reduce sum %x over [[0, 1, 2, 3, 4, 5]] : tensor<1024xf32>
    return %0 : tensor<1024xf32>
  }
}
