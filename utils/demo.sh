#!/usr/bin/env bash
# The main job on built-in defaults: installs what is missing, builds, then
#  1. shows the machine the example is planned for (a DGX H100),
#  2. prints the program after comm's planning pipeline (examples/
#     grad_step.mlir: async overlap, fused small gradients and bf16 on the
#     wire written by hand; the pipeline checks it against the machine and
#     chooses every collective's algorithm and protocol),
#  3. simulates the planned and the unplanned program on that machine and
#     prints the predicted gain,
#  4. compiles the planned program for cpu-mpi with a harness, runs it on 4
#     local ranks and checks its results against the unplanned program.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
comm_install_packages
comm_build comm-opt comm-topo comm-sim comm-compile commrt
bin="$COMM_BUILD/bin"
planned="$COMM_ROOT/examples/grad_step.mlir"
reference="$COMM_ROOT/examples/grad_step.ref.mlir"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

comm_log "1. the machine: comm-topo matrix --topology dgx-h100"
"$bin/comm-topo" matrix --topology dgx-h100

comm_log "2. the plan: comm-opt --comm-plan=\"topology=dgx-h100\" examples/grad_step.mlir"
"$bin/comm-opt" --mlir-print-op-on-diagnostic=false \
  --comm-plan="topology=dgx-h100" "$planned" | tee "$COMM_BUILD/demo-planned.mlir"

comm_log "3. simulated on dgx-h100: comm-sim run (planned, then unplanned)"
"$bin/comm-sim" run "$COMM_BUILD/demo-planned.mlir" --topology dgx-h100 | tee "$COMM_BUILD/demo-planned.txt" | head -5
"$bin/comm-sim" run "$reference" --topology dgx-h100 | tee "$COMM_BUILD/demo-reference.txt" | head -5
planned_us=$(awk '/step time/ {print $3}' "$COMM_BUILD/demo-planned.txt")
reference_us=$(awk '/step time/ {print $3}' "$COMM_BUILD/demo-reference.txt")
awk -v p="$planned_us" -v r="$reference_us" \
  'BEGIN { printf "[comm] simulated step: %.2f us planned vs %.2f us unplanned: %.2fx faster\n", p, r, r / p }' >&2

comm_log "4. compiled for cpu-mpi and run on 4 local ranks against the unplanned program"
mkdir -p "$COMM_BUILD/demo"
"$bin/comm-compile" "$planned" --topology dgx-h100 --target cpu-mpi \
  --emit-harness --reference "$reference" -o "$COMM_BUILD/demo/grad_step"
mpirun -np 4 --oversubscribe "$COMM_BUILD/demo/grad_step" --iterations 10
