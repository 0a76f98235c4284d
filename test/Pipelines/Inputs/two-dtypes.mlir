// Four layers whose backward makes an f32 and a bf16 gradient each, all
// all-reduced after the backward (test/Pipelines/comm-plan-compare.test).
module attributes {comm.topology = "dgx-h100"} {
func.func @step(%x: tensor<1024xf32>) -> (tensor<1048576xf32>, tensor<1048576xf32>, tensor<1048576xf32>, tensor<1048576xf32>, tensor<1048576xbf16>, tensor<1048576xbf16>, tensor<1048576xbf16>, tensor<1048576xbf16>) {
  %gf32_3, %gbf16_3 = comm.compute "layer3.backward"(%x) time_us 20.0 : (tensor<1024xf32>) -> (tensor<1048576xf32>, tensor<1048576xbf16>)
  %gf32_2, %gbf16_2 = comm.compute "layer2.backward"(%x) time_us 20.0 : (tensor<1024xf32>) -> (tensor<1048576xf32>, tensor<1048576xbf16>)
  %gf32_1, %gbf16_1 = comm.compute "layer1.backward"(%x) time_us 20.0 : (tensor<1024xf32>) -> (tensor<1048576xf32>, tensor<1048576xbf16>)
  %gf32_0, %gbf16_0 = comm.compute "layer0.backward"(%x) time_us 20.0 : (tensor<1024xf32>) -> (tensor<1048576xf32>, tensor<1048576xbf16>)
  %rf32_3 = comm.all_reduce sum %gf32_3 over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<1048576xf32>
  %rbf16_3 = comm.all_reduce sum %gbf16_3 over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<1048576xbf16>
  %rf32_2 = comm.all_reduce sum %gf32_2 over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<1048576xf32>
  %rbf16_2 = comm.all_reduce sum %gbf16_2 over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<1048576xbf16>
  %rf32_1 = comm.all_reduce sum %gf32_1 over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<1048576xf32>
  %rbf16_1 = comm.all_reduce sum %gbf16_1 over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<1048576xbf16>
  %rf32_0 = comm.all_reduce sum %gf32_0 over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<1048576xf32>
  %rbf16_0 = comm.all_reduce sum %gbf16_0 over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<1048576xbf16>
  return %rf32_0, %rf32_1, %rf32_2, %rf32_3, %rbf16_0, %rbf16_1, %rbf16_2, %rbf16_3 : tensor<1048576xf32>, tensor<1048576xf32>, tensor<1048576xf32>, tensor<1048576xf32>, tensor<1048576xbf16>, tensor<1048576xbf16>, tensor<1048576xbf16>, tensor<1048576xbf16>
}
}
