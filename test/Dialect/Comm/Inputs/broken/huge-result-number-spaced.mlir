// Blanks between a value and its result number: MLIR lexes `#N` as its own
// token, and the guard once read only `%0#N` (comm-opt aborted, out of
// memory).
func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  return %0
      #2147483648 : tensor<8xf32>
}
