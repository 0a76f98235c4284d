func.func @f(%x: memref<4xf32>) {
  %0 = "comm.all_reduce"(%x) <{groups = #comm.groups<[[0, 1]]>, kind = #comm<reduction sum>}> : (memref<4xf32>) -> memref<4xf32>
  return
}
