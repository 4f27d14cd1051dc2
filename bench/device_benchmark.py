#!/usr/bin/env python3
"""GPU benchmark of the /kk styles on the seed's SiO2 Morse system, in the same run as LAMMPS's own
KOKKOS molecular dynamics of the same system.

System: Morse SiO2 (rc 9 A, 0.053679 atoms/A^3, 4000 K) on a simple cubic lattice of n^3 sites,
one third Si, n = 17, 42, 71 (N = 4913, 74088, 357911). For each N it measures, with
`lmp -k on g 1 -sf kk -pk kokkos neigh half newton on`:
  fix gpumc/nvt/kk       trial moves/s of the strictly sequential chain, and sweeps/s (with
                         Ewald also under run_style gpumc, over LAMMPS's Modify time: the
                         sweeps without LAMMPS's force timesteps)
  ... algorithm checkerboard   the same for checkerboard sweeps, double and mixed precision
                         (10 sweeps per timestep; mixed also 100), under run_style verlet and
                         run_style gpumc; --team-scan: several team sizes at large N
  compute widom/kk       test insertions/s, double and mixed precision
  fix gpumc/npt/kk       seconds per volume move (a one-atom group, so the run is volume moves)
  fix gcmc               LAMMPS's own Monte Carlo translations on the CPU (full_energy: the whole
                         system's energy per move), trial moves/s
  fix nvt (LAMMPS MD)    timesteps/s (1000 steps after 200, dt = 1 fs), as the platform anchors
Rates are work over LAMMPS's loop time, median of --repeats runs.

Writes <out>/device-<date>.json, a list of records {system, algorithm, n_atoms, metric, value,
unit, device, date} with metric one of moves_per_s, insertions_per_s, volume_move_s,
md_steps_per_s, sweeps_per_s, and <out>/device-<date>.md (a table).
--system sio2-bks measures the same on charged silica (BKS Buckingham and charges, DSF Coulomb, a
Lennard-Jones repulsion, over hybrid/overlay: lammps_bench.py) and writes device-<date>-sio2-bks.*;
--system sio2-ewald the same silica with exact Ewald Coulomb (coul/long, kspace_style ewald), where
the sequential chain, Widom, volume moves and fix gcmc apply.
Usage: bench/device_benchmark.py --lmp build-dev/lmp [--out DIR] [--sizes 17,42,71] [--quick] [--team-scan]
       [--only sequential,checkerboard,widom,volume,gcmc,md] [--system sio2-morse|sio2-bks|sio2-ewald]
"""

import argparse
import datetime
import json
import os
import subprocess
import tempfile

from lammps_bench import SYSTEMS, loop_time, median, modify_time, run_lammps

KOKKOS = ["-k", "on", "g", "1", "-sf", "kk", "-pk", "kokkos", "neigh", "half", "newton", "on"]

def gpu_name():
    try:
        res = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True, text=True)
        return res.stdout.strip().splitlines()[0]
    except (OSError, IndexError):
        return "unknown GPU"


SECTIONS = ("sequential", "checkerboard", "widom", "volume", "gcmc", "md")


