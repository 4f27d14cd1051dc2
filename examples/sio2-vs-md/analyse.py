#!/usr/bin/env python3
"""Analyse the runs of run.sh: GPUMC Monte Carlo against LAMMPS MD, SiO2 Morse and LJ argon.

    python3 analyse.py OUTDIR

reads OUTDIR/log.* and the g(r) and Widom files the decks wrote, and writes PNG plots and
report.txt into OUTDIR; any subset of the runs may be present (run.sh groups). Needs numpy and
matplotlib (Debian: python3-numpy python3-matplotlib). Methods (METHODS below): LAMMPS MD and
GPUMC MC with each algorithm (sequential chain, checkerboard sweeps); every MC algorithm is
compared with MD.
Statistical methods (see README.md): block averages over 10 contiguous blocks; integrated
autocorrelation time with Sokal's automatic window (smallest W >= 6 tau(W)); decorrelated samples
per wall-clock second = (length of the timed production part / (2 tau_int)) / its wall time.
"""

import math
import os
import sys

import numpy as np
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import svm_stats as st  # noqa: E402
import timestep_bias  # noqa: E402

NB = 10                                   # blocks for all error bars
EPS_LJ = 119.8 * st.KB_EV                 # eV
SIG_LJ = 3.405                            # A
P_LJ_BAR = EPS_LJ / SIG_LJ ** 3 * st.EV_A3_BAR   # bar per reduced pressure unit
# The methods: (key in the run labels, name, short name, colour). MD is the reference.
METHODS = (("md", "LAMMPS MD", "MD", "tab:blue"),
           ("mc", "GPUMC MC sequential", "MC-seq", "tab:red"),
           ("mccb", "GPUMC MC checkerboard", "MC-cb", "tab:green"))
NAMES = {k: n for k, n, _, _ in METHODS}
SHORT = {k: s for k, _, s, _ in METHODS}
COLORS = {k: c for k, _, _, c in METHODS}
MC = tuple(k for k in NAMES if k != "md")
ENSEMBLES = ("nvt", "npt")
STARTS = ("crystal", "random")
RANDOM_START_COLOR = "tab:orange"

out = sys.argv[1] if len(sys.argv) > 1 else "output"
report = []
ZS = []        # (quantity, MC method, z(MC - MD)): every compared mean, for the summary
RDF_Z = []     # (system ensemble pair, MC method, mean z^2, max |z|)
EFF = []       # (system ensemble, {method: ([tau_int of each run], unit, mean rate)})


def say(s=""):
    report.append(s)


def path(name):
    return os.path.join(out, name)


def load(label):
    p = path("log." + label)
    if not os.path.exists(p):
        return None
    try:
        r = st.Run(p)
    except (ValueError, IndexError) as err:      # an unfinished run
        print(f"skipping {label}: {err}")
        return None
    r.label = label
    return r


# ---------------------------------------------------------------- statistics

def block(x, nb=NB):
    return st.block_average(list(x), nb)


