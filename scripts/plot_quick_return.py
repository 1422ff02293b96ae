"""Rocker deflection of the quick-return linkage against crank angle (like seed 001's
Fig. 4), for several runs together (e.g. omega = 20 and 30 rad/s).

usage: /usr/bin/python3 scripts/plot_quick_return.py RUN20.h5 RUN30.h5 [...]
           [-o quick_return_deflection.png] [--crank crank] [--rocker rocker]
           [--slider D_on_rocker] [--label "omega = 20 rad/s" ...]

    flexmb run cases/quick_return.yaml -o qr20.h5
    flexmb run cases/quick_return.yaml --set omega=30 -o qr30.h5
    /usr/bin/python3 scripts/plot_quick_return.py qr20.h5 qr30.h5

Top: the rocker's transverse elastic deflection v at the slider D, i.e. at the slider's
axial position s (/sliders/<slider>/s) on the rocker, from the node deflections and
slopes (/beams/<rocker>/deflection, slope) with the beam's cubic Hermite functions
(linear between nodes along x0 if a file has no slope). Bottom: max |v| along the rocker
(Hermite curve sampled 8 times per element). Both against the crank angle
(/bodies/<crank>/pose, unwrapped, degrees). Prints the maxima of each run, and as a
check the distance of the slider point from the deflected centre line (should be at
the constraint tolerance). Each run is labelled with the parameters that differ between
the files (their /parameters, e.g. "omega = 5" for runs made with --set omega=5 and
--set omega=10) unless --label is given.

--overlay (linear against nonlinear rocker): give runs made with
`--set nonlinear=0` and `--set nonlinear=1` (any number of speeds, any order). Runs
that differ only in the rocker's geometry (/beams/<rocker> attribute geometry) share a
colour; the linear one is drawn solid, the nonlinear one dashed. A table of the maxima
of each pair and their ratio (linear / nonlinear) is printed.

    for w in 10 20; do for n in 0 1; do
      flexmb run cases/quick_return.yaml --set omega=$w --set nonlinear=$n -o qr${w}_$n.h5
    done; done
    /usr/bin/python3 scripts/plot_quick_return.py --overlay qr10_0.h5 qr10_1.h5 qr20_0.h5 qr20_1.h5
"""
import argparse
import os
import sys

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from flexmb_results import legend_labels, records  # noqa: E402


def hermite(x0, v, phi, x):
    """v(x) for node positions x0 [nn], nodal v and slopes phi [nt x nn] and axial
    positions x [nt] (or [nt x m]): the beam's cubic Hermite interpolation per element."""
    x = np.asarray(x, dtype=float)
    squeeze = x.ndim == 1
    if squeeze:
        x = x[:, None]
    e = np.clip(np.searchsorted(x0, x, side="right") - 1, 0, len(x0) - 2)
    l = x0[e + 1] - x0[e]
    xi = (x - x0[e]) / l
    rows = np.arange(x.shape[0])[:, None]
    h1 = 1 - 3 * xi**2 + 2 * xi**3
    h2 = l * (xi - 2 * xi**2 + xi**3)
    h3 = 3 * xi**2 - 2 * xi**3
    h4 = l * (xi**3 - xi**2)
    out = (h1 * v[rows, e] + h2 * phi[rows, e] + h3 * v[rows, e + 1]
           + h4 * phi[rows, e + 1])
    return out[:, 0] if squeeze else out


def linear(x0, v, x):
    return np.array([np.interp(xx, x0, vv) for xx, vv in zip(x, v)])


def load(path, crank, rocker, slider):
    with h5py.File(path, "r") as f:
        for need in ("bodies/%s/pose" % crank, "beams/%s/deflection" % rocker,
                     "sliders/%s/s" % slider):
            if need not in f:
                sys.exit("%s: no /%s (options --crank, --rocker, --slider name the crank, "
                         "the beam and the slider joint)" % (path, need))
        n = records(f)  # committed records (a killed run's file may hold more rows)
        t = f["time"][:n]
        th = np.unwrap(f["bodies/%s/pose" % crank][:n, 2])
        speed = f["bodies/%s/qd" % crank][:n, 2]
        b = f["beams/%s" % rocker]
        x0 = b["x0"][:]
        v = b["deflection"][:n]
        phi = b["slope"][:n] if "slope" in b else None
        s = f["sliders/%s/s" % slider][:n]
        geo = b.attrs.get("geometry", b"linear")
        geo = geo.decode() if isinstance(geo, bytes) else str(geo)
        # Check: the slider point's transverse coordinate in the rocker frame.
        pose = f["bodies/%s/pose" % rocker][:n]
        pos = f["joints/%s/position" % slider][:n] if "joints/%s" % slider in f else None
    if phi is not None:
        vD = hermite(x0, v, phi, s)
        m = 8
        xs = np.concatenate([np.linspace(x0[k], x0[k + 1], m, endpoint=False)
                             for k in range(len(x0) - 1)] + [x0[-1:]])
        vmax = np.max(np.abs(hermite(x0, v, phi, np.broadcast_to(xs, (len(t), len(xs))))),
                      axis=1)
    else:
        vD = linear(x0, v, s)
        vmax = np.max(np.abs(v), axis=1)
    off = None
    if pos is not None:
        c, sn = np.cos(pose[:, 2]), np.sin(pose[:, 2])
        d = pos - pose[:, :2]
        sy = -sn * d[:, 0] + c * d[:, 1]
        off = np.max(np.abs(sy - vD))
    return dict(t=t, theta=th, speed=float(np.mean(speed)), vD=vD, vmax=vmax, s=s,
                hermite=phi is not None, offset=off, geometry=geo)


