#!/usr/bin/env python3
"""Analyse the runs of run.sh: molten NaCl (Tosi-Fumi), GPUMC Monte Carlo against LAMMPS MD, with
an exact Ewald sum and with damped shifted force (DSF) Coulomb.

    python3 analyse.py OUTDIR

reads OUTDIR/log.nacl.* and the g(r) files the decks wrote, and writes PNG plots and report.txt
into OUTDIR; any subset of the runs may be present. Needs numpy and matplotlib (Debian:
python3-numpy python3-matplotlib).

Statistics as in ../sio2-vs-md/analyse.py (logs and g(r) files read, and block_average, zscore
and tau_int computed, by its svm_stats.py): means with standard errors
from 10 contiguous blocks of the production series; z = difference / combined SE; integrated
autocorrelation time with Sokal's window (smallest W >= 6 tau(W)), used to check that a block is
long compared with 2 tau_int (below about 1 the block errors are too small).
"""

import math
import os
import re
import sys

import numpy as np
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sio2-vs-md"))
import svm_stats as st  # noqa: E402

NB = 10                    # blocks for all error bars
NATOMS_EXPECTED = 512
ZMAX = 4.0                 # pass criterion: |z| < 4 combined standard errors
COULS = (("ewald", "Ewald (born/coul/long + kspace ewald 1e-5)"), ("dsf", "DSF (born/coul/dsf, alpha 0.2/A)"))
# Runs: (key, label in run.sh, name, colour). MD at two timesteps; MC with each algorithm.
METHODS = (("md10", "md.{c}.dt10", "MD 1 fs", "tab:blue"),
           ("md5", "md.{c}.dt5", "MD 0.5 fs", "tab:cyan"),
           ("mc", "mc.{c}", "MC-seq", "tab:red"),
           ("mccb", "mccb.{c}", "MC-cb", "tab:green"))
NAME = {k: n for k, _, n, _ in METHODS}
COLOR = {k: c for k, _, _, c in METHODS}
MDS = ("md10", "md5")
MCS = ("mc", "mccb")
PAIRS = (("Na-Na", 2), ("Na-Cl", 4), ("Cl-Cl", 6))

out = sys.argv[1] if len(sys.argv) > 1 else "output"
report = []
ZS = []            # (what, z) of every MC-MD comparison, for the summary


def say(s=""):
    report.append(s)


def path(name):
    return os.path.join(out, name)


# ---------------------------------------------------------------- one run

class Run:
    """One simulation: the last two LAMMPS runs of the log are the production (timed part, thermo
    only; measured part, + g(r)); the earlier ones are the melt and the equilibration."""

    def __init__(self, label):
        self.label = label
        p = path("log." + label)
        runs = st.read_runs(p)
        if len(runs) < 4 or any(r["loop"] is None for r in runs[-2:]):
            raise ValueError("unfinished run")
        text = open(p).read()
        self.equil, prod = runs[:-2], runs[-2:]
        self.timed = prod[0]
        self.header = prod[0]["header"]
        self.rows = np.array(st.joined_rows(prod))
        self.natoms = prod[0]["atoms"]
        mc = re.findall(r"^fix\s+mc\s+all\s+gpumc/nvt\s+(\d+)\s+(\S+)\s+(\d+)\s*(.*)$", text, re.M)
        if mc:
            self.kind = "mc"
            nsweep, T, _, rest = mc[-1]
            self.nsweep, self.T = int(nsweep), float(T)
            algo = re.search(r"\balgorithm\s+(\w+)", rest)
            self.algorithm = algo.group(1) if algo else "sequential"
            self.unit, self.time_unit = float(self.nsweep), "sweeps"
            summ = re.findall(r"^fix gpumc/nvt mc: (\d+) translation trials, acceptance (\S+), displacement (\S+), "
                              r"max \|energy drift\| (\S+)", text, re.M)
            self.trials, self.acc_all, self.disp, self.drift = (int(summ[-1][0]), float(summ[-1][1]),
                                                                float(summ[-1][2]), float(summ[-1][3]))
            self.acc_prod = float(np.mean(self.col("f_mc[3]")))
        else:
            self.kind = "md"
            self.dt = float(re.findall(r"^timestep\s+([0-9.eE+-]+)\s*$", text, re.M)[-1])
            self.T = float(re.findall(r"^fix\s+md\s+all\s+nvt\s+temp\s+(\S+)", text, re.M)[-1])
            self.unit, self.time_unit = self.dt, "ps"
        self.t = self.rows[:, 0] * self.unit          # production time (ps or sweeps)
        self.pe = self.col("PotEng") / self.natoms    # eV per ion
        self.p = self.col("Press")                    # bar

    def col(self, name):
        return self.rows[:, self.header.index(name)]

    def length(self):
        return self.t[-1] - self.t[0] + (self.t[1] - self.t[0])


