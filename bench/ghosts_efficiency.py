#!/usr/bin/env python3
"""What `ghosts frozen` costs in statistics: the error of <U>/N per sweep of checkerboard sweeps on
several MPI ranks, with `ghosts refresh` (the one-process chain) and `ghosts frozen` at several
sweeps per invocation (an invocation holds the layer of cells at each block's upper walls still
along the sides that several ranks split, for all its sweeps; those atoms move only in later
invocations, on other grids).

Systems: the LJ liquid (rc 2.5, rho* 0.8442, T* 0.85, pair_modify shift yes) or the seed's SiO2
Morse system (4000 K); fix gpumc/nvt algorithm checkerboard, its displacement tuned toward
acceptance 0.5 throughout; host styles, or with --kokkos the /kk styles on one GPU per process
(precision --precision). One Monte Carlo equilibration on one process (melted at 2 T, then at T)
writes a data file; from it, --runs independent runs of each setting (own seeds) equilibrate and
make --sweeps sweeps of production, sampling pe once per invocation (at least every 10 sweeps).
Per run: <U>/N, its squared standard error s^2 = var 2 tau_int / n (tau_int by Sokal's window), the
error per sweep s^2 x sweeps (lower is better; independent of the machine) and per trial
s^2 x trials / N (frozen ghosts try fewer atoms per sweep), the fraction of atoms tried per sweep,
and the production's loop time t, whence s^2 t. Figures are means +- standard errors over the
runs; ratios are against the first setting.

Writes <out>/ghosts-efficiency-<date>-<system>.json and .md, after every run (those of a script
stopped part-way say so). Usage:
  bench/ghosts_efficiency.py --lmp build/lmp [--mpirun 'mpirun'] [--settings 2:refresh:10,2:frozen:10,2:frozen:50]
                             [--system lj|sio2] [--n CELLS] [--kokkos] [--runs 2] [--sweeps 10000] [--out DIR]
"""

import argparse
import datetime
import os
import re
import subprocess
import sys
import tempfile

from efficiency import analyse, mean_se, production_pe, ratio
from lammps_bench import LJ_SETUP, SIO2_SETUP, loop_time, save_results

SYSTEMS = {"lj": dict(setup=LJ_SETUP + "pair_modify shift yes\ncomm_modify cutoff 3.0\n", T=0.85, n=15, per_atom=True),
           "sio2": dict(setup=SIO2_SETUP, T=4000.0, n=71, per_atom=False)}
KOKKOS = "-k on g {np} -sf kk -pk kokkos neigh half newton on"


