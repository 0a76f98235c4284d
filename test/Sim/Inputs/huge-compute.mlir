// A compute step whose cost says 10^71 us (a fuzzer found the simulator
// spinning on it): refused with its location (test/Sim/errors.test).
func.func @f(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %y = comm.compute "absurd"(%x) flops 1.3e+80 : (tensor<1024xf32>) -> tensor<1024xf32>
  %r = comm.all_reduce sum %y over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<1024xf32>
  return %r : tensor<1024xf32>
}
