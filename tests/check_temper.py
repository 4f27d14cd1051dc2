#!/usr/bin/env python3
"""temper/gpumc on four partitions against single-temperature runs.

Runs tests/temper/in.temper (parallel tempering of four LJ replicas, T* = 1.0 ... 1.331, an
exchange try every 2 timesteps of 5 sweeps) and tests/temper/in.single (the same four temperatures,
no exchanges), each as `mpirun -np 4 lmp -partition 4x1`. Checks that every neighbouring pair
exchanged (acceptance between 2 % and 98 %), that the status lines are permutations of the
temperatures, that each temperature's mean energy under tempering agrees with its single-
temperature run (seeds of its own) within 4 combined standard errors (blocks of samples 10
timesteps apart), and that unsupported setups (a shared seed, tuning during tempering, gpumc/npt,
another fix, N not a multiple of M, a falling ladder) stop with their errors.
tests/temper/in.temper2 runs two replicas (T* = 1.0, 1.1) of two processes each (`-partition 2x2`,
checkerboard sweeps): their energies too must agree with the single-temperature runs.
Usage: check_temper.py <mpirun and its options> <lmp> <tests/temper>
"""

import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

NSTEPS = 4000
NBLOCKS = 20


def run(mpirun, lmp, deck, workdir, partition="4x1"):
    cmd = [*mpirun.split(), "-np", "4", lmp, "-partition", partition, "-in", deck, "-var", "nsteps", str(NSTEPS),
           "-nocite"]
    res = subprocess.run(cmd, cwd=workdir, capture_output=True, text=True)
    if res.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{res.stdout[-3000:]}\n{res.stderr[-3000:]}")
    return res.stdout


def blocks(values):
    n = len(values) // NBLOCKS
    means = [sum(values[b * n:(b + 1) * n]) / n for b in range(NBLOCKS)]
    mean = sum(means) / NBLOCKS
    var = sum((m - mean) ** 2 for m in means) / (NBLOCKS - 1)
    return mean, math.sqrt(var / NBLOCKS)


def single_run_energies(log):
    """f_mc of the last run's thermo lines (every 2 timesteps) in a partition's log."""
    text = open(log).read().split("Step")[-1]
    values = []
    for line in text.splitlines()[1:]:
        parts = line.split()
        if len(parts) != 2 or not re.match(r"^\d+$", parts[0]):
            break
        values.append(float(parts[1]))
    return values[1:]    # the first line is the configuration before the run


