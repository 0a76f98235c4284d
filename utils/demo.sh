#!/usr/bin/env bash
# The main job on built-in defaults: installs what is missing, builds, and
# runs comm over the example programs in examples/.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
comm_install_packages
comm_build comm-opt comm-topo
bin="$COMM_BUILD/bin"

comm_log "the machine: comm-topo matrix -t dgx-h100"
"$bin/comm-topo" matrix -t dgx-h100
comm_log "a path between two machines: comm-topo path -t dgx-h100x4 n0.gpu0 n3.gpu7"
"$bin/comm-topo" path -t dgx-h100x4 n0.gpu0 n3.gpu7

for example in "$COMM_ROOT"/examples/*.mlir; do
  comm_log "comm-opt --comm-check-topology=explain --canonicalize $(basename "$example")"
  "$bin/comm-opt" --mlir-print-op-on-diagnostic=false --comm-check-topology=explain --canonicalize "$example"
done
