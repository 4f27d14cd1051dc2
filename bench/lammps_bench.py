"""Pieces the benchmark scripts share: the benchmark systems and running LAMMPS on them."""

import json
import os
import re
import subprocess
import sys

# LJ melt state (rho* 0.8442, T* 0.85 in the runs), fcc lattice of 4 n^3 atoms, rc 2.5
LJ_SETUP = """units lj
atom_style atomic
lattice fcc 0.8442
region box block 0 {n} 0 {n} 0 {n}
create_box 1 box
create_atoms 1 box
mass 1 1.0
pair_style lj/cut 2.5
pair_coeff 1 1 1.0 1.0
"""

# The seed study's SiO2 lattice: a simple cubic lattice of n^3 sites (0.053679 atoms/A^3), two
# thirds O (type 2)
SIO2_LATTICE = """variable a equal (1.0/0.053679)^(1.0/3.0)
lattice sc $(v_a)
region box block 0 {n} 0 {n} 0 {n}
create_box 2 box
create_atoms 1 box
set type 1 type/ratio 2 0.6666667 4928
mass 1 28.0855
mass 2 15.9994
"""

# The seed study's SiO2 Morse system, Morse truncated at 9 A
SIO2_SETUP = "units metal\natom_style atomic\n" + SIO2_LATTICE + """pair_style morse 9.0
pair_coeff 1 1 0.007695 2.0446 3.7598
pair_coeff 1 2 1.99597 2.6518 1.628
pair_coeff 2 2 0.023272 1.3731 3.791
"""

# Silica with charges on the same lattice: BKS's Buckingham terms and charges (van Beest, Kramer
# and van Santen, Phys. Rev. Lett. 64 (1990) 1955), DSF Coulomb (alpha 0.25/A, 9 A) in place of
# Ewald, and a Lennard-Jones repulsion for Si-O and O-O that keeps MD and MC out of the Buckingham
# collapse at short range
SIO2_BKS_SETUP = "units metal\natom_style charge\n" + SIO2_LATTICE + """set type 1 charge 2.4
set type 2 charge -1.2
pair_style hybrid/overlay buck 8.0 coul/dsf 0.25 9.0 lj/cut 3.0
pair_coeff 1 1 buck 0.0 1.0 0.0
pair_coeff 1 2 buck 18003.7572 0.205205 133.5381
pair_coeff 2 2 buck 1388.7730 0.362319 175.0
pair_coeff * * coul/dsf
pair_coeff 1 2 lj/cut 0.1 1.5
pair_coeff 2 2 lj/cut 0.1 2.0
"""

# The same charged silica with an exact Ewald sum in place of DSF: Buckingham + coul/long
# (pair_modify table 0: LAMMPS's erfc without tables, which GPUMC reproduces) and kspace_style
# ewald at a relative force accuracy of 1e-5
SIO2_EWALD_SETUP = (SIO2_BKS_SETUP.replace("coul/dsf 0.25 9.0", "coul/long 9.0").replace("coul/dsf\n", "coul/long\n")
                    + "pair_modify table 0\nkspace_style ewald 1e-5\n")

SYSTEMS = {"sio2-morse": (SIO2_SETUP, "SiO2 Morse (rc 9 A, 0.053679 atoms/A^3, 4000 K)"),
           "sio2-bks": (SIO2_BKS_SETUP, "SiO2 with BKS Buckingham and charges, DSF Coulomb (alpha 0.25/A, rc 9 A) "
                        "and a Lennard-Jones repulsion (hybrid/overlay; 0.053679 atoms/A^3, 4000 K)"),
           "sio2-ewald": (SIO2_EWALD_SETUP, "SiO2 with BKS Buckingham and charges, exact Ewald Coulomb (coul/long 9 A, "
                          "kspace_style ewald 1e-5) and a Lennard-Jones repulsion (0.053679 atoms/A^3, 4000 K)")}


def run_lammps(lmp, text, workdir, extra_args=()):
    """Run an input text with lmp in workdir; its screen output, or exit with it on failure."""
    path = os.path.join(workdir, "in.bench")
    with open(path, "w") as f:
        f.write(text)
    res = subprocess.run([lmp, "-in", path, "-log", "none", "-nocite", *extra_args], capture_output=True, text=True,
                         cwd=workdir)
    if res.returncode != 0:
        sys.exit(f"lmp failed:\n{res.stdout[-4000:]}\n{res.stderr[-3000:]}")
    return res.stdout


def loop_times(output):
    """Seconds of every run's loop, in order."""
    return [float(t) for t in re.findall(r"Loop time of ([0-9.eE+-]+) on", output)]


def loop_time(output):
    """Seconds of the last run's loop."""
    return loop_times(output)[-1]


def modify_time(output):
    """Seconds in fixes over the last run (LAMMPS's timing breakdown, the average over processes).
    Under run_style gpumc that is the Monte Carlo of a GPUMC fix, without LAMMPS's force and
    k-space computations."""
    times = re.findall(r"^Modify\s*\|\s*[0-9.eE+-]+\s*\|\s*([0-9.eE+-]+)", output, re.M)
    return float(times[-1])


# the note of a results table written before its script finished (a device's time limit)
INCOMPLETE = " Incomplete: the script stopped before its last measurement."


def save_results(out, stem, data, lines):
    """<out>/<stem>.json (data) and <out>/<stem>.md (lines): written after each measurement, so a
    script stopped part-way keeps what it measured."""
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, stem + ".json"), "w") as f:
        json.dump(data, f, indent=1)
    with open(os.path.join(out, stem + ".md"), "w") as f:
        f.write("\n".join(lines) + "\n")


def median(values):
    values = sorted(values)
    return values[len(values) // 2]
