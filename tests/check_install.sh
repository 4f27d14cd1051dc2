#!/bin/sh
# make yes-user-gpumc / no-user-gpumc through a linked package directory: USER-GPUMC/Install.sh
# must copy exactly the package's host files and the shared physics into LAMMPS's src/, add and
# remove its Random123 include entry in Makefile.package, remove everything again, and never
# write into the GPUMC repository. A minimal stand-in for lammps/src is enough for that.
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd -P)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/src"
touch "$work/src/lammps.cpp" "$work/src/Makefile"
printf 'PKG_INC =   \nPKG_PATH =\n' > "$work/src/Makefile.package"
ln -s "$repo/USER-GPUMC" "$work/src/USER-GPUMC"
before=$(ls "$repo")

(cd "$work/src/USER-GPUMC" && RANDOM123_INCLUDE=/opt/r123/include sh Install.sh 1)
expected=$( (cd "$repo/USER-GPUMC" && ls *.cpp *.h; cd "$repo/src" && ls gpumc_*) | grep -v _kokkos | sort)
installed=$(cd "$work/src" && ls *.cpp *.h | grep -v '^lammps.cpp$' | sort)
[ "$installed" = "$expected" ] || { echo "installed: $installed"; echo "expected: $expected"; exit 1; }
for f in $installed; do
  if [ -f "$repo/USER-GPUMC/$f" ]; then cmp "$repo/USER-GPUMC/$f" "$work/src/$f"; else cmp "$repo/src/$f" "$work/src/$f"; fi
done
grep -q -- '-I/opt/r123/include -DGPUMC_RANDOM123' "$work/src/Makefile.package"

(cd "$work/src/USER-GPUMC" && sh Install.sh 0)
left=$(cd "$work/src" && ls *.cpp *.h 2>/dev/null | grep -v "^lammps.cpp$" || true)
[ -z "$left" ] || { echo "left behind: $left"; exit 1; }
! grep -q GPUMC_RANDOM123 "$work/src/Makefile.package"
[ "$(ls "$repo")" = "$before" ] || { echo "Install.sh wrote into the repository"; exit 1; }
echo "Install.sh installs $(echo "$expected" | wc -w) files and removes them again"
