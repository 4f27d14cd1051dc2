#!/usr/bin/env python3
"""Analyse the runs of run.sh: BKS-type silica, GPUMC Monte Carlo (NPT) against LAMMPS MD (fix npt).

    python3 analyse.py OUTDIR

reads OUTDIR/log.bks.*, *.rdf and *.msd and writes report.txt and PNG plots into OUTDIR (any subset
of the runs may be present). Needs numpy and matplotlib. Log parsing and block averages come from
../sio2-vs-md/svm_stats.py, the integrated autocorrelation time from ../sio2-vs-md/analyse.py's
method (Sokal's window, smallest W >= 6 tau(W)).
Error bars: block averages over NB = 10 contiguous blocks of the production series, for the means
the larger of that and std * sqrt(2 tau_int / n) (the block
length is reported in units of 2 tau_int, so that one can see that the blocks are longer than the
correlation time); z = difference / combined standard error; pass: |z| < 4.
"""

import math
import os
import sys

import numpy as np
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "sio2-vs-md"))
import svm_stats as st  # noqa: E402

# The decks here set the timestep and fixes through variables (timestep ${dt}); LAMMPS echoes each such
# command twice, as written and substituted: keep only the substituted lines for svm_stats.Run.
_input_lines = st.input_lines
st.input_lines = lambda p: [l for l in _input_lines(p) if "${" not in l and not l.startswith("#")]

NB = 10
# Fraction of each production series (thermo rows and g(r) line groups) dropped as further
# equilibration, the same for every run (fixed before the comparison was looked at):
# ANALYSE_DISCARD=0 keeps all of it.
DISCARD = float(os.environ.get("ANALYSE_DISCARD", "0.1"))
ZPASS = 4.0
# (label, short name, long name, colour)
RUNS = (("bks.md1fs", "MD-1fs", "LAMMPS MD fix npt, 1 fs", "tab:blue"),
        ("bks.md05fs", "MD-0.5fs", "LAMMPS MD fix npt, 0.5 fs", "tab:purple"),
        ("bks.mc", "MC-seq", "GPUMC gpumc/npt, sequential", "tab:red"),
        ("bks.mccb", "MC-cb", "GPUMC gpumc/npt, checkerboard", "tab:green"))
SHORT = {k: s for k, s, _, _ in RUNS}
LONG = {k: n for k, _, n, _ in RUNS}
COLOR = {k: c for k, _, _, c in RUNS}
PAIRS = (("Si-Si", 2), ("Si-O", 4), ("O-O", 6))
# the comparisons (a, b): z = (a - b) / combined SE
COMPARE = (("bks.mc", "bks.md05fs"), ("bks.mccb", "bks.md05fs"), ("bks.mc", "bks.md1fs"),
           ("bks.mccb", "bks.md1fs"), ("bks.mc", "bks.mccb"), ("bks.md1fs", "bks.md05fs"))

out = sys.argv[1] if len(sys.argv) > 1 else "output"
report = []
SUMMARY = []      # (quantity, comparison, z)


def say(s=""):
    report.append(s)
    print(s)


def path(name):
    return os.path.join(out, name)


def load(label):
    p = path("log." + label)
    if not os.path.exists(p):
        return None
    try:
        r = st.Run(p)
    except (ValueError, IndexError) as err:
        print(f"skipping {label}: {err}")
        return None
    r.label = label
    r.rows = r.rows[int(DISCARD * len(r.rows)):]
    if r.natoms is None:      # an unfinished production run: the atoms of the equilibration
        r.natoms = next(x["atoms"] for x in st.read_runs(p) if x["atoms"])
        r.timed["loop"] = 0.0
    return r


def block(x, nb=NB):
    return st.block_average(list(x), nb)


def stat(x):
    """(mean, SE) with SE the larger of the 10-block SE and the SE from the integrated autocorrelation
    time, std * sqrt(2 tau_int / n): blocks shorter than 2 tau_int underestimate the error."""
    m, se_b = block(x)
    x = np.asarray(x, float)
    se_t = float(np.std(x, ddof=1) * math.sqrt(2 * st.tau_int(x)[0] / len(x)))
    return m, max(se_b, se_t)


def read_rdf(p):
    """Line groups of a fix ave/time mode vector file: array (groups, rows, columns)."""
    a = np.array(st.read_ave_groups(p))
    return a[int(DISCARD * len(a)):]


