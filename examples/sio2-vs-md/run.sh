#!/bin/sh
# GPUMC Monte Carlo vs LAMMPS molecular dynamics on the SiO2 Morse system and an LJ argon liquid.
#   ./run.sh [cpu|gpu] [LMP] [GROUP...]     (or LMP=/path/to/lmp RUN_GROUPS="..." ./run.sh)
# Three methods: LAMMPS MD (fix nvt/npt, labels *.md.*), GPUMC MC with the sequential chain
# (fix gpumc/nvt|npt algorithm sequential, *.mc.*) and with checkerboard sweeps (algorithm
# checkerboard, *.mccb.*).
# cpu (default): host styles, small LJ system, short runs (about 20 minutes on one core).
# gpu: lmp -k on g 1 -sf kk (fix gpumc/nvt/kk, gpumc/npt/kk, compute widom/kk, LAMMPS's /kk MD
#      styles), 4000 LJ atoms, longer MD and checkerboard runs; the sequential chain runs about
#      18 sweeps/s for SiO2 on an H100 (checkerboard: hundreds), so its gpu runs are short
#      (1000 sweeps). Needs LAMMPS built with KOKKOS (README.md). ACCEL="..." replaces the
#      accelerator switches, e.g. ACCEL="-k on t 8 -sf kk" (Kokkos on host threads).
# GROUPs (default all; each a separate invocation if one command may only run for a limited time,
# e.g. 600 s on a lent GPU machine: each gpu group should take 3-6 minutes on an H100):
#   sio2-nvt  SiO2 NVT, crystal and random starts: MD, MC sequential, MC checkerboard
#   sio2-npt  SiO2 NPT (P_SIO2 bar), the same six runs
#   p166      SiO2 NPT at the seed's 166.054 bar: MD and one MC run (cpu: sequential, gpu:
#             checkerboard), to show that the box does not reach a stationary state
#   lj-nvt    LJ argon NVT: MD, MC sequential, MC checkerboard
#   lj-npt    LJ argon NPT (LJTS): the same three
#   sio2-dt   SiO2 NVT at a GPU's size (gpu: 27 x 4608 = 124416 atoms; cpu: 4608): MD at 1, 0.5
#             and 0.25 fs and MC checkerboard under run_style gpumc, to show MD's timestep bias
#             (not in all: it is meant for gpu mode, about 4 minutes on an H200)
#   sio2 = sio2-nvt sio2-npt;  lj = lj-nvt lj-npt;  all = every group but sio2-dt
# Every invocation writes its logs and data into the same $OUT (default ./output) and then runs
# analyse.py on all the runs present there (PNG plots and report.txt). Set PYTHON to a Python 3
# with numpy and matplotlib if python3 lacks them; ANALYSE=no skips the analysis.
# LMP_VARS="-var name value ..." is put before the mode's variables on every LAMMPS command line,
# and the first definition of a LAMMPS index variable wins: it overrides the run lengths (e.g. to
# check that the decks of a mode run through).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
GROUP_NAMES="sio2-nvt sio2-npt p166 lj-nvt lj-npt sio2-dt sio2 lj all"
MODE=${1:-cpu}
[ $# -gt 0 ] && shift
case " $GROUP_NAMES " in
  *" ${1:-none} "*) ;;                   # no LMP argument: ./run.sh gpu sio2-nvt
  *) [ $# -gt 0 ] && { LMP=$1; shift; } ;;
esac
LMP=${LMP:-$HERE/../../build/lmp}
[ $# -gt 0 ] && RUN_GROUPS="$*"
RUN_GROUPS=${RUN_GROUPS:-all}
OUT=${OUT:-$HERE/output}
LMP_VARS=${LMP_VARS:-}
case "$MODE" in
  cpu) ACCEL=${ACCEL-""} ;;
  gpu) ACCEL=${ACCEL-"-k on g 1 -sf kk"} ;;   # ACCEL="" (empty): host styles with the gpu lengths
  *) echo "usage: $0 [cpu|gpu] [LMP] [GROUP...]" >&2; exit 2 ;;
