// 10^5 steps of 10^12 us each: each step is allowed, but at 10^17 us the
// clock cannot advance by a transfer's microseconds any more; the simulator
// stops with an error instead of spinning (test/Sim/errors.test).
func.func @f(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 100000 : index
  scf.for %i = %c0 to %n step %c1 {
    %y = comm.compute "long"(%x) time_us 1.0e+12 : (tensor<1024xf32>) -> tensor<1024xf32>
  }
  %r = comm.all_reduce sum %x over [[0, 1, 2, 3, 4, 5, 6, 7]] : tensor<1024xf32>
  return %r : tensor<1024xf32>
}
