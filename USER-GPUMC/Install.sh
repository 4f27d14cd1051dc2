# Install/uninstall the USER-GPUMC package in a LAMMPS source tree, the traditional way:
#   ln -s /path/to/gpumc/USER-GPUMC lammps/src/USER-GPUMC
#   cd lammps/src && make yes-user-gpumc && make serial
# mode = 0/1/2 for uninstall/install/update, as for LAMMPS's own packages.
# Besides the style files of this directory it installs the physics all GPUMC styles share
# (gpumc_*.h, gpumc_*.cpp from the repository's src/). They are found through the resolved path of
# this directory (so link it rather than copy it) or through GPUMC_DIR=<repository>.
# The /kk styles (*_kokkos.*) are installed only when the KOKKOS package is.
# Random123 (Debian librandom123-dev) must be on the include path; if it is not in a system
# directory, set RANDOM123_INCLUDE=<dir holding Random123/> when installing.

mode=$1

# enforce using portable C locale
LC_ALL=C
export LC_ALL

# The LAMMPS src directory is the logical parent of this one (through a link, a plain `..` would be
# the GPUMC repository): take it from $PWD when that names the current directory.
if (test -n "${PWD:-}" && test "$PWD" -ef .) then
  lmpsrc=$(dirname "$PWD")
else
  lmpsrc=..
fi
if (test ! -f "$lmpsrc/lammps.cpp" || test ! -f "$lmpsrc/Makefile") then
  echo "USER-GPUMC: $lmpsrc is not a LAMMPS src directory; run 'make yes-user-gpumc' in lammps/src"
  exit 1
fi
here=$(pwd -P)
gpumc=${GPUMC_DIR:-$(cd "$here/.." && pwd -P)}
if (test ! -f "$gpumc/src/gpumc_moves.h") then
  echo "USER-GPUMC: GPUMC's shared sources are not in $gpumc/src; link the package directory"
  echo "            (ln -s /path/to/gpumc/USER-GPUMC) or set GPUMC_DIR=/path/to/gpumc"
  exit 1
fi

# arg1 = source file, arg2 = file it depends on (installed only if that exists in src/)
action () {
  name=$(basename "$1")
  if (test $mode = 0) then
    rm -f "$lmpsrc/$name"
  elif (! cmp -s "$1" "$lmpsrc/$name") then
    if (test -z "$2" || test -e "$lmpsrc/$2") then
      cp "$1" "$lmpsrc/"
      if (test $mode = 2) then
        echo "  updating src/$name"
      fi
    fi
  elif (test -n "$2") then
    if (test ! -e "$lmpsrc/$2") then
      rm -f "$lmpsrc/$name"
    fi
  fi
}

for file in *.cpp *.h; do
  case $file in
    *_kokkos.*) action "$file" kokkos.h ;;
    *) test -f "$file" && action "$file" ;;
  esac
done
for file in "$gpumc"/src/gpumc_*.cpp "$gpumc"/src/gpumc_*.h; do
  case $file in
    *_kokkos.*) action "$file" kokkos.h ;;
    *) test -f "$file" && action "$file" ;;
  esac
done

# Random123 include path in Makefile.package: the entry carries a marker so it can be removed
if (test -e "$lmpsrc/Makefile.package") then
  sed -i -e 's|-I[^ \t]* -DGPUMC_RANDOM123 ||g' "$lmpsrc/Makefile.package"
  if (test $mode = 1 && test -n "${RANDOM123_INCLUDE:-}") then
    sed -i -e "s|^PKG_INC =[ \t]*|&-I${RANDOM123_INCLUDE} -DGPUMC_RANDOM123 |" "$lmpsrc/Makefile.package"
  fi
fi
