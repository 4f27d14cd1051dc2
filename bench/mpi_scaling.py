#!/usr/bin/env python3
"""MPI scaling of the host checkerboard sweeps (fix gpumc/nvt algorithm checkerboard), beside
LAMMPS's own MD of the same system on the same ranks.

Strong scaling: LJ (rho* 0.8442, T* 0.85, rc 2.5, N = 256000) and the seed's SiO2 Morse system
(0.053679 atoms/A^3, 4000 K, rc 9 A, N = 74088) on 1, 2, 4, ... ranks. Weak scaling: LJ with 16000
atoms per rank (a 20 x 20 x 10 fcc block per rank, the processor grid given). For each it measures
trial moves/s over LAMMPS's loop time (median of --repeats runs) and, as the anchor, LAMMPS MD
(fix nvt) timesteps/s of the same system on the same ranks; speedups and efficiencies are against
1 rank. On more than one rank the fix runs with each --ghosts setting (refresh: the one-process
chain, ghosts refreshed after every colour; frozen: one grid per invocation, still layers at the
subdomains' upper walls along the sides that several ranks split), and the fraction of the atoms
tried per sweep is reported. One MPI rank per core: run it on a machine with at least as many cores
as the largest rank count.

Writes <out>/mpi-scaling-<date>.json (records {system, algorithm, n_atoms, ranks, metric, value,
unit, device, date}) and <out>/mpi-scaling-<date>.md, after each rank count (those of a script stopped
part-way say so). The Monte Carlo runs use run_style gpumc (LAMMPS's forces only on output timesteps)
unless --run-style says otherwise. Usage:
  bench/mpi_scaling.py --lmp build/lmp [--ranks 1,2,4,8,16] [--out bench/results] [--repeats 3]
"""

import argparse
import datetime
import os
import platform
import re
import subprocess
import sys
import tempfile

from lammps_bench import INCOMPLETE, SIO2_SETUP, loop_time, median, save_results

LJ_BLOCK = """units lj
atom_style atomic
processors {grid}
lattice fcc 0.8442
region box block 0 {nx} 0 {ny} 0 {nz}
create_box 1 box
create_atoms 1 box
mass 1 1.0
pair_style lj/cut 2.5
pair_coeff 1 1 1.0 1.0
"""

# weak scaling: processor grid per rank count; each rank holds a 20 x 20 x 10 block of fcc cells
WEAK_GRIDS = {1: (1, 1, 1), 2: (1, 1, 2), 4: (1, 2, 2), 8: (2, 2, 2), 16: (2, 2, 4), 32: (2, 4, 4)}

# (sweeps per timestep, timesteps measured): about a second of work on one rank
MC_LJ = ("comm_modify cutoff 3.0\nfix mc all gpumc/nvt {sweeps} 0.85 2024 algorithm checkerboard displace 0.15 tune no "
         "ghosts {ghosts}\n")
MC_SIO2 = "fix mc all gpumc/nvt {sweeps} 4000.0 2024 algorithm checkerboard displace 0.3 tune no ghosts {ghosts}\n"
MD_LJ = "velocity all create 0.85 2024\nfix md all nvt temp 0.85 0.85 0.1\ntimestep 0.005\n"
MD_SIO2 = "velocity all create 4000.0 2024\nfix md all nvt temp 4000.0 4000.0 0.1\ntimestep 0.001\n"


def run(mpirun, ranks, lmp, text, workdir):
    path = os.path.join(workdir, "in.scaling")
    with open(path, "w") as f:
        f.write(text)
    cmd = [*mpirun.split(), "-np", str(ranks), lmp, "-in", path, "-log", "none", "-nocite"]
    res = subprocess.run(cmd, capture_output=True, text=True, cwd=workdir)
    if res.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{res.stdout[-4000:]}\n{res.stderr[-3000:]}")
    return res.stdout


def measured_trials(output):
    """Trials of the last run: the difference of the totals the fix reports after each run."""
    m = re.findall(r"fix gpumc/nvt mc: (\d+) translation trials", output)
    return int(m[-1]) - int(m[-2])


def measure_mc(args, workdir, setup, mc, ghosts, sweeps, steps, ranks):
    """Trial moves/s of the checkerboard on `ranks` ranks, and the trials of the measured run."""
    rates, trials = [], []
    for _ in range(args.repeats):
        # a first run sets the chain up (start energy, first exchange), the second is measured
        out = run(args.mpirun, ranks, args.lmp,
                  setup + mc.format(sweeps=sweeps, ghosts=ghosts) + f"run_style {args.run_style}\nthermo {steps}\n"
                  f"run 1\nrun {steps}\n", workdir)
        trials.append(measured_trials(out))
        rates.append(trials[-1] / loop_time(out))
    return median(rates), median(trials)


