#!/usr/bin/env python3
"""Multi-GPU scaling of the /kk checkerboard sweeps (fix gpumc/nvt/kk algorithm checkerboard, one
MPI rank per GPU), beside LAMMPS KOKKOS MD of the same system on the same GPUs.

The seed's SiO2 Morse system (0.053679 atoms/A^3, 4000 K, rc 9 A). Strong scaling at N = 357911
and N = 2863288 on 1, 2, 4 GPUs; weak scaling at 357911 atoms per GPU (a 71 x 71 x 71 block of
sites per GPU, the processor grid given). Mixed and double precision. For each: trial moves/s and
sweeps/s over LAMMPS's loop time, the shares of the sweeps' wall time in communication (the fix's
end-of-run line: atoms moved between ranks and ghosts copied once per sweep, ghosts refreshed after
each colour), and the
anchor, LAMMPS KOKKOS MD (fix nvt, 1 fs) timesteps/s. Median of --repeats runs. On several GPUs the
fix runs with each --ghosts setting (refresh: the one-process chain; frozen: one grid per
invocation, still layers at the subdomains' upper walls along the sides that several GPUs split, no
communication between sweeps), and the fraction of the atoms tried per sweep is reported.

Writes <out>/gpu-scaling-<date>.json (records {system, algorithm, precision, n_atoms, gpus, metric,
value, unit, device, date}) and <out>/gpu-scaling-<date>.md, after each GPU count (those of a script
stopped part-way say so). --skin S gives the Monte Carlo runs `neighbor S bin` (LAMMPS copies ghosts out to the pair
cutoff plus the skin; the sweeps need them out to one checkerboard cell); MD keeps LAMMPS's skin.
Usage:
  bench/gpu_scaling.py --lmp build/lmp [--gpus 1,2,4] [--mpirun 'mpirun --allow-run-as-root'] [--skin 0.5]
"""

import argparse
import datetime
import os
import re
import subprocess
import sys
import tempfile

from lammps_bench import INCOMPLETE, SIO2_SETUP, loop_time, median, save_results

# processor grid of the weak-scaling runs: each GPU holds a 71^3 block of sites
WEAK_GRIDS = {1: (1, 1, 1), 2: (1, 1, 2), 4: (1, 2, 2), 8: (2, 2, 2)}
KOKKOS = "-k on g {g} -sf kk -pk kokkos neigh half newton on"    # {g}: the number of GPUs
MC = ("fix mc all gpumc/nvt {sweeps} 4000.0 2024 algorithm checkerboard displace 0.3 tune no precision {precision} "
      "ghosts {ghosts}\n")
MD = "velocity all create 4000.0 2024\nfix md all nvt temp 4000.0 4000.0 0.1\ntimestep 0.001\n"


def setup(grid, n):
    text = SIO2_SETUP.format(n=n[0]).replace(f"region box block 0 {n[0]} 0 {n[0]} 0 {n[0]}",
                                             f"region box block 0 {n[0]} 0 {n[1]} 0 {n[2]}")
    return f"processors {grid}\n" + text


def run(args, gpus, text, workdir):
    path = os.path.join(workdir, "in.gpu_scaling")
    with open(path, "w") as f:
        f.write(text)
    cmd = [*args.mpirun.split(), "-np", str(gpus), args.lmp, *args.kokkos.format(g=gpus).split(), "-in", path,
           "-log", "none", "-nocite"]
    res = subprocess.run(cmd, capture_output=True, text=True, cwd=workdir)
    if res.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{res.stdout[-4000:]}\n{res.stderr[-3000:]}")
    return res.stdout


