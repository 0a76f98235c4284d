// A two-level all_to_all has a formula but no implementation on any
// backend: the simulator rejects the plan as the lowering does.
module attributes {comm.topology = "dgx-h100x2"} {
  func.func @f(%x: tensor<1024xf32>) -> tensor<1024xf32> {
    %0 = comm.all_to_all %x over [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]] split 0 concat 0 plan <algorithm = hierarchical> : tensor<1024xf32> -> tensor<1024xf32>
    return %0 : tensor<1024xf32>
  }
}