def rdf_blocks(a, nb=NB):
    """Regroup the file's line groups into nb contiguous blocks: mean and SE per bin and column."""
    n = len(a) // nb
    a = a[len(a) - n * nb:]
    bm = np.array([a[i * n:(i + 1) * n].mean(0) for i in range(nb)])
    return bm.mean(0), bm.std(0, ddof=1) / math.sqrt(nb), n


def main():
    runs = {k: load(k) for k, _, _, _ in RUNS}
    runs = {k: r for k, r in runs.items() if r is not None}
    if not runs:
        say("no runs found")
        return
    r0 = next(iter(runs.values()))
    nsi = None
    say("=" * 86)
    say(f"BKS-type silica (BKS Buckingham + charges Si +2.4 / O -1.2, DSF Coulomb alpha 0.25/A rc 9 A,")
    say(f"LJ repulsion Si-O and O-O), {r0.natoms} atoms, NPT at T = {r0.T:g} K, P = {r0.P:g} bar")
    shifts = set()
    for r in runs.values():
        with open(r.path) as f:
            shifts |= {l.split()[2] for l in f if l.startswith("pair_modify") and "shift" in l and "${" not in l}
    say(f"pair_modify shift: {', '.join(sorted(shifts)) or 'no'}" +
        ("  (truncated buck/lj/cut: MD samples the shifted energy, MC the truncated one)" if "no" in shifts or not shifts else ""))
    say("=" * 86)
    for f in ("lmp-version.txt", "machine.txt"):
        if os.path.exists(path(f)):
            say(f"{f}: {open(path(f)).read().strip()}")
    if os.path.exists(path("times.txt")):
        say("wall time per run (s): " + "; ".join(l.strip() for l in open(path("times.txt")) if l.strip()))
    say(f"the first {100 * DISCARD:.0f} % of each production series (thermo rows, g(r) blocks) is dropped")
    say(f"error bars: {NB} contiguous blocks of the production series (means: or from tau_int if larger); z = difference / combined SE;"
        f" pass |z| < {ZPASS:g}")
    say("")

    # ---- means and autocorrelation
    say("Production lengths and integrated autocorrelation times (tau_int; Sokal window, c = 6)")
    say(f"{'run':10s} {'length':>16s} {'samples':>8s} {'tau(PE)':>16s} {'tau(V)':>16s} {'blk/2tau PE,V':>14s} {'wall s':>8s}")
    vals = {}
    for k, r in runs.items():
        dt = (r.rows[1][0] - r.rows[0][0]) * r.unit_per_step
        length = (r.rows[-1][0] - r.rows[0][0]) * r.unit_per_step
        pe = r.pe_per_atom()
        vol = r.column("Volume")
        tpe, tv = st.tau_int(pe)[0] * dt, st.tau_int(vol)[0] * dt
        blk = len(pe) // NB * dt
        wall = sum(x["loop"] for x in st.read_runs(r.path) if x["loop"] is not None and x["steps"])
        say(f"{SHORT[k]:10s} {length:9.4g} {r.time_unit:6s} {len(pe):8d} {tpe:9.4g} {r.time_unit:6s} "
            f"{tv:9.4g} {r.time_unit:6s} {blk / (2 * tpe):6.1f},{blk / (2 * tv):6.1f} {wall:8.1f}")
        vals[k] = {"pe": stat(pe), "rho": stat(r.column("v_rho")), "dens": stat(r.column("v_dens")),
                   "p": stat(np.array(r.column("v_ptot")) / 1000.0)}
    say("  (blk/2tau: block length over 2 tau_int; well above 1 means the block errors include the correlations)")
    say("")
    say("Means (production; SE = the larger of the 10-block SE and std * sqrt(2 tau_int / n))")
    say(f"{'run':10s} {'PE/atom (eV)':>24s} {'rho (atoms/A^3)':>26s} {'density (g/cm^3)':>22s} {'P (kbar)':>18s}")
    for k in vals:
        v = vals[k]
        say(f"{SHORT[k]:10s} {st.fmt(*v['pe'], 5):>24s} {st.fmt(*v['rho'], 6):>26s} {st.fmt(*v['dens'], 4):>22s} "
            f"{st.fmt(*v['p'], 2):>18s}")
    say("")
    say("z-scores of the means, z = (first - second) / combined SE:")
    say(f"{'comparison':24s} {'PE/atom':>9s} {'density':>9s} {'P':>9s}")
    for a, b in COMPARE:
        if a in vals and b in vals:
            zs = [st.zscore(vals[a][q], vals[b][q]) for q in ("pe", "rho", "p")]
            for q, z in zip(("PE/atom", "density", "P"), zs):
                SUMMARY.append((q, f"{SHORT[a]} - {SHORT[b]}", z))
            say(f"{SHORT[a] + ' - ' + SHORT[b]:24s} " + " ".join(f"{z:+9.2f}" for z in zs))
    say("")

    # ---- MC acceptance
    say("MC acceptance ratios (production, step sizes fixed after the tuned equilibration)")
    for k in ("bks.mc", "bks.mccb"):
        if k not in runs:
            continue
        r = runs[k]
        t1, a1, v1, va1 = (r.column(c) for c in ("f_mc[1]", "f_mc[2]", "f_mc[9]", "f_mc[10]"))
        nt, na, nv, nva = t1[-1] - t1[0], a1[-1] - a1[0], v1[-1] - v1[0], va1[-1] - va1[0]
        say(f"  {SHORT[k]:8s}: translations {na / nt:.4f} ({nt:.0f} trials), volume moves {nva / nv:.4f} "
            f"({nv:.0f} trials); {r.nsweep} sweeps per timestep, {(r.rows[-1][0] - r.rows[0][0]) * r.nsweep:.0f} sweeps")
        with open(r.path) as f:
            for line in f:
                if line.startswith("fix gpumc/npt") and ("trials" in line):
                    say("      log: " + line.strip())
    say("")

    # ---- diffusion
    say("Liquid check: mean-squared displacement in MD production (compute msd, com yes);")
    say("D from a linear fit of MSD(t) over the second half of the run, D = slope / 6")
    msds = {}
    for k in ("bks.md1fs", "bks.md05fs"):
        if k in runs and os.path.exists(path(k + ".msd")):
            a = np.loadtxt(path(k + ".msd"))
            t = a[:, 1] - a[0, 1]
            msds[k] = (t, a[:, 2], a[:, 3])
            h = len(t) // 2
            dsi = np.polyfit(t[h:], a[h:, 2], 1)[0] / 6
            do = np.polyfit(t[h:], a[h:, 3], 1)[0] / 6
            say(f"  {SHORT[k]:8s}: after {t[-1]:.1f} ps MSD Si {a[-1, 2]:.2f} A^2, O {a[-1, 3]:.2f} A^2; "
                f"D(Si) = {dsi:.4f} A^2/ps ({dsi * 1e-4:.2e} cm^2/s), D(O) = {do:.4f} A^2/ps ({do * 1e-4:.2e} cm^2/s)")
    say("")

    # ---- g(r)
    say("g(r) (the line groups of the .rdf file regrouped into 10 blocks; bins with g > 0.05 in either run;")
    say("z = (first - second) / combined SE per bin)")
    rdfs = {}
    for k in runs:
        if os.path.exists(path(k + ".rdf")):
            a = read_rdf(path(k + ".rdf"))
            if len(a) >= NB:
                rdfs[k] = rdf_blocks(a)
            else:
                say(f"  {SHORT[k]}: only {len(a)} g(r) blocks in {k}.rdf (fewer than {NB}): left out")
    for k, (g, se, n) in rdfs.items():
        peaks = ", ".join(f"{name} {g[np.argmax(g[:, c]), 1]:.3f} A (g {g[:, c].max():.3f})" for name, c in PAIRS)
        say(f"  {SHORT[k]:8s} first peaks: {peaks}")
    rdf_z = {}
    for a, b in COMPARE:
        if a not in rdfs or b not in rdfs:
            continue
        for name, c in PAIRS:
            ga, sa, _ = rdfs[a]
            gb, sb, _ = rdfs[b]
            comb = np.sqrt(sa[:, c] ** 2 + sb[:, c] ** 2)
            mask = ((ga[:, c] > 0.05) | (gb[:, c] > 0.05)) & (comb > 0)
            z = (ga[mask, c] - gb[mask, c]) / comb[mask]
            rdf_z[a, b, name] = (ga[mask, 1], z)
            SUMMARY.append((f"g(r) {name} max|z|", f"{SHORT[a]} - {SHORT[b]}", float(np.max(np.abs(z))) *
                            np.sign(z[np.argmax(np.abs(z))])))
            say(f"  {SHORT[a] + ' - ' + SHORT[b]:22s} {name:6s}: {mask.sum()} bins, mean z^2 = {np.mean(z ** 2):.2f}, "
                f"max |z| = {np.max(np.abs(z)):.2f}, |z| > 3 in {100 * np.mean(np.abs(z) > 3):.1f} % of bins")
    say("")

    # ---- summary
    fails = [(q, c, z) for q, c, z in SUMMARY if abs(z) >= ZPASS]
    say(f"Summary: {len(SUMMARY)} comparisons (means and the largest per-bin |z| of each g(r)); "
        f"|z| >= {ZPASS:g} in {len(fails)}:")
    for q, c, z in fails:
        say(f"  {q:20s} {c:22s} z = {z:+.2f}")
    mc_fail = [f for f in fails if "MC" in f[1] and "MD-0.5fs" in f[1]]
    if any("MC" in c and "MD-0.5fs" in c for _, c, _ in SUMMARY):
        say(f"MC (both algorithms) vs MD 0.5 fs: {'all within' if not mc_fail else 'NOT all within'} {ZPASS:g} SE")
    say("")

    with open(path("report.txt"), "w") as f:
        f.write("\n".join(report) + "\n")

    # ---- plots: time series of density and PE
    fig, axes = plt.subplots(2, 2, figsize=(13, 7.5))
    for j, group in enumerate((("bks.md1fs", "bks.md05fs"), ("bks.mc", "bks.mccb"))):
        for k in group:
            if k not in runs:
                continue
            r = runs[k]
            t = np.array(r.steps()) * r.unit_per_step
            for i, (col, get, yl) in enumerate((("dens", lambda r: r.column("v_dens"), "density (g/cm^3)"),
                                                ("pe", lambda r: r.pe_per_atom(), "PE per atom (eV)"))):
                m, se = vals[k][col]
                axes[i, j].plot(t, get(r), lw=0.4, color=COLOR[k], alpha=0.8,
                                label=f"{SHORT[k]}: {m:.4f} +- {se:.4f}" if col == "dens" else f"{SHORT[k]}: {m:.5f} +- {se:.5f}")
                axes[i, j].axhline(m, color=COLOR[k], lw=1.2, ls="--")
                axes[i, j].set_ylabel(yl)
                axes[i, j].set_xlabel(f"production time ({r.time_unit})")
        for i in range(2):
            if axes[i, j].lines:
                axes[i, j].legend(fontsize=8)
    axes[0, 0].set_title("LAMMPS MD (fix npt), 1 bar, 4000 K")
    axes[0, 1].set_title("GPUMC MC (fix gpumc/npt), 1 bar, 4000 K")
    fig.tight_layout()
    fig.savefig(path("bks_timeseries.png"), dpi=110)
    plt.close(fig)

    # ---- g(r)
    if rdfs:
        ref = "bks.md05fs" if "bks.md05fs" in rdfs else next(iter(rdfs))
        fig, axes = plt.subplots(2, 3, figsize=(15, 7), sharex=True, gridspec_kw={"height_ratios": [3, 1.3]})
        for j, (name, c) in enumerate(PAIRS):
            for k, (g, se, _) in rdfs.items():
                axes[0, j].plot(g[:, 1], g[:, c], lw=1, color=COLOR[k], label=LONG[k])
            for k in runs:
                if k != ref and (k, ref, name) in rdf_z:
                    rr, z = rdf_z[k, ref, name]
                    axes[1, j].plot(rr, z, ".", ms=3, color=COLOR[k], label=f"{SHORT[k]} - {SHORT[ref]}")
            axes[0, j].set_title(f"{name} g(r)")
            axes[0, j].legend(fontsize=7)
            axes[1, j].axhline(0, color="gray", lw=0.5)
            for v in (-ZPASS, ZPASS):
                axes[1, j].axhline(v, color="gray", ls="--", lw=0.5)
            axes[1, j].set_xlabel("r (A)")
            axes[1, j].set_ylabel(f"z vs {SHORT[ref]}")
            axes[1, j].legend(fontsize=7, markerscale=2)
        axes[0, 0].set_ylabel("g(r)")
        fig.tight_layout()
        fig.savefig(path("bks_rdf.png"), dpi=110)
        plt.close(fig)

    if msds:
        fig, ax = plt.subplots(figsize=(6, 4.2))
        for k, (t, si, o) in msds.items():
            ax.plot(t, si, color=COLOR[k], label=f"Si, {SHORT[k]}")
            ax.plot(t, o, color=COLOR[k], ls="--", label=f"O, {SHORT[k]}")
        ax.set_xlabel("t (ps)")
        ax.set_ylabel("MSD (A^2)")
        ax.set_title("MD mean-squared displacement, 4000 K, 1 bar")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(path("bks_msd.png"), dpi=110)
        plt.close(fig)


if __name__ == "__main__":
    main()
