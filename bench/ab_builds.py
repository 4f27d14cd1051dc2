#!/usr/bin/env python3
"""Side-by-side A/B of two or more GPU builds of LAMMPS + GPUMC on the checkerboard, in one lease.

For each round, every build runs every (system, precision) in turn, the builds' order reversed
every other round, so that a drift of the machine (clocks, temperature) falls on all builds alike:
    fix gpumc/nvt/kk 10 4000.0 12345 displace 0.3 tune no algorithm checkerboard precision P
    run_style gpumc, run 1 then run S/10 (S sweeps; rate = S N / loop time of the second run)
with `lmp -k on g 1 -sf kk -pk kokkos neigh half newton on`, on the systems of lammps_bench.py.
Writes <out>/<stem>.json (every run) and <out>/<stem>.md: per build the mean rate over the rounds
with its spread, each build against the first, and each system against the first system.
Usage: bench/ab_builds.py --lmp before=/path/lmp --lmp after=/path/lmp [--systems sio2-morse,sio2-bks]
       [--precisions double,mixed] [--n 42] [--sweeps 200] [--rounds 2] [--out DIR] [--stem NAME]
"""

import argparse
import datetime
import json
import statistics
import tempfile

from device_benchmark import KOKKOS, gpu_name
from lammps_bench import INCOMPLETE, SYSTEMS, loop_time, run_lammps, save_results


def deck(system, n, precision, sweeps):
    return (SYSTEMS[system][0].format(n=n) +
            f"fix mc all gpumc/nvt/kk 10 4000.0 12345 displace 0.3 tune no algorithm checkerboard precision {precision}\n"
            f"thermo 100000\nrun_style gpumc\nrun 1\nrun {sweeps // 10}\n")


def table(builds, systems, precisions, runs, n, sweeps, rounds, complete, device):
    natoms = n ** 3
    rates = {}
    for r in runs:
        rates.setdefault((r["build"], r["system"], r["precision"]), []).append(r["moves_per_s"])
    mean = {k: statistics.mean(v) for k, v in rates.items()}
    lines = [f"# A/B of GPU builds on the checkerboard ({device}, {datetime.date.today()})", "",
             f"`bench/ab_builds.py`: N = {natoms}, {sweeps} sweeps per run under `run_style gpumc` (10 per "
             f"timestep), {rounds} rounds, the builds' order reversed every other round. Trial moves/s, mean of "
             "the rounds (each round's figure in brackets).", ""]
    lines += ["| system | precision | " + " | ".join(builds) + " | " +
              " | ".join(f"{b} / {builds[0]}" for b in builds[1:]) + " |",
              "|---|---|" + "---|" * (2 * len(builds) - 1)]
    for s in systems:
        for p in precisions:
            cells, ratios = [], []
            for b in builds:
                v = rates.get((b, s, p), [])
                cells.append(f"{mean[(b, s, p)]:.3e} [" + " / ".join(f"{x:.3e}" for x in v) + "]" if v else "")
            for b in builds[1:]:
                ok = (b, s, p) in mean and (builds[0], s, p) in mean
                ratios.append(f"{mean[(b, s, p)] / mean[(builds[0], s, p)]:.3f}" if ok else "")
            lines.append(f"| {s} | {p} | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |")
    if len(systems) > 1:
        lines += ["", f"Each system's rate against {systems[0]}'s, per build (means):", "",
                  "| system | precision | " + " | ".join(builds) + " |", "|---|---|" + "---|" * len(builds)]
        for s in systems[1:]:
            for p in precisions:
                cells = []
                for b in builds:
                    ok = (b, s, p) in mean and (b, systems[0], p) in mean
                    cells.append(f"{mean[(b, s, p)] / mean[(b, systems[0], p)]:.3f}" if ok else "")
                lines.append(f"| {s} | {p} | " + " | ".join(cells) + " |")
    if not complete:
        lines += ["", INCOMPLETE]
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lmp", action="append", required=True, help="NAME=PATH of a build's lmp (two or more)")
    ap.add_argument("--systems", default="sio2-morse,sio2-bks")
    ap.add_argument("--precisions", default="double,mixed")
    ap.add_argument("--n", type=int, default=42, help="lattice sites per side (N = n^3)")
    ap.add_argument("--sweeps", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--out", default="bench/results")
    ap.add_argument("--stem", default=f"ab-{datetime.date.today()}")
    args = ap.parse_args()
    builds = {}
    for item in args.lmp:
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            ap.error(f"--lmp {item}: give NAME=PATH")
        if name in builds:
            ap.error(f"--lmp: build name {name} given twice")
        builds[name] = path
    if len(builds) < 2:
        ap.error("give two or more builds (--lmp NAME=PATH, repeated)")
    names = list(builds)
    systems, precisions = args.systems.split(","), args.precisions.split(",")
    for s in systems:
        if s not in SYSTEMS:
            ap.error(f"unknown system {s}")
    for p in precisions:
        if p not in ("double", "mixed"):
            ap.error(f"unknown precision {p}: double or mixed")
    if args.sweeps < 10 or args.sweeps % 10:
        ap.error("--sweeps: a positive multiple of 10 (10 sweeps per timestep)")
    device = gpu_name()
    natoms = args.n ** 3
    runs = []
    with tempfile.TemporaryDirectory() as work:
        for rnd in range(args.rounds):
            for b in names if rnd % 2 == 0 else names[::-1]:
                for s in systems:
                    for p in precisions:
                        out = run_lammps(builds[b], deck(s, args.n, p, args.sweeps), work, KOKKOS)
                        rate = args.sweeps * natoms / loop_time(out)
                        runs.append({"round": rnd, "build": b, "system": s, "precision": p, "n_atoms": natoms,
                                     "sweeps": args.sweeps, "moves_per_s": rate, "device": device,
                                     "date": str(datetime.date.today())})
                        print(f"round {rnd} {b} {s} {p}: {rate:.4e} trial moves/s", flush=True)
                        save_results(args.out, args.stem, runs,
                                     table(names, systems, precisions, runs, args.n, args.sweeps, args.rounds, False, device))
    save_results(args.out, args.stem, runs, table(names, systems, precisions, runs, args.n, args.sweeps, args.rounds, True, device))


if __name__ == "__main__":
    main()
