#!/usr/bin/env bash
# The main job on built-in defaults: installs what is missing, builds, then
#  1. shows the machine the example is planned for (a DGX H100),
#  2. plans examples/grad_step.mlir (one f32 all_reduce per gradient, as a
#     framework hands it over) with comm's planning pipeline and prints the
#     plan and what each pass decided,
#  3. simulates the unplanned program, the plan written by hand in
#     examples/grad_step.by-hand.mlir, the plans of the PyTorch DDP, Horovod
#     and XLA baseline strategies and comm's plan on that machine,
#  4. measures this machine's all_reduce (MPI's own and each runtime
#     schedule) and plans the same program for it (the host preset: 4 MPI
#     ranks over shared memory, timed from that measurement), simulates
#     it, compiles it for cpu-mpi with a harness, runs it on 4 local ranks,
#     checks its results against the unplanned program and prints the
#     measured ratio of planned to unplanned from the same run,
#  5. imports a real JAX data-parallel step (StableHLO that jax 0.10.2 wrote,
#     test/Conversion/StableHLOToComm/Inputs/dp_step.gspmd.mlir) with
#     convert-stablehlo-to-comm, plans it for the DGX H100 and simulates it
#     as imported and planned.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
comm_install_packages
comm_build comm-opt comm-topo comm-sim comm-compile commrt comm-bench-algorithms
bin="$COMM_BUILD/bin"
program="$COMM_ROOT/examples/grad_step.mlir"
byhand="$COMM_ROOT/examples/grad_step.by-hand.mlir"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

comm_log "1. the machine: comm-topo matrix --topology dgx-h100"
"$bin/comm-topo" matrix --topology dgx-h100

comm_log "2. the plan: comm-opt --comm-plan=\"topology=dgx-h100 explain=true\" examples/grad_step.mlir"
"$bin/comm-opt" --mlir-print-op-on-diagnostic=false \
  --comm-plan="topology=dgx-h100 explain=true" "$program" \
  -o "$COMM_BUILD/demo-planned.mlir" 2>&1 | grep "remark:" >&2
cat "$COMM_BUILD/demo-planned.mlir"

comm_log "3. simulated on dgx-h100: comm-sim run (unplanned, by hand, each baseline strategy, comm-plan)"
simulate() {
  "$bin/comm-sim" run "$1" --topology dgx-h100 > "$COMM_BUILD/demo-$2.txt"
  awk '/step time/ {print $3}' "$COMM_BUILD/demo-$2.txt"
}
unplanned_us=$(simulate "$program" unplanned)
byhand_us=$(simulate "$byhand" by-hand)
planned_us=$(simulate "$COMM_BUILD/demo-planned.mlir" planned)
awk -v u="$unplanned_us" -v h="$byhand_us" 'BEGIN {
  printf "[comm] simulated step: unplanned %.2f us, by hand %.2f us (%.2fx)\n", u, h, u / h }' >&2
for strategy in ddp horovod xla; do
  "$bin/comm-opt" --comm-plan="topology=dgx-h100 strategy=$strategy" "$program" \
    -o "$COMM_BUILD/demo-$strategy.mlir"
  strategy_us=$(simulate "$COMM_BUILD/demo-$strategy.mlir" "$strategy")
  awk -v u="$unplanned_us" -v s="$strategy_us" -v p="$planned_us" -v n="$strategy" 'BEGIN {
    printf "[comm] simulated step, strategy %-7s %.2f us (%.2fx unplanned); comm-plan gains %.2fx over it\n", n, s, u / s, s / p }' >&2
done
awk -v u="$unplanned_us" -v p="$planned_us" 'BEGIN {
  printf "[comm] simulated step, comm-plan        %.2f us (%.2fx unplanned)\n", p, u / p }' >&2

comm_log "4. the same program planned for this machine (host: 4 MPI ranks over shared memory), compiled for cpu-mpi, run on 4 local ranks against the unplanned program"
"$bin/comm-topo" show --topology host | head -4
params="$COMM_BUILD/demo-host-params.yaml"
comm_log "   measuring this machine first: mpirun -np 4 comm-bench-algorithms --profile --collective all_reduce --write-params (MPI's own all_reduce and each schedule, 256 B to 64 MiB)"
mpirun -np 4 --oversubscribe "$bin/comm-bench-algorithms" --profile --rounds 10 \
  --collective all_reduce --write-params "$params" > "$COMM_BUILD/demo-host-profile.txt"
