# Sourced by run-failure-test.sh and run-mismatch-test.sh: how long a job may
# take to end.
#
# The ranks of these tests share the machine's cores with whatever else runs
# (in CI, the rest of the test suite beside them), and starting 4 ranks under
# mpirun takes from under a second on an idle machine to several seconds on a
# busy one. A fixed bound on the job's wall time therefore failed on a loaded
# machine without anything being wrong. Instead, measure_startup first runs
# the same executable's "startup" mode (commrt_init, the world's group, a
# barrier, commrt_finalize: a job that does nothing) and records its wall time
# in $startup_ms; ended_within BUDGET then allows the job that many
# milliseconds beyond it. A hang still fails: `timeout` stops the job after
# 45 s and the commrt timeouts under test are 1 to 3 s.
#   measure_startup MPIEXEC NUMPROC_FLAG "EXTRA_FLAGS" EXECUTABLE
#   ended_within BUDGET_MS      (uses $elapsed; calls the script's fail)

now_ms() { echo $(($(date +%s%N) / 1000000)); }

measure_startup() {
  t0=$(now_ms)
  # Without the injected faults and debug modes of the job under test.
  # shellcheck disable=SC2086
  startup_out=$(env -u COMMRT_INJECT -u COMMRT_DEBUG timeout 45 \
    "$1" $2 4 $3 "$4" startup 2>&1) ||
    fail "the startup job (a job that does nothing) failed: $startup_out"
  startup_ms=$(($(now_ms) - t0))
  echo "--- a job that does nothing took $startup_ms ms"
}

ended_within() {
  [ "$elapsed" -lt $((startup_ms + $1)) ] ||
    fail "the job took $elapsed ms to end: more than $1 ms beyond the $startup_ms ms that a job doing nothing took just before"
}
