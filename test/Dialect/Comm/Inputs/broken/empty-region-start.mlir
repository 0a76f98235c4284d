func.func @f() {
  %t = comm.start {
  }
  return
}