# The measured times and each schedule's ratio to MPI's own (the table
# ends at the first blank line).
sed -n '/^variant/,/^$/p' "$COMM_BUILD/demo-host-profile.txt" | sed '/^$/d' >&2
"$bin/comm-opt" --mlir-print-op-on-diagnostic=false \
  --comm-plan="topology=host backend=mpi explain=true cost-params=$params" "$program" \
  -o "$COMM_BUILD/demo-host.mlir" 2>&1 | grep "remark:" >&2
host_unplanned_us=$("$bin/comm-sim" run "$program" --topology host --backend mpi --cost-params "$params" | awk '/step time/ {print $3}')
host_planned_us=$("$bin/comm-sim" run "$COMM_BUILD/demo-host.mlir" --topology host --backend mpi --cost-params "$params" | awk '/step time/ {print $3}')
awk -v u="$host_unplanned_us" -v p="$host_planned_us" 'BEGIN {
  printf "[comm] simulated step on host: unplanned %.2f us, comm-plan %.2f us (%.2fx)\n", u, p, u / p }' >&2
mkdir -p "$COMM_BUILD/demo"
"$bin/comm-compile" "$program" --topology host --target cpu-mpi \
  --cost-params "$params" --emit-harness -o "$COMM_BUILD/demo/grad_step"
# Five runs of 100 alternating planned and unplanned steps each: one run's
# ratio moves with where the ranks land on the cores; the median of five
# does not.
: > "$COMM_BUILD/demo-run.txt"
for run in 1 2 3 4 5; do
  mpirun -np 4 --oversubscribe "$COMM_BUILD/demo/grad_step" --iterations 100 |
    tee -a "$COMM_BUILD/demo-run.txt" | grep -E "check|ratio|match"
done
awk '/ratio/ { for (i = 1; i <= NF; ++i) if ($i == "ratio") r[n++] = $(i + 1) }
  END { if (n == 0) exit 1
        for (i = 0; i < n; ++i) for (j = i + 1; j < n; ++j) if (r[j] < r[i]) { t = r[i]; r[i] = r[j]; r[j] = t }
        list = r[0]; for (i = 1; i < n; ++i) list = list ", " r[i]
        m = r[int(n / 2)]
        printf "[comm] measured on 4 local ranks: planned / unplanned = %s, median of %d runs (%s) (%.2fx speed-up)\n", m, n, list, 1 / m }' \
  "$COMM_BUILD/demo-run.txt" >&2

comm_log "5. a JAX program: comm-opt --allow-unregistered-dialect --convert-stablehlo-to-comm (a data-parallel step from jax 0.10.2), planned for dgx-h100"
jax_step="$COMM_ROOT/test/Conversion/StableHLOToComm/Inputs/dp_step.gspmd.mlir"
"$bin/comm-opt" --allow-unregistered-dialect --convert-stablehlo-to-comm \
  "$jax_step" -o "$COMM_BUILD/demo-jax.mlir"
grep -E "func.func|comm\.(all_|reduce|permute|broadcast)" "$COMM_BUILD/demo-jax.mlir" |
  cut -c1-160
"$bin/comm-opt" --comm-plan=topology=dgx-h100 "$COMM_BUILD/demo-jax.mlir" \
  -o "$COMM_BUILD/demo-jax-planned.mlir"
jax_asis_us=$(simulate "$COMM_BUILD/demo-jax.mlir" jax-asis)
jax_planned_us=$(simulate "$COMM_BUILD/demo-jax-planned.mlir" jax-planned)
awk -v u="$jax_asis_us" -v p="$jax_planned_us" 'BEGIN {
  printf "[comm] JAX data-parallel step on dgx-h100: as imported %.2f us, comm-plan %.2f us (%.2fx)\n", u, p, u / p }' >&2