def load(coul, key):
    fmt_ = dict((k, l) for k, l, _, _ in METHODS)[key]
    label = "nacl." + fmt_.format(c=coul)
    if not os.path.exists(path("log." + label)):
        return None
    try:
        return Run(label)
    except (ValueError, IndexError) as err:
        print(f"skipping {label}: {err}")
        return None


def read_rdf(p):
    """Blocks of a fix ave/time mode vector file: array (blocks, rows, columns)."""
    return np.array(st.read_ave_groups(p))


def rdf_stats(blocks):
    """g(r) mean and SE of the three pairs from the file's blocks, regrouped into NB blocks
    (consecutive file blocks combined; a remainder at the start dropped). Returns r, {pair: (g, se)}."""
    nb = len(blocks)
    k = nb // NB
    if k >= 1:
        b = blocks[nb - k * NB:].reshape(NB, k, *blocks.shape[1:]).mean(1)
    else:
        b = blocks
    r = b[0, :, 1]
    return r, {name: (b[:, :, c].mean(0), b[:, :, c].std(ddof=1, axis=0) / math.sqrt(len(b))) for name, c in PAIRS}


# ---------------------------------------------------------------- analysis

def header(title):
    say("=" * 96)
    say(title)
    say("=" * 96)


def main():
    mode = open(path("mode.txt")).read().strip() if os.path.exists(path("mode.txt")) else "?"
    say(f"Molten NaCl (Tosi-Fumi), GPUMC Monte Carlo vs LAMMPS MD: report written by analyse.py from the runs in "
        f"{os.path.basename(os.path.abspath(out))}/ ({mode})")
    for f, what in (("lmp-version.txt", "LAMMPS"), ("machine.txt", "Machine")):
        if os.path.exists(path(f)):
            say(f"{what}: " + open(path(f)).read().strip().splitlines()[0].strip())
    if os.path.exists(path("times.txt")):
        say("Wall time of each run (run.sh; nice -n 10, one lmp process at a time):")
        for line in open(path("times.txt")).read().strip().splitlines():
            say("  " + line)
    say("")
    say(f"512 ions (256 Na+ + 256 Cl-), 1.50 g/cm^3, NVT 1200 K. Error bars: {NB} contiguous blocks of the")
    say("production; z = difference / combined standard error. Energies: potential energy per ion (eV);")
    say("P: LAMMPS's press (bar), i.e. (N-1)kT/V (thermostat or drawn velocities) plus the virial.")
    say("")

    runs = {}
    for c, _ in COULS:
        for k in NAME:
            r = load(c, k)
            if r is not None:
                runs[c, k] = r
    if not runs:
        say("no runs found")
        return finish()
    model(runs)
    vals = {}

    # ---- per run
    header("Runs")
    say(f"{'run':20s} {'production':>16s} {'PE/ion (eV)':>22s} {'P (bar)':>16s} {'tau_int(PE)':>17s} "
        f"{'blk/2tau':>8s} {'wall s':>7s} {'s/step':>8s}")
    for (c, k), r in runs.items():
        pe, p = st.block_average(r.pe), st.block_average(r.p)
        tau_s, w, rho = st.tau_int(r.pe)
        dts = r.t[1] - r.t[0]
        tau = tau_s * dts
        blk = (len(r.pe) // NB) * dts / (2 * tau)
        tau_p = st.tau_int(r.p)[0] * dts
        vals[c, k] = {"pe": pe, "p": p, "tau": tau, "tau_p": tau_p, "blk": blk, "rho": rho, "dts": dts}
        timed_len = r.timed["steps"] * r.unit
        vals[c, k]["indep_per_s"] = timed_len / (2 * tau) / r.timed["loop"]
        say(f"{r.label:20s} {r.length():9.5g} {r.time_unit:6s} {st.fmt(*pe, 5):>22s} {st.fmt(*p, 0):>16s} "
            f"{tau:9.3g} {r.time_unit:7s} {blk:8.1f} {r.timed['loop']:7.1f} {r.timed['loop'] / r.timed['steps']:8.4f}")
    say("  production = the timed part (thermo only) + the measured part (+ g(r)); wall s and s/step: the timed")
    say("  part; tau_int(PE) with Sokal's window; blk/2tau = one block's length over 2 tau_int (should be >> 1)")
    say("  tau_int of the pressure: " + ", ".join(f"{runs[k].label} {v['tau_p']:.3g} {runs[k].time_unit}"
                                                   for k, v in vals.items()))
    mcs = [(k, r) for k, r in runs.items() if r.kind == "mc"]
    if mcs:
        say("  MC chains: acceptance of translations in production (mean of f_mc[3]), over the whole run, final")
        say("  displacement and largest |drift| of the running energy at the checks (every 100 sweeps):")
        for k, r in mcs:
            say(f"    {r.label:18s} {r.algorithm:12s} {r.nsweep} sweeps/step  acceptance {r.acc_prod:.4f} "
                f"(all {r.acc_all:.4f}, {r.trials} trials)  displacement {r.disp:.4f} A  max |drift| {r.drift:.3g} eV")
    say("  decorrelated PE samples per wall-clock second of the timed part (timed length / 2 tau_int / wall s): "
        + ", ".join(f"{runs[k].label} {v['indep_per_s']:.3g}" for k, v in vals.items()))
    say("")

    # ---- MD timestep
    header("MD timestep: 0.5 fs against 1 fs over the same physical time")
    say("(Verlet's bias ~ dt^2: the bias of the 1 fs run is about -4/3 of the difference 0.5 fs - 1 fs, that of")
    say("the 0.5 fs run about -1/3 of it)")
    md_ok = {}
    for c, cname in COULS:
        if (c, "md10") in vals and (c, "md5") in vals:
            a, b = vals[c, "md5"], vals[c, "md10"]
            for q, unit, prec in (("pe", "eV/ion", 5), ("p", "bar", 0)):
                d = a[q][0] - b[q][0]
                se = math.hypot(a[q][1], b[q][1])
                z = d / se
                md_ok[c, q] = abs(z)
                say(f"  {c:6s} {q.upper():3s} 1 fs {st.fmt(*b[q], prec):>20s}  0.5 fs {st.fmt(*a[q], prec):>20s}  "
                    f"difference {d:+.{prec}f} +- {se:.{prec}f} {unit} (z = {z:+.2f}); SE of the 1 fs run {b[q][1]:.{prec}f}")
    # the same integrator and masses under both Coulomb treatments: if the difference is a timestep
    # bias it should be about the same in both, so their weighted mean estimates it more precisely
    for q, unit, prec in (("pe", "eV/ion", 5), ("p", "bar", 0)):
        ds = [(vals[c, "md5"][q][0] - vals[c, "md10"][q][0], math.hypot(vals[c, "md5"][q][1], vals[c, "md10"][q][1]))
              for c, _ in COULS if (c, "md10") in vals and (c, "md5") in vals]
        if len(ds) == 2:
            w = [1 / e ** 2 for _, e in ds]
            d = sum(wi * di for wi, (di, _) in zip(w, ds)) / sum(w)
            se = 1 / math.sqrt(sum(w))
            say(f"  {q.upper():3s} 0.5 fs - 1 fs, weighted mean over Ewald and DSF: {d:+.{prec}f} +- {se:.{prec}f} {unit} "
                f"(z = {d / se:+.2f}); implied bias (dt^2) of the 1 fs runs {-4 * d / 3:+.{prec}f} +- {4 * se / 3:.{prec}f}, "
                f"of the 0.5 fs runs {-d / 3:+.{prec}f} +- {se / 3:.{prec}f} {unit}")
    say("")

    # ---- MC vs MD
    header("MC vs MD (z = (MC - MD) / combined SE; pass: |z| < 4)")
    for c, cname in COULS:
        have = [k for k in NAME if (c, k) in vals]
        if not have:
            continue
        say(f"{cname}:")
        for q, name, prec in (("pe", "PE/ion (eV)", 5), ("p", "P (bar)", 0)):
            say(f"  {name}: " + ", ".join(f"{NAME[k]} {st.fmt(*vals[c, k][q], prec)}" for k in have))
            for m in MCS:
                if (c, m) not in vals:
                    continue
                zs = []
                for md in MDS:
                    if (c, md) in vals:
                        z = st.zscore(vals[c, m][q], vals[c, md][q])
                        ZS.append((f"{c} {q.upper()} {NAME[m]} - {NAME[md]}", z))
                        zs.append(f"z({NAME[m]} - {NAME[md]}) = {z:+.2f}")
                say("      " + "; ".join(zs))
        say("")

    # ---- DSF - Ewald
    header("DSF - Ewald: the size of the DSF approximation (alpha 0.2/A, rc 9 A) at the same state point")
    for k in NAME:
        if ("dsf", k) in vals and ("ewald", k) in vals:
            a, b = vals["dsf", k], vals["ewald", k]
            parts = []
            for q, unit, prec in (("pe", "eV/ion", 5), ("p", "bar", 0)):
                d = a[q][0] - b[q][0]
                se = math.hypot(a[q][1], b[q][1])
                parts.append(f"{q.upper()} {d:+.{prec}f} +- {se:.{prec}f} {unit} ({d / se:+.1f} SE)")
            say(f"  {NAME[k]:10s}: " + ";  ".join(parts))
    say("")

    # ---- g(r)
    header("g(r): per-bin z = (MC - MD 0.5 fs) / combined SE over bins with g > 0.05; peaks")
    rdfs = {}
    for key, r in runs.items():
        p = path(r.label + ".rdf")
        if os.path.exists(p):
            rdfs[key] = rdf_stats(read_rdf(p))
    RZ = []
    for c, cname in COULS:
        ref = (c, "md5") if (c, "md5") in rdfs else (c, "md10")
        if ref not in rdfs:
            continue
        rr, gref = rdfs[ref]
        for name, _ in PAIRS:
            g0, s0 = gref[name]
            i = int(np.argmax(g0))
            say(f"  {c:6s} {name:6s} {NAME[ref[1]]}: first peak g = {g0[i]:.3f} +- {s0[i]:.3f} at r = {rr[i]:.3f} A")
            for k in ("md10",) + MCS:
                if (c, k) not in rdfs or (c, k) == ref:
                    continue
                g, s = rdfs[c, k][1][name]
                comb = np.hypot(s0, s)
                mask = ((g0 > 0.05) | (g > 0.05)) & (comb > 0)
                z = (g[mask] - g0[mask]) / comb[mask]
                chi2, zmax = float(np.mean(z ** 2)), float(np.max(np.abs(z)))
                RZ.append((c, name, k, chi2, zmax))
                say(f"  {'':6s} {name:6s} {NAME[k]:9s} vs {NAME[ref[1]]}: {mask.sum()} bins, mean z^2 = {chi2:.2f}, "
                    f"max |z| = {zmax:.2f}; peak g {g[np.argmax(g)]:.3f} at {rr[np.argmax(g)]:.3f} A")
    for k in NAME:
        if ("dsf", k) in rdfs and ("ewald", k) in rdfs:
            rr, ge = rdfs["ewald", k]
            _, gd = rdfs["dsf", k]
            line = []
            for name, _ in PAIRS:
                comb = np.hypot(ge[name][1], gd[name][1])
                mask = ((ge[name][0] > 0.05) | (gd[name][0] > 0.05)) & (comb > 0)
                d = gd[name][0] - ge[name][0]
                z = d[mask] / comb[mask]
                line.append(f"{name} max |dg| {np.max(np.abs(d[mask])):.3f} (mean z^2 {np.mean(z ** 2):.2f})")
            say(f"  DSF - Ewald g(r), {NAME[k]}: " + "; ".join(line))
    say("  (with 10 blocks the per-bin z has heavier tails than a normal distribution; neighbouring bins are")
    say("  correlated; mean z^2 near 1 means agreement)")
    say("")

    # ---- summary
    header("Summary")
    if ZS:
        big = [f"{w} ({z:+.2f})" for w, z in ZS if abs(z) >= ZMAX]
        wmax, zmax = max(ZS, key=lambda x: abs(x[1]))
        say(f"  {len(ZS)} MC-MD comparisons of means (PE, P; each MC run against MD at 1 fs and at 0.5 fs); largest |z| = "
            f"{abs(zmax):.2f} ({wmax}); " + ("all within 4 combined standard errors." if not big else
                                              "beyond 4 SE: " + ", ".join(big)))
    if md_ok:
        say("  MD timestep, |z(0.5 fs - 1 fs)|: " + ", ".join(f"{c} {q.upper()} {z:.2f}" for (c, q), z in md_ok.items()))
    if RZ:
        say(f"  g(r) MC vs MD 0.5 fs: mean z^2 per pair {min(x[3] for x in RZ if x[2] in MCS):.2f}-"
            f"{max(x[3] for x in RZ if x[2] in MCS):.2f}, largest |z| of a bin {max(x[4] for x in RZ if x[2] in MCS):.2f}; "
            f"MD 1 fs vs 0.5 fs: mean z^2 {min(x[3] for x in RZ if x[2] == 'md10'):.2f}-"
            f"{max(x[3] for x in RZ if x[2] == 'md10'):.2f}" if any(x[2] == "md10" for x in RZ) and
            any(x[2] in MCS for x in RZ) else "")
    plots(runs, vals, rdfs)
    finish()


def model(runs):
    """Box, Ewald parameters (from the logs) and the jump of the unshifted Born terms at the cutoff."""
    r = next(iter(runs.values()))
    text = open(path("log." + r.label)).read()
    box = re.search(r"Created orthogonal box = \(0 0 0\) to \((\S+) (\S+) (\S+)\)", text)
    if box:
        L = float(box.group(1))
        say(f"Box side L = {L:.4f} A (lattice constant L/4 = {L / 4:.4f} A), volume {L ** 3:.1f} A^3")
    for key, rr in runs.items():
        if key[0] != "ewald":
            continue
        t = open(path("log." + rr.label)).read()
        g = re.search(r"G vector \(1/distance\) = (\S+)", t)
        kv = re.search(r"KSpace vectors: actual max1d max3d = (\d+) (\d+) (\d+)", t)
        if g and kv:
            say(f"Ewald ({rr.label}): g_ewald = {float(g.group(1)):.6f} 1/A, {kv.group(1)} wave vectors (kmax {kv.group(2)})")
            break
    rc = 9.0
    born = {"Na-Na": (0.263704, 0.317, 2.340, 1.048574, -0.499321), "Na-Cl": (0.210963, 0.317, 2.755, 6.990490, -8.675698),
            "Cl-Cl": (0.158222, 0.317, 3.170, 72.401505, -145.427161)}
    say("Born terms at the 9 A cutoff (not shifted; kT = %.4f eV): " % (8.617333262e-5 * 1200) +
        ", ".join(f"{n} {a * math.exp((sg - rc) / rho) - c / rc ** 6 + d / rc ** 8:.3g} eV"
                  for n, (a, rho, sg, c, d) in born.items()))
    say("")


def finish():
    text = "\n".join(report) + "\n"
    with open(path("report.txt"), "w") as f:
        f.write(text)
    print(text)


# ---------------------------------------------------------------- plots

def plots(runs, vals, rdfs):
    # energy time series with melt and equilibration, MD against ps, MC against sweeps
    fig, axes = plt.subplots(2, 2, figsize=(13, 8), squeeze=False)
    for i, (c, cname) in enumerate(COULS):
        for j, kind in enumerate(("md", "mc")):
            ax = axes[i, j]
            for k in NAME:
                r = runs.get((c, k))
                if r is None or r.kind != kind:
                    continue
                t, u, off = [], [], 0.0
                for eq in r.equil:
                    ci = eq["header"].index("PotEng")
                    for row in eq["rows"]:
                        t.append(row[0] * r.unit)
                        u.append(row[ci] / r.natoms)
                    if eq["rows"]:
                        off = t[-1]
                t = np.concatenate([t, off + r.t])
                u = np.concatenate([u, r.pe])
                ax.plot(t, u, lw=0.5, color=COLOR[k], label=NAME[k])
                ax.axvline(off, color="gray", ls=":", lw=0.8)
                ax.axhline(vals[c, k]["pe"][0], color=COLOR[k], ls="--", lw=0.8)
                ax.set_xlabel(f"{r.time_unit} (melt at 2500 K, equilibration at 1200 K; dotted: production starts)")
            ax.set_ylabel("PE per ion (eV)")
            ax.set_title(f"{'MD' if kind == 'md' else 'GPUMC MC'}, {cname}", fontsize=10)
            lo = min((vals[c, k]["pe"][0] for k in NAME if (c, k) in vals), default=None)
            if lo is not None:
                ax.set_ylim(lo - 0.04, lo + 0.06)
            if ax.lines:
                ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path("nacl_energy_timeseries.png"), dpi=110)
    plt.close(fig)

    # means with error bars
    fig, axes = plt.subplots(1, 2, figsize=(12, 4))
    keys = [(c, k) for c, _ in COULS for k in NAME if (c, k) in vals]
    for ax, (q, yl) in zip(axes, (("pe", "PE per ion (eV)"), ("p", "P (bar)"))):
        for n, key in enumerate(keys):
            ax.errorbar([n], [vals[key][q][0]], yerr=[vals[key][q][1]], fmt="o", color=COLOR[key[1]], capsize=4)
        ax.set_xticks(range(len(keys)))
        ax.set_xticklabels([f"{NAME[k]}\n{c}" for c, k in keys], fontsize=8)
        ax.set_ylabel(yl)
        ax.set_title(f"{yl.split(' (')[0]}: means +- SE ({NB} blocks)")
    fig.tight_layout()
    fig.savefig(path("nacl_means.png"), dpi=110)
    plt.close(fig)

    # g(r) with per-bin z against MD 0.5 fs
    for c, cname in COULS:
        ref = (c, "md5") if (c, "md5") in rdfs else (c, "md10")
        if ref not in rdfs or not any((c, m) in rdfs for m in MCS):
            continue
        fig, axes = plt.subplots(2, 3, figsize=(15, 7), sharex=True, gridspec_kw={"height_ratios": [3, 1.3]})
        rr = rdfs[ref][0]
        for j, (name, _) in enumerate(PAIRS):
            g0, s0 = rdfs[ref][1][name]
            for k in NAME:
                if (c, k) not in rdfs:
                    continue
                g, s = rdfs[c, k][1][name]
                axes[0, j].errorbar(rr, g, yerr=s, color=COLOR[k], lw=1, elinewidth=0.8, label=NAME[k])
                if (c, k) != ref:
                    comb = np.hypot(s0, s)
                    mask = ((g0 > 0.05) | (g > 0.05)) & (comb > 0)
                    axes[1, j].plot(rr[mask], (g[mask] - g0[mask]) / comb[mask], ".", ms=3, color=COLOR[k], label=NAME[k])
            axes[0, j].set_title(f"{name} g(r), {cname}", fontsize=10)
            axes[0, j].legend(fontsize=8)
            axes[1, j].axhline(0, color="gray", lw=0.5)
            for v in (-4, 4):
                axes[1, j].axhline(v, color="gray", ls="--", lw=0.5)
            axes[1, j].set_xlabel("r (A)")
            axes[1, j].set_ylabel(f"(X - {NAME[ref[1]]})/SE", fontsize=8)
            axes[1, j].legend(fontsize=7, markerscale=2)
        axes[0, 0].set_ylabel("g(r)")
        fig.tight_layout()
        fig.savefig(path(f"nacl_rdf_{c}.png"), dpi=110)
        plt.close(fig)

    # g(r): DSF against Ewald
    both = [k for k in NAME if ("dsf", k) in rdfs and ("ewald", k) in rdfs]
    if both:
        k = "md5" if "md5" in both else both[0]
        fig, axes = plt.subplots(1, 3, figsize=(15, 4))
        rr = rdfs["ewald", k][0]
        for j, (name, _) in enumerate(PAIRS):
            for c, ls in (("ewald", "-"), ("dsf", "--")):
                g, s = rdfs[c, k][1][name]
                axes[j].plot(rr, g, ls, lw=1, label=f"{NAME[k]}, {c}")
            d = rdfs["dsf", k][1][name][0] - rdfs["ewald", k][1][name][0]
            axes[j].plot(rr, d * 10, ":", color="k", lw=0.8, label="(DSF - Ewald) x 10")
            axes[j].set_title(f"{name} g(r): DSF vs Ewald")
            axes[j].set_xlabel("r (A)")
            axes[j].legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(path("nacl_rdf_dsf_vs_ewald.png"), dpi=110)
        plt.close(fig)


if __name__ == "__main__":
    main()
