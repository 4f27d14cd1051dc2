#!/usr/bin/env python3
"""What keeping per-atom neighbour lists would cost the checkerboard sweeps (issue 36, option 3).

Neighbour lists of radius rc + skin can serve a sweep's trials only while no atom has come within
rc of a trial position from outside a list. An atom is tried once per sweep, so with D0 the largest
displacement since the lists were built (at the start of a sweep) and every trial and accepted move
at most sqrt(3) d long (d: the displacement's half-width per axis), the lists hold for the whole
sweep if 2 D0 + 2 sqrt(3) d <= skin. This script measures, on the Kokkos engine:

  1. how fast D0 grows: the largest displacement of the real chain (fix gpumc/nvt/kk, checkerboard,
     mixed precision, run_style gpumc, one sweep per timestep) after 1, 2, ... sweeps, from an
     equilibrated liquid (melted at 2 T, then held at T), over several origins; hence the sweeps a
     list of each skin lasts;
  2. what a list build costs: LAMMPS KOKKOS's own neighbour build of the same system at radius
     rc + skin (MD with `neigh_modify every 1 delay 0 check no`, the Neigh time per build);
  3. the sweep rate of the engine as it is (10 sweeps per timestep, run_style gpumc);
  4. with --proto (bench/proto/nlist_trials.cu, built), the list-walk trial kernel and the
     corrections kernel per colour at each skin.

Per skin it reports the list cost per sweep: builds spread over the sweeps a list lasts, plus 8
colours of list trials and corrections (4), against the engine's whole sweep time (3).

Writes <out>/list-maintenance-<date>.json and .md.
Usage: bench/list_maintenance.py --lmp LMP [--proto BIN] [--n 42] [--skins 1,2,3,4] [--out DIR]
"""

import argparse
import datetime
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile

from lammps_bench import SIO2_SETUP, loop_time, run_lammps

KOKKOS_ON = ["g", "1"]    # --kokkos-on: what follows -k on


def kokkos_args(neigh="half"):
    return ["-k", "on", *KOKKOS_ON, "-sf", "kk", "-pk", "kokkos", "neigh", neigh, "newton", "on" if neigh == "half" else "off"]
RC, T, DMAX = 9.0, 4000.0, 0.3


def mobility(lmp, n, work, origins, lags):
    """Largest displacement (A) after 1..lags sweeps, per origin."""
    text = SIO2_SETUP.format(n=n) + (
        "run_style gpumc\n"
        f"fix mc all gpumc/nvt 10 {2 * T} 11 algorithm checkerboard precision mixed displace {DMAX} tune no\n"
        "thermo 100000\nrun 50\nunfix mc\n"
        f"fix mc all gpumc/nvt 10 {T} 12 algorithm checkerboard precision mixed displace {DMAX} tune no\n"
        "run 100\nunfix mc\n"
        f"fix mc all gpumc/nvt 1 {T} 13 algorithm checkerboard precision mixed displace {DMAX} tune no\n"
        "thermo 1\n")
    for o in range(origins):
        text += (f"compute d{o} all displace/atom\ncompute m{o} all reduce max c_d{o}[4]\n"
                 f"thermo_style custom step c_m{o}\nrun {lags}\nuncompute m{o}\nuncompute d{o}\n")
    out = run_lammps(lmp, text, work, kokkos_args())
    curves = []
    for block in re.findall(r"Step\s+c_m\d+\s*\n(.*?)\n(?:fix|Loop)", out, re.S):
        rows = [l.split() for l in block.strip().splitlines()]
        curves.append([float(r[1]) for r in rows[1:]])    # rows[0]: the origin itself
    accept = [float(r) for r in re.findall(r"acceptance ([0-9.]+)", out)]
    return curves, accept[-1] if accept else None


def build_time(lmp, n, work, skin, kokkos_neigh):
    """Seconds per neighbour-list build at radius RC + skin (LAMMPS KOKKOS MD, a build every step)."""
    steps = 40
    text = SIO2_SETUP.format(n=n) + (
        f"neighbor {skin} bin\nneigh_modify every 1 delay 0 check no\n"
        f"velocity all create {T} 4928\ntimestep 0.001\nfix md all nve\nthermo 100000\nrun 5\nrun {steps}\n")
    out = run_lammps(lmp, text, work, kokkos_args(kokkos_neigh))
    neigh = float(re.findall(r"\nNeigh\s+\|\s+([0-9.eE+-]+)", out)[-1])
    builds = int(re.findall(r"Neighbor list builds = (\d+)", out)[-1])
    nbrs = float(re.findall(r"Ave neighs/atom = ([0-9.eE+-]+)", out)[-1])
    return neigh / max(builds, 1), nbrs


def sweep_time(lmp, n, work):
    """Seconds per sweep of the engine as it is: mixed precision, 10 sweeps per timestep, run_style gpumc."""
    steps = 20
    text = SIO2_SETUP.format(n=n) + (
        f"fix mc all gpumc/nvt 10 {T} 12345 displace {DMAX} tune no algorithm checkerboard precision mixed\n"
        f"thermo 100000\nrun_style gpumc\nrun 20\nrun {steps}\n")
    return loop_time(run_lammps(lmp, text, work, kokkos_args())) / (10 * steps)


