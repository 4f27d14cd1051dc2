#!/usr/bin/env python3
"""Two LAMMPS builds on the same decomposed checkerboard decks must make the same Monte Carlo chain.

For a change that should not alter the chain (such as how LAMMPS's exchange and borders are done):
charged BKS silica (N = 216000, atom_style charge), 4 MPI ranks along z (processors 1 1 4, so an
exchange along z sends to both neighbours), the /kk fix in double precision with ghosts frozen,
ghosts alternate, and with volume moves. The fix's running energy, trial and acceptance counts at
every thermo step and its end-of-run lines must be identical; LAMMPS's own pe is printed beside it
(its sum follows the atoms' order, which may differ in the last digits).

Usage: bench/same_chain.py --lmp-a A/lmp --lmp-b B/lmp [--out DIR] [--mpirun 'mpirun --allow-run-as-root']
(`-k on g 1`: the ranks share the first GPU). Exits non-zero unless every deck gives the same chain.
"""

import argparse
import os
import subprocess
import sys

from lammps_bench import SIO2_BKS_SETUP

FIX = "fix mc all gpumc/{style}/kk 10 4000.0 {p}2024 algorithm checkerboard displace 0.3 tune no precision double {extra}"
DECKS = {
    "nvt-frozen": FIX.format(style="nvt", p="", extra="ghosts frozen check 2"),
    "nvt-alternate": FIX.format(style="nvt", p="", extra="ghosts alternate check 2"),
    "npt-frozen": "comm_modify cutoff 12.0\n" + FIX.format(style="npt", p="1000.0 ", extra="vstep 0.002 ghosts frozen check 2"),
}


def chain(args, lmp, name, text):
    """(return code, thermo rows without pe, the fix's end-of-run lines) of one run."""
    path = os.path.join(args.out, f"in.{name}")
    with open(path, "w") as f:
        f.write(text)
    res = subprocess.run([*args.mpirun.split(), "-np", "4", lmp, "-k", "on", "g", "1", "-sf", "kk", "-pk", "kokkos",
                          "neigh", "half", "newton", "on", "-in", path, "-log", "none", "-nocite"],
                         capture_output=True, text=True)
    label = "a" if lmp == args.lmp_a else "b"
    with open(os.path.join(args.out, f"{name}-{label}.log"), "w") as f:
        f.write(res.stdout + res.stderr)
    rows = [line.split() for line in res.stdout.splitlines() if line.split()[:1] and line.split()[0].isdigit()]
    summary = [line for line in res.stdout.splitlines() if " trials, acceptance " in line]
    return res.returncode, [r[:1] + r[2:] for r in rows], summary


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lmp-a", required=True)
    p.add_argument("--lmp-b", required=True)
    p.add_argument("--out", default="same-chain")
    p.add_argument("--mpirun", default="mpirun --allow-run-as-root --oversubscribe")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    same = True
    for name, fix in DECKS.items():
        text = ("processors 1 1 4\n" + SIO2_BKS_SETUP.format(n=60) + fix +
                "\nthermo_style custom step pe f_mc f_mc[1] f_mc[2] vol\nthermo_modify format float %22.15g\n"
                "thermo 2\nrun_style gpumc\nrun 12\n")
        a, b = chain(args, args.lmp_a, name, text), chain(args, args.lmp_b, name, text)
        ok = a == b and a[0] == 0 and len(a[1]) >= 7 and a[2]
        same = same and ok
        print(f"{name}: {'the same chain' if ok else 'DIFFERENT'} ({len(a[1])} thermo rows; return codes {a[0]}, {b[0]})")
        for line in a[2]:
            print("  ", line)
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
