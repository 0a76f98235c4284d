// A loop of 10^9 all_reduces: refused up front (test/Sim/errors.test).
func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 1000000000 : index
  // The unrolled loop would pass the simulator's step cap.
  scf.for %i = %c0 to %n step %c1 {
    %0 = comm.all_reduce sum %x over [[0, 1]] : tensor<8xf32>
  }
  return %x : tensor<8xf32>
}