def efficiency(run, x):
    """tau_int in time units (ps or sweeps), and decorrelated samples per wall-clock second of the
    timed production part."""
    tau_s, w, rho = st.tau_int(x)
    dt_sample = (run.rows[1][0] - run.rows[0][0]) * run.unit_per_step
    tau = tau_s * dt_sample
    timed = run.timed
    length = timed["steps"] * run.unit_per_step
    return {"tau": tau, "tau_samples": tau_s, "window": w, "rho": rho, "dt": dt_sample,
            "indep": length / (2 * tau), "rate": length / (2 * tau) / timed["loop"],
            "wall": timed["loop"], "length": length,
            "cost": timed["loop"] / timed["steps"],
            "blk2tau": (len(x) // NB) * dt_sample / (2 * tau)}


def hist_blocks(x, bins, nb=NB):
    """Normalised histogram with block standard errors."""
    x = np.asarray(x)
    n = len(x) // nb
    x = x[len(x) - n * nb:]
    hs = np.array([np.histogram(x[i * n:(i + 1) * n], bins=bins, density=True)[0] for i in range(nb)])
    return hs.mean(0), hs.std(0, ddof=1) / math.sqrt(nb)


def read_rdf(p):
    """Blocks of a fix ave/time mode vector file: array (blocks, rows, columns)."""
    return np.array(st.read_ave_groups(p))


def read_widom(p):
    rows = []
    with open(p) as f:
        for line in f:
            if not line.startswith("#"):
                rows.append([float(v) for v in line.split()])
    return np.array(rows)


def widom_mu(mu1, vol, kT, nb=NB):
    """mu_ex = -kT ln( sum V b / sum V ), b = exp(-mu1/kT) the mean Boltzmann factor of each
    invocation; standard error from nb blocks of invocations (delta method)."""
    b = np.exp(-np.asarray(mu1) / kT)
    v = np.asarray(vol)
    r = np.sum(v * b) / np.sum(v)
    n = len(b) // nb
    rb = [np.sum(v[i * n:(i + 1) * n] * b[i * n:(i + 1) * n]) / np.sum(v[i * n:(i + 1) * n]) for i in range(nb)]
    se_r = np.std(rb, ddof=1) / math.sqrt(nb)
    return -kT * math.log(r), kT * se_r / r


def header(title):
    say("=" * 78)
    say(title)
    say("=" * 78)


def by_method(d):
    """Split a dict keyed by (method, ...) into {method: [values in key order]}, methods in METHODS
    order, only those present."""
    res = {}
    for m in NAMES:
        vals = [d[k] for k in sorted(d) if k[0] == m]
        if vals:
            res[m] = vals
    return res


def ordered(keys):
    """Run keys (method, ensemble[, start]) in METHODS, ensemble, start order."""
    rank = {m: i for i, m in enumerate(NAMES)}
    return sorted(keys, key=lambda k: (rank[k[0]], ENSEMBLES.index(k[1])) + tuple(k[2:]))


def compare_lines(pooled, label, prec, where):
    """Report lines (and ZS entries) for MC - MD of one quantity; pooled = {method: (mean, se)}."""
    if "md" not in pooled:
        return
    say(f"  {label:22s} {SHORT['md']:7s} {st.fmt(*pooled['md'], prec)}")
    for m in MC:
        if m in pooled:
            z = st.zscore(pooled[m], pooled["md"])
            ZS.append((where, m, z))
            say(f"  {'':22s} {SHORT[m]:7s} {st.fmt(*pooled[m], prec):24s} z({SHORT[m]} - MD) = {z:+.2f}")


def lag_label():
    return "lag in wall-clock seconds (this machine)"


# ---------------------------------------------------------------- JZG equation of state

JZG_X = [0.0,
         0.8623085097507421, 2.976218765822098, -8.402230115796038, 0.1054136629203555,
         -0.8564583828174598, 1.582759470107601, 0.7639421948305453, 1.753173414312048,
         2.798291772190376e03, -4.8394220260857657e-2, 0.9963265197721935, -3.698000291272493e01,
         2.084012299434647e01, 8.305402124717285e01, -9.574799715203068e02, -1.477746229234994e02,
         6.398607852471505e01, 1.603993673294834e01, 6.805916615864377e01, -2.791293578795945e03,
         -6.245128304568454, -8.116836104958410e03, 1.488735559561229e01, -1.059346754655084e04,
         -1.131607632802822e02, -8.867771540418822e03, -3.986982844450543e01, -4.689270299917261e03,
         2.593535277438717e02, -2.694523589434903e03, -7.218487631550215e02, 1.721802063863269e02]


def jzg_ab(T):
    x = JZG_X
    a = [None,
         x[1] * T + x[2] * math.sqrt(T) + x[3] + x[4] / T + x[5] / T ** 2,
         x[6] * T + x[7] + x[8] / T + x[9] / T ** 2,
         x[10] * T + x[11] + x[12] / T,
         x[13],
         x[14] / T + x[15] / T ** 2,
         x[16] / T,
         x[17] / T + x[18] / T ** 2,
         x[19] / T ** 2]
    b = [None,
         x[20] / T ** 2 + x[21] / T ** 3,
         x[22] / T ** 2 + x[23] / T ** 4,
         x[24] / T ** 2 + x[25] / T ** 3,
         x[26] / T ** 2 + x[27] / T ** 4,
         x[28] / T ** 2 + x[29] / T ** 3,
         x[30] / T ** 2 + x[31] / T ** 3 + x[32] / T ** 4]
    return a, b


def jzg_ares(T, rho, gamma=3.0):
    """Residual Helmholtz energy per particle (epsilon), Johnson, Zollweg and Gubbins, Mol. Phys.
    78, 591 (1993), Eq. (5) with Tables 5-7."""
    a, b = jzg_ab(T)
    F = math.exp(-gamma * rho ** 2)
    G = [None, (1 - F) / (2 * gamma)]
    for i in range(2, 7):
        G.append(-(F * rho ** (2 * (i - 1)) - 2 * (i - 1) * G[i - 1]) / (2 * gamma))
    return sum(a[i] * rho ** i / i for i in range(1, 9)) + sum(b[i] * G[i] for i in range(1, 7))


def jzg_pressure(T, rho, gamma=3.0):
    """JZG Eq. (4): P = rho T + sum a_i rho^(i+1) + F sum b_i rho^(2i+1)."""
    a, b = jzg_ab(T)
    F = math.exp(-gamma * rho ** 2)
    return rho * T + sum(a[i] * rho ** (i + 1) for i in range(1, 9)) + F * sum(b[i] * rho ** (2 * i + 1) for i in range(1, 7))


def jzg(T, rho):
    """(U_res/N, P, mu_ex) in reduced units; mu_ex = A_res/N + P/rho - T."""
    h = 1e-5
    ares = jzg_ares(T, rho)
    P = jzg_pressure(T, rho)
    # U = d(A/T)/d(1/T)
    u = (jzg_ares(T + h, rho) / (T + h) - jzg_ares(T - h, rho) / (T - h)) / (1 / (T + h) - 1 / (T - h))
    # consistency: P from the density derivative of A_res
    p_deriv = rho * T + rho ** 2 * (jzg_ares(T, rho + h) - jzg_ares(T, rho - h)) / (2 * h)
    return u, P, ares + P / rho - T, p_deriv


# ---------------------------------------------------------------- SiO2

def sio2():
    header("SiO2 Morse, 4608 atoms (1536 Si + 3072 O), 4000 K, rc 9 A, no Coulomb (the seed's system)")
    runs = {}
    for m in NAMES:
        for e in ENSEMBLES:
            for s in STARTS:
                r = load(f"sio2.{m}.{e}.{s}")
                if r is not None:
                    runs[m, e, s] = r
    p166 = {m: load(f"sio2.{m}.npt166.crystal") for m in NAMES}
    p166 = {m: r for m, r in p166.items() if r is not None}
    if not runs and not p166:
        say("no SiO2 runs found")
        return
    if runs:
        sio2_equilibrium(runs)
    if p166:
        sio2_p166(p166)


def sio2_equilibrium(runs):
    kT = st.KB_EV * next(iter(runs.values())).T
    say(f"NPT pressure: {next((r.P for r in runs.values() if r.P), float('nan')):.0f} bar (see README.md); "
        f"error bars: {NB} blocks; z = difference / combined standard error")
    say("Methods: " + "; ".join(f"{SHORT[m]} = {NAMES[m]} (labels sio2.{m}.*)" for m in NAMES))
    say("")

    # ---- means
    say("Means (production; per-run block averages; pooled = mean of the two starts)")
    say(f"{'run':30s} {'PE/atom (eV)':>24s} {'P (kbar)':>18s} {'rho (1/A^3)':>26s}")
    vals = {}
    for key in ordered(runs):
        r = runs[key]
        pe = block(r.pe_per_atom())
        p = block(np.array(r.column("v_ptot")) / 1000)
        rho = block(r.column("v_rho"))
        vals[key] = {"pe": pe, "p": p, "rho": rho}
        rho_s = st.fmt(*rho, 6) if key[1] == "npt" else "(fixed) %.6f" % rho[0]
        say(f"{r.label:30s} {st.fmt(*pe, 5):>24s} {st.fmt(*p, 2):>18s} {rho_s:>26s}")
    say("")
    say("Agreement of each MC algorithm with MD (pooled over the starts), and crystal vs random start:")
    for e in ENSEMBLES:
        qs = [("pe", "PE/atom (eV)", 5), ("p", "P (kbar)", 2)] + ([("rho", "rho (1/A^3)", 6)] if e == "npt" else [])
        for q, name, prec in qs:
            have = by_method({k: v[q] for k, v in vals.items() if k[1] == e})
            compare_lines({m: st.pooled(v) for m, v in have.items()}, f"{e.upper()} {name}", prec,
                          f"SiO2 {e.upper()} {name.split()[0]}")
            cr = [f"{SHORT[m]} {st.zscore(v[0], v[1]):+.2f}" for m, v in have.items() if len(v) == 2]
            if cr:
                say(f"  {'':22s} crystal - random: z = " + ", ".join(cr))
    say("")

    # ---- efficiency
    say("Statistical efficiency of the potential energy (timed production part, this machine):")
    say(f"{'run':30s} {'tau_int':>16s} {'window':>7s} {'wall s':>8s} {'s/step':>9s} {'indep.':>8s} {'indep./s':>9s} {'blk/2tau':>9s}")
    effs = {}
    for key in ordered(runs):
        r = runs[key]
        ef = efficiency(r, r.pe_per_atom())
        effs[key] = ef
        say(f"{r.label:30s} {ef['tau']:9.4g} {r.time_unit:6s} {ef['window']:7d} {ef['wall']:8.2f} {ef['cost']:9.4f} "
            f"{ef['indep']:8.1f} {ef['rate']:9.3f} {ef['blk2tau']:9.1f}")
    for e in ENSEMBLES:
        have = by_method({k: ef for k, ef in effs.items() if k[1] == e})
        if not have:
            continue
        summary = {m: ([ef["tau"] for ef in v], "ps" if m == "md" else "sweeps", float(np.mean([ef["rate"] for ef in v])))
                   for m, v in have.items()}
        EFF.append((f"SiO2 {e.upper()}", summary))
        line = ", ".join(f"{SHORT[m]} {summary[m][2]:.3f}" +
                         (f" ({SHORT[m]}/MD = {summary[m][2] / summary['md'][2]:.2f})" if m != "md" and "md" in summary else "")
                         for m in summary)
        say(f"  {e.upper()} decorrelated PE samples per wall-clock second (mean over starts): {line}")
    say("  (tau_int: window W = first W >= 6 tau; indep. = timed length / 2 tau; blk/2tau = length of one of the")
    say("  10 blocks of the whole production over 2 tau, below about 1 the block errors are underestimated)")
    vt = [f"{runs[k].label} {efficiency(runs[k], runs[k].column('Volume'))['tau']:.3g} {runs[k].time_unit}"
          for k in ordered(runs) if k[1] == "npt"]
    if vt:
        say("  tau_int of the volume in NPT: " + ", ".join(vt))
    say("")

    # ---- RDF
    say("Radial distribution functions (measured part; block SE; bins with g > 0.05 in MD or MC;")
    say("z = (MC - MD) / combined SE per bin):")
    pairs = [("Si-Si", 2), ("Si-O", 4), ("O-O", 6)]
    rdfs = {k: read_rdf(path(r.label + ".rdf")) for k, r in runs.items() if os.path.exists(path(r.label + ".rdf"))}
    for e in ENSEMBLES:
        got = by_method({k: v for k, v in rdfs.items() if k[1] == e})
        if "md" not in got or len(got) < 2:
            continue
        fig, axes = plt.subplots(2, 3, figsize=(14, 7), sharex=True, gridspec_kw={"height_ratios": [3, 1.3]})
        for j, (name, col) in enumerate(pairs):
            stats = {}
            for m, bl in got.items():           # pooled over the starts
                ms = [b[:, :, col].mean(0) for b in bl]
                ses = [b[:, :, col].std(0, ddof=1) / math.sqrt(len(b)) for b in bl]
                stats[m] = (np.mean(ms, 0), np.sqrt(np.sum(np.square(ses), 0)) / len(ms))
            rr = got["md"][0][0, :, 1]
            for m, (g, se) in stats.items():
                axes[0, j].errorbar(rr, g, yerr=se, color=COLORS[m], lw=1, elinewidth=0.8, capsize=0, label=NAMES[m])
            for m in MC:
                if m not in stats:
                    continue
                comb = np.sqrt(stats["md"][1] ** 2 + stats[m][1] ** 2)
                mask = ((stats["md"][0] > 0.05) | (stats[m][0] > 0.05)) & (comb > 0)
                z = (stats[m][0][mask] - stats["md"][0][mask]) / comb[mask]
                chi2, zmax = float(np.mean(z ** 2)), float(np.max(np.abs(z)))
                say(f"  {e.upper()} {name:6s} {SHORT[m]:7s}: {mask.sum()} bins, mean z^2 = {chi2:.2f}, max |z| = {zmax:.2f}, "
                    f"|z| > 3 in {100 * np.mean(np.abs(z) > 3):.1f} % of bins; peak g: MD {stats['md'][0].max():.3f}, "
                    f"{SHORT[m]} {stats[m][0].max():.3f} at r = {rr[np.argmax(stats['md'][0])]:.3f} / "
                    f"{rr[np.argmax(stats[m][0])]:.3f} A")
                RDF_Z.append((f"SiO2 {e.upper()} {name}", m, chi2, zmax))
                axes[1, j].plot(rr[mask], z, ".", ms=3, color=COLORS[m], label=SHORT[m])
            axes[0, j].set_title(f"{name} g(r), {e.upper()}")
            axes[0, j].legend(fontsize=8)
            axes[1, j].axhline(0, color="gray", lw=0.5)
            for v in (-4, 4):
                axes[1, j].axhline(v, color="gray", ls="--", lw=0.5)
            axes[1, j].set_xlabel("r (A)")
            axes[1, j].set_ylabel("(MC-MD)/SE")
            axes[1, j].legend(fontsize=7, markerscale=2)
        axes[0, 0].set_ylabel("g(r)")
        fig.tight_layout()
        fig.savefig(path(f"sio2_rdf_{e}.png"), dpi=110)
        plt.close(fig)
    say("")

    # ---- Widom
    say(f"Widom excess chemical potential (eV), {NB}-block errors; in brackets the compute's own running")
    say("estimate (c_mu[2] +- c_mu[3], error from the spread of single invocations):")
    wid = {}
    for key in ordered(runs):
        r = runs[key]
        p = path(r.label + ".widom")
        if not os.path.exists(p):
            continue
        w = read_widom(p)
        mSi = widom_mu(w[:, 1], w[:, 3], kT)
        mO = widom_mu(w[:, 2], w[:, 3], kT)
        wid[key] = (mSi, mO)
        say(f"  {r.label:28s} Si {st.fmt(*mSi)} [{w[-1, 4]:.4f} +- {w[-1, 5]:.4f}]   "
            f"O {st.fmt(*mO)} [{w[-1, 6]:.4f} +- {w[-1, 7]:.4f}]   ({len(w)} invocations)")
    for e in ENSEMBLES:
        for i, sp in enumerate(("Si", "O")):
            have = by_method({k: v[i] for k, v in wid.items() if k[1] == e})
            compare_lines({m: st.pooled(v) for m, v in have.items()}, f"{e.upper()} mu_ex({sp}) (eV)", 4,
                          f"SiO2 {e.upper()} mu_ex({sp})")
    say("")

    # ---- plots: energy time series (with equilibration), one column per method
    ms = [m for m in NAMES if any(k[0] == m for k in runs)]
    fig, axes = plt.subplots(2, len(ms), figsize=(6.5 * len(ms), 8), squeeze=False)
    for i, e in enumerate(ENSEMBLES):
        for j, m in enumerate(ms):
            ax = axes[i, j]
            for s in STARTS:
                r = runs.get((m, e, s))
                if r is None:
                    continue
                t, u, off = [], [], 0.0     # equilibration steps count on until production resets them
                for eq in r.equil:
                    k = eq["header"].index("PotEng")
                    for row in eq["rows"]:
                        t.append(row[0] * r.unit_per_step)
                        u.append(row[k] / r.natoms)
                    if eq["rows"]:
                        off = t[-1]
                t += [off + x * r.unit_per_step for x in r.steps()]
                u += r.pe_per_atom()
                ax.plot(t, u, lw=0.6, label=f"{s} start", color=RANDOM_START_COLOR if s == "random" else COLORS[m])
                ax.axvline(off, color="gray", ls=":", lw=0.8)
                ax.set_xlabel(f"time ({r.time_unit}); dotted: production starts")
            ax.set_ylabel("PE per atom (eV)")
            ax.set_title(f"{NAMES[m]}, {e.upper()}")
            ax.set_ylim(-1.57, -1.47)
            if ax.lines:
                ax.legend()
    fig.tight_layout()
    fig.savefig(path("sio2_energy_timeseries.png"), dpi=110)
    plt.close(fig)

    def pooled_hist(series, bins):
        """Histogram pooled over runs (starts): mean and SE over all their blocks."""
        hs = []
        for x in series:
            x = np.asarray(x)
            n = len(x) // NB
            x = x[len(x) - n * NB:]
            hs += [np.histogram(x[i * n:(i + 1) * n], bins=bins, density=True)[0] for i in range(NB)]
        hs = np.array(hs)
        return hs.mean(0), hs.std(0, ddof=1) / math.sqrt(len(hs))

    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5))
    panels = [("nvt", lambda r: r.pe_per_atom(), "PE per atom (eV)", "PE distribution, NVT"),
              ("npt", lambda r: r.pe_per_atom(), "PE per atom (eV)", "PE distribution, NPT"),
              ("npt", lambda r: r.column("v_rho"), "number density (1/A^3)", "density distribution, NPT")]
    for ax, (e, get, xl, title) in zip(axes, panels):
        if not any(k[1] == e for k in runs):
            continue
        allx = np.concatenate([get(r) for k, r in runs.items() if k[1] == e])
        lo, hi = np.percentile(allx, [0.5, 99.5])
        bins = np.linspace(lo, hi, 21)
        c = 0.5 * (bins[1:] + bins[:-1])
        for m, series in by_method({k: get(r) for k, r in runs.items() if k[1] == e}).items():
            h, se = pooled_hist(series, bins)
            ax.errorbar(c, h, yerr=se, color=COLORS[m], lw=1.2, capsize=2, label=f"{NAMES[m]} ({len(series)} starts)")
        if "density" in title:
            ax.axvline(0.053679, color="k", ls=":", lw=0.8, label="NVT density")
        ax.set_xlabel(xl)
        ax.set_ylabel("probability density")
        ax.set_title(title)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path("sio2_histograms.png"), dpi=110)
    plt.close(fig)

    if wid:
        fig, ax = plt.subplots(1, 2, figsize=(14, 4.2))
        keys = ordered(wid)
        for i, sp in enumerate(("Si", "O")):
            for n, k in enumerate(keys):
                mu, se = wid[k][i]
                ax[i].errorbar([n], [mu], yerr=[se], fmt="o" if k[2] == "crystal" else "s", color=COLORS[k[0]],
                               capsize=3)
            ax[i].set_xticks(range(len(keys)))
            ax[i].set_xticklabels([f"{SHORT[k[0]]}\n{k[1].upper()}\n{k[2]}" for k in keys], fontsize=7)
            ax[i].set_ylabel(f"mu_ex({sp}) (eV)")
            ax[i].set_title(f"Widom mu_ex of {sp} (4000 K)")
        fig.tight_layout()
        fig.savefig(path("sio2_widom.png"), dpi=110)
        plt.close(fig)

    # ---- autocorrelation against wall-clock time
    fig, ax = plt.subplots(1, 2, figsize=(11, 4))
    for i, e in enumerate(ENSEMBLES):
        for key in ordered(effs):
            if key[1] != e or key[2] != "crystal":
                continue
            ef = effs[key]
            n = min(len(ef["rho"]), 4 * ef["window"] + 10)
            tw = np.arange(n) * ef["dt"] * ef["cost"] / runs[key].unit_per_step
            ax[i].plot(tw, ef["rho"][:n], color=COLORS[key[0]],
                       label=f"{NAMES[key[0]]}: tau_int {ef['tau']:.3g} {runs[key].time_unit}")
        ax[i].axhline(0, color="gray", lw=0.5)
        ax[i].set_xlabel(lag_label())
        ax[i].set_ylabel("autocorrelation of PE")
        ax[i].set_title(f"SiO2 {e.upper()}, crystal start")
        if ax[i].lines:
            ax[i].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path("sio2_autocorrelation.png"), dpi=110)
    plt.close(fig)


