func.func @f(%x: tensor<4xf32>) -> tensor<4xi32> {
  %0 = "comm.all_reduce"(%x) <{groups = #comm.groups<[[0, 1]]>, kind = #comm<reduction sum>}> : (tensor<4xf32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
