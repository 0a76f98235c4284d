#!/usr/bin/env bash
# The main job on built-in defaults: installs what is missing, builds, and
# runs comm over the example programs in examples/.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
comm_install_packages
comm_build comm-opt

for example in "$COMM_ROOT"/examples/*.mlir; do
  comm_log "comm-opt --canonicalize $(basename "$example")"
  "$COMM_BUILD/bin/comm-opt" --canonicalize "$example"
done
