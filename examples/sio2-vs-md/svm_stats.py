"""Log parsing and block averages for the MC-vs-MD comparison, in plain Python (no numpy), so that
the CTest check (tests/check_sio2_vs_md.py) uses exactly the statistics of analyse.py."""

import math
import re

KB_EV = 8.617333262e-5        # Boltzmann constant, eV/K
EV_A3_BAR = 1.6021765e6       # 1 eV/A^3 in bar


def read_runs(path):
    """All runs of a LAMMPS log: list of dicts with header, rows, loop (wall s), steps, atoms."""
    runs, cur = [], None
    loop_re = re.compile(r"Loop time of (\S+) on \d+ procs for (\d+) steps with (\d+) atoms")
    with open(path) as f:
        for line in f:
            words = line.split()
            if words and words[0] == "Step":
                cur = {"header": words, "rows": [], "loop": None, "steps": None, "atoms": None}
                runs.append(cur)
                continue
            m = loop_re.match(line)
            if m and cur is not None:
                cur["loop"], cur["steps"], cur["atoms"] = float(m.group(1)), int(m.group(2)), int(m.group(3))
                cur = None
                continue
            if cur is not None and words:
                try:
                    row = [float(w) for w in words]
                except ValueError:
                    continue
                if len(row) == len(cur["header"]):
                    cur["rows"].append(row)
    return runs


def read_ave_groups(path):
    """The line groups of a fix ave/time mode vector file (each timestep's rows), as lists of rows;
    an incomplete last group is dropped."""
    groups, cur = [], None
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                continue
            w = line.split()
            if len(w) == 2:
                cur = []
                groups.append(cur)
            else:
                cur.append([float(v) for v in w])
    return [g for g in groups if len(g) == len(groups[0])]


def input_lines(path):
    """The echoed input commands of a log (variables already substituted)."""
    with open(path) as f:
        return [l.rstrip("\n") for l in f if l.strip() and not l.startswith(" ")]


def joined_rows(runs):
    """The thermo rows of consecutive runs as one series (the first row of a run repeats the last
    of the previous)."""
    rows = []
    for r in runs:
        for row in r["rows"]:
            if rows and row[0] <= rows[-1][0]:
                continue
            rows.append(row)
    return rows


class Run:
    """One simulation: production series (timed + measured parts), equilibration and settings."""

    def __init__(self, path):
        self.path = path
        runs = read_runs(path)
        prod = [r for r in runs if "v_rho" in r["header"]]
        if not prod:
            raise ValueError(f"{path}: no production thermo block")
        self.equil = [r for r in runs if "v_rho" not in r["header"]]
        self.header = prod[0]["header"]
        self.rows = joined_rows(prod)
        self.timed = prod[0]            # production, timed part (chain + thermo only)
        self.natoms = prod[0]["atoms"]
        text = "\n".join(input_lines(path))
        mc = re.findall(r"^fix\s+mc\s+\S+\s+gpumc/(nvt|npt)\s+(\d+)\s+(\S+)\s+(\S+)", text, re.M)
        md = re.findall(r"^fix\s+md\s+\S+\s+(nvt|npt)\s+temp\s+(\S+)(?:.*\biso\s+(\S+))?", text, re.M)
        self.P = None
        self.algorithm = None
        if mc:
            ens, nsweep, T, P = mc[-1]
            fixes = re.findall(r"^fix\s+mc\s+\S+\s+gpumc/.*$", text, re.M)
            algo = re.search(r"\balgorithm\s+(\w+)", fixes[-1])
            self.algorithm = algo.group(1) if algo else "sequential"
            # mc: the sequential chain, mccb: checkerboard sweeps (the labels of run.sh)
            self.method = "mccb" if self.algorithm == "checkerboard" else "mc"
            self.ens, self.nsweep, self.T = ens, int(nsweep), float(T)
            self.unit_per_step, self.time_unit = self.nsweep, "sweeps"
            if ens == "npt":
                self.P = float(P)
        else:
            ens, T, P = md[-1]          # the last thermostat: the one of equilibration and production
            # (a timestep set by a variable is echoed twice, as written and substituted)
            dt = float(re.findall(r"^timestep\s+([0-9.eE+-]+)(?:\s|$)", text, re.M)[-1])
            self.method, self.ens, self.T = "md", ens, float(T)
            self.unit_per_step, self.time_unit = dt, "ps"
            if ens == "npt":
                self.P = float(P)

    def column(self, name):
        i = self.header.index(name)
        return [row[i] for row in self.rows]

    def steps(self):
        return [row[0] for row in self.rows]

    def pe_per_atom(self):
        return [v / self.natoms for v in self.column("PotEng")]


def mean(x):
    return sum(x) / len(x)


def block_average(x, nblocks=10):
    """Mean and standard error from nblocks contiguous blocks of equal length (a remainder at the
    start of the series is dropped)."""
    n = len(x) // nblocks
    if n < 1:
        raise ValueError("series shorter than the number of blocks")
    x = x[len(x) - n * nblocks:]
    means = [mean(x[i * n:(i + 1) * n]) for i in range(nblocks)]
    m = mean(means)
    var = sum((b - m) ** 2 for b in means) / (nblocks - 1)
    return m, math.sqrt(var / nblocks)


def zscore(a, b):
    """(mean a - mean b) / combined standard error for (mean, se) pairs."""
    return (a[0] - b[0]) / math.sqrt(a[1] ** 2 + b[1] ** 2)


def tau_int(x, c=6.0):
    """Integrated autocorrelation time (in samples) with Sokal's window: the smallest W with
    W >= c tau(W), tau(W) = 1/2 + sum_{t=1..W} rho(t). Returns (tau, W, rho)."""
    try:
        import numpy as np    # here: the CI's check of this module's parsers runs without numpy
    except ImportError:
        return _tau_int_direct(x, c)
    x = np.asarray(x, float) - np.mean(x)
    n = len(x)
    f = np.fft.rfft(x, 2 * n)
    acf = np.fft.irfft(f * np.conj(f))[:n] / np.arange(n, 0, -1)
    rho = acf / acf[0]
    tau = 0.5
    for w in range(1, n):
        tau += rho[w]
        if w >= c * tau:
            return tau, w, rho
    return tau, n - 1, rho


def _tau_int_direct(x, c):
    """tau_int as above by direct sums, lag by lag until the window closes (machines without numpy)."""
    n = len(x)
    m = mean(x)
    d = [v - m for v in x]
    c0 = sum(v * v for v in d) / n
    rho, tau = [1.0], 0.5
    for w in range(1, n):
        rho.append(sum(d[i] * d[i + w] for i in range(n - w)) / (n - w) / c0)
        tau += rho[w]
        if w >= c * tau:
            return tau, w, rho
    return tau, n - 1, rho


def fmt(m, se, p=4):
    """A mean and its standard error, p decimals."""
    return f"{m:.{p}f} +- {se:.{p}f}"


def pooled(estimates):
    """Average of independent (mean, se) estimates, e.g. the runs from two starts."""
    k = len(estimates)
    return sum(e[0] for e in estimates) / k, math.sqrt(sum(e[1] ** 2 for e in estimates)) / k
