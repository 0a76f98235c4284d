#!/usr/bin/env bash
# Installs what comm needs (idempotent: only missing Debian packages are
# installed) and builds it incrementally in build/. Sourced by utils/demo.sh
# and utils/check.sh; can also be run alone.
set -euo pipefail

COMM_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
COMM_BUILD="${COMM_BUILD:-$COMM_ROOT/build}"

# Debian bookworm packages. Why each is needed is in README.md.
COMM_PACKAGES=(
  cmake ninja-build g++ python3 graphviz
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  libxml2-dev
  libopenmpi-dev openmpi-bin libibverbs-dev librdmacm-dev libgtest-dev
)

comm_log() { printf '[comm] %s\n' "$*" >&2; }

comm_install_packages() {
  local missing=()
  for pkg in "${COMM_PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$pkg")
    fi
  done
  if [ ${#missing[@]} -eq 0 ]; then
    return 0
  fi
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null; then sudo="sudo"; else
      comm_log "error: missing packages (${missing[*]}) and not root; install them or rerun as root"
      exit 1
    fi
  fi
  comm_log "installing: ${missing[*]}"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
}

comm_build() {
  if [ ! -f "$COMM_BUILD/build.ninja" ]; then
    comm_log "configuring $COMM_BUILD"
    cmake -S "$COMM_ROOT" -B "$COMM_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release
  fi
  comm_log "building (ninja -C $COMM_BUILD $*)"
  ninja -C "$COMM_BUILD" "$@"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  comm_install_packages
  comm_build
fi
