#!/bin/sh
# Runs MismatchTest with 4 ranks in one mode under one error policy and
# checks how the job ended: the exit code, the messages, and that it ended
# within a few seconds (a hang is caught by `timeout` and fails the test).
#   run-mismatch-test.sh MODE POLICY MPIEXEC NUMPROC_FLAG "EXTRA_FLAGS" EXECUTABLE
# POLICY is abort or return (COMMRT_ON_ERROR). See MismatchTest.cpp for the
# modes.
mode=$1 policy=$2 mpiexec=$3 npflag=$4 flags=$5 exe=$6
fail() { echo "FAIL ($mode, $policy): $*"; exit 1; }
. "$(dirname "$0")/job-time.sh"

unset COMMRT_INJECT COMMRT_DEBUG COMMRT_VALIDATE
export COMMRT_ON_ERROR=$policy
limit=5000
case $mode in
notice)
  export COMMRT_VALIDATE=0
  limit=8000 ;;
group)
  # Well under the test's 30 s timeout: the deadlock is found, not waited
  # out.
  limit=8000 ;;
group-desync)
  export COMMRT_DEBUG=desync
  limit=8000 ;;
group-slow | create)
  limit=8000 ;;
alltoall-corrupt)
  export COMMRT_INJECT=corrupt:0:1 COMMRT_DEBUG=checksum ;;
esac

measure_startup "$mpiexec" "$npflag" "$flags" "$exe"
start=$(date +%s%N)
# shellcheck disable=SC2086
out=$(timeout 45 "$mpiexec" $npflag 4 $flags "$exe" "$mode" 2>&1)
rc=$?
elapsed=$(( ($(date +%s%N) - start) / 1000000 ))
echo "$out"
echo "--- mode $mode, COMMRT_ON_ERROR=$policy: exit code $rc after $elapsed ms"
[ "$rc" -eq 124 ] && fail "the job hung (killed by timeout after 45 s)"
ended_within "$limit"
echo "$out" | grep -q "Segmentation fault\|signal 11" && fail "a rank crashed"

# has REGEX: some line of the output matches.
has() { echo "$out" | grep -q "$1"; }
# every REGEX RANKS: for each rank R of RANKS a line matches REGEX with R
# for each @.
every() {
  for r in $2; do
    echo "$out" | grep -q "$(echo "$1" | sed "s/@/$r/g")" ||
      fail "rank $r: no line matching: $1"
  done
}

# What every rank (or the ranks that see it) reports, @ for the rank.
group='\[0, 1, 2, 3\]'
disagree="on group $group on rank @ failed: the ranks of the group disagree on this operation, so none of them ran it: "
ranks="0 1 2 3"
# group-desync's checks (MismatchTest.cpp).
world_op='comm.all_reduce of 1024 f32 at a.mlir:3:1'
pair_op='comm.all_reduce of 1024 f32 at b.mlir:9:5'
# The group modes: what each rank waits in, and the deadlock as rank 2 and
# as rank 3 find it.
if [ "$mode" = group-desync ]; then
  label="desync check"
  in_pair="desync check of '$pair_op' on group \[2, 3\]"
  in_world="desync check of '$world_op' on group $group"
else
  label="all_reduce"
  in_pair="all_reduce on group \[2, 3\]"
  in_world="all_reduce on group $group"
fi
rank2_msg="commrt: $in_pair on rank 2 failed: deadlock: rank 3 has not reached this operation (#0 on this group) and waits in $in_world (its operation #1 on group $group), which rank 2, waiting here, has not reached (it posted 1 operations on that group): the ranks issued the collectives of the two groups in different orders"
rank3_msg="commrt: $in_world on rank 3 failed: deadlock: rank 2 has not reached this operation (#1 on this group) and waits in $in_pair (its operation #0 on group \[2, 3\]), which rank 3, waiting here, has not reached (it posted 0 operations on that group): the ranks issued the collectives of the two groups in different orders"
# create: rank 3 in comm_create's check on the world, rank 2 in the pair.
in_create="comm_create of group \[1, 3\] (checking that all ranks passed the same groups)"
world_group="$group (the world)"
create2_msg="commrt: all_reduce on group \[2, 3\] on rank 2 failed: deadlock: rank 3 has not reached this operation (#0 on this group) and waits in $in_create (its operation #[0-9]* on group $world_group), which rank 2, waiting here, has not reached (it posted [0-9]* operations on that group)"
create3_msg="commrt: $in_create on rank 3 failed: deadlock: rank 2 has not reached this operation (#[0-9]* on this group) and waits in all_reduce on group \[2, 3\] (its operation #0 on group \[2, 3\]), which rank 3, waiting here, has not reached (it posted 0 operations on that group)"
case $mode in
count-planned | count-mpi)
  want="commrt: all_reduce ${disagree}rank 0 passed 1024 f32 elements but rank 2 passed 4096$" ;;