def measure_md(args, workdir, setup, md, md_steps, ranks):
    """LAMMPS MD timesteps/s of the system on `ranks` ranks."""
    rates = []
    for _ in range(args.repeats):
        out = run(args.mpirun, ranks, args.lmp, setup + md + f"thermo {md_steps}\nrun 10\nrun {md_steps}\n", workdir)
        rates.append(md_steps / loop_time(out))
    return median(rates)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lmp", required=True)
    p.add_argument("--mpirun", default="mpirun", help="the launcher and its options, e.g. 'mpirun --oversubscribe'")
    p.add_argument("--ranks", default="1,2,4,8,16")
    p.add_argument("--out", default="bench/results")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--only", default="strong-lj,strong-sio2,weak-lj")
    p.add_argument("--ghosts", default="refresh,frozen", help="the fix's ghosts settings run on several ranks")
    p.add_argument("--run-style", default="gpumc", help="run_style of the Monte Carlo runs (gpumc: LAMMPS's forces "
                   "only on output timesteps; verlet: every timestep)")
    p.add_argument("--sweeps", type=int, default=0, help="sweeps per timestep (invocation) of every case, instead "
                   "of each case's own (2 for strong scaling, 10 for weak)")
    args = p.parse_args()
    args.lmp = os.path.abspath(args.lmp)
    ranks = [int(r) for r in args.ranks.split(",")]
    only = args.only.split(",")
    date = datetime.date.today().isoformat()
    device = f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores"
    records = []

    def add(system, algorithm, n, r, metric, value, unit, ghosts=None):
        records.append({"system": system, "algorithm": algorithm, "n_atoms": n, "ranks": r, "metric": metric,
                        "value": value, "unit": unit, "device": device, "date": date, "ghosts": ghosts})
        print(f"{system} N={n} ranks={r}: {algorithm} {metric} {value:.4g} {unit}", flush=True)

    def write(complete):
        """The JSON and the table of the rank counts measured so far (after each: a script stopped by a
        time limit keeps what it measured)."""
        lines = [f"# MPI scaling of the host checkerboard, {date}", "",
                 f"Device: {device}. LAMMPS 4Feb2025 + USER-GPUMC with MPI, one rank per core; median of "
                 f"{args.repeats} runs per figure, over LAMMPS's loop time. Speedup and efficiency against 1 rank "
                 "(weak scaling: rate per rank against 1 rank's). Ghosts: the fix's setting on several ranks; tried: "
                 "atoms tried per sweep over all atoms (less than 1 with ghosts frozen: the still layers). The Monte Carlo "
                 f"runs use run_style {args.run_style}." +
                 ("" if complete else INCOMPLETE), "",
                 "| system | N | ranks | ghosts | tried | MC trial moves/s | MC speedup | MC efficiency | MD steps/s | "
                 "MD speedup |",
                 "|---|---|---|---|---|---|---|---|---|---|"]
        for system in dict.fromkeys(r["system"] for r in records):
            mc = [r for r in records if r["system"] == system and r["metric"] == "moves_per_s"]
            tried = {(r["ranks"], r["ghosts"]): r["value"] for r in records
                     if r["system"] == system and r["metric"] == "tried_fraction"}
            md = {r["ranks"]: r["value"] for r in records if r["system"] == system and r["metric"] == "md_steps_per_s"}
            base_mc, base_md = mc[0]["value"], md[mc[0]["ranks"]]
            weak = system.endswith("weak")
            for r in mc:
                k = r["ranks"] / mc[0]["ranks"]
                speed = r["value"] / base_mc
                md_speed = md[r["ranks"]] / base_md
                eff = speed / k
                # weak scaling: MD's steps/s of the k times larger system, against 1 rank's, is its efficiency
                lines.append(f"| {system} | {r['n_atoms']} | {r['ranks']} | {r['ghosts']} | "
                             f"{tried[(r['ranks'], r['ghosts'])]:.2f} | {r['value']:.3g} | {speed:.2f} | {eff:.0%} | "
                             f"{md[r['ranks']]:.3g} | {md_speed:.2f}{' (efficiency ' + format(md_speed, '.0%') + ')' if weak else ''} |")
        save_results(args.out, f"mpi-scaling-{date}", records, lines)
        if complete:
            print("\n".join(lines))

    with tempfile.TemporaryDirectory() as workdir:
        cases = []
        if "strong-lj" in only:
            cases.append(("lj-strong", 256000, lambda r: LJ_BLOCK.format(grid="* * *", nx=40, ny=40, nz=40),
                          MC_LJ, MD_LJ, 2, 3, 50))
        if "strong-sio2" in only:
            cases.append(("sio2-morse-strong", 74088, lambda r: SIO2_SETUP.format(n=42), MC_SIO2, MD_SIO2, 2, 3, 20))
        if "weak-lj" in only:
            def weak(r):
                g = WEAK_GRIDS[r]
                return LJ_BLOCK.format(grid=" ".join(map(str, g)), nx=20 * g[0], ny=20 * g[1], nz=10 * g[2])
            cases.append(("lj-weak", None, weak, MC_LJ, MD_LJ, 10, 5, 100))
        for system, n, setup, mc, md, sweeps, steps, md_steps in cases:
            sweeps = args.sweeps or sweeps
            for r in ranks:
                natoms = n if n else 16000 * r
                # (one rank runs the one-process sweeps whatever the setting)
                for ghosts in (args.ghosts.split(",") if r > 1 else ["refresh"]):
                    rate, trials = measure_mc(args, workdir, setup(r), mc, ghosts, sweeps, steps, r)
                    algorithm = f"fix gpumc/nvt checkerboard (host), ghosts {ghosts}"
                    add(system, algorithm, natoms, r, "moves_per_s", rate, "trial moves/s", ghosts)
                    add(system, algorithm, natoms, r, "tried_fraction", trials / (natoms * sweeps * steps),
                        "atoms tried per sweep / atoms", ghosts)
                add(system, "LAMMPS MD (fix nvt)", natoms, r, "md_steps_per_s",
                    measure_md(args, workdir, setup(r), md, md_steps, r), "timesteps/s")
                write(False)

    write(True)


if __name__ == "__main__":
    main()
