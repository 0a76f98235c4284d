#!/bin/sh
# Checks that ptxas accepts the PTX of the commrt CUDA kernels for the
# architecture named in each file (Kernels.sm_80.ptx -> sm_80).
#   run-ptxas-check.sh PTXAS FILE.ptx...
ptxas=$1
shift
[ $# -gt 0 ] || { echo "FAIL: no PTX files"; exit 1; }
for ptx in "$@"; do
  arch=$(basename "$ptx" .ptx | sed 's/.*\.//')
  "$ptxas" -arch="$arch" -o /dev/null "$ptx" || { echo "FAIL: ptxas -arch=$arch $ptx"; exit 1; }
  echo "ptxas -arch=$arch accepts $(basename "$ptx")"
done
