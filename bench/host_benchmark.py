#!/usr/bin/env python3
"""Host (CPU, one core) benchmark of the GPUMC styles side by side with LAMMPS's own Monte Carlo.

For each system it runs, in the same invocation of this script and with the same lmp binary:
  fix gpumc/nvt          trial translations per second
  fix gcmc               LAMMPS's own translations (mcmoves 1 0 0, no exchanges)
  compute widom          test insertions per second
  fix widom              LAMMPS's own test insertions
Rates are counted over the loop time LAMMPS reports for the measured run (so they include
LAMMPS's own per-step work: a force evaluation and a neighbour-list build per timestep).

Systems: LJ (rho* 0.8442, T* 0.85, rc 2.5) at N = 4000 and larger (flatness in N), and the seed's
SiO2 Morse system (0.053679 atoms/A^3, 4000 K, rc 9 A) on a simple cubic lattice of 17^3 = 4913.

Writes <out>/host-<date>.json (a list of records {system, algorithm, n_atoms, metric, value, unit,
device, date}) and <out>/host-<date>.md (a table). Usage:
  bench/host_benchmark.py --lmp build/lmp [--out bench/results] [--quick]
"""

import argparse
import datetime
import json
import os
import platform
import re
import tempfile

from lammps_bench import LJ_SETUP, SIO2_SETUP, loop_time, median, run_lammps

# (system name, setup template, lattice repeats, natoms, T, displacement, widom type)
SYSTEMS = {
    "lj": (LJ_SETUP, 0.85, 0.15, 1),
    "sio2-morse": (SIO2_SETUP, 4000.0, 0.3, 2),
}


REPEATS = 3    # each rate is the median of this many runs: timings on shared machines vary


def md_fraction(output):
    """Share of the last run's loop time in LAMMPS's Pair, Neigh and Comm sections."""
    total = loop_time(output)
    share = 0.0
    for section in ("Pair", "Neigh", "Comm"):
        m = re.findall(rf"^{section}\s*\|\s*[0-9.eE+-]+\s*\|\s*([0-9.eE+-]+)", output, re.M)
        share += float(m[-1])
    return share / total


def last_thermo(output, column):
    """Value of a thermo column on the last thermo line of the last run."""
    blocks = output.split("Loop time of")
    head = blocks[-2]
    lines = [l.split() for l in head.splitlines() if l.strip()]
    for k in range(len(lines) - 1, -1, -1):
        if column in lines[k]:
            idx = lines[k].index(column)
            return float(lines[-1][idx])
    raise RuntimeError(f"no thermo column {column}")


def median_rate(lmp, text, work_units, workdir, repeats):
    """Median over repeated runs of work_units / loop time of the last run."""
    return median([work_units / loop_time(run_lammps(lmp, text, workdir)) for _ in range(repeats)])


