#!/bin/sh
# The whole test suite: installs missing Debian packages and builds first if needed, then CTest.
. "$(dirname "$0")/common.sh"
install_packages
configure_and_build
ctest --test-dir "$BUILD" --output-on-failure --parallel "$(nproc)" --timeout 1800