esac
SEL=""
for g in $RUN_GROUPS; do
  case "$g" in
    sio2-nvt|sio2-npt|p166|lj-nvt|lj-npt|sio2-dt) SEL="$SEL $g" ;;
    sio2) SEL="$SEL sio2-nvt sio2-npt" ;;
    lj) SEL="$SEL lj-nvt lj-npt" ;;
    all) SEL="$SEL sio2-nvt sio2-npt p166 lj-nvt lj-npt" ;;
    *) echo "unknown group '$g' ($GROUP_NAMES)" >&2; exit 2 ;;
  esac
done
[ -x "$LMP" ] || { echo "no LAMMPS executable at $LMP (give it as second argument or LMP=...)" >&2; exit 2; }
LMP=$(cd "$(dirname "$LMP")" && pwd)/$(basename "$LMP")
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
cd "$OUT"

# The NPT pressure for SiO2 (bar): the mean total pressure of the NVT runs at the seed's density
# (GPUMC and MD both give about 33 kbar; see README.md). The seed's 166.054 bar has no stationary
# condensed state for this model: the p166 runs show the box expanding.
P_SIO2=${P_SIO2:-33000}

# Run lengths: MD in steps (SiO2 1 fs, LJ 10 fs); MC in timesteps of nsweep sweeps.
if [ "$MODE" = cpu ]; then
  SIO2_MD="-var neq0 1000 -var neq 1000 -var ntime 1500 -var nprod 3000"
  SIO2_MC="-var nsweep 5 -var neq 120 -var ntime 100 -var nprod 200"         # 2100 sweeps
  SIO2_MCCB=$SIO2_MC                                                          # same cost on the host
  LJ_MD="-var ncell 5"
  LJ_MC="-var ncell 5"
  LJ_MCCB=$LJ_MC
  P166_MD="-var neq0 1000 -var neq 0 -var ntime 3000 -var nprod 0"
  P166_MC="-var neq 20 -var ntime 80 -var nprod 0 -var algo sequential"
  DT_REP=1; DT_PS=4; DT_MC="-var neq 100 -var ntime 400"
else
  # H100 estimates: SiO2 MD about 2000 steps/s, MC checkerboard about 200 sweeps/s, sequential
  # about 18 sweeps/s (so: 1000 sweeps); LJ 4000 atoms similar or faster. The LJ melt (1000 sweeps
  # at rho* before every LJ MC run) uses checkerboard sweeps in all LJ MC runs here.
  SIO2_MD="-var neq0 2000 -var neq 3000 -var ntime 10000 -var nprod 20000 -var nrdf 50 -var nrep 40 -var nwid 100 -var ninsert 20000"
  SIO2_MCCB="-var nsweep 10 -var neq 100 -var ntime 200 -var nprod 400 -var nrdf 2 -var nrep 20 -var nwid 2 -var ninsert 20000"
  SIO2_MC="-var nsweep 5 -var neq 80 -var ntime 40 -var nprod 80 -var nrdf 1 -var nrep 8 -var nwid 1 -var ninsert 20000"
  LJ_MD="-var ncell 10 -var ntime 20000 -var nprod 40000 -var nrdf 100 -var nrep 40 -var nwid 100 -var ninsert 20000"
  LJ_MCCB="-var ncell 10 -var nsweep 5 -var neq0 200 -var neq 100 -var ntime 200 -var nprod 400 -var nrdf 4 -var nrep 10 -var nwid 4 -var ninsert 20000 -var meltalgo checkerboard"
  LJ_MC="-var ncell 10 -var nsweep 5 -var neq0 200 -var neq 40 -var ntime 60 -var nprod 100 -var nrdf 1 -var nrep 10 -var nwid 1 -var ninsert 20000 -var meltalgo checkerboard"
  P166_MD="-var neq0 1000 -var neq 0 -var ntime 10000 -var nprod 0"
  P166_MC="-var nsweep 10 -var neq 20 -var ntime 480 -var nprod 0 -var algo checkerboard"
  DT_REP=3; DT_PS=16; DT_MC="-var neq 100 -var ntime 900"
fi
# sio2-dt: MD equilibrates 1 ps + 1 ps and samples DT_PS ps every 10 fs at each timestep; MC makes
# 10 sweeps per timestep (DT_MC: equilibration, then production sampled every 10 sweeps)
DT_COMMON="-var ens nvt -var start crystal -var rep $DT_REP -var nprod 0 -var ninsert 100 -var nrdf 1 -var nrep 1 -var nwid 1"

