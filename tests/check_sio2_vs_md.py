#!/usr/bin/env python3
"""GPUMC Monte Carlo against LAMMPS molecular dynamics (short version of examples/sio2-vs-md).

Runs the example's decks for LJ argon (500 atoms, T* = 0.85, rho* = 0.776, NVT) and for the
seed's SiO2 Morse system (4608 atoms, 4000 K, NVT, crystal start): LAMMPS MD, and GPUMC Monte Carlo
with each algorithm (the sequential chain and checkerboard sweeps); checks that the mean potential
energy per atom of each MC run agrees with MD within 4 combined standard errors (block averages over
10 blocks of the production series). Fixed seeds; plain Python, no numpy.

Usage: check_sio2_vs_md.py LMP EXAMPLE_DIR [--mc-temperature-scale S] [--only lj|sio2]
                           [--mpirun 'mpirun ...' --np N]
With --mc-temperature-scale (e.g. 1.02) the Monte Carlo runs at S times the MD temperature, and
the check is expected to fail: this shows that it can. With --np N > 1 every run uses N MPI
processes (launched by --mpirun), and Monte Carlo runs the checkerboard only (the sequential chain
runs on one process).
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

LIMIT = 4.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lmp")
    ap.add_argument("example")
    ap.add_argument("--mc-temperature-scale", type=float, default=1.0)
    ap.add_argument("--only", choices=("lj", "sio2"))
    ap.add_argument("--mpirun", default="mpirun")
    ap.add_argument("--np", type=int, default=1)
    args = ap.parse_args()
    ranks = args.np > 1
    args.lmp = os.path.abspath(args.lmp)
    example = os.path.abspath(args.example)
    sys.path.insert(0, example)
    import svm_stats as st

    s = args.mc_temperature_scale
    lj_mc = ["-var", "neq", "250", "-var", "ntime", "1000", "-var", "nprod", "0", "-var", "Tstar", repr(0.85 * s)]
    sio2_mc = ["-var", "neq", "100", "-var", "ntime", "160", "-var", "nprod", "0", "-var", "T", repr(4000.0 * s)]
    if ranks:    # the melt by checkerboard too; ghosts a cell deep (LJ: 2 cells of 14.7 A, SiO2: 4 of 11.0 A)
        lj_mc += ["-var", "meltalgo", "checkerboard", "-var", "ghost", "15.0"]
        sio2_mc += ["-var", "ghost", "11.5"]
    cases = [
        # system, label, deck, LAMMPS variables; the first case of a system is the MD reference
        ("lj", "lj.md.nvt", "in.lj.md", ["-var", "neq", "2000", "-var", "ntime", "8000", "-var", "nprod", "0"]),
        ("lj", "lj.mc.nvt", "in.lj.mc", lj_mc + ["-var", "algo", "sequential"]),
        ("lj", "lj.mccb.nvt", "in.lj.mc", lj_mc + ["-var", "algo", "checkerboard"]),
        ("sio2", "sio2.md.nvt.crystal", "in.sio2.md",
         ["-var", "neq0", "600", "-var", "neq", "400", "-var", "ntime", "1500", "-var", "nprod", "0"]),
        ("sio2", "sio2.mc.nvt.crystal", "in.sio2.mc", sio2_mc + ["-var", "algo", "sequential"]),
        ("sio2", "sio2.mccb.nvt.crystal", "in.sio2.mc", sio2_mc + ["-var", "algo", "checkerboard"]),
    ]
    t_all = time.time()
    results = {}
    with tempfile.TemporaryDirectory() as work:
        for system, label, deck, var in cases:
            if (args.only and system != args.only) or (ranks and "sequential" in var):
                continue
            t0 = time.time()
            launch = [*args.mpirun.split(), "-np", str(args.np)] if ranks else []
            cmd = [*launch, args.lmp, "-nocite", "-screen", "none", "-log", f"log.{label}", "-in",
                   os.path.join(example, deck), "-var", "dir", example, "-var", "label", label] + var
            res = subprocess.run(cmd, cwd=work)
            if res.returncode != 0:
                sys.exit(f"{label}: lmp exited with {res.returncode}: {' '.join(cmd)}")
            run = st.Run(os.path.join(work, f"log.{label}"))
            pe = st.block_average(run.pe_per_atom(), 10)
            results[label] = pe
            algo = f", {run.algorithm}" if run.algorithm else ""
            print(f"{label:22s} T = {run.T:8.2f} K  PE/atom = {pe[0]:.6f} +- {pe[1]:.6f} eV "
                  f"({len(run.rows)} samples{algo}, {time.time() - t0:.0f} s)", flush=True)
    failures = []
    for system in ("lj", "sio2"):
        labels = [c[1] for c in cases if c[0] == system and c[1] in results]
        for md, mc in ((labels[0], lab) for lab in labels[1:]):
            a, b = results[mc], results[md]
            if not (a[1] > 0 and b[1] > 0):
                failures.append(f"{mc} vs {md}: zero standard error")
                continue
            z = st.zscore(a, b)
            ok = abs(z) < LIMIT
            print(f"{mc} vs {md}: difference {a[0] - b[0]:+.6f} eV/atom = {z:+.2f} combined SE "
                  f"({'ok' if ok else 'FAIL'}, limit {LIMIT})")
            if not ok:
                failures.append(f"{mc} vs {md}: |z| = {abs(z):.2f} >= {LIMIT}")
    print(f"all runs: {time.time() - t_all:.0f} s")
    if failures:
        print("FAILED: " + "; ".join(failures))
        sys.exit(1)
    print(f"MC ({'checkerboard' if ranks else 'both algorithms'}) and MD mean potential energies agree within 4 "
          f"combined standard errors{f' on {args.np} MPI processes' if ranks else ''}")


if __name__ == "__main__":
    main()
