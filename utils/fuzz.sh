#!/usr/bin/env bash
# Builds comm's libFuzzer targets in the sanitizer build (ASan + UBSan +
# coverage; utils/check-sanitizers.sh configures it) and runs each for a
# bounded time on a corpus seeded from the tests and examples:
#   comm-fuzz-program   parse, verify, simulate, comm-plan, comm-lower-to-emitc
#   comm-fuzz-topology  NCCL XML and comm YAML importers, paths, export
# Usage: utils/fuzz.sh [SECONDS per target, default 30] [JOBS, default 1]
# A crash stops the run with the input saved in build-asan/fuzz/findings-*/;
# make it a regression test (test/Dialect/Comm/Inputs/broken for programs,
# test/Topology/broken-*.test for topologies). Run it longer by hand, e.g.
#   utils/fuzz.sh 3600 2
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
seconds="${1:-30}"
jobs="${2:-1}"
build="${COMM_ASAN_BUILD:-$COMM_ROOT/build-asan}"
if [ ! -f "$build/build.ninja" ]; then
  comm_log "no sanitizer build in $build: run utils/check-sanitizers.sh first"
  exit 1
fi
ninja -C "$build" comm-fuzzers
work="$build/fuzz"
mkdir -p "$work/program" "$work/topology"
# Seeds: every program and topology the tests and examples hold.
find "$COMM_ROOT/test" "$COMM_ROOT/examples" -name '*.mlir' -size -64k \
  -exec cp -n {} "$work/program/" \; 2>/dev/null || true
find "$COMM_ROOT/test/Topology" "$COMM_ROOT/bench" \
  \( -name '*.xml' -o -name '*.yaml' \) -size -256k \
  -exec cp -n {} "$work/topology/" \; 2>/dev/null || true
export ASAN_OPTIONS="detect_leaks=0:allow_user_poisoning=0:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
run() {
  local target="$1" corpus="$2" dict="$3"
  comm_log "fuzzing $target for ${seconds} s ($(ls "$corpus" | wc -l) inputs in the corpus)"
  local findings="$work/findings-$target"
  rm -rf "$findings" && mkdir -p "$findings"
  local parallel=()
  if [ "$jobs" -gt 1 ]; then parallel=(-jobs="$jobs" -workers="$jobs"); fi
  (cd "$work" && "$build/bin/$target" "$corpus" -dict="$dict" \
    -max_total_time="$seconds" "${parallel[@]}" -artifact_prefix="$findings/" \
    -timeout=10 -rss_limit_mb=4096 -max_len=65536 -print_final_stats=1 \
    > "$work/$target.log" 2>&1 || true)
  grep -ahE "^(stat::number_of_executed_units|stat::average_exec_per_sec|stat::new_units_added)" \
    "$work/$target.log" "$work"/fuzz-*.log 2>/dev/null | sed "s/^/[comm] $target: /" >&2 || true
  local found
  found=$(find "$findings" -type f | head -1)
  if [ -n "$found" ]; then
    # What failed and the input itself, so that a CI log alone reproduces it.
    grep -aE -A 24 "^==[0-9]+==ERROR|runtime error:|deadly signal|Timeout|out-of-memory" \
      "$work/$target.log" | head -60 >&2 || true
    comm_log "the failing input ($(wc -c < "$found") bytes), base64:"
    base64 -w 76 "$found" | head -200 >&2
    comm_log "error: $target found a failing input: $found (log: $work/$target.log)"
    exit 1
  fi
}
run comm-fuzz-program "$work/program" "$COMM_ROOT/fuzz/comm.dict"
run comm-fuzz-topology "$work/topology" "$COMM_ROOT/fuzz/topology.dict"
comm_log "fuzzing found nothing"
