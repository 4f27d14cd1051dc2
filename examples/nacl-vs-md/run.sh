#!/bin/sh
# Molten NaCl (Tosi-Fumi, 512 ions, 1.50 g/cm^3, 1200 K): GPUMC Monte Carlo vs LAMMPS MD in NVT,
# with an exact Ewald sum and with DSF Coulomb.
#   ./run.sh [full|quick] [LMP] [GROUP...]     (or LMP=/path/to/lmp RUN_GROUPS="..." ./run.sh)
# full (default): the lengths of the reference run, about 35-40 minutes on one core.
# quick: the same runs, about 20 times shorter (about 2 minutes): checks that everything runs
#        through; its statistics mean little.
# GROUPs (default all):
#   ewald  born/coul/long + kspace_style ewald 1e-5 (pair_modify table 0): MD at 1 fs and 0.5 fs,
#          MC with the sequential chain (GPUMC supports Ewald only with algorithm sequential)
#   dsf    born/coul/dsf (alpha 0.2/A, rc 9 A): MD at 1 fs and 0.5 fs, MC sequential, MC checkerboard
#   all    both
# Every run writes its log and g(r) into $OUT (default ./output); then analyse.py analyses all the
# runs present there (report.txt and PNG plots; ANALYSE=no skips it; PYTHON picks the interpreter,
# which needs numpy and matplotlib). The runs go one after the other under nice -n $NICE (default
# 10). LMP_VARS="-var name value ..." comes first on every LAMMPS command line, and the first
# definition of a LAMMPS index variable wins: it overrides the lengths (MD: -var tmelt, teq, ttime,
# tprod in ps; MC: -var nsweep, nmelt, neq, ntime, nprod in timesteps of nsweep sweeps).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
MODE=${1:-full}
[ $# -gt 0 ] && shift
case " ewald dsf all " in
  *" ${1:-none} "*) ;;                   # no LMP argument: ./run.sh quick dsf
  *) [ $# -gt 0 ] && { LMP=$1; shift; } ;;
esac
LMP=${LMP:-$HERE/../../build/lmp}
[ $# -gt 0 ] && RUN_GROUPS="$*"
RUN_GROUPS=${RUN_GROUPS:-all}
OUT=${OUT:-$HERE/output}
LMP_VARS=${LMP_VARS:-}
NICE=${NICE:-10}
SEL=""
for g in $RUN_GROUPS; do
  case "$g" in
    ewald|dsf) SEL="$SEL $g" ;;
    all) SEL="$SEL ewald dsf" ;;
    *) echo "unknown group '$g' (ewald dsf all)" >&2; exit 2 ;;
  esac
done

# Run lengths. MD (in ps, the same for both timesteps): melt 2 ps at 2500 K, 4 ps at 1200 K, then
# production = timed part (thermo only) + measured part (+ g(r), blocks of 1 ps).
# MC (in timesteps of 10 sweeps): melt 300 sweeps at 2500 K, 600 sweeps at 1200 K with the
# displacement tuned, then production with it fixed. The MC cost per sweep: Ewald about 70-100 ms
# (1535 wave vectors per trial move), DSF about 4 ms; MD per step: Ewald about 5 ms, DSF 2 ms.
case "$MODE" in
  full)
    EWALD_MD="-var ttime 10 -var tprod 30"                                   # 40 ps
    EWALD_MC="-var ntime 100 -var nprod 700 -var nrep 70"                    # 8000 sweeps
    DSF_MD="-var ttime 10 -var tprod 50"                                     # 60 ps
    DSF_MC="-var ntime 200 -var nprod 1000 -var nrep 100"                    # 12000 sweeps
    ;;
  quick)
    EWALD_MD="-var tmelt 0.5 -var teq 0.5 -var ttime 0.5 -var tprod 2 -var nrep 10"
    EWALD_MC="-var nmelt 20 -var neq 20 -var ntime 5 -var nprod 30 -var nrep 3"
    DSF_MD=$EWALD_MD
    DSF_MC="-var nmelt 20 -var neq 20 -var ntime 10 -var nprod 50 -var nrep 5"
    ;;
  *) echo "usage: $0 [full|quick] [LMP] [GROUP...]" >&2; exit 2 ;;
esac

[ -x "$LMP" ] || { echo "no LAMMPS executable at $LMP (give it as second argument or LMP=...)" >&2; exit 2; }
LMP=$(cd "$(dirname "$LMP")" && pwd)/$(basename "$LMP")
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
cd "$OUT"

run() {  # run LABEL INPUT ARGS...
  label=$1; inp=$2; shift 2
  echo "$(date +%T) $label"
  t0=$(date +%s)
  # shellcheck disable=SC2086
  nice -n "$NICE" "$LMP" -nocite -screen none -log "log.$label" -in "$HERE/$inp" -var dir "$HERE" \
    -var label "$label" $LMP_VARS "$@"
  t=$(( $(date +%s) - t0 ))
  echo "  $t s"
  line="$MODE $label: $t s, load average at the end: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
  { grep -v "^$MODE $label:" times.txt 2>/dev/null || true; echo "$line"; } > times.tmp && mv times.tmp times.txt
}

echo "run.sh $MODE" > mode.txt
"$LMP" -h | grep -m1 "Simulator" > lmp-version.txt || true
echo "$(grep -m1 "model name" /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ //'), $(nproc) cores" > machine.txt
T_ALL=$(date +%s)
for c in $SEL; do
  if [ "$c" = ewald ]; then MDL=$EWALD_MD; MCL=$EWALD_MC; else MDL=$DSF_MD; MCL=$DSF_MC; fi
  # shellcheck disable=SC2086
  run nacl.md.$c.dt10 in.nacl.md -var coul $c -var dt 0.001 $MDL
  # shellcheck disable=SC2086
  run nacl.md.$c.dt5 in.nacl.md -var coul $c -var dt 0.0005 $MDL
  # shellcheck disable=SC2086
  run nacl.mc.$c in.nacl.mc -var coul $c -var algo sequential $MCL
  if [ "$c" = dsf ]; then
    # shellcheck disable=SC2086
    run nacl.mccb.$c in.nacl.mc -var coul $c -var algo checkerboard $MCL
  fi
done
line="$MODE total ($RUN_GROUPS): $(( $(date +%s) - T_ALL )) s"
{ grep -v "^$MODE total ($RUN_GROUPS):" times.txt 2>/dev/null || true; echo "$line"; } > times.tmp && mv times.tmp times.txt
echo "$line"

[ "${ANALYSE:-yes}" = no ] && exit 0
PYTHON=${PYTHON:-python3}
"$PYTHON" -c 'import numpy, matplotlib' 2>/dev/null || PYTHON=/usr/bin/python3
if ! "$PYTHON" -c 'import numpy, matplotlib' 2>/dev/null; then
  echo "analyse.py needs numpy and matplotlib (Debian: apt-get install python3-numpy python3-matplotlib," >&2
  echo "or PYTHON=<a python3 that has them>); the runs are in $OUT: rerun with  $PYTHON $HERE/analyse.py $OUT" >&2
  exit 1
fi
"$PYTHON" "$HERE/analyse.py" "$OUT"