def proto_times(proto, n, skin, work):
    """(best list-walk trial kernel, corrections) in seconds per colour, mixed and double, at this skin."""
    subprocess.run([proto, "--n", str(n), "--skin", str(skin), "--out", work], check=True, capture_output=True)
    recs = json.load(open(os.path.join(work, f"nlist-{n}.json")))
    res = {}
    for prec in ("mixed", "double"):
        walk = [r for r in recs if r["precision"] == prec and r["kernel"] != "cell_corrections"]
        best = min(walk, key=lambda r: r["us_per_colour"])
        corr = [r for r in recs if r["precision"] == prec and r["kernel"] == "cell_corrections"][0]
        res[prec] = dict(trials_us=best["us_per_colour"], kernel=best["kernel"], corrections_us=corr["us_per_colour"],
                         list_mean=best["list_mean"])
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lmp", required=True)
    ap.add_argument("--proto", help="the built prototype bench/proto/nlist_trials.cu")
    ap.add_argument("--n", type=int, default=42, help="lattice sites per side (N = n^3)")
    ap.add_argument("--skins", default="1,2,3,4")
    ap.add_argument("--origins", type=int, default=3)
    ap.add_argument("--lags", type=int, default=12)
    ap.add_argument("--device", default="")
    ap.add_argument("--kokkos-on", default="g 1", help="what follows -k on (e.g. 't 2' for Kokkos OpenMP)")
    ap.add_argument("--out", default=".")
    a = ap.parse_args()
    KOKKOS_ON[:] = a.kokkos_on.split()
    skins = [float(s) for s in a.skins.split(",")]
    natoms = a.n ** 3
    work = tempfile.mkdtemp(prefix="gpumc-lists-")
    curves, accept = mobility(a.lmp, a.n, work, a.origins, a.lags)
    d0 = [statistics.mean(c[k] for c in curves) for k in range(a.lags)]
    sweep_s = sweep_time(a.lmp, a.n, work)
    reach = 2 * math.sqrt(3) * DMAX
    rows = []
    for skin in skins:
        allowed = skin / 2 - reach / 2    # the largest D0 at the start of a sweep
        lasts = sum(1 for v in d0 if v <= allowed) + 1 if allowed > 0 else 0    # sweeps from a build
        half, nbr_half = build_time(a.lmp, a.n, work, skin, "half")
        try:
            full, nbr_full = build_time(a.lmp, a.n, work, skin, "full")
        except SystemExit:
            full, nbr_full = None, None
        row = dict(skin=skin, list_radius=RC + skin, d0_allowed=allowed, sweeps_per_build=lasts,
                   lasts_whole_window=lasts > a.lags, build_s_half=half, build_s_full=full,
                   neighbours_half=nbr_half, neighbours_full=nbr_full)
        build = full if full is not None else half
        row["build_per_sweep_s"] = build / lasts if lasts else None
        if a.proto:
            p = proto_times(a.proto, a.n, skin, work)
            row["proto"] = p
            for prec in ("mixed", "double"):
                colours = 8 * (p[prec]["trials_us"] + p[prec]["corrections_us"]) * 1e-6
                row[f"list_cost_per_sweep_s_{prec}"] = colours + (row["build_per_sweep_s"] or math.inf)
        rows.append(row)
    date = datetime.date.today().isoformat()
    rec = dict(date=date, device=a.device, n_atoms=natoms, temperature=T, displace=DMAX, acceptance=accept,
               max_displacement_by_sweeps=d0, curves=curves, engine_sweep_s_mixed=sweep_s, skins=rows)
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, f"list-maintenance-{date}.json"), "w") as f:
        json.dump(rec, f, indent=1)
    lines = [f"# Neighbour-list maintenance for checkerboard trials, {date}", "",
             f"Device: {a.device}. SiO2 Morse, N = {natoms}, {T:.0f} K, displacement {DMAX} A per axis "
             f"(acceptance {accept}), `bench/list_maintenance.py`.", "",
             "Largest displacement of the chain (A) after k sweeps, mean over "
             f"{len(curves)} origins: " + ", ".join(f"{k + 1}: {v:.2f}" for k, v in enumerate(d0)), "",
             f"The engine as it is (mixed, 10 sweeps per timestep, run_style gpumc): {sweep_s * 1e6:.0f} us per sweep.",
             "",
             "| skin (A) | D0 allowed (A) | sweeps a list lasts | LAMMPS KOKKOS build, half / full (us) | "
             "build per sweep (us) | list trials + corrections, 8 colours, mixed / double (us) | "
             "list cost per sweep, mixed / double (us) |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        full = f"{r['build_s_full'] * 1e6:.0f}" if r["build_s_full"] is not None else "-"
        per = f"{r['build_per_sweep_s'] * 1e6:.0f}" if r["build_per_sweep_s"] else "never valid"
        lasts = f">{a.lags}" if r["lasts_whole_window"] else str(r["sweeps_per_build"])
        walk = cost = "-"
        if "proto" in r:
            p = r["proto"]
            walk = " / ".join(f"{8 * (p[q]['trials_us'] + p[q]['corrections_us']):.0f}" for q in ("mixed", "double"))
            cost = " / ".join(f"{r[f'list_cost_per_sweep_s_{q}'] * 1e6:.0f}" for q in ("mixed", "double"))
        lines.append(f"| {r['skin']:g} | {r['d0_allowed']:.2f} | {lasts} | {r['build_s_half'] * 1e6:.0f} / {full} | "
                     f"{per} | {walk} | {cost} |")
    with open(os.path.join(a.out, f"list-maintenance-{date}.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
