func.func @f(%x: i32) {
  "comm.wait"(%x) : (i32) -> ()
  return
}