def main():
    mpirun, lmp, decks = sys.argv[1], os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
    failed = False
    with tempfile.TemporaryDirectory() as work:
        for f in os.listdir(decks):
            shutil.copy(os.path.join(decks, f), work)
        out = run(mpirun, lmp, "in.temper", work)
        tempered = {}
        for m in re.finditer(r"temper/gpumc: T\[(\d+)\] = (\S+): energy (\S+) \+- (\S+) \((\d+) samples\)", out):
            tempered[int(m.group(1))] = (float(m.group(2)), float(m.group(3)), float(m.group(4)))
        rates = [float(x) for x in re.findall(r"exchanges T\[\d+\] <-> T\[\d+\]: \d+ of \d+ accepted \((\S+)\)", out)]
        if len(tempered) != 4 or len(rates) != 3:
            sys.exit(f"temper/gpumc printed no summary:\n{out[-3000:]}")
        # the status lines (step, then each partition's temperature index) are permutations of 0..3
        status = re.findall(r"^\d+ (\d+) (\d+) (\d+) (\d+)$", out.split("Step T0 T1 T2 T3")[1], re.M)
        perms = all(sorted(map(int, line)) == [0, 1, 2, 3] for line in status)
        failed |= not perms or len(status) != NSTEPS // 2 + 1
        print(f"{len(status)} status lines, each a permutation of the temperatures: {'ok' if perms else 'FAIL'}")
        run(mpirun, lmp, "in.single", work)
        single = {}
        for t in range(4):
            temp, mean_t, err_t = tempered[t]
            values = single_run_energies(os.path.join(work, f"log.lammps.{t}"))
            mean_s, err_s = blocks(values)
            single[t] = (mean_s, err_s)
            z = (mean_t - mean_s) / math.sqrt(err_t ** 2 + err_s ** 2)
            ok = abs(z) < 4.0
            failed |= not ok
            print(f"T* = {temp}: tempering {mean_t / 108:.5f} +- {err_t / 108:.5f}, single {mean_s / 108:.5f} +- "
                  f"{err_s / 108:.5f} per atom ({len(values)} samples), z = {z:+.2f} {'ok' if ok else 'FAIL'}")
        for t, r in enumerate(rates):
            ok = 0.02 < r < 0.98
            failed |= not ok
            print(f"exchanges T[{t}] <-> T[{t + 1}]: acceptance {r:.3f} {'ok' if ok else 'FAIL'}")
        # two replicas of two processes each (checkerboard sweeps over the decomposition): their
        # energies against the same single-temperature runs
        out2 = run(mpirun, lmp, "in.temper2", work, "2x2")
        pairs = re.findall(r"temper/gpumc: T\[(\d+)\] = (\S+): energy (\S+) \+- (\S+)", out2)
        rate2 = re.findall(r"exchanges T\[0\] <-> T\[1\]: \d+ of \d+ accepted \((\S+)\)", out2)
        if len(pairs) != 2 or len(rate2) != 1:
            sys.exit(f"temper/gpumc on 2x2 printed no summary:\n{out2[-3000:]}")
        for t, temp, mean, err in pairs:
            t, mean, err = int(t), float(mean), float(err)
            mean_s, err_s = single[t]
            z = (mean - mean_s) / math.sqrt(err ** 2 + err_s ** 2)
            ok = abs(z) < 4.0
            failed |= not ok
            print(f"2x2, T* = {temp}: tempering {mean / 108:.5f} +- {err / 108:.5f}, single {mean_s / 108:.5f}, "
                  f"z = {z:+.2f} {'ok' if ok else 'FAIL'}")
        ok = 0.02 < float(rate2[0]) < 0.98
        failed |= not ok
        print(f"2x2 exchanges: acceptance {float(rate2[0]):.3f} {'ok' if ok else 'FAIL'}")
        # (after the logs above were read) replicas with one seed, and tuning during tempering, stop with their errors
        ok_fix = "fix mc all gpumc/nvt 1 ${T} ${s} tune no"
        for name, fix, command, expected in (
                ("same_seed", "fix mc all gpumc/nvt 1 ${T} 7 tune no", "temper/gpumc 10 2 ${T} mc 0 1",
                 "must have different seeds"),
                ("tuning", "fix mc all gpumc/nvt 1 ${T} ${s}", "temper/gpumc 10 2 ${T} mc 0 1",
                 "would tune its displacement"),
                ("npt", "fix mc all gpumc/npt 1 ${T} 1.0 ${s} tune no", "temper/gpumc 10 2 ${T} mc 0 1",
                 "fix gpumc/npt is not supported"),
                ("not_gpumc", ok_fix + "\nfix other all nve", "temper/gpumc 10 2 ${T} other 0 1",
                 "is not a fix gpumc/nvt"),
                ("swaps", ok_fix, "temper/gpumc 11 2 ${T} mc 0 1", "N must be a multiple of M"),
                ("ladder", ok_fix, "temper/gpumc 10 2 $(1.5-v_T) mc 0 1", "must rise with the partition")):
            with open(os.path.join(work, "in." + name), "w") as f:
                f.write("include lj.setup\nvariable T world 1.0 1.1 1.21 1.331\nvariable s world 1 2 3 4\n"
                        f"{fix}\n{command}\n")
            res = subprocess.run([*mpirun.split(), "-np", "4", lmp, "-partition", "4x1", "-in", "in." + name, "-nocite"],
                                 cwd=work, capture_output=True, text=True)
            ok = res.returncode != 0 and expected in res.stdout + res.stderr
            failed |= not ok
            print(f"{name}: {'stops with its error' if ok else 'FAIL: ' + (res.stdout + res.stderr)[-500:]}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
