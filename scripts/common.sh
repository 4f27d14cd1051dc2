# Shared by setup-debian.sh and run-tests.sh: Debian packages, configure, build.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${GPUMC_BUILD_DIR:-$ROOT/build}
PACKAGES="g++ cmake ninja-build libgtest-dev librandom123-dev libopenmpi-dev openmpi-bin python3 xz-utils ca-certificates"

install_packages() {
  missing=""
  for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
  done
  [ -z "$missing" ] && return 0
  echo "Installing Debian packages:$missing"
  if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing
}

configure_and_build() {
  # LAMMPS's source is downloaded once (SHA-256 checked) into ~/.cache/gpumc; MPI: Debian's Open MPI
  [ -f "$BUILD/build.ninja" ] || cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUMC_MPI=on "$@"
  cmake --build "$BUILD" --parallel "$(nproc)"
}
