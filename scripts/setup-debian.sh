#!/bin/sh
# Fresh Debian machine: install the packages, build LAMMPS with USER-GPUMC (build/lmp) and the
# tests, and run the SiO2 Morse example (fix gpumc/nvt). Extra arguments go to CMake's configure.
. "$(dirname "$0")/common.sh"
install_packages
configure_and_build "$@"
cd "$ROOT/examples/sio2"
"$BUILD/lmp" -in in.sio2.nvt -log "$BUILD/log.sio2.nvt"
echo "SiO2 example done: log in $BUILD/log.sio2.nvt (reference: examples/sio2/log.25Nov26.sio2.nvt.g++.1)"
