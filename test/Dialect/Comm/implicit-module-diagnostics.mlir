// RUN: comm-opt --comm-check-topology -verify-diagnostics %s
// expected-error@-1 {{no topology: add a 'comm.topology' module attribute}}

// No `module { }` around the function: the error about the module names
// the file's first line (it was at line 0, which no annotation can name).
func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = comm.all_reduce sum %x over [[0, 1]] : tensor<8xf32>
  return %0 : tensor<8xf32>
}