def overlay_groups(paths, runs):
    """Group labels for --overlay: the legend labels computed without the geometry
    switch (the parameter 'nonlinear'), so a linear and a nonlinear run of the same
    speed get the same group."""
    labels = legend_labels(paths)
    out = []
    for lab in labels:
        parts = [p for p in lab.split(", ") if not p.startswith("nonlinear =")]
        out.append(", ".join(parts) if parts else "run")
    return out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+", help="flexmb results (.h5), e.g. omega 20 and 30")
    ap.add_argument("-o", "--output", default="quick_return_deflection.png")
    ap.add_argument("--crank", default="crank", help="crank body (default crank)")
    ap.add_argument("--rocker", default="rocker", help="beam body (default rocker)")
    ap.add_argument("--slider", default="D_on_rocker",
                    help="slider_beam joint on the rocker (default D_on_rocker)")
    ap.add_argument("--label", action="append", help="legend label per file")
    ap.add_argument("--overlay", action="store_true",
                    help="linear (solid) against nonlinear (dashed) rocker, paired by the "
                         "other parameters")
    a = ap.parse_args(argv[1:])
    if a.label and len(a.label) != len(a.files):
        ap.error("give one --label per file")
    if a.overlay:
        return overlay(a)

    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(8, 7), sharex=True)
    labels = a.label if a.label else legend_labels(a.files)
    print("%-28s %10s %14s %12s %14s %12s" % ("run", "omega", "max|v_D| [mm]", "at crank",
                                              "max|v| [mm]", "at crank"))
    for i, path in enumerate(a.files):
        r = load(path, a.crank, a.rocker, a.slider)
        label = labels[i]
        print("label: %s" % label)
        deg = np.degrees(r["theta"])
        ax1.plot(deg, 1e3 * r["vD"], lw=1.2, label=label)
        ax2.plot(deg, 1e3 * r["vmax"], lw=1.2, label=label)
        kD, km = int(np.argmax(np.abs(r["vD"]))), int(np.argmax(r["vmax"]))
        print("%-28s %10.4g %14.5g %11.1f° %14.5g %11.1f°"
              % (path[-28:], r["speed"], 1e3 * abs(r["vD"][kD]), deg[kD], 1e3 * r["vmax"][km],
                 deg[km]))
        if r["offset"] is not None:
            print("  check: slider point off the deflected centre line by at most %.3g m (%s)"
                  % (r["offset"], "Hermite" if r["hermite"] else "linear interpolation"))
    ax1.set_ylabel("deflection at slider D [mm]")
    ax1.set_title("Rocker transverse deflection (elastic, frame: chord)")
    ax2.set_ylabel("max |deflection| along the rocker [mm]")
    ax2.set_xlabel("crank angle [deg]")
    for ax in (ax1, ax2):
        ax.grid(alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(a.output, dpi=120)
    print("wrote %s" % a.output)
    return 0


def overlay(a):
    runs = [load(p, a.crank, a.rocker, a.slider) for p in a.files]
    groups = a.label if a.label else overlay_groups(a.files, runs)
    order = list(dict.fromkeys(groups))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(8, 7), sharex=True)
    best = {}
    for path, r, g in zip(a.files, runs, groups):
        col = colors[order.index(g) % len(colors)]
        ls = "--" if r["geometry"] == "nonlinear" else "-"
        deg = np.degrees(r["theta"])
        lab = "%s, %s" % (g, r["geometry"])
        ax1.plot(deg, 1e3 * r["vD"], ls, color=col, lw=1.2, label=lab)
        ax2.plot(deg, 1e3 * r["vmax"], ls, color=col, lw=1.2, label=lab)
        best.setdefault(g, {})[r["geometry"]] = (1e3 * np.max(np.abs(r["vD"])),
                                                1e3 * np.max(r["vmax"]))
    print("%-30s %16s %16s %10s" % ("run", "linear max|v|", "nonlinear max|v|", "ratio"))
    for g in order:
        lin, nl = best[g].get("linear"), best[g].get("nonlinear")
        fmt = lambda x: "%10.4g mm" % x[1] if x else "%13s" % "-"  # noqa: E731
        ratio = "%10.4f" % (lin[1] / nl[1]) if lin and nl else "%10s" % "-"
        print("%-30s %16s %16s %s" % (g[:30], fmt(lin), fmt(nl), ratio))
    ax1.set_ylabel("deflection at slider D [mm]")
    ax1.set_title("Rocker deflection: linear (solid) and nonlinear (dashed) beam")
    ax2.set_ylabel("max |deflection| along the rocker [mm]")
    ax2.set_xlabel("crank angle [deg]")
    for ax in (ax1, ax2):
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(a.output, dpi=120)
    print("wrote %s" % a.output)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
