#!/usr/bin/python3
"""Periodic steady states (`flexmb periodic`, docs/quick_return.md "Periodic steady state").

  plot_periodic.py continuation CSV [CSV...] [-o PNG] [--label A,B,...]
      the study's figure from continuation summaries (PREFIX_continuation.csv): the beam's
      steady-state peak deflection (top) and the largest Floquet multiplier's modulus
      (bottom) against the varied parameter; unstable orbits (|mu| > 1) marked in red,
      failed points as gaps. One line per CSV (e.g. linear and nonlinear rocker).

  plot_periodic.py transient ORBIT.h5 RUN.h5 [--beam NAME]
      how a transient run approaches the orbit: for each period of RUN.h5 (recorded at the
      orbit's step and record interval, e.g. `flexmb run ... --set dt=T/N`), the largest
      difference of the beam's node deflections from the orbit's, relative to the orbit's
      peak deflection. Prints a table; the first period within 0.5 % is marked.

Runs under /usr/bin/python3 (Debian's numpy, h5py, matplotlib).
"""
import argparse
import csv
import sys

import h5py
import numpy as np


def read_csv(path):
    rows = list(csv.DictReader(open(path)))
    if not rows:
        sys.exit(f"{path}: no points")
    name = list(rows[0].keys())[0]
    return name, rows


def continuation(args):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    labels = args.label.split(",") if args.label else [None] * len(args.csv)
    fig, (ax1, ax2) = plt.subplots(2, 1, sharex=True, figsize=(7.5, 6.5))
    for path, lab in zip(args.csv, labels):
        name, rows = read_csv(path)
        dcol = next((k for k in rows[0] if k.startswith("deflection_max.")), None)
        x, d, mu, ok = [], [], [], []
        for r in rows:
            x.append(float(r[name]))
            conv = r["status"] == "converged"
            d.append(1e3 * float(r[dcol]) if conv and dcol else np.nan)
            mu.append(float(r["max_modulus"]) if conv else np.nan)
            ok.append(r["stable"] == "yes")
        x, d, mu, ok = map(np.asarray, (x, d, mu, ok))
        line, = ax1.plot(x, d, "-o", ms=3, label=lab or path)
        ax2.plot(x, mu, "-o", ms=3, color=line.get_color())
        bad = ~ok & np.isfinite(mu)
        if bad.any():
            ax1.plot(x[bad], d[bad], "s", color="red", ms=6, mfc="none")
            ax2.plot(x[bad], mu[bad], "s", color="red", ms=6, mfc="none",
                     label="unstable" if path == args.csv[0] else None)
        print(f"{path}: {len(rows)} points, {int((~np.isfinite(mu)).sum())} failed, "
              f"{int(bad.sum())} unstable; peak deflection {np.nanmax(d):.4g} mm at "
              f"{name} = {x[np.nanargmax(d)]:.4g}; largest |mu| {np.nanmax(mu):.4g}")
    ax1.set_ylabel("steady-state peak deflection [mm]")
    ax2.axhline(1.0, color="k", lw=0.8, ls="--")
    ax2.set_ylabel("largest Floquet |mu|")
    ax2.set_xlabel(name)
    ax1.legend()
    ax1.grid(alpha=0.3)
    ax2.grid(alpha=0.3)
    if any(l for l in ax2.get_legend_handles_labels()[1]):
        ax2.legend()
    fig.tight_layout()
    out = args.output or args.csv[0].replace(".csv", ".png")
    fig.savefig(out, dpi=120)
    print(f"figure: {out}")


def deflections(h, beam):
    g = h["beams"]
    name = beam or list(g.keys())[0]
    return np.asarray(h["time"][:]), np.asarray(g[name]["deflection"][:]), name


def transient(args):
    with h5py.File(args.orbit, "r") as h:
        t0, d0, name = deflections(h, args.beam)
        T = float(h["periodic/summary"][0, 0])
    with h5py.File(args.run, "r") as h:
        t1, d1, _ = deflections(h, name)
    per = d0[:-1] if abs(t0[-1] - t0[0] - T) < 1e-9 * T else d0  # one period of records
    k = len(per)
    peak = np.abs(per).max()
    print(f"orbit: period {T:.9g} s, {k} records, peak deflection {1e3 * peak:.5g} mm "
          f"(beam {name})")
    print("| period | max |d - d_orbit| / peak |")
    print("| ---: | ---: |")
    first = None
    for p in range(len(d1) // k):
        seg = d1[p * k:(p + 1) * k]
        if not np.allclose(t1[p * k:(p + 1) * k] - t1[p * k], t0[:k] - t0[0], atol=1e-9 * T):
            sys.exit("the run's records are not at the orbit's times: run it with the "
                     "orbit's step and record interval")
        e = np.abs(seg - per).max() / peak
        mark = ""
        if first is None and e <= 5e-3:
            first, mark = p + 1, "  <- within 0.5 %"
        print(f"| {p + 1} | {e:.3e} |{mark}")
    if first is None:
        print("no period within 0.5 % of the orbit")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("continuation")
    c.add_argument("csv", nargs="+")
    c.add_argument("-o", "--output")
    c.add_argument("--label")
    t = sub.add_parser("transient")
    t.add_argument("orbit")
    t.add_argument("run")
    t.add_argument("--beam")
    args = ap.parse_args()
    {"continuation": continuation, "transient": transient}[args.cmd](args)


if __name__ == "__main__":
    main()
