func.func @f(%t: !comm.tokn) {
  return
}
