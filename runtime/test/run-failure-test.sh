#!/bin/sh
# Runs FailureTest with 4 ranks in one mode and checks how the job ended:
# the exit code, the messages, and that the ranks ended promptly (a hang is
# caught by `timeout` and fails the test).
#   run-failure-test.sh MODE MPIEXEC NUMPROC_FLAG "EXTRA_FLAGS" EXECUTABLE
# The inject-* and sigkill modes set COMMRT_INJECT/COMMRT_DEBUG and run
# FailureTest's inject-broadcast, inject-p2p or sigkill program.
mode=$1 mpiexec=$2 npflag=$3 flags=$4 exe=$5
fail() { echo "FAIL ($mode): $*"; exit 1; }
. "$(dirname "$0")/job-time.sh"
# A rank never came: the others' timeout ended the job with a message
# (pattern $1, naming $2), no rank went on (pattern $3 absent), within 15 s
# beyond what a job doing nothing takes (job-time.sh).
timeout_ended_job() {
  [ "$rc" -ne 0 ] || fail "exit code is 0; the timeout must end the job"
  echo "$out" | grep -q "$1" || fail "no timeout message naming $2"
  echo "$out" | grep -q "$3" && fail "a rank went on after the timeout"
  ended_within 15000
}
# A rank stopped on purpose: the job failed, the rank said so (pattern $1),
# the others' timeout message named it (pattern $2, naming $3), and the job
# ended within 10 s beyond what a job doing nothing takes.
stopped_and_named() {
  [ "$rc" -ne 0 ] || fail "exit code is 0; a rank stopped"
  echo "$out" | grep -q "$1" || fail "the stopped rank did not say it stops"
  echo "$out" | grep -q "$2" || fail "no timeout message naming $3"
  ended_within 10000
}

program=$mode
unset COMMRT_INJECT COMMRT_DEBUG COMMRT_ON_ERROR
case $mode in
inject-exit)
  # Open MPI ends the whole job as soon as a rank exits nonzero; told not
  # to, the other ranks reach commrt's timeout and its message.
  export COMMRT_INJECT=exit:2:3 OMPI_MCA_orte_abort_on_non_zero_status=0
  program=inject-broadcast ;;
inject-exit-mpirun)
  export COMMRT_INJECT=exit:2:3
  program=inject-broadcast ;;
inject-hang)
  export COMMRT_INJECT=hang:1:0
  program=inject-broadcast ;;
inject-init-hang)
  export COMMRT_INJECT=hang:1:init
  program=inject-broadcast ;;
inject-init-hang-return)
  export COMMRT_INJECT=hang:1:init COMMRT_ON_ERROR=return
  program=inject-broadcast ;;
inject-create-hang)
  export COMMRT_INJECT=hang:2:create
  program=inject-broadcast ;;
corrupt-p2p)
  export COMMRT_INJECT=corrupt:0:0
  program=inject-p2p ;;
corrupt-p2p-checksum)
  export COMMRT_INJECT=corrupt:0:0 COMMRT_DEBUG=checksum
  program=inject-p2p ;;
corrupt-broadcast)
  export COMMRT_INJECT=corrupt:0:0
  program=inject-broadcast ;;
corrupt-broadcast-checksum)
  export COMMRT_INJECT=corrupt:0:0 COMMRT_DEBUG=checksum
  program=inject-broadcast ;;
sigkill)
  export OMPI_MCA_orte_abort_on_non_zero_status=0 ;;
esac

measure_startup "$mpiexec" "$npflag" "$flags" "$exe"
start=$(date +%s%N)
if [ "$mode" = sigkill ]; then
  # Kill rank 2 with SIGKILL while every rank runs all_reduces.
  log=$(mktemp)
  # shellcheck disable=SC2086
  timeout 45 "$mpiexec" $npflag 4 $flags "$exe" "$program" >"$log" 2>&1 &
  job=$!
  pid=
  for _ in $(seq 100); do
    pid=$(sed -n 's/^rank 2 pid \([0-9]*\)$/\1/p' "$log")
    [ -n "$pid" ] && break
    sleep 0.1
  done
  [ -n "$pid" ] || { cat "$log"; kill "$job"; fail "rank 2 never printed its pid"; }
  sleep 1
  killed=$(date +%s%N)
  kill -9 "$pid"
  wait "$job"
  rc=$?
  out=$(cat "$log")
  rm -f "$log"
  start=$killed
