#!/bin/sh
# GPUMC Monte Carlo vs LAMMPS molecular dynamics for BKS-type silica (648 atoms, 4000 K, 1 bar, NPT).
#   ./run.sh [LMP]            (or LMP=/path/to/lmp ./run.sh)
# Runs, one after another, in $OUT (default ./output):
#   prep      random start, minimisation, MD melt (NVT then NPT, 1 fs) -> bks.start.data
#   md1fs     LAMMPS MD, fix npt, timestep 1 fs      (label bks.md1fs)
#   mc        GPUMC fix gpumc/npt, algorithm sequential   (bks.mc); the MC runs start from the last
#             configuration of md1fs (bks.md1fs.data, at MD's equilibrium density: the density of the
#             MC chains relaxes slowly, over thousands of sweeps), or from bks.start.data without it
#   mccb      GPUMC fix gpumc/npt, algorithm checkerboard (bks.mccb)
#   md05fs    LAMMPS MD, fix npt, timestep 0.5 fs    (bks.md05fs; same simulated time as md1fs)
# then analyse.py (report.txt and PNG plots in $OUT). RUNS="md1fs mc" picks some (prep is rerun only
# when bks.start.data is missing or RUNS names it). Host styles, one process: about 85 minutes on
# one core of a shared 2-core VM (see README.md).
# Knobs (environment, LAMMPS steps): MD_EQ MD_PROD (1 fs steps; the 0.5 fs run does twice as many),
# MC_EQ MC_PROD (MC timesteps of 5 sweeps), NSI (Si atoms; O = 2 NSI), PREP_NPT (NPT steps of the
# melt). A quick check that everything runs:
#   MD_EQ=100 MD_PROD=1000 MC_EQ=10 MC_PROD=40 PREP_NPT=500 OUT=quick ./run.sh
# SHIFT=yes|no (default yes): pair_modify shift of the model (bks.setup; no = the bench model as it
# is, whose truncated buck and lj/cut terms make MD and MC sample different distributions).
# LMP_VARS="-var name value ..." is put on every LAMMPS command line before the run lengths.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
LMP=${1:-${LMP:-$HERE/../../build/lmp}}
OUT=${OUT:-$HERE/output}
RUNS=${RUNS:-"md1fs mc mccb md05fs"}
LMP_VARS=${LMP_VARS:-}
MD_EQ=${MD_EQ:-3000}
MD_PROD=${MD_PROD:-225000}
MC_EQ=${MC_EQ:-300}
MC_PROD=${MC_PROD:-27000}
NSI=${NSI:-216}
PREP_NPT=${PREP_NPT:-5000}
NICE=${NICE:-nice -n 15}
SHIFT=${SHIFT:-yes}
[ -x "$LMP" ] || { echo "no LAMMPS executable at $LMP" >&2; exit 2; }
LMP=$(cd "$(dirname "$LMP")" && pwd)/$(basename "$LMP")
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
cd "$OUT"

run() {  # run LABEL INPUT ARGS...   (DATA: the start configuration, default bks.start.data)
  label=$1; inp=$2; shift 2
  echo "$(date +%T) $label"
  t0=$(date +%s)
  # shellcheck disable=SC2086
  $NICE "$LMP" -nocite -screen none -log "log.$label" -in "$HERE/$inp" -var dir "$HERE" \
    -var data "$OUT/${DATA:-bks.start.data}" -var label "$label" -var shift "$SHIFT" $LMP_VARS "$@"
  t=$(( $(date +%s) - t0 ))
  echo "  $t s"
  { grep -v "^$label:" times.txt 2>/dev/null || true; echo "$label: $t s"; } > times.tmp && mv times.tmp times.txt
}

"$LMP" -h | grep -m1 "Simulator" > lmp-version.txt || true
echo "$(grep -m1 "model name" /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ //'), $(nproc) cores" > machine.txt
case " $RUNS " in *" prep "*) rm -f bks.start.data ;; esac
[ -f bks.start.data ] || run prep in.bks.prep -var nsi "$NSI" -var nnpt "$PREP_NPT"
mcdata() {
  if [ -f bks.md1fs.data ]; then echo bks.md1fs.data
  else echo "note: no bks.md1fs.data (run md1fs first); MC starts from bks.start.data" >&2; echo bks.start.data; fi
}
for r in $RUNS; do
  case "$r" in
    prep) ;;
    md1fs)  DATA=bks.start.data run bks.md1fs in.bks.md -var dt 0.001 -var neq "$MD_EQ" -var nprod "$MD_PROD" \
              -var nthermo 10 -var nrdf 50 -var nmsd 100 ;;
    md05fs) DATA=bks.start.data run bks.md05fs in.bks.md -var dt 0.0005 -var neq $((2 * MD_EQ)) -var nprod $((2 * MD_PROD)) \
              -var nthermo 20 -var nrdf 100 -var nmsd 200 ;;
    mc)     DATA=$(mcdata) run bks.mc in.bks.mc -var algo sequential -var neq "$MC_EQ" -var nprod "$MC_PROD" ;;
    mccb)   DATA=$(mcdata) run bks.mccb in.bks.mc -var algo checkerboard -var neq "$MC_EQ" -var nprod "$MC_PROD" ;;
    *) echo "unknown run '$r'" >&2; exit 2 ;;
  esac
done

[ "${ANALYSE:-yes}" = no ] && exit 0
PYTHON=${PYTHON:-python3}
"$PYTHON" -c 'import numpy, matplotlib' 2>/dev/null || PYTHON=/usr/bin/python3
"$PYTHON" "$HERE/analyse.py" "$OUT"
