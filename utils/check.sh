#!/usr/bin/env bash
# Runs every test: installs what is missing, builds, runs the lit suite.
# Extra arguments go to lit (e.g. utils/check.sh -v --filter=invalid).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
comm_install_packages
comm_build all comm-test-depends
comm_log "running the test suite"
"${COMM_LLVM_LIT:-/usr/lib/llvm-22/bin/lit}" -sv "$@" "$COMM_BUILD/test"