def measure(lmp, system, n, natoms, quick, workdir):
    setup, T, disp, wtype = SYSTEMS[system]
    base = setup.format(n=n)
    scale = 0.25 if quick else 1.0
    repeats = 1 if quick else REPEATS
    records = []

    # gpumc/nvt: 10 sweeps per timestep, displacement tuned during a short first run
    steps = max(2, int((30 if natoms < 20000 else 4) * scale))
    text = (base + f"fix mc all gpumc/nvt 10 {T} 12345 displace {disp} tune 2\n"
            f"thermo 1000\nrun 2\nrun {steps}\n")
    records.append(("gpumc/nvt (host)", "moves_per_s", median_rate(lmp, text, steps * 10 * natoms, workdir, repeats)))
    if natoms <= 5000:
        # share of LAMMPS's own per-timestep work (force evaluation, neighbor lists, ghost atoms)
        # in pure Monte Carlo runs, for 1, 10 and 100 sweeps per timestep
        for sweeps in (1, 10, 100):
            nsteps = max(2, int(100 / sweeps * scale))
            out = run_lammps(lmp, base + f"fix mc all gpumc/nvt {sweeps} {T} 12345 displace {disp} tune no\n"
                             f"thermo 1000\nrun {nsteps}\n", workdir)
            records.append((f"gpumc/nvt (host), {sweeps} sweeps/timestep", "md_machinery_fraction",
                            md_fraction(out)))

        # LAMMPS fix gcmc, translations only: one sweep (natoms trial moves) per timestep
        gsteps = max(1, int(4 * scale))
        text = (base + f"fix mc all gcmc 1 0 {natoms} {wtype} 12345 {T} 0.0 {disp} mcmoves 1 0 0\n"
                f"thermo 1000\nrun {gsteps}\n")
        records.append(("fix gcmc (LAMMPS MC package)", "moves_per_s",
                        median_rate(lmp, text, gsteps * natoms, workdir, repeats)))

        # compute widom: insertions at every timestep (thermo every step invokes it; the
        # invocation at step 0 falls in the setup, outside the loop time)
        nins, wsteps = 200000, max(2, int(20 * scale))
        text = (base + f"compute w all widom {wtype} {nins} {T} 77\n"
                f"thermo_style custom step c_w[2]\nthermo 1\nrun {wsteps}\n")
        records.append(("compute widom (host)", "insertions_per_s",
                        median_rate(lmp, text, wsteps * nins, workdir, repeats)))

        # LAMMPS fix widom: M insertions every timestep
        fins, fsteps = 20000, max(1, int(4 * scale))
        text = base + f"fix w all widom 1 {fins} {wtype} 77 {T}\nthermo 1000\nrun {fsteps}\n"
        records.append(("fix widom (LAMMPS MC package)", "insertions_per_s",
                        median_rate(lmp, text, fsteps * fins, workdir, repeats)))
    return records


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lmp", default="build/lmp")
    ap.add_argument("--out", default="bench/results")
    ap.add_argument("--quick", action="store_true", help="shorter runs (a smoke test, not for reporting)")
    args = ap.parse_args()
    lmp = os.path.abspath(args.lmp)
    date = datetime.date.today().isoformat()
    device = f"{cpu_name()}, 1 core"
    cases = [("lj", 10, 4000), ("lj", 20, 32000), ("lj", 40, 256000), ("sio2-morse", 17, 4913)]
    if args.quick:
        cases = [("lj", 10, 4000), ("sio2-morse", 17, 4913)]
    records = []
    with tempfile.TemporaryDirectory() as work:
        for system, n, natoms in cases:
            for algorithm, metric, value in measure(lmp, system, n, natoms, args.quick, work):
                unit = {"moves_per_s": "trial moves/s", "insertions_per_s": "insertions/s",
                        "md_machinery_fraction": "fraction of loop time"}[metric]
                rec = dict(system=system, algorithm=algorithm, n_atoms=natoms, metric=metric, value=float(f"{value:.5g}"),
                           unit=unit, device=device, date=date)
                records.append(rec)
                print(f"{system:11s} N={natoms:7d}  {algorithm:44s} {value:14.4g} {unit}", flush=True)

    os.makedirs(args.out, exist_ok=True)
    stem = os.path.join(args.out, f"host-{date}")
    with open(stem + ".json", "w") as f:
        json.dump(records, f, indent=1)
    with open(stem + ".md", "w") as f:
        f.write(f"# Host benchmark, {date}\n\nDevice: {device}. lmp: LAMMPS 4Feb2025 with USER-GPUMC, "
                "built by this repository's CMake (Release). Rates over LAMMPS's loop time, median of "
                f"{REPEATS} runs.\n\n")
        f.write("| system | N | algorithm | rate | unit | vs LAMMPS |\n|---|---|---|---|---|---|\n")
        anchors = {(r["system"], r["n_atoms"], r["metric"]): r["value"] for r in records
                   if "LAMMPS MC package" in r["algorithm"]}
        for r in records:
            anchor = anchors.get((r["system"], r["n_atoms"], r["metric"]))
            ratio = "" if anchor is None or "LAMMPS" in r["algorithm"] else f"{r['value'] / anchor:.1f}x"
            f.write(f"| {r['system']} | {r['n_atoms']} | {r['algorithm']} | {r['value']:.4g} | {r['unit']} | {ratio} |\n")
    print(f"wrote {stem}.json and {stem}.md")


if __name__ == "__main__":
    main()