dtype)
  want="commrt: all_reduce ${disagree}rank 0 passed dtype f32 but rank 3 passed dtype f64$" ;;
redop)
  want="commrt: all_reduce ${disagree}rank 0 passed reduction sum but rank 1 passed reduction max$" ;;
collective)
  want="commrt: all_[a-z]* ${disagree}rank 0 runs all_reduce but rank 2 runs all_gather; rank 0 passed 1024 f32 elements but rank 2 passed 256$" ;;
root)
  want="commrt: broadcast ${disagree}rank 0 passed root 0 but rank 2 passed root 1$" ;;
plan)
  want="commrt: all_reduce ${disagree}rank 0 runs it as the planned ring schedule on 1 channel but rank 1 as the backend's own collective$" ;;
p2p)
  ranks=1
  want="commrt: recv from rank 0 (tag 7) on rank @ failed: rank 0 sent 8192 bytes (2048 f32), but this receive takes 1024 f32 (4096 bytes); the message was dropped and the buffer left untouched" ;;
notice)
  # Ranks 2 and 3 find the other size inside the schedule; 0 and 1 wait.
  ranks="2 3"
  want="commrt: all_reduce on group $group on rank @ failed: in a transfer of the planned schedule, rank [12] sent [0-9]* bytes ([0-9]* f32), but this receive takes [0-9]* f32 ([0-9]* bytes); the ranks disagree on the operation (COMMRT_VALIDATE=0 skipped the check that names them)" ;;
group | group-desync | create)
  ranks=
  want= ;;
group-slow)
  # No mismatch: every rank succeeds under either policy, and nobody
  # reports a deadlock although the waits were probed.
  [ "$rc" -eq 0 ] || fail "exit code $rc; nothing is wrong in this mode"
  every "^rank @: world all_reduce: COMMRT_SUCCESS after" "0 1 2 3"
  every "^rank @: pair all_reduce: COMMRT_SUCCESS after" "2 3"
  every "^\[rank @\] $mode: [0-9]* checks, 0 failures" "0 1 2 3"
  has "deadlock\|COMMRT_ERROR" && fail "an error in a correct program"
  echo "PASS ($mode, $policy)"
  exit 0 ;;
alltoall-corrupt)
  ranks=2
  want="commrt: all_to_all on group $group on rank @ failed: payload corrupted (COMMRT_DEBUG=checksum): on rank @, the block from rank 0 has checksum [0-9a-f]* here, but rank 0 sent data with checksum [0-9a-f]*" ;;
*)
  fail "unknown mode" ;;
esac

if [ "$policy" = abort ]; then
  [ "$rc" -ne 0 ] || fail "exit code is 0; the error must end the job"
  has "finalized" && fail "a rank went on to finalize"
  case $mode in
  group | group-desync)
    # The rank that finds the deadlock ends the job, naming both groups'
    # operations.
    has "^\[commrt rank 2\] $rank2_msg" || has "^\[commrt rank 3\] $rank3_msg" ||
      fail "no deadlock message naming both operations" ;;
  create)
    has "^\[commrt rank 2\] $create2_msg" || has "^\[commrt rank 3\] $create3_msg" ||
      fail "no deadlock message naming comm_create and the all_reduce" ;;
  *)
    # The first rank to fail ends the job, with its message.
    pattern=$(echo "$want" | sed 's/\$$//; s/@/[0-3]/g')
    has "^\[commrt rank [0-3]\] $pattern.* (aborting all ranks; set COMMRT_ON_ERROR=return" ||
      fail "no commrt message before the abort" ;;
  esac
  echo "PASS ($mode, $policy)"
  exit 0
fi

[ "$rc" -eq 0 ] || fail "exit code $rc; in return mode every rank goes on and finalizes"
every "^rank @: finalized" "0 1 2 3"
every "^\[rank @\] $mode: [0-9]* checks, 0 failures" "0 1 2 3"
[ -n "$ranks" ] && every "^rank @: .*: COMMRT_ERROR_[A-Z_]* after [0-9]* ms: $want" "$ranks"
case $mode in
count-planned | count-mpi | dtype | redop | collective | root | plan)
  every "^rank @: .*: COMMRT_ERROR_INVALID_ARGUMENT after" "0 1 2 3"
  every "^rank @: the communicator is still usable" "0 1 2 3" ;;
