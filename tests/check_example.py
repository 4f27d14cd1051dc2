#!/usr/bin/env python3
"""Example regression: run an example input and compare its thermo output with the reference log.

The Monte Carlo chain is deterministic (counter-based random numbers, fixed summation order), so
on a platform like the one that wrote the reference log every printed value is reproduced; the
comparison allows 1e-7 relative for formatting. It also checks, in the new log, that LAMMPS's pe
equals the fix's running energy f_mc at every output and that the reported energy drift is tiny.
Usage: check_example.py LMP EXAMPLE_DIR INPUT REFERENCE_LOG
"""

import math
import os
import re
import shutil
import subprocess
import sys
import tempfile


def thermo_blocks(text):
    blocks, current, header = [], None, None
    for line in text.splitlines():
        words = line.split()
        if words and words[0] == "Step":
            header, current = words, []
            blocks.append((header, current))
        elif current is not None:
            if line.startswith("Loop time"):
                current = None
                continue
            try:
                current.append([float(w) for w in words])
            except ValueError:
                pass
    return blocks


def main():
    lmp, example, inp, reference = sys.argv[1:5]
    with tempfile.TemporaryDirectory() as work:
        for name in os.listdir(example):
            if not name.startswith("log."):
                shutil.copy(os.path.join(example, name), work)
        res = subprocess.run([lmp, "-in", inp, "-log", "log.test", "-screen", "none", "-nocite"], cwd=work)
        if res.returncode != 0:
            sys.exit(f"{inp}: lmp exited with {res.returncode}")
        new = open(os.path.join(work, "log.test")).read()
    ref = open(reference).read()
    failures = []
    nb, rb = thermo_blocks(new), thermo_blocks(ref)
    if [h for h, _ in nb] != [h for h, _ in rb]:
        failures.append("thermo headers differ from the reference")
    for (header, rows), (_, ref_rows) in zip(nb, rb):
        if len(rows) != len(ref_rows):
            failures.append(f"{len(rows)} thermo rows, reference has {len(ref_rows)}")
        for row, ref_row in zip(rows, ref_rows):
            for name, a, b in zip(header, row, ref_row):
                if not math.isclose(a, b, rel_tol=1e-7, abs_tol=1e-9):
                    failures.append(f"step {row[0]:.0f} {name}: {a} vs reference {b}")
        if "PotEng" in header and "f_mc" in header:
            ip, im = header.index("PotEng"), header.index("f_mc")
            for row in rows:
                if not math.isclose(row[ip], row[im], rel_tol=1e-9, abs_tol=1e-6):
                    failures.append(f"step {row[0]:.0f}: pe {row[ip]} != f_mc {row[im]}")
    for drift in re.findall(r"max \|energy drift\| ([0-9.eE+-]+)", new):
        if float(drift) > 1e-6:
            failures.append(f"energy drift {drift}")
    if not nb:
        failures.append("no thermo output")
    for f in failures[:20]:
        print(f)
    if failures:
        sys.exit(f"{inp}: {len(failures)} differences from {os.path.basename(reference)}")
    print(f"{inp}: {sum(len(r) for _, r in nb)} thermo rows reproduce {os.path.basename(reference)}")


if __name__ == "__main__":
    main()
