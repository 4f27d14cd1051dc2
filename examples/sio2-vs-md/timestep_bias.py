"""The sio2-dt group of run.sh: MD's mean potential energy at three timesteps against Monte Carlo,
which has no timestep. Used by analyse.py (report section and sio2_timestep_bias.png)."""

import math

import numpy as np
import matplotlib.pyplot as plt

import svm_stats as st

TIMESTEPS_FS = ("1", "0.5", "0.25")    # the labels sio2dt.md.<fs>fs of run.sh


def analyse(load, say, header, path, nb, zs):
    """load(label) -> svm_stats.Run or None; say(text); header(title); path(file) -> output path;
    nb: blocks per error bar; zs: the summary's list of (quantity, MC method, z)."""
    md = {fs: load(f"sio2dt.md.{fs}fs") for fs in TIMESTEPS_FS}
    md = {fs: r for fs, r in md.items() if r is not None and len(r.rows) >= nb}
    mc = load("sio2dt.mccb")
    mc = mc if mc is not None and len(mc.rows) >= nb else None
    if not md and mc is None:
        return
    natoms = next(iter(md.values())).natoms if md else mc.natoms
    header(f"SiO2 Morse at a GPU's size: {natoms} atoms, NVT 4000 K; MD's timestep bias (group sio2-dt)")
    say("Mean potential energy per atom of the production, error bars from "
        f"{nb} blocks; z = difference / combined standard error.")
    means = {}
    for fs, r in md.items():
        means[fs] = st.block_average(r.pe_per_atom(), nb)
        length = (r.rows[-1][0] - r.rows[0][0]) * r.unit_per_step
        say(f"  MD {fs:>4s} fs  {st.fmt(*means[fs], 6):>26s} eV   ({length:g} ps, {len(r.rows)} samples)")
    mc_mean = None
    if mc is not None:
        mc_mean = st.block_average(mc.pe_per_atom(), nb)
        sweeps = (mc.rows[-1][0] - mc.rows[0][0]) * mc.unit_per_step
        say(f"  MC-cb        {st.fmt(*mc_mean, 6):>26s} eV   ({sweeps:.0f} sweeps, {len(mc.rows)} samples)")
    smallest = TIMESTEPS_FS[-1] if TIMESTEPS_FS[-1] in means else None
    for fs in means:
        parts = []
        if mc_mean is not None:
            z = st.zscore(mc_mean, means[fs])
            parts.append(f"MC - MD = {mc_mean[0] - means[fs][0]:+.6f} eV (z = {z:+.2f})")
        if smallest and fs != smallest:
            parts.append(f"MD - MD({smallest} fs) = {means[fs][0] - means[smallest][0]:+.6f} eV "
                         f"(z = {st.zscore(means[fs], means[smallest]):+.2f})")
        if parts:
            say(f"  MD {fs:>4s} fs: " + "; ".join(parts))
    if mc_mean is not None and smallest:
        zs.append((f"SiO2 {natoms} PE, MD {smallest} fs", "mccb", st.zscore(mc_mean, means[smallest])))
    say("")

    fig, ax = plt.subplots(figsize=(5.5, 4))
    xs = [float(fs) for fs in means]
    ax.errorbar(xs, [means[fs][0] for fs in means], yerr=[means[fs][1] for fs in means], fmt="o",
                color="tab:blue", capsize=3, label="LAMMPS MD")
    if mc_mean is not None:
        ax.axhspan(mc_mean[0] - mc_mean[1], mc_mean[0] + mc_mean[1], color="tab:green", alpha=0.3,
                   label="GPUMC MC checkerboard (+- 1 SE)")
        ax.axhline(mc_mean[0], color="tab:green")
    ax.set_xlabel("MD timestep (fs)")
    ax.set_ylabel("<U>/N (eV)")
    ax.ticklabel_format(axis="y", useOffset=False)
    ax.set_xscale("log", base=2)
    ax.set_xticks(xs or [1.0])
    ax.set_xticklabels([f"{x:g}" for x in xs] or ["1"])
    ax.set_title(f"SiO2 Morse, {natoms} atoms, 4000 K")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path("sio2_timestep_bias.png"), dpi=110)
    plt.close(fig)