def measure(lmp, n, repeats, quick, work, team_scan=False, only=SECTIONS, system="sio2-morse"):
    natoms = n ** 3
    base = SYSTEMS[system][0].format(n=n)
    out = []
    scale = 0.2 if quick else 1.0

    # sequential chain: about 5 million trial moves per measurement, 10 sweeps per timestep; with an
    # Ewald sum 50 (LAMMPS's own Ewald forces at every timestep take as long as a few sweeps)
    ewald = system == "sio2-ewald"
    chains = [("gpumc/nvt/kk sequential chain", 5e6)]
    for label, moves_wanted in chains if "sequential" in only else []:
        sweeps = max(1, int(moves_wanted / natoms * scale))
        per_step = min(sweeps, 50 if ewald else 10)
        steps = max(1, sweeps // per_step)
        text = (base + f"fix mc all gpumc/nvt/kk {per_step} 4000.0 12345 displace 0.3 tune no\n"
                f"thermo 100000\nrun 1\nrun {steps}\n")
        rates = [steps * per_step * natoms / loop_time(run_lammps(lmp, text, work, KOKKOS)) for _ in range(repeats)]
        out.append((label, "moves_per_s", median(rates), "trial moves/s"))
        out.append((label, "sweeps_per_s", median(rates) / natoms, "sweeps/s"))
    # With an Ewald sum, also the chain alone: under run_style gpumc only a run's setup and last
    # timestep compute LAMMPS's (CPU) Ewald forces, and the fix's sweeps are LAMMPS's Modify time
    # (two runs of different length, whose force timesteps were to cancel, left the CPU's Ewald
    # forces' spread of seconds in the difference)
    if ewald and "sequential" in only:
        label = "gpumc/nvt/kk sequential chain (run_style gpumc, chain alone)"
        per_step, steps = (50, 4) if natoms < 20000 else (10, 5)
        text = (base + f"fix mc all gpumc/nvt/kk {per_step} 4000.0 12345 displace 0.3 tune no\n"
                f"thermo 100000\nrun_style gpumc\nrun 1\nrun {steps}\n")
        rates = [steps * per_step * natoms / modify_time(run_lammps(lmp, text, work, KOKKOS)) for _ in range(repeats)]
        out.append((label, "moves_per_s", median(rates), "trial moves/s"))
        out.append((label, "sweeps_per_s", median(rates) / natoms, "sweeps/s"))

    # checkerboard sweeps: about 10^7 trial moves, 10 sweeps per timestep; double and mixed precision
    # with the default team size and, with --team-scan for the large systems, other team sizes. Each
    # timestep also holds LAMMPS's own work (neighbour lists, forces) and the fix's copies of the
    # configuration, so mixed precision is measured with 100 sweeps per timestep too (at least 200
    # sweeps), which spreads that work thinner.
    # run_style gpumc leaves that work out of the timesteps without output (here all but the last):
    # the same variants under it
    # Every variant makes the same number of sweeps (at least 200), so that the timestep that ends
    # each run with LAMMPS's forces (under run_style gpumc the only one) weighs the same in all.
    sweeps = max(200, int(1e7 / natoms * scale))
    # (label suffix, fix keywords, sweeps per timestep, fewest timesteps, run style)
    variants = [("", "", 10, 1, "verlet"), (" (mixed precision)", " precision mixed", 10, 1, "verlet"),
                (" (mixed precision, 100 sweeps per timestep)", " precision mixed", 100, 1, "verlet"),
                (" (run_style gpumc)", "", 10, 1, "gpumc"),
                (" (mixed precision, run_style gpumc)", " precision mixed", 10, 1, "gpumc"),
                (" (mixed precision, 100 sweeps per timestep, run_style gpumc)", " precision mixed", 100, 1, "gpumc")]
    if team_scan and natoms >= 50000 and not quick:
        variants += [(f" team {t}", f" team {t}", 10, 1, "verlet") for t in (32, 64, 128, 256)]
    for suffix, keywords, per_step, min_steps, run_style in variants if "checkerboard" in only else []:
        steps = max(min_steps, sweeps // per_step)
        label = "gpumc/nvt/kk checkerboard" + suffix
        text = (base + f"fix mc all gpumc/nvt/kk {per_step} 4000.0 12345 displace 0.3 tune no algorithm checkerboard"
                f"{keywords}\nthermo 100000\nrun_style {run_style}\nrun 1\nrun {steps}\n")
        rates = [steps * per_step * natoms / loop_time(run_lammps(lmp, text, work, KOKKOS)) for _ in range(repeats)]
        out.append((label, "moves_per_s", median(rates), "trial moves/s"))
        out.append((label, "sweeps_per_s", median(rates) / natoms, "sweeps/s"))

    # Widom insertions: 10^7 per invocation (one per timestep), double and mixed precision
    nins, wsteps = int(1e7 * scale) or 1000000, 5
    for suffix, keywords in [("", ""), (" (mixed precision)", " precision mixed")] if "widom" in only else []:
        text = (base + f"compute w all widom/kk 1 {nins} 4000.0 77{keywords}\nthermo_style custom step c_w[2]\n"
                f"thermo 1\nrun {wsteps}\n")
        rates = []
        for _ in range(repeats):
            o = run_lammps(lmp, text, work, KOKKOS)
            total = nins * wsteps    # at least; the compute rounds up to an equal number per cell
            rates.append(total / loop_time(o))
        out.append(("compute widom/kk" + suffix, "insertions_per_s", median(rates), "insertions/s"))

    # volume moves: one translating atom, 20 volume trials per sweep, 5 sweeps per step, 4 steps
    vsteps, vper = 4, 5 * 20
    text = (base + "group one id 1\nfix mc one gpumc/npt/kk 5 4000.0 30000.0 999 vmoves 20 vstep 0.002 tune no\n"
            f"thermo 100000\nrun 1\nrun {vsteps}\n")
    if "volume" in only:
        times = [loop_time(run_lammps(lmp, text, work, KOKKOS)) / (vsteps * vper) for _ in range(repeats)]
        out.append(("gpumc/npt/kk volume move (ln V)", "volume_move_s", median(times), "s per volume move"))

    # LAMMPS's own Monte Carlo on the CPU (fix gcmc, translations only, the full energy of the
    # system per move, as it must with a k-space solver): a few moves, one invocation
    gmoves = 20 if natoms < 10000 else 4
    text = (base + f"fix mc all gcmc 1 0 {gmoves} 1 12345 4000.0 0.0 0.3 mcmoves 1 0 0 full_energy\n"
            "thermo 100000\nrun 1\n")
    if "gcmc" in only:
        rates = [gmoves / loop_time(run_lammps(lmp, text, work)) for _ in range(repeats)]
        out.append(("fix gcmc full_energy (LAMMPS MC package, CPU, 1 core)", "moves_per_s", median(rates),
                    "trial moves/s"))

    # LAMMPS KOKKOS MD, NVT, dt = 1 fs: 1000 steps after 200
    # (with Ewald, LAMMPS's k-space sum on the CPU takes seconds a step at large N: 10 steps after 2)
    mdsteps, warm = (10, 2) if ewald else (int(1000 * scale) or 200, 200)
    text = (base + "velocity all create 4000.0 4928 mom yes rot yes dist gaussian\ntimestep 0.001\n"
            f"fix t all nvt temp 4000.0 4000.0 0.1\nthermo 100000\nrun {warm}\nrun {mdsteps}\n")
    if "md" in only:
        rates = [mdsteps / loop_time(run_lammps(lmp, text, work, KOKKOS)) for _ in range(repeats)]
        out.append(("LAMMPS KOKKOS MD (fix nvt)", "md_steps_per_s", median(rates), "timesteps/s"))
    return natoms, out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lmp", default="build-dev/lmp")
    ap.add_argument("--out", default="bench/results")
    ap.add_argument("--sizes", default="17,42,71")
    ap.add_argument("--system", default="sio2-morse", choices=sorted(SYSTEMS),
                    help="sio2-morse (the seed study's system), sio2-bks (charged: Buckingham, DSF Coulomb) or "
                    "sio2-ewald (the same with exact Ewald Coulomb)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--team-scan", action="store_true", help="checkerboard team sizes 32-256 at N >= 50000")
    ap.add_argument("--only", default=",".join(SECTIONS),
                    help="comma-separated sections to measure: " + ", ".join(SECTIONS) + " (default: all)")
    args = ap.parse_args()
    unknown = set(args.only.split(",")) - set(SECTIONS)
    if unknown:
        ap.error(f"--only: unknown section(s) {', '.join(sorted(unknown))}; choose from {', '.join(SECTIONS)}")
    lmp = os.path.abspath(args.lmp)
    date = datetime.date.today().isoformat()
    device = gpu_name()
    records = []
    with tempfile.TemporaryDirectory() as work:
        for n in [int(v) for v in args.sizes.split(",")]:
            natoms, results = measure(lmp, n, 1 if args.quick else args.repeats, args.quick, work,
                                      args.team_scan, args.only.split(","), args.system)
            for algorithm, metric, value, unit in results:
                records.append(dict(system=args.system, algorithm=algorithm, n_atoms=natoms, metric=metric,
                                    value=float(f"{value:.5g}"), unit=unit, device=device, date=date))
                print(f"N={natoms:7d} {algorithm:34s} {value:12.5g} {unit}", flush=True)
    os.makedirs(args.out, exist_ok=True)
    stem = os.path.join(args.out, f"device-{date}" + ("" if args.system == "sio2-morse" else "-" + args.system))
    with open(stem + ".json", "w") as f:
        json.dump(records, f, indent=1)
    with open(stem + ".md", "w") as f:
        f.write(f"# Device benchmark, {date}\n\nDevice: {device}. {SYSTEMS[args.system][1]}, "
                "simple cubic lattice start. LAMMPS 4Feb2025 + USER-GPUMC, KOKKOS (CUDA), `-k on g 1 -sf kk -pk "
                "kokkos neigh half newton on`. Median of repeated runs over LAMMPS's loop time.\n\n")
        f.write("| N | algorithm | value | unit |\n|---|---|---|---|\n")
        for r in records:
            f.write(f"| {r['n_atoms']} | {r['algorithm']} | {r['value']:.4g} | {r['unit']} |\n")
    print(f"wrote {stem}.json and {stem}.md")


if __name__ == "__main__":
    main()