else
  # shellcheck disable=SC2086
  out=$(timeout 45 "$mpiexec" $npflag 4 $flags "$exe" "$program" 2>&1)
  rc=$?
fi
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
    # The timeout plus, on a busy machine, the time the rank waits to be
    # scheduled (at least as long again).
    bound=$((1000 + (startup_ms > 1000 ? startup_ms : 1000)))
    [ "$waited" -lt "$bound" ] ||
      fail "a rank waited $waited ms (the timeout is 1000 ms; at most $bound allowed here)"
  done
  ended_within 15000
  ;;
timeout-return)
  [ "$rc" -eq 0 ] || fail "exit code $rc; the ranks must recover and finalize"
  for r in 0 1 3; do
    echo "$out" | grep -q "rank $r: COMMRT_ERROR_TIMEOUT after .* on rank $r (waiting" ||
      fail "rank $r did not report the timeout"
  done
  echo "$out" | grep -q "rank 2: COMMRT_ERROR_REMOTE after [0-9]* ms: commrt: all_reduce on group \[0, 1, 2, 3\] on rank 2 failed: rank [013] left the group before this operation" ||
    fail "rank 2, late, was not told that the others gave up"
  [ "$(echo "$out" | grep -c 'timeout-return: [0-9]* checks, 0 failures')" -eq 4 ] ||
    fail "not every rank passed its checks"
  ;;
create-stop)
  timeout_ended_job \
    "^\[commrt rank [012]\] commrt: comm_create of group \[[012], [23]\] (checking that all ranks passed the same groups) timed out after 1000 ms on rank [012] (waiting for ranks that did not join: rank 3 did not answer within [0-9]* ms (exited, killed, or stopped outside commrt)" \
    "comm_create and rank 3" "returned instead\|was not aborted"
  ;;
init-late)
  timeout_ended_job \
    "^\[commrt rank [023]\] commrt: commrt_init (roll calls) timed out after 1000 ms on rank [023] (waiting for ranks that have not called commrt_init or ended before it; which ones cannot be asked before this first step" \
    "commrt_init's first step" "was not aborted"
  ;;
abort)
  [ "$rc" -ne 0 ] || fail "exit code is 0; commrt_abort must end the job"
  echo "$out" | grep -q "^\[commrt rank 1\] commrt_abort: rank 1 gives up on purpose" ||
    fail "no abort message from rank 1"
  echo "$out" | grep -q "returned" && fail "a rank went on after the abort"
  ended_within 15000
  ;;
inject-exit)
  [ "$rc" -ne 0 ] || fail "exit code is 0; a rank died"
  echo "$out" | grep -q "COMMRT_INJECT=exit:2:3: operation #3 (all_reduce on group \[0, 1, 2, 3\]): exiting" ||
    fail "rank 2 did not say it exits at operation #3"
  echo "$out" | grep -q "^\[commrt rank [013]\] commrt: all_reduce on group \[0, 1, 2, 3\] timed out after 1000 ms on rank [013] (waiting for ranks that did not join: rank 2 did not answer" ||
    fail "no timeout message naming the all_reduce and rank 2"
  ended_within 10000
  ;;
inject-exit-mpirun)
  # Either mpirun ends the job on the exit or commrt's timeout does.
  [ "$rc" -ne 0 ] || fail "exit code is 0; a rank died"
  echo "$out" | grep -q "rank 2 did not answer\|exited with non-zero status\|non-zero exit code" ||
    fail "neither commrt nor mpirun named the failure"
  ended_within 10000
  ;;
inject-hang)
  stopped_and_named \
    "COMMRT_INJECT=hang:1:0: operation #0 (broadcast on group \[0, 1, 2, 3\]): stopping" \
    "^\[commrt rank [023]\] commrt: .* timed out after 1000 ms on rank [023] (waiting for \(ranks that did not join: rank 1 did not answer\|rank 1 to send\)" \
    "rank 1"
  ;;
inject-init-hang)
  # Rank 1 stops inside commrt_init once the roll calls are up: the others
  # name it from the next step of the start-up.
  stopped_and_named \
    "COMMRT_INJECT=hang:1:init: in commrt_init, after its roll calls started: stopping" \
    "^\[commrt rank [023]\] commrt: commrt_init (world) timed out after 1000 ms on rank [023] (waiting for ranks that did not join: rank 1 did not answer" \
    "commrt_init and rank 1"
  ;;
