#!/bin/sh
# Runs FailureTest with 4 ranks in one mode and checks how the job ended:
# the exit code, the messages, and that the ranks ended promptly (a hang is
# caught by `timeout` and fails the test).
#   run-failure-test.sh MODE MPIEXEC NUMPROC_FLAG "EXTRA_FLAGS" EXECUTABLE
mode=$1 mpiexec=$2 npflag=$3 flags=$4 exe=$5
fail() { echo "FAIL ($mode): $*"; exit 1; }

start=$(date +%s%N)
# shellcheck disable=SC2086
out=$(timeout 45 "$mpiexec" $npflag 4 $flags "$exe" "$mode" 2>&1)
rc=$?
elapsed=$(( ($(date +%s%N) - start) / 1000000 ))
echo "$out"
echo "--- mode $mode: exit code $rc after $elapsed ms"
[ "$rc" -eq 124 ] && fail "the job hung (killed by timeout after 45 s)"

case $mode in
timeout-abort)
  [ "$rc" -ne 0 ] || fail "exit code is 0; the timeout must end the job"
  echo "$out" | grep -q "commrt: all_reduce on group \[0, 1, 2, 3\] timed out after 1000 ms on rank [013] (waiting for ranks that did not join" ||
    fail "no timeout message naming op, group and rank"
  echo "$out" | grep -q "^\[commrt rank [013]\] commrt: all_reduce" ||
    fail "the message is not prefixed with the rank"
  for waited in $(echo "$out" | sed -n 's/.*waited \([0-9]*\) ms.*/\1/p'); do
    [ "$waited" -lt 2000 ] || fail "a rank waited $waited ms (> 2x the timeout)"
  done
  [ "$elapsed" -lt 15000 ] || fail "the job took $elapsed ms to end"
  ;;
timeout-return)
  [ "$rc" -eq 0 ] || fail "exit code $rc; the ranks must recover and finalize"
  for r in 0 1 3; do
    echo "$out" | grep -q "rank $r: COMMRT_ERROR_TIMEOUT after .* on rank $r (waiting" ||
      fail "rank $r did not report the timeout"
  done
  [ "$(echo "$out" | grep -c 'timeout-return: [0-9]* checks, 0 failures')" -eq 4 ] ||
    fail "not every rank passed its checks"
  ;;
abort)
  [ "$rc" -ne 0 ] || fail "exit code is 0; commrt_abort must end the job"
  echo "$out" | grep -q "^\[commrt rank 1\] commrt_abort: rank 1 gives up on purpose" ||
    fail "no abort message from rank 1"
  echo "$out" | grep -q "returned" && fail "a rank went on after the abort"
  [ "$elapsed" -lt 15000 ] || fail "the job took $elapsed ms to end"
  ;;
*)
  fail "unknown mode"
  ;;
esac
echo "PASS ($mode)"
