#!/usr/bin/env bash
# The sanitizer build: comm's compiler and runtime built with clang 22 under
# AddressSanitizer and UndefinedBehaviorSanitizer, assertions on, in
# build-asan/ (COMM_ASAN_BUILD overrides; instrumented for libFuzzer too, so
# that utils/fuzz.sh builds its targets there), then the whole lit suite (which
# also runs the runtime's ctest suite, and the programs comm-compile
# generates, instrumented alike). Installs clang-22 and libclang-rt-22-dev
# when missing. Extra arguments go to lit. utils/check.sh runs it in CI.
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
"${COMM_LLVM_LIT:-/usr/lib/llvm-22/bin/lit}" -sv "$@" "$build/test"
