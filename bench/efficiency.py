#!/usr/bin/env python3
"""Statistical efficiency of GPUMC Monte Carlo against LAMMPS MD on the same system and hardware.

For each system: one Monte Carlo equilibration from the lattice (melted at 2 T, then at T) writes
a data file; from it,
--runs independent runs of each method (own seeds) equilibrate briefly and then sample the
potential energy per atom in a production run:
  MC   fix gpumc/nvt(/kk), algorithm checkerboard (/kk: precision mixed), run_style gpumc,
       --mc-sweeps sweeps per timestep, pe sampled every --mc-sample timesteps; the displacement
       tuned during the run's equilibration toward each acceptance ratio of --mc-targets (the
       fix's target keyword), one MC method per target
  MD   fix nvt (Nose-Hoover), velocity Verlet at each timestep of --md-dt (the usual one first,
       then halved), pe sampled at one fixed interval of simulated time
Per run: the mean <U>/N, its squared standard error s^2 = var * 2 tau_int / n (tau_int by Sokal's
window, examples/sio2-vs-md/svm_stats.py), the production's wall time t (LAMMPS's loop time, the
sampling included), the figure of merit s^2 t (lower is better) and decorrelated samples per
second n / (2 tau_int) / t. Each figure is reported as mean +- standard error over the runs.

MD's timestep biases its mean energy; MC has no timestep. The comparison is made against MD at
the largest timestep whose mean agrees with the smallest timestep's within their combined standard
error ("unbiased MD"), and against MD at its usual timestep.

Writes <out>/efficiency-<date>-<system>.json (records) and .md (a table).
Usage: bench/efficiency.py --lmp LMP [--kokkos] [--system sio2|lj] [--runs 3] [--n CELLS] [--mc-targets 0.5,0.3]
                          [--quick] [--out DIR]
"""

import argparse
import datetime
import json
import math
import os
import re
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "examples", "sio2-vs-md"))
from lammps_bench import LJ_SETUP, SIO2_SETUP, loop_time, run_lammps  # noqa: E402
from svm_stats import tau_int  # noqa: E402

KOKKOS = ["-k", "on", "g", "1", "-sf", "kk", "-pk", "kokkos", "neigh", "half", "newton", "on"]

# per system: lattice setup and size, temperature, thermostat damping, MD timesteps (usual first),
# MD sampling interval and lengths in time units, MC sweeps; quick: a small CPU check of the script
SYSTEMS = {
    "sio2": dict(setup=SIO2_SETUP, n=42, T=4000.0, tdamp=0.1, dts=[0.001, 0.0005, 0.00025], md_sample=0.01,
                 md_eq=0.5, md_prod=4.0, mc_prep=1000, mc_eq=300, mc_prod=9000, quick_n=8,
                 title="SiO2 Morse (rc 9 A, 0.053679 atoms/A^3, 4000 K)", unit="eV"),
    "lj": dict(setup=LJ_SETUP + "pair_modify shift yes\n", n=20, T=0.85, tdamp=0.5, dts=[0.005, 0.0025, 0.00125], md_sample=0.05,
               md_eq=10.0, md_prod=100.0, mc_prep=1000, mc_eq=300, mc_prod=6000, quick_n=5,
               title="LJ liquid (rc 2.5, rho* 0.8442, T* 0.85, fcc start)", unit="epsilon"),
}


def deck_parts(setup):
    """(units and atom style lines, pair lines) of a benchmark setup."""
    lines = setup.splitlines(True)
    head = "".join(l for l in lines if l.startswith(("units", "atom_style")))
    pair = "".join(l for l in lines if l.startswith("pair_"))
    return head, pair


def production_pe(output, natoms, per_atom_already):
    """pe per atom of every thermo row of the last run."""
    block = output[output.rindex("   Step"):output.rindex("Loop time of")]
    values = []
    for line in block.splitlines()[1:]:
        w = line.split()
        if len(w) == 2:
            values.append(float(w[1]) / (1 if per_atom_already else natoms))
    return values