run() {  # run LABEL INPUT ARGS...
  label=$1; inp=$2; shift 2
  echo "$(date +%T) $label"
  t0=$(date +%s)
  # shellcheck disable=SC2086
  "$LMP" $ACCEL -nocite -screen none -log "log.$label" -in "$HERE/$inp" -var dir "$HERE" -var label "$label" \
    $LMP_VARS "$@"
  echo "  $(( $(date +%s) - t0 )) s"
}

sio2() {  # sio2 ENS [P]: MD, MC sequential and MC checkerboard from both starts
  e=$1; shift
  for start in crystal random; do
    # shellcheck disable=SC2086
    run sio2.md.$e.$start in.sio2.md -var ens $e -var start $start "$@" $SIO2_MD
    # shellcheck disable=SC2086
    run sio2.mc.$e.$start in.sio2.mc -var ens $e -var start $start -var algo sequential "$@" $SIO2_MC
    # shellcheck disable=SC2086
    run sio2.mccb.$e.$start in.sio2.mc -var ens $e -var start $start -var algo checkerboard "$@" $SIO2_MCCB
  done
}

lj() {  # lj ENS
  # shellcheck disable=SC2086
  run lj.md.$1 in.lj.md -var ens $1 $LJ_MD
  # shellcheck disable=SC2086
  run lj.mc.$1 in.lj.mc -var ens $1 -var algo sequential $LJ_MC
  # shellcheck disable=SC2086
  run lj.mccb.$1 in.lj.mc -var ens $1 -var algo checkerboard $LJ_MCCB
}

echo "$MODE" > mode.txt
"$LMP" -h | grep -m1 "Simulator" > lmp-version.txt || true
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || true)
echo "$(grep -m1 "model name" /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ //'), $(nproc) cores${gpu:+, GPU $gpu}" > machine.txt
for g in $SEL; do
  T_START=$(date +%s)
  case "$g" in
    sio2-nvt) sio2 nvt ;;
    sio2-npt) sio2 npt -var P "$P_SIO2" ;;
    p166)
      # shellcheck disable=SC2086
      run sio2.md.npt166.crystal in.sio2.md -var ens npt -var start crystal -var P 166.054 $P166_MD
      m=mc; case "$P166_MC" in *checkerboard*) m=mccb ;; esac
      # shellcheck disable=SC2086
      run sio2.$m.npt166.crystal in.sio2.mc -var ens npt -var start crystal -var P 166.054 $P166_MC ;;
    lj-nvt) lj nvt ;;
    lj-npt) lj npt ;;
    sio2-dt)
      for fs in 1 0.5 0.25; do
        per_ps=$(awk "BEGIN { print 1000 / $fs }")    # steps per ps
        # shellcheck disable=SC2086
        run sio2dt.md.${fs}fs in.sio2.md $DT_COMMON -var dt $(awk "BEGIN { print $fs / 1000 }") -var neq0 $per_ps \
          -var neq $per_ps -var ntime $(( per_ps * DT_PS )) -var nthermo $(( per_ps / 100 ))
      done
      # shellcheck disable=SC2086
      run sio2dt.mccb in.sio2.mc $DT_COMMON -var algo checkerboard -var nsweep 10 -var nthermo 1 -var runstyle gpumc \
        $DT_MC ;;
  esac
  # one line per group and mode; a later run of the same group replaces it
  line="$MODE $g: $(( $(date +%s) - T_START )) s, load average at the end: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
  { grep -v "^$MODE $g:" times.txt 2>/dev/null || true; echo "$line"; } > times.tmp && mv times.tmp times.txt
  echo "$line"
done

[ "${ANALYSE:-yes}" = no ] && exit 0
PYTHON=${PYTHON:-python3}
"$PYTHON" -c 'import numpy, matplotlib' 2>/dev/null || PYTHON=/usr/bin/python3
if ! "$PYTHON" -c 'import numpy, matplotlib' 2>/dev/null; then
  echo "analyse.py needs numpy and matplotlib (Debian: apt-get install python3-numpy python3-matplotlib," >&2
  echo "or PYTHON=<a python3 that has them>); the runs are in $OUT: rerun with  $PYTHON $HERE/analyse.py $OUT" >&2
  exit 1
fi
"$PYTHON" "$HERE/analyse.py" "$OUT"