def sio2_p166(p166):
    """The seed's 166.054 bar: density and pressure against time for each method present."""
    say("The seed's NPT pressure, 166.054 bar (crystal start, NVT settling for MD first):")
    fig, ax = plt.subplots(1, len(p166), figsize=(5.5 * len(p166), 4), squeeze=False)
    for j, (m, r) in enumerate(p166.items()):
        a = ax[0, j]
        t = np.array(r.steps()) * r.unit_per_step
        rho = np.array(r.column("v_rho"))
        pt = np.array(r.column("v_ptot"))
        # the whole run: MD settles 1 ps in NVT first, MC starts NPT at once (tuned steps)
        te, re_, off, t_npt = [], [], 0.0, 0.0
        for k, eq in enumerate(r.equil):
            iv = eq["header"].index("Volume")
            for row in eq["rows"]:
                te.append(row[0] * r.unit_per_step)
                re_.append(r.natoms / row[iv])
            if eq["rows"]:
                off = te[-1]
            if k == 0 and m == "md":
                t_npt = off
        a.plot(np.r_[te, off + t], np.r_[re_, rho], color=COLORS[m])
        a.axvline(t_npt, color="gray", ls=":", lw=0.8)
        a.axhline(0.053679, color="k", ls=":", lw=0.8)
        a.set_xlabel(f"time ({r.time_unit}); dotted: NPT at 166 bar starts")
        a.set_ylabel("number density (1/A^3)")
        a.set_title(f"{NAMES[m]}: NPT at 166.054 bar")
        n = max(len(rho) // 10, 1)
        plast = pt[-n:].mean()
        verdict = ("far above the set 0.166 kbar: not a stationary NPT state, the box is still expanding"
                   if plast > 10 * r.P else "close to the set pressure")
        say(f"  {NAMES[m]}: density {re_[0] if re_ else rho[0]:.5f} -> {rho[-1]:.5f} 1/A^3 over {off + t[-1] - t_npt:.4g} "
            f"{r.time_unit} (mean of first / last tenth: {rho[:n].mean():.5f} / {rho[-n:].mean():.5f}); "
            f"total pressure in the last tenth {plast / 1000:.2f} kbar, {verdict}")
    fig.tight_layout()
    fig.savefig(path("sio2_npt_166bar.png"), dpi=110)
    plt.close(fig)
    say("")


# ---------------------------------------------------------------- LJ

def lj():
    header("LJ argon (sigma 3.405 A, epsilon/kB 119.8 K), reduced units below")
    runs = {}
    for m in NAMES:
        for e in ENSEMBLES:
            r = load(f"lj.{m}.{e}")
            if r is not None:
                runs[m, e] = r
    if not runs:
        say("no LJ runs found")
        return
    r0 = next(iter(runs.values()))
    Tst = r0.T / 119.8
    p_npt = next((r.P for k, r in runs.items() if k[1] == "npt"), None)
    say(f"{r0.natoms} atoms, T* = {Tst:.3f}. NVT: rho* = 0.776, truncated at 3 sigma + long-range correction "
        f"(approximates full LJ).")
    say(f"NPT: truncated and shifted at 3 sigma (no correction) at P* = "
        f"{p_npt / P_LJ_BAR if p_npt else float('nan'):.3f}: the model MD integrates, see README.md.")
    say("Methods: " + "; ".join(f"{SHORT[m]} = {NAMES[m]} (labels lj.{m}.*)" for m in NAMES))
    say("")
    say(f"{'run':14s} {'U*/N':>22s} {'P*':>20s} {'rho*':>22s} {'tau_int':>16s} {'indep./s':>9s} {'blk/2tau':>9s}")
    effs, vals = {}, {}
    for key in ordered(runs):
        r = runs[key]
        u = block(np.array(r.pe_per_atom()) / EPS_LJ)
        p = block(np.array(r.column("v_ptot")) / P_LJ_BAR)
        rho = block(np.array(r.column("v_rho")) * SIG_LJ ** 3)
        ef = efficiency(r, r.pe_per_atom())
        effs[key], vals[key] = ef, {"u": u, "p": p, "rho": rho}
        say(f"{r.label:14s} {st.fmt(*u, 5):>22s} {st.fmt(*p, 4):>20s} {st.fmt(*rho, 5):>22s} "
            f"{ef['tau']:9.4g} {r.time_unit:6s} {ef['rate']:9.2f} {ef['blk2tau']:9.1f}")
    say("")
    for e in ENSEMBLES:
        qs = (("u", "U*/N", 5), ("p", "P*", 4)) + ((("rho", "rho*", 5),) if e == "npt" else ())
        for q, name, prec in qs:
            compare_lines({k[0]: v[q] for k, v in vals.items() if k[1] == e}, f"{e.upper()} {name}", prec,
                          f"LJ {e.upper()} {name}")
        have = {k[0]: ef for k, ef in effs.items() if k[1] == e}
        if have:
            EFF.append((f"LJ {e.upper()}", {m: ([have[m]["tau"]], "ps" if m == "md" else "sweeps", have[m]["rate"])
                                             for m in NAMES if m in have}))
            line = ", ".join(f"{SHORT[m]} {have[m]['rate']:.2f}" +
                             (f" ({SHORT[m]}/MD = {have[m]['rate'] / have['md']['rate']:.2f})" if m != "md" and "md" in have else "")
                             for m in NAMES if m in have)
            cost = ", ".join(f"{SHORT[m]} {have[m]['cost']:.2e}" for m in NAMES if m in have)
            say(f"  {e.upper()} decorrelated PE samples per second: {line}; wall s per step: {cost}")
    say("")

    # JZG
    u_j, p_j, mu_j, p_chk = jzg(Tst, 0.776)
    u_n, p_n, mu_n, _ = jzg(0.85, 0.776)
    say("Johnson-Zollweg-Gubbins (1993) MBWR equation of state for the full LJ fluid:")
    say(f"  at T* = {Tst:.3f}, rho* = 0.776: U*/N = {u_j:.4f}, P* = {p_j:.4f} (from dA/drho: {p_chk:.4f}), "
        f"mu_ex* = A_res/N + P/rho - T = {mu_j:.4f}")
    say(f"  cross-check: NIST SRSW Monte Carlo (rc = 3 sigma + long-range correction, N = 500) at "
        f"T* = 0.85, rho* = 0.776: U*/N = -5.5121 +- 0.0004; JZG gives {u_n:.4f}")
    wid = {}
    for key in ordered(runs):
        r = runs[key]
        p = path(r.label + ".widom")
        if not os.path.exists(p):
            continue
        w = read_widom(p)
        mu = widom_mu(w[:, 1], w[:, 2], st.KB_EV * r.T)
        mu = (mu[0] / EPS_LJ, mu[1] / EPS_LJ)
        wid[key] = mu
        extra = ""
        if key[1] == "nvt":
            extra = f"  vs JZG {mu_j:.4f}: difference {mu[0] - mu_j:+.4f} ({(mu[0] - mu_j) / mu[1]:+.1f} SE)"
        say(f"  Widom mu_ex* {r.label:11s}: {st.fmt(*mu)} [compute: {w[-1, 3] / EPS_LJ:.4f} +- "
            f"{w[-1, 4] / EPS_LJ:.4f}]{extra}")
    for e in ENSEMBLES:
        compare_lines({k[0]: v for k, v in wid.items() if k[1] == e}, f"{e.upper()} Widom mu_ex*", 4,
                      f"LJ {e.upper()} Widom mu_ex*")
    nist = (-5.5121, 0.0004)
    for m in NAMES:
        if (m, "nvt") not in vals:
            continue
        u, p = vals[m, "nvt"]["u"], vals[m, "nvt"]["p"]
        line = f"  {NAMES[m]:22s}: U*/N - JZG {u[0] - u_j:+.4f}, P* - JZG {p[0] - p_j:+.4f} (virial + tail correction)"
        if abs(Tst - 0.85) < 1e-6:
            line += f"; U*/N - NIST SRSW -5.5121 +- 0.0004: {u[0] - nist[0]:+.4f} = {st.zscore(u, nist):+.2f} combined SE"
        say(line)
    say("")

    # RDF
    rd = {k: read_rdf(path(r.label + ".rdf")) for k, r in runs.items() if os.path.exists(path(r.label + ".rdf"))}
    fig, axes = plt.subplots(2, 4, figsize=(17, 7), gridspec_kw={"height_ratios": [3, 1.3]})
    for j, e in enumerate(ENSEMBLES):
        got = {k[0]: b for k, b in rd.items() if k[1] == e}
        if "md" not in got or len(got) < 2:
            continue
        ax, axz = axes[0, j], axes[1, j]
        st_ = {}
        for m in NAMES:
            if m in got:
                b = got[m]
                st_[m] = (b[:, :, 2].mean(0), b[:, :, 2].std(0, ddof=1) / math.sqrt(len(b)))
                rr = b[0, :, 1] / SIG_LJ
                ax.errorbar(rr, st_[m][0], yerr=st_[m][1], color=COLORS[m], lw=1, label=NAMES[m])
        for m in MC:
            if m not in st_:
                continue
            comb = np.hypot(st_["md"][1], st_[m][1])
            mask = ((st_["md"][0] > 0.05) | (st_[m][0] > 0.05)) & (comb > 0)
            z = (st_[m][0][mask] - st_["md"][0][mask]) / comb[mask]
            chi2, zmax = float(np.mean(z ** 2)), float(np.max(np.abs(z)))
            say(f"  g(r) {e.upper()} {SHORT[m]:7s}: {mask.sum()} bins, mean z^2 = {chi2:.2f}, max |z| = {zmax:.2f}")
            RDF_Z.append((f"LJ {e.upper()}", m, chi2, zmax))
            axz.plot(rr[mask], z, ".", ms=3, color=COLORS[m], label=SHORT[m])
        ax.set_title(f"LJ g(r), {e.upper()}")
        ax.set_xlabel("r / sigma")
        ax.legend(fontsize=8)
        for v in (-4, 4):
            axz.axhline(v, color="gray", ls="--", lw=0.5)
        axz.set_ylabel("(MC-MD)/SE")
        axz.set_xlabel("r / sigma")
        axz.legend(fontsize=7, markerscale=2)

    def hist_panel(ax, e, get, xlabel, title):
        xs = {k[0]: np.asarray(get(r)) for k, r in runs.items() if k[1] == e}
        if not xs:
            return
        allx = np.concatenate(list(xs.values()))
        bins = np.linspace(allx.min(), allx.max(), 30)
        c = 0.5 * (bins[1:] + bins[:-1])
        for m in NAMES:
            if m in xs:
                h, se = hist_blocks(xs[m], bins)
                ax.errorbar(c, h, yerr=se, color=COLORS[m], capsize=2, lw=1, label=NAMES[m])
        ax.set_xlabel(xlabel)
        ax.set_title(title)
        ax.legend(fontsize=8)

    # energy histograms, density histogram, Widom
    for e, ax in (("nvt", axes[0, 2]), ("npt", axes[1, 2])):
        hist_panel(ax, e, lambda r: np.array(r.pe_per_atom()) / EPS_LJ, "U*/N", f"PE distribution, {e.upper()}")
    hist_panel(axes[0, 3], "npt", lambda r: np.array(r.column("v_rho")) * SIG_LJ ** 3, "rho*",
               "density distribution, NPT (LJTS)")
    ax = axes[1, 3]
    keys = ordered(wid)
    for n, k in enumerate(keys):
        ax.errorbar([n], [wid[k][0]], yerr=[wid[k][1]], fmt="o", color=COLORS[k[0]], capsize=3)
    ax.axhline(mu_j, color="k", ls="--", lw=0.8, label=f"JZG (full LJ, NVT state) {mu_j:.3f}")
    ax.set_xticks(range(len(keys)))
    ax.set_xticklabels([f"{SHORT[k[0]]}\n{k[1].upper()}" for k in keys], fontsize=8)
    ax.set_ylabel("Widom mu_ex*")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path("lj.png"), dpi=110)
    plt.close(fig)

    ms = [m for m in NAMES if any(k[0] == m for k in runs)]
    fig, axes = plt.subplots(2, len(ms), figsize=(5.5 * len(ms), 7), squeeze=False)
    for i, e in enumerate(ENSEMBLES):
        for j, m in enumerate(ms):
            r = runs.get((m, e))
            if r is None:
                continue
            t = np.array(r.steps()) * r.unit_per_step
            axes[i, j].plot(t, np.array(r.pe_per_atom()) / EPS_LJ, lw=0.5, color=COLORS[m])
            axes[i, j].set_xlabel(f"production time ({r.time_unit})")
            axes[i, j].set_ylabel("U*/N")
            axes[i, j].set_title(f"LJ {NAMES[m]}, {e.upper()}")
    fig.tight_layout()
    fig.savefig(path("lj_energy_timeseries.png"), dpi=110)
    plt.close(fig)