p2p)
  every "^rank @: recv: COMMRT_ERROR_INVALID_ARGUMENT after" 1
  every "^rank @: send: COMMRT_SUCCESS" 0
  every "^rank @: the communicator is still usable" "0 1 2 3" ;;
notice)
  # The waiting ranks time out; their roll call says why 2 and 3 left
  # instead of "did not answer".
  every "^rank @: ring all_reduce: COMMRT_ERROR_TIMEOUT after [0-9]* ms: commrt: all_reduce on group $group timed out after 1000 ms on rank @ (waiting for ranks that did not join: .*rank 2 failed: commrt: all_reduce on group $group on rank 2 failed: in a transfer of the planned schedule, rank 1 sent 1024 bytes (256 f32), but this receive takes 1024 f32 (4096 bytes).*; rank 3 failed: commrt: all_reduce on group $group on rank 3 failed: in a transfer of the planned schedule, rank 2 sent 4096 bytes (1024 f32), but this receive takes 256 f32 (1024 bytes)" "0 1"
  has "did not answer" && fail "a roll call did not know why a rank left" ;;
group | group-desync)
  # Ranks 2 and 3 wait for each other in different groups: one of them
  # finds it (INVALID_ARGUMENT), fails both groups' communicators and tells
  # the others, who stop at once (REMOTE), each naming the deadlock.
  has "^rank 2: $label: COMMRT_ERROR_INVALID_ARGUMENT after [0-9]* ms: $rank2_msg" ||
    has "^rank 3: $label: COMMRT_ERROR_INVALID_ARGUMENT after [0-9]* ms: $rank3_msg" ||
    fail "neither rank 2 nor rank 3 found the deadlock"
  every "^rank @: $label: COMMRT_ERROR_\(INVALID_ARGUMENT\|REMOTE\) after [0-9]* ms: .*\($rank2_msg\|$rank3_msg\)" "0 1 2 3"
  has "did not answer\|timed out" && fail "a rank waited for its timeout" ;;
create)
  # Rank 3, creating a communicator, and rank 2, in the pair's all_reduce,
  # wait for each other: one finds it and the others stop at once (rank
  # 2 or 3 with REMOTE, ranks 0 and 1 in comm_create, told that a rank left
  # the world's exchange), each naming the deadlock.
  has "^rank 2: all_reduce: COMMRT_ERROR_INVALID_ARGUMENT after [0-9]* ms: $create2_msg" ||
    has "^rank 3: comm_create: COMMRT_ERROR_INVALID_ARGUMENT after [0-9]* ms: $create3_msg" ||
    fail "neither rank 2 nor rank 3 found the deadlock"
  every "^rank @: comm_create: COMMRT_ERROR_REMOTE after [0-9]* ms: commrt: comm_create of group \\[@, [23]\\] (checking that all ranks passed the same groups) on rank @ failed: rank [23] left the group before this operation: its operation #[0-9]* there (.*) failed: .*\\($create2_msg\\|$create3_msg\\)" "0 1"
  every "^rank @: [a-z_]*: COMMRT_ERROR_\(INVALID_ARGUMENT\|REMOTE\) after [0-9]* ms: .*\($create2_msg\|$create3_msg\)" "2 3"
  has "did not answer\|timed out" && fail "a rank waited for its timeout" ;;
alltoall-corrupt)
  has "COMMRT_INJECT=corrupt:0:1: operation #1 (all_to_all on group $group): flipped bit 0 of byte 8192 of the 16384 bytes it sends" ||
    fail "rank 0 did not say what it corrupted"
  every "^rank @: all_to_all: COMMRT_SUCCESS" "0 1 3"
  # Rank 2 told the others it left: their next collective fails at once,
  # naming rank 2's failure (or that of a rank that left because of it, if
  # that notice came first).
  every "^rank @: all_reduce after it: COMMRT_ERROR_REMOTE after [0-9]* ms: commrt: all_reduce on group $group on rank @ failed: rank [0-3] left the group before this operation: its operation #[12] there (.*) failed: .*commrt: all_to_all on group $group on rank 2 failed: payload corrupted" "0 1 3" ;;
esac
echo "PASS ($mode, $policy)"
