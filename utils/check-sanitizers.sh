#!/usr/bin/env bash
# The sanitizer build: comm's compiler and runtime built with clang 22 under
# AddressSanitizer and UndefinedBehaviorSanitizer, assertions on, in
# build-asan/ (COMM_ASAN_BUILD overrides; instrumented for libFuzzer too, so
# that utils/fuzz.sh builds its targets there), then the lit suite (which
# also runs the programs comm-compile generates, instrumented alike), then
# the runtime's ctest suite on its own. Installs clang-22 and
# libclang-rt-22-dev when missing. Extra arguments go to lit. .ci/run runs
# it after utils/check.sh.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
COMM_PACKAGES+=(clang-22 libclang-rt-22-dev)
comm_install_packages
build="${COMM_ASAN_BUILD:-$COMM_ROOT/build-asan}"
if [ ! -f "$build/build.ninja" ]; then
  comm_log "configuring the sanitizer build in $build"
  cmake -S "$COMM_ROOT" -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
    -DLLVM_USE_SANITIZER="Address;Undefined" -DLLVM_USE_SANITIZE_COVERAGE=ON \
    -DLLVM_ENABLE_ASSERTIONS=ON
fi
# Leaks are not errors here: LLVM's tools and Open MPI free little at exit
# by design. Manual poisoning is off: LLVM's allocators poison from inline
# header code, which is instrumented in comm and not in Debian's libMLIR.so,
# and the mix reports use-after-poison where there is none. Every other
# report fails the test that triggered it. Set before the build too: the
# build runs the instrumented comm-opt to make the benchmarks' programs.
export ASAN_OPTIONS="detect_leaks=0:allow_user_poisoning=0:abort_on_error=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
comm_log "building the sanitizer build (ninja -C $build)"
ninja -C "$build" all comm-test-depends
comm_log "running the test suite under ASan and UBSan"
# The runtime's ctest suite runs alone after the rest (Runtime/ctest.test
# is left out of lit): its tests start 3 to 6 ranks on 2 cores and check
# that failures end the job within seconds; beside lit's other worker,
# itself running instrumented tools, the instrumented ranks ran up to 10x
# slower (commrt.collectives 46 s against 4.5 s alone) and the timing
# checks stopped meaning anything. A test that still fails is run once
# more: a sanitizer report fails both runs, a scheduling delay on this
# shared machine rarely does, and ctest's output names every retry.
"${COMM_LLVM_LIT:-/usr/lib/llvm-22/bin/lit}" -sv --filter-out 'Runtime/ctest\.test' "$@" "$build/test"
comm_log "running the runtime's ctest suite under ASan and UBSan, alone"
ctest --test-dir "$build/runtime" --output-on-failure --repeat until-pass:2