def measured(output):
    """Trials of the last run (difference of the fix's totals) and the shares of its sweeps' time in
    communication: moving atoms between ranks, copying ghosts, refreshing ghosts."""
    trials = [int(t) for t in re.findall(r"fix gpumc/nvt/kk mc: (\d+) translation trials", output)]
    comm = re.findall(r"([0-9.eE+-]+) s of sweeps on \d+ MPI processes \(rank 0\), [0-9.eE+-]+ s \([0-9.]+%\) of "
                      r"them in communication: ([0-9.eE+-]+) s moving atoms between ranks, ([0-9.eE+-]+) s copying "
                      r"ghosts, ([0-9.eE+-]+) s refreshing", output)
    if not comm:
        return trials[-1] - trials[-2], (0.0, 0.0, 0.0)
    total, *parts = (float(v) for v in comm[-1])
    return trials[-1] - trials[-2], tuple(v / total for v in parts)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lmp", required=True)
    p.add_argument("--mpirun", default="mpirun --allow-run-as-root")
    p.add_argument("--gpus", default="1,2,4")
    p.add_argument("--precisions", default="mixed,double")
    p.add_argument("--only", default="strong-small,strong-large,weak")
    p.add_argument("--out", default="bench/results")
    p.add_argument("--repeats", type=int, default=1)
    p.add_argument("--device", default="", help="what the GPUs are, for the records")
    p.add_argument("--kokkos", default=KOKKOS, help="LAMMPS's Kokkos arguments ({g}: the number of GPUs)")
    p.add_argument("--ghosts", default="refresh,frozen", help="the fix's ghosts settings run on several GPUs")
    p.add_argument("--sweeps", type=int, default=0, help="sweeps per timestep (invocation) of every case, instead "
                   "of each case's own (10, or 5 at N = 2863288)")
    p.add_argument("--run-style", default="gpumc", help="run_style of the Monte Carlo runs (gpumc: LAMMPS's forces "
                   "only on output timesteps; verlet: every timestep)")
    p.add_argument("--skin", type=float, default=None, help="neighbor skin of the Monte Carlo runs (default: "
                   "LAMMPS's, 2 A): LAMMPS copies ghosts out to the pair cutoff plus the skin, and with one "
                   "grid per invocation the sweeps need them only out to one checkerboard cell")
    p.add_argument("--sites", default="71,142", help="sites per side: the smaller strong-scaling system (and the "
                   "weak-scaling block per GPU), the larger")
    args = p.parse_args()
    args.lmp = os.path.abspath(args.lmp)
    gpu_counts = [int(g) for g in args.gpus.split(",")]
    precisions = args.precisions.split(",")
    date = datetime.date.today().isoformat()
    records = []

    def add(system, algorithm, precision, n, g, metric, value, unit, ghosts=None):
        records.append({"system": system, "algorithm": algorithm, "precision": precision, "n_atoms": n, "gpus": g,
                        "metric": metric, "value": value, "unit": unit, "device": args.device, "date": date,
                        "ghosts": ghosts, "skin": args.skin if ghosts else None})
        print(f"{system} N={n} gpus={g} {precision}: {algorithm} {metric} {value:.4g} {unit}", flush=True)

    small, large = (int(v) for v in args.sites.split(","))
    cases = []    # (system, atoms per axis for g GPUs, grid for g GPUs, sweeps per step, steps, MD steps)
    if "strong-small" in args.only:
        cases.append(("sio2-morse-strong", lambda g: (small,) * 3, lambda g: "* * *", 10, 20, 100))
    if "strong-large" in args.only:
        cases.append(("sio2-morse-strong", lambda g: (large,) * 3, lambda g: "* * *", 5, 10, 30))
    if "weak" in args.only:
        cases.append(("sio2-morse-weak", lambda g: tuple(small * k for k in WEAK_GRIDS[g]),
                      lambda g: " ".join(map(str, WEAK_GRIDS[g])), 10, 20, 100))

    def write(complete):
        """The JSON and the tables of the GPU counts measured so far (after each: a script stopped by a
        time limit keeps what it measured)."""
        lines = [f"# Multi-GPU scaling of the /kk checkerboard, {date}", "",
                 f"Device: {args.device or 'not given'}. LAMMPS 4Feb2025 + USER-GPUMC (KOKKOS, CUDA), one MPI rank per "
                 f"GPU; median of {args.repeats} run(s) per figure, over LAMMPS's loop time. Speedup and efficiency "
                 "against the fewest GPUs (weak scaling: rate per GPU against 1 GPU's); comm: share of the sweeps' wall "
                 "time (rank 0) moving atoms between ranks (exchange) and copying ghosts (borders; once per sweep, or "
                 "once per invocation with ghosts frozen), and refreshing ghosts after each colour. Ghosts: the fix's "
                 "setting; tried: atoms tried per sweep over all atoms (less than 1 with ghosts frozen). The Monte Carlo "
                 f"runs use run_style {args.run_style}" +
                 (f" and neighbor {args.skin} bin (ghosts out to the pair cutoff plus {args.skin})."
                  if args.skin is not None else ".") +
                 ("" if complete else INCOMPLETE), "",
                 "| system | N | GPUs | precision | ghosts | tried | MC trial moves/s | sweeps/s | MC speedup | "
                 "MC efficiency | exchange | borders | ghost refresh | MD steps/s | MD speedup |",
                 "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        def value(system, n, g, metric, precision=None, ghosts=None):
            for r in records:
                if (r["system"], r["n_atoms"], r["gpus"], r["metric"]) == (system, n, g, metric) and \
                        (precision is None or r["precision"] == precision) and (ghosts is None or r["ghosts"] == ghosts):
                    return r["value"]
            return None
        for system in dict.fromkeys(r["system"] for r in records):
            weak = system.endswith("weak")
            sizes = [None] if weak else list(dict.fromkeys(r["n_atoms"] for r in records if r["system"] == system))
            for n0 in sizes:
                for precision in precisions:
                    rows = [r for r in records if r["system"] == system and r["metric"] == "moves_per_s" and
                            r["precision"] == precision and (weak or r["n_atoms"] == n0)]
                    if not rows:
                        continue
                    base, g0 = rows[0], rows[0]["gpus"]
                    base_md = value(system, base["n_atoms"], g0, "md_steps_per_s")
                    for r in rows:
                        k = r["gpus"] / g0
                        speed = r["value"] / base["value"]
                        md = value(system, r["n_atoms"], r["gpus"], "md_steps_per_s")
                        md_speed = md / base_md * (k if weak else 1.0)
                        mode = r["ghosts"]
                        exchange = value(system, r["n_atoms"], r["gpus"], "exchange_share", precision, mode)
                        borders = value(system, r["n_atoms"], r["gpus"], "borders_share", precision, mode)
                        ghost = value(system, r["n_atoms"], r["gpus"], "ghost_share", precision, mode)
                        tried = value(system, r["n_atoms"], r["gpus"], "tried_fraction", precision, mode)
                        sweeps_s = value(system, r["n_atoms"], r["gpus"], "sweeps_per_s", precision, mode)
                        lines.append(f"| {system} | {r['n_atoms']} | {r['gpus']} | {precision} | {mode} | {tried:.2f} | "
                                     f"{r['value']:.3g} | {sweeps_s:.3g} | {speed:.2f} | {speed / k:.0%} | "
                                     f"{exchange:.0%} | {borders:.0%} | {ghost:.0%} | {md:.3g} | {md_speed:.2f} |")
        save_results(args.out, f"gpu-scaling-{date}", records, lines)
        if complete:
            print("\n".join(lines))

    with tempfile.TemporaryDirectory() as workdir:
        for system, sites, grid, sweeps, steps, md_steps in cases:
            sweeps = args.sweeps or sweeps
            for g in gpu_counts:
                s = sites(g)
                natoms = s[0] * s[1] * s[2]
                text = setup(grid(g), s)
                for precision, mode in [(p, m) for p in precisions
                                        for m in (args.ghosts.split(",") if g > 1 else ["refresh"])]:
                    rates, shares, tried = [], [], []
                    skin = f"neighbor {args.skin} bin\n" if args.skin is not None else ""
                    for _ in range(args.repeats):
                        out = run(args, g, text + skin + MC.format(sweeps=sweeps, precision=precision, ghosts=mode) +
                                  f"run_style {args.run_style}\nthermo {steps}\nrun 1\nrun {steps}\n", workdir)
                        trials, share = measured(out)
                        rates.append(trials / loop_time(out))
                        shares.append(share)
                        tried.append(trials / (natoms * sweeps * steps))
                    rate = median(rates)
                    algorithm = f"fix gpumc/nvt/kk checkerboard, ghosts {mode}"
                    add(system, algorithm, precision, natoms, g, "moves_per_s", rate, "trial moves/s", mode)
                    add(system, algorithm, precision, natoms, g, "sweeps_per_s", median(rates) / median(tried) / natoms,
                        "sweeps/s", mode)
                    add(system, algorithm, precision, natoms, g, "tried_fraction", median(tried),
                        "atoms tried per sweep / atoms", mode)
                    for k, (metric, what) in enumerate([
                            ("exchange_share", "moving atoms between ranks (exchange)"),
                            ("borders_share", "copying ghosts (borders)"),
                            ("ghost_share", "refreshing ghosts (after each colour; energy checks if frozen)")]):
                        add(system, algorithm, precision, natoms, g, metric, median([v[k] for v in shares]),
                            f"fraction of the sweeps' time {what}", mode)
                md = []
                for _ in range(args.repeats):
                    out = run(args, g, text + MD + f"thermo {md_steps}\nrun 10\nrun {md_steps}\n", workdir)
                    md.append(md_steps / loop_time(out))
                add(system, "LAMMPS KOKKOS MD (fix nvt, 1 fs)", "double", natoms, g, "md_steps_per_s", median(md),
                    "timesteps/s")
                write(False)

    write(True)


if __name__ == "__main__":
    main()