inject-init-hang-return)
  # The same under the return policy: commrt_init returns the error, and
  # the program ends without waiting for rank 1 in MPI_Finalize.
  [ "$rc" -ne 0 ] || fail "exit code is 0; a rank stopped"
  echo "$out" | grep -q "^commrt_init: commrt: commrt_init (world) timed out after 1000 ms on rank [023] (waiting for ranks that did not join: rank 1 did not answer" ||
    fail "commrt_init did not return the timeout naming rank 1"
  echo "$out" | grep -q "aborting all ranks" && fail "aborted under the return policy"
  ended_within 10000
  ;;
inject-create-hang)
  # Rank 2 stops inside comm_create before its backend creates the
  # group's communicator: the others name it from the group's set-up.
  stopped_and_named \
    "COMMRT_INJECT=hang:2:create: comm_create of group \[0, 1, 2, 3\], before the backend creates its communicator: stopping" \
    "^\[commrt rank [013]\] commrt: comm_create of group \[0, 1, 2, 3\] (duplicating it for fingerprints) timed out after 1000 ms on rank [013] (waiting for ranks that did not join: rank 2 did not answer" \
    "the comm_create and rank 2"
  ;;
corrupt-p2p | corrupt-broadcast)
  # Without the checksum mode the corruption goes unnoticed by commrt: the
  # job succeeds and only the program's own check sees the wrong data.
  [ "$rc" -eq 0 ] || fail "exit code $rc; commrt cannot notice without checksums"
  echo "$out" | grep -q "flipped bit 0 of byte 2048 of the 4096 bytes" ||
    fail "rank 0 did not say what it corrupted"
  want="rank 1: recv from rank 0: result wrong at element 512"
  [ "$mode" = corrupt-broadcast ] && want="broadcast from rank 0: result wrong at element 512"
  echo "$out" | grep -q "$want" || fail "the corruption did not arrive"
  echo "$out" | grep -q "payload corrupted" && fail "reported without checksum mode"
  ended_within 10000
  ;;
corrupt-p2p-checksum)
  [ "$rc" -ne 0 ] || fail "exit code is 0; the corruption must be reported"
  echo "$out" | grep -q "^\[commrt rank 1\] commrt: recv from rank 0 (tag 5) on rank 1 failed: payload corrupted (COMMRT_DEBUG=checksum): the 4096 bytes received from rank 0 (tag 5) on rank 1 have checksum [0-9a-f]*, but rank 0 sent data with checksum [0-9a-f]*" ||
    fail "no message naming the recv, both ranks, the tag and the corruption"
  echo "$out" | grep -q "result wrong" && fail "the wrong data reached the program"
  ended_within 10000
  ;;
corrupt-broadcast-checksum)
  [ "$rc" -ne 0 ] || fail "exit code is 0; the corruption must be reported"
  echo "$out" | grep -q "^\[commrt rank [0-3]\] commrt: broadcast on group \[0, 1, 2, 3\] on rank [0-3] failed: payload corrupted (COMMRT_DEBUG=checksum): the 4096-byte result on rank [0-3] has checksum [0-9a-f]*, but the root, rank 0, broadcast data with checksum [0-9a-f]*" ||
    fail "no message naming the broadcast, the root and the corruption"
  echo "$out" | grep -q "result wrong" && fail "the wrong data reached the program"
  ended_within 10000
  ;;
sigkill)
  # The others time out (3000 ms here) in their all_reduce, naming rank 2,
  # or mpirun ends the job on seeing rank 2 killed.
  [ "$rc" -ne 0 ] || fail "exit code is 0; a rank was killed"
  echo "$out" | grep -q "nobody was killed" && fail "rank 2 was not killed"
  echo "$out" | grep -q "^\[commrt rank [013]\] commrt: all_reduce on group \[0, 1, 2, 3\] timed out after 3000 ms on rank [013] (waiting for ranks that did not join: rank 2 did not answer\|exited on signal 9" ||
    fail "neither commrt nor mpirun named the killed rank"
  ended_within 10000
  ;;
*)
  fail "unknown mode"
  ;;
esac
echo "PASS ($mode)"
