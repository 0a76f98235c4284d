// A PCIe machine has no NVSwitch: NVLS cannot apply.
module attributes {comm.topology = "pcie-4gpu"} {
  func.func @f(%x: tensor<1048576xf32>) -> tensor<1048576xf32> {
    %0 = comm.all_reduce sum %x over [[0, 1, 2, 3]] : tensor<1048576xf32>
    return %0 : tensor<1048576xf32>
  }
}