# ---------------------------------------------------------------- summary

def summary():
    header("Summary")
    if ZS:
        rows = list(dict.fromkeys(q for q, _, _ in ZS))
        zd = {(q, m): z for q, m, z in ZS}
        ms = [m for m in MC if any(k[1] == m for k in zd)]
        say("z = (MC - MD) / combined SE of every compared mean (SiO2: pooled over the two starts):")
        say(f"  {'quantity':28s}" + "".join(f"{SHORT[m] + ' - MD':>14s}" for m in ms))
        for q in rows:
            say(f"  {q:28s}" + "".join(f"{zd[q, m]:+14.2f}" if (q, m) in zd else f"{'-':>14s}" for m in ms))
        zmax = max(ZS, key=lambda x: abs(x[2]))
        big = [f"{q} ({SHORT[m]})" for q, m, z in ZS if abs(z) > 4]
        counts = ", ".join(f"{sum(1 for _, mm, _ in ZS if mm == m)} {SHORT[m]}" for m in ms)
        say(f"  {len(ZS)} comparisons ({counts}); largest |z| = {abs(zmax[2]):.2f} ({zmax[0]}, {SHORT[zmax[1]]}); "
            + ("all within 4 combined standard errors." if not big else f"beyond 4 SE: {', '.join(big)}"))
    if RDF_Z:
        for m in MC:
            g = [x for x in RDF_Z if x[1] == m]
            if g:
                say(f"  g(r) {SHORT[m]} vs MD, {len(g)} pair/ensemble sets: mean z^2 per set "
                    f"{min(x[2] for x in g):.2f}-{max(x[2] for x in g):.2f}, largest |z| of a bin "
                    f"{max(x[3] for x in g):.2f}")
    if EFF:
        say("")
        say("Statistical efficiency of the potential energy: tau_int (MD ps, MC sweeps; range over the")
        say("starts) and decorrelated samples per wall-clock second of the timed part (mean over the starts):")
        ms = [m for m in NAMES if any(m in d for _, d in EFF)]
        say(f"  {'':9s}" + "".join(f"{'tau ' + SHORT[m]:>16s}" for m in ms) + "".join(f"{SHORT[m] + '/s':>10s}" for m in ms)
            + "".join(f"{SHORT[m] + '/MD':>10s}" for m in ms if m != "md"))

        def trange(ts):
            lo, hi = min(ts), max(ts)
            return f"{lo:.3g}" if f"{lo:.2g}" == f"{hi:.2g}" else f"{lo:.2g}-{hi:.2g}"

        for row, d in EFF:
            line = f"  {row:9s}" + "".join(f"{trange(d[m][0]) if m in d else '-':>16s}" for m in ms)
            line += "".join(f"{d[m][2]:10.3g}" if m in d else f"{'-':>10s}" for m in ms)
            line += "".join(f"{d[m][2] / d['md'][2]:10.2f}" if m in d and "md" in d else f"{'-':>10s}"
                            for m in ms if m != "md")
            say(line)


def main():
    mode = open(path("mode.txt")).read().strip() if os.path.exists(path("mode.txt")) else "?"
    say(f"GPUMC Monte Carlo vs LAMMPS MD: report written by analyse.py from the runs in "
        f"{os.path.basename(os.path.abspath(out))}/ (run.sh {mode})")
    if os.path.exists(path("lmp-version.txt")):
        say("LAMMPS: " + open(path("lmp-version.txt")).read().strip().splitlines()[0].strip())
    if os.path.exists(path("machine.txt")):
        say("Machine: " + "; ".join(open(path("machine.txt")).read().strip().splitlines()))
    if os.path.exists(path("times.txt")):
        say("run.sh groups (mode group: wall time, load):")
        for line in open(path("times.txt")).read().strip().splitlines():
            say("  " + line)
    say("")
    sio2()
    timestep_bias.analyse(load, say, header, path, NB, ZS)
    lj()
    summary()
    text = "\n".join(report) + "\n"
    with open(path("report.txt"), "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
