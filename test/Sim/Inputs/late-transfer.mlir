// A transfer 40 s into the step: at 4e7 us the clock's steps are 7.5e-9 us,
// and the all_reduce's last residue once fell between two of them, so the
// simulator stopped with "the simulated clock is too large to advance"
// (test/Sim/errors.test). 35 s to 60 s and 300 s failed so; 20 s passed.
func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = comm.compute "slow"(%x) time_us 4.0e7 : (tensor<8xf32>) -> tensor<8xf32>
  %0 = comm.all_reduce sum %y over [[0, 1]] : tensor<8xf32>
  return %0 : tensor<8xf32>
}