def analyse(pe, wall):
    tau = max(float(tau_int(pe)[0]), 0.5)
    s2 = statistics.variance(pe) * 2.0 * tau / len(pe)
    return dict(mean=statistics.fmean(pe), s2=s2, tau_samples=tau, samples=len(pe), wall=wall,
                merit=s2 * wall, rate=len(pe) / (2.0 * tau) / wall, pe=pe)


def mean_se(values):
    m = sum(values) / len(values)
    if len(values) < 2:
        return m, float("nan")
    return m, math.sqrt(sum((v - m) ** 2 for v in values) / (len(values) - 1) / len(values))


def measure(args, name, work):
    sysd = dict(SYSTEMS[name])
    scale = 0.05 if args.quick else 1.0
    n = args.n or (sysd["quick_n"] if args.quick else sysd["n"])
    head, pair = deck_parts(sysd["setup"].format(n=n))
    accel = KOKKOS if args.kokkos else []
    kk = "/kk" if args.kokkos else ""
    mixed = " precision mixed" if args.kokkos else ""
    lj = name == "lj"
    T = sysd["T"]
    data = os.path.join(work, f"{name}.data")
    sps = args.mc_sweeps

    # one equilibrated configuration for every run: the lattice melted at 2 T, then brought to T
    # (Monte Carlo from an fcc lattice at the LJ state keeps some crystalline order for thousands
    # of sweeps)
    steps = max(1, int(sysd["mc_prep"] * scale) // sps)
    fix = f"gpumc/nvt{kk} {sps} {{}} 99 algorithm checkerboard{mixed}"
    run_lammps(args.lmp, sysd["setup"].format(n=n) + f"fix mc all {fix.format(2 * T)}\nrun_style gpumc\n"
               f"thermo 100000\nrun {steps}\nunfix mc\nfix mc all {fix.format(T)}\nrun {steps}\n"
               f"write_data {data} nocoeff\n", work, accel)

    runs = []
    mc_eq = max(1, int(sysd["mc_eq"] * scale) // sps)
    mc_prod = max(2 * args.mc_sample, int(sysd["mc_prod"] * scale) // sps)
    for r in range(args.runs):
        seed = 1000 + 17 * r
        # Monte Carlo, the displacement tuned toward each target acceptance ratio
        for target in args.mc_targets:
            text = (head + f"read_data {data}\n" + pair +
                    f"fix mc all gpumc/nvt{kk} {sps} {T} {seed} algorithm checkerboard{mixed} target {target} tune yes\n"
                    f"run_style gpumc\nthermo 100000\nrun {mc_eq}\nthermo {args.mc_sample}\nthermo_style custom step pe\n"
                    f"thermo_modify format float %.12g\nrun {mc_prod}\n")
            out = run_lammps(args.lmp, text, work, accel)
            natoms = int(re.findall(r"with (\d+) atoms", out)[-1])
            res = analyse(production_pe(out, natoms, lj), loop_time(out))
            accept, step = re.findall(r"acceptance ([0-9.]+), displacement ([0-9.eE+-]+)", out)[-1]
            runs.append(dict(method="MC checkerboard (" + ("mixed precision, " if args.kokkos else "")
                             + f"target {target})", kind="mc", param=target, dt=None,
                             run=r, natoms=natoms, sample_every=f"{args.mc_sample * sps} sweeps",
                             acceptance=float(accept), displacement=float(step),
                             tau=res["tau_samples"] * args.mc_sample * sps, tau_unit="sweeps", **res))
            print(f"run {r}: MC target {target}: <U>/N {res['mean']:.6f}, tau {runs[-1]['tau']:.4g} sweeps, "
                  f"{res['rate']:.3g} samples/s (acceptance {accept}, displacement {step})", flush=True)
        # MD at each timestep, sampled at one interval of simulated time
        for dt in sysd["dts"]:
            every = max(1, round(sysd["md_sample"] / dt))
            eq = max(1, int(sysd["md_eq"] * scale / dt))
            prod = max(2 * every, int(sysd["md_prod"] * scale / dt) // every * every)
            text = (head + f"read_data {data}\n" + pair +
                    f"velocity all create {T} {seed} mom yes rot yes dist gaussian\ntimestep {dt}\n"
                    f"fix md all nvt temp {T} {T} {sysd['tdamp']}\nthermo 100000\nrun {eq}\n"
                    f"thermo {every}\nthermo_style custom step pe\nthermo_modify format float %.12g\nrun {prod}\n")
            out = run_lammps(args.lmp, text, work, accel)
            res = analyse(production_pe(out, natoms, lj), loop_time(out))
            runs.append(dict(method="MD", kind="md", param=dt, dt=dt, run=r, natoms=natoms, sample_every=f"{every} steps",
                             tau=res["tau_samples"] * every * dt, tau_unit="time units", **res))
            print(f"run {r}: MD dt {dt}: <U>/N {res['mean']:.6f}, tau {runs[-1]['tau']:.4g}, "
                  f"{res['rate']:.3g} samples/s", flush=True)
    return sysd, runs


def summary(sysd, runs):
    """Per method: means over runs; the unbiased MD timestep; MC against MD."""
    rows = {}
    for key in dict.fromkeys((x["kind"], x["param"]) for x in runs):
        g = [x for x in runs if (x["kind"], x["param"]) == key]
        dt = key[1] if key[0] == "md" else None
        mean = mean_se([x["mean"] for x in g])
        # the standard error of the pooled mean from each run's own error
        pooled_se = math.sqrt(sum(x["s2"] for x in g)) / len(g)
        rows[key] = dict(method=g[0]["method"] + ("" if dt is None else f", dt {dt}"), energy=mean[0],
                        energy_se=pooled_se, merit=mean_se([x["merit"] for x in g]),
                        rate=mean_se([x["rate"] for x in g]), tau=mean_se([x["tau"] for x in g]),
                        tau_unit=g[0]["tau_unit"])
        if key[0] == "mc":
            rows[key].update(acceptance=mean_se([x["acceptance"] for x in g]),
                             displacement=mean_se([x["displacement"] for x in g]))
    smallest = sysd["dts"][-1]
    unbiased = smallest
    for dt in sysd["dts"]:    # the largest timestep within one combined standard error of the smallest
        a, b = rows["md", dt], rows["md", smallest]
        if abs(a["energy"] - b["energy"]) <= math.hypot(a["energy_se"], b["energy_se"]):
            unbiased = dt
            break
    return rows, unbiased


def ratio(a, b):
    """a/b with the error of independent means."""
    r = a[0] / b[0]
    return r, r * math.hypot(a[1] / a[0], b[1] / b[0])


def acceptance_targets(text):
    """--mc-targets: comma-separated acceptance ratios, each in (0, 1) as the fix's target keyword requires."""
    try:
        targets = [float(t) for t in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a comma-separated list of numbers: {text!r}")
    if not all(0.0 < t < 1.0 for t in targets):
        raise argparse.ArgumentTypeError(f"acceptance ratios must lie in (0, 1): {text!r}")
    return targets


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lmp", required=True)
    ap.add_argument("--out", default="bench/results")
    ap.add_argument("--system", default="sio2", choices=sorted(SYSTEMS))
    ap.add_argument("--runs", type=int, default=3, help="independent runs of each method")
    ap.add_argument("--kokkos", action="store_true", help="the /kk styles on one GPU (-k on g 1 -sf kk)")
    ap.add_argument("--mc-sweeps", type=int, default=10, help="sweeps per timestep")
    ap.add_argument("--mc-sample", type=int, default=2, help="timesteps between MC samples")
    ap.add_argument("--mc-targets", type=acceptance_targets, default="0.5,0.3", help="acceptance ratios the MC displacement is tuned toward, "
                    "one MC method each (0.5: the fix's default)")
    ap.add_argument("--device", default="", help="the hardware, for the records")
    ap.add_argument("--n", type=int, default=0, help="lattice cells per side (default: sio2 42, N = 74088; lj 20, "
                    "N = 32000)")
    ap.add_argument("--quick", action="store_true", help="a tiny system and short runs, not equilibrated (checks "
                    "the script)")
    args = ap.parse_args()
    args.lmp = os.path.abspath(args.lmp)
    date = datetime.date.today().isoformat()
    with tempfile.TemporaryDirectory() as work:
        sysd, runs = measure(args, args.system, work)
    rows, unbiased = summary(sysd, runs)
    usual = sysd["dts"][0]
    compare = {}
    for target in args.mc_targets:
        mc = rows["mc", target]
        for dt in sysd["dts"]:
            md = rows["md", dt]
            compare[f"{mc['method']} against MD dt {dt}"] = dict(
                target=target, dt=dt, rate_ratio=ratio(mc["rate"], md["rate"]), merit_ratio=ratio(md["merit"], mc["merit"]),
                energy_z=(mc["energy"] - md["energy"]) / math.hypot(mc["energy_se"], md["energy_se"]))
    result = dict(system=args.system, title=sysd["title"], natoms=runs[0]["natoms"], device=args.device, date=date,
                  kokkos=args.kokkos, mc_sweeps_per_timestep=args.mc_sweeps, mc_targets=args.mc_targets,
                  unbiased_md_dt=unbiased,
                  usual_md_dt=usual, runs=runs,
                  summary={(r["method"]): {k: v for k, v in r.items() if k != "method"} for r in rows.values()},
                  mc_against_md=compare)
    os.makedirs(args.out, exist_ok=True)
    stem = os.path.join(args.out, f"efficiency-{date}-{args.system}")
    with open(stem + ".json", "w") as f:
        json.dump(result, f, indent=1)
    u = sysd["unit"]
    with open(stem + ".md", "w") as f:
        f.write(f"# Statistical efficiency, {sysd['title']}, N = {runs[0]['natoms']}, {date}\n\n"
                f"Device: {args.device or 'not given'}; {'KOKKOS, -k on g 1 -sf kk' if args.kokkos else 'host styles'}. "
                f"`bench/efficiency.py`, {args.runs} independent runs per method from one equilibrated state; "
                f"MC {args.mc_sweeps} sweeps per timestep under run_style gpumc. s^2 = squared standard error of "
                f"<U>/N from one run (var 2 tau_int / n); t = the production's loop time; figures are mean +- "
                f"standard error over the runs.\n\n")
        f.write(f"| method | <U>/N ({u}) | tau_int | s^2 t ({u}^2 s) | decorrelated samples/s | acceptance, "
                f"displacement |\n|---|---|---|---|---|---|\n")
        for r in rows.values():
            tuned = f"{r['acceptance'][0]:.3f}, {r['displacement'][0]:.4g}" if "acceptance" in r else ""
            f.write(f"| {r['method']} | {r['energy']:.6f} +- {r['energy_se']:.6f} | {r['tau'][0]:.3g} {r['tau_unit']} "
                    f"| {r['merit'][0]:.3g} +- {r['merit'][1]:.2g} | {r['rate'][0]:.3g} +- {r['rate'][1]:.2g} | {tuned} |\n")
        f.write(f"\nUnbiased MD: dt {unbiased} (its mean within one combined standard error of dt {sysd['dts'][-1]}'s); "
                f"usual: dt {usual}.\n\n| MC method against MD | samples/s ratio | s^2 t ratio (MD/MC) | z of <U>/N (MC - MD) |\n"
                "|---|---|---|---|\n")
        for k, v in compare.items():
            f.write(f"| {k}{' (unbiased)' if v['dt'] == unbiased else ''} | {v['rate_ratio'][0]:.2f} +- "
                    f"{v['rate_ratio'][1]:.2f} | {v['merit_ratio'][0]:.2f} +- {v['merit_ratio'][1]:.2f} | {v['energy_z']:+.2f} |\n")
    print(open(stem + ".md").read())
    print(f"wrote {stem}.json and {stem}.md")


if __name__ == "__main__":
    main()
