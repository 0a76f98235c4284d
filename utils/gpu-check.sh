#!/usr/bin/env bash
# What to run on a machine with a GPU (and the CUDA toolkit with NCCL in
# /usr/local/cuda): builds comm, then runs the tests that need a GPU (the
# runtime's CUDA/NCCL CTests and test/Compile/gpu.test) and the GPU
# benchmark, printing everything it measures. Exits nonzero if a test fails.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
comm_install_packages
comm_build all comm-test-depends comm-bench-pack-bandwidth
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
nvidia-smi -L || true
comm_log "GPU tests"
"${COMM_LLVM_BIN:-/usr/lib/llvm-22/bin}/lit" -v "$COMM_BUILD/test/Compile/gpu.test" \
  "$COMM_BUILD/test/Compile/cuda.test"
# The runtime's CTests, but commrt.backends: it checks what happens on a
# machine without a GPU (nccl refuses to start, auto picks mpi, HBM is
# unavailable), which this machine is not.
comm_log "runtime tests (CUDA and NCCL included)"
ctest --test-dir "$COMM_BUILD/runtime" --output-on-failure -E '^commrt\.backends$'
if [ ! -e /dev/nvidiactl ]; then
  comm_log "warning: no /dev/nvidiactl: gpu.test reports UNSUPPORTED and nothing ran on a GPU"
fi
comm_log "pack kernels against a device-to-device copy"
"$COMM_BUILD/bin/comm-bench-pack-bandwidth" --iterations 20