def run(args, np, text, work):
    path = os.path.join(work, "in.ghosts")
    with open(path, "w") as f:
        f.write(text)
    accel = KOKKOS.format(np=np).split() if args.kokkos else []
    cmd = [*args.mpirun.split(), "-np", str(np), args.lmp, *accel, "-in", path, "-log", "none", "-nocite"]
    res = subprocess.run(cmd, capture_output=True, text=True, cwd=work)
    if res.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{res.stdout[-4000:]}\n{res.stderr[-3000:]}")
    return res.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lmp", required=True)
    ap.add_argument("--mpirun", default="mpirun", help="the launcher and its options (-np is added)")
    ap.add_argument("--settings", default="2:refresh:10,2:frozen:10,2:frozen:50,2:frozen:200",
                    help="processes:ghosts setting:sweeps per invocation, comma-separated")
    ap.add_argument("--system", default="lj", choices=sorted(SYSTEMS))
    ap.add_argument("--n", type=int, default=0, help="lattice cells per side (lj: fcc, N = 4 n^3, default 15; "
                    "sio2: sites, N = n^3, default 71)")
    ap.add_argument("--kokkos", action="store_true", help="the /kk styles, one GPU per process")
    ap.add_argument("--precision", default="mixed", help="with --kokkos: the fix's precision")
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--sweeps", type=int, default=10000, help="production sweeps of every run")
    ap.add_argument("--device", default="", help="the hardware, for the records")
    ap.add_argument("--out", default="bench/results")
    args = ap.parse_args()
    args.lmp = os.path.abspath(args.lmp)
    settings = [(int(p), g, int(s)) for p, g, s in (x.split(":") for x in args.settings.split(","))]
    sysd = SYSTEMS[args.system]
    T, n = sysd["T"], args.n or sysd["n"]
    setup = sysd["setup"].format(n=n)
    lines = setup.splitlines(True)
    head = "".join(l for l in lines if l.startswith(("units", "atom_style")))
    pairs = "".join(l for l in lines if l.startswith(("pair_", "comm_modify")))
    precision = f" precision {args.precision}" if args.kokkos else ""
    records = []
    date = datetime.date.today().isoformat()

    def write(complete):
        """The JSON and the table of the runs so far (after each run: a run cut short by a time limit
        keeps those before it)."""
        result = dict(system=args.system, kokkos=args.kokkos, precision=args.precision if args.kokkos else "double",
                      mpirun=args.mpirun, device=args.device, records=records)
        rows = {}
        for key in settings:
            g = [x for x in records if (x["processes"], x["ghosts"], x["sweeps_per_invocation"]) == key]
            if not g:
                continue
            rows[key] = {k: mean_se([x[k] for x in g]) for k in ("mean", "tau_sweeps", "per_sweep", "per_trial", "tried",
                                                                 "merit")}
        base = rows[settings[0]]
        what = (f"/kk styles, {args.precision} precision, one GPU per process" if args.kokkos else "host styles") + \
            (f", {args.device}" if args.device else "")
        lines = [f"# Statistics of ghosts frozen, {args.system}, N = {records[0]['natoms']}, {date}", "",
                 f"`bench/ghosts_efficiency.py --system {args.system}`: {what}, `{args.mpirun}`; {args.runs} independent "
                 f"runs per setting of {args.sweeps} production sweeps from one equilibrated state, pe sampled once per "
                 "invocation (at least every 10 sweeps). s^2: squared standard error of <U>/N from one run (var 2 tau_int "
                 "/ n); lower s^2 x sweeps, s^2 x trials / N and s^2 t (t: the production's loop time) are better. Ratios "
                 "against the first setting (errors of independent means)." +
                 ("" if complete else f" Incomplete: {len(records)} of {args.runs * len(settings)} runs made."), "",
                 "| processes | ghosts | sweeps per invocation | tried | <U>/N | tau_int (sweeps) | s^2 x sweeps | ratio | "
                 "s^2 x trials / N | ratio | s^2 t | ratio |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for (np, ghosts, sps), v in rows.items():
            cells = []
            for k in ("per_sweep", "per_trial", "merit"):
                rr = ratio(v[k], base[k])
                cells.append(f"{v[k][0]:.3g} +- {v[k][1]:.2g} | {rr[0]:.2f} +- {rr[1]:.2f}")
            lines.append(f"| {np} | {ghosts} | {sps} | {v['tried'][0]:.3f} | {v['mean'][0]:.5f} +- {v['mean'][1]:.5f} | "
                         f"{v['tau_sweeps'][0]:.3g} +- {v['tau_sweeps'][1]:.2g} | " + " | ".join(cells) + " |")
        save_results(args.out, f"ghosts-efficiency-{date}-{args.system}", result, lines)
        if complete:
            print("\n".join(lines))

    with tempfile.TemporaryDirectory() as work:
        data = os.path.join(work, "start.data")
        fix = "gpumc/nvt 10 {} 99 algorithm checkerboard" + precision
        run(args, 1, setup + f"fix mc all {fix.format(2 * T)}\nrun_style gpumc\nthermo 100000\nrun 100\nunfix mc\n"
            f"fix mc all {fix.format(T)}\nrun 100\nwrite_data {data} nocoeff\n", work)
        for r in range(args.runs):
            seed = 2000 + 31 * r
            for np, ghosts, sps in settings:
                every = max(1, 10 // sps)
                text = (head + f"read_data {data}\n" + pairs +
                        f"fix mc all gpumc/nvt {sps} {T} {seed} algorithm checkerboard ghosts {ghosts} target 0.5 "
                        f"tune yes{precision}\nrun_style gpumc\nthermo 100000\nrun {max(1, 500 // sps)}\n"
                        f"thermo {every}\nthermo_style custom step pe\nthermo_modify format float %.12g\n"
                        f"run {args.sweeps // sps}\n")
                out = run(args, np, text, work)
                natoms = int(re.findall(r"with (\d+) atoms", out)[-1])
                res = analyse(production_pe(out, natoms, sysd["per_atom"]), loop_time(out))
                trials = [int(t) for t in re.findall(r"fix gpumc/nvt(?:/kk)? mc: (\d+) translation trials", out)]
                sweeps = args.sweeps // sps * sps
                tried = (trials[-1] - trials[-2]) / (natoms * sweeps)
                rec = dict(processes=np, ghosts=ghosts, sweeps_per_invocation=sps, run=r, natoms=natoms,
                           sample_sweeps=every * sps, sweeps=sweeps, tried=tried, mean=res["mean"], s2=res["s2"],
                           tau_sweeps=res["tau_samples"] * every * sps, samples=res["samples"],
                           per_sweep=res["s2"] * sweeps, per_trial=res["s2"] * sweeps * tried, wall=res["wall"],
                           merit=res["merit"])
                records.append(rec)
                print(f"run {r}: {np} processes, ghosts {ghosts}, {sps} sweeps per invocation: <U>/N "
                      f"{rec['mean']:.6f}, tau {rec['tau_sweeps']:.3g} sweeps, s2 x sweeps {rec['per_sweep']:.3g}, "
                      f"tried {tried:.3f}, s2 t {rec['merit']:.3g}", flush=True)
                write(False)

    write(True)


if __name__ == "__main__":
    main()
