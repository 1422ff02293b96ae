"""Plot of `flexmb compare A.h5 B.h5` (called by flexmb itself; also usable by hand).

usage: /usr/bin/python3 scripts/plot_compare.py PREFIX.csv A.h5 B.h5 OUT.png [--by BODY]

Reads the CSV written by `flexmb compare` (one row per quantity: quantity, kind, unit,
dataset, column, column_name, max_abs_diff, rms_diff, max_abs_a, max_abs_b, rel_diff,
at_max_diff, t_max_diff, scale, mech_rel_diff, rank) and draws up to six quantities, the
first of flexmb's ranking (difference against the mechanism scale of the kind and unit)
that differ by at least 1e-3 of that scale (the first two when none does); quantities
that differ by nothing (below the noise floor) are not drawn. Each panel shows A and B
against time, or against BODY's angle in degrees with --by (as compared), with the
quantity and its unit on the axis and legends from the parameters that differ between
the two files (scripts/flexmb_results.py), and on the right axis A - B in the same unit,
B interpolated linearly onto A's abscissa (as flexmb compare does). Beam deflections are
drawn at their station (Hermite interpolation of each file's nodes).
"""
import csv
import os
import sys

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from flexmb_results import legend_labels, records  # noqa: E402

MAX_PANELS = 6


def load_rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        for k in ("max_abs_diff", "rms_diff", "max_abs_a", "max_abs_b", "rel_diff",
                  "at_max_diff", "t_max_diff"):
            r[k] = float(r[k])
        r["column"] = int(r["column"])
    return rows


def pick(rows):
    """flexmb's ranking (the CSV's rank column; older CSVs: the relative difference), the
    quantities at or above 1e-3 of their mechanism scale, at least two; rows whose
    difference is 0 (at or below the noise floor) are skipped."""
    live = [r for r in rows if r["max_abs_diff"] > 0 or not np.isfinite(r["max_abs_diff"])]
    if live and "rank" in live[0]:
        live.sort(key=lambda r: int(r["rank"]))
        big = [r for r in live if not (float(r["mech_rel_diff"]) < 1e-3)]
        return (big if len(big) >= 2 else live[:2])[:MAX_PANELS]
    live.sort(key=lambda r: -r["rel_diff"] if np.isfinite(r["rel_diff"]) else -np.inf)
    return live[:MAX_PANELS]


def axis_name(r):
    """Short name of a quantity for its axis: `bodies/ram/pose[x]` -> `ram x`."""
    parts = r["quantity"].split("/")
    leaf = parts[-1]
    col = ""
    if "[" in leaf:
        leaf, col = leaf.split("[", 1)
        col = col.rstrip("]")
    names = {"pose": "", "reaction": "", "force_magnitude": "joint force",
             "drive_torque": "drive torque", "drive_force": "drive force", "deflection":
             "deflection", "s": "slider position s", "total": "energy"}
    what = names.get(leaf, leaf)
    owner = parts[1] if len(parts) > 2 else ""
    return " ".join(x for x in (owner, what, col) if x)


def hermite_station(f, dataset, xs):
    """Deflection at x = xs from the nodes of beam dataset /beams/B/deflection."""
    g = f[dataset.rsplit("/", 1)[0]]
    n = records(f)
    x0, v = g["x0"][:], g["deflection"][:n]
    ph = g["slope"][:n] if "slope" in g else None
    e = int(np.clip(np.searchsorted(x0, xs, side="right") - 1, 0, len(x0) - 2))
    l = x0[e + 1] - x0[e]
    xi = (xs - x0[e]) / l
    if ph is None:
        return (1 - xi) * v[:, e] + xi * v[:, e + 1]
    h = [1 - 3 * xi**2 + 2 * xi**3, l * (xi - 2 * xi**2 + xi**3), 3 * xi**2 - 2 * xi**3,
         l * (xi**3 - xi**2)]
    return h[0] * v[:, e] + h[1] * ph[:, e] + h[2] * v[:, e + 1] + h[3] * ph[:, e + 1]


def series(f, r, by):
    if r["kind"] == "deflection":
        y = hermite_station(f, r["dataset"], float(r["column_name"].split("=", 1)[1]))
    else:
        d = f[r["dataset"]][:records(f)]
        y = d.reshape(d.shape[0], -1)[:, r["column"]]
    n = len(y)
    x = np.degrees(f["bodies/%s/pose" % by][:n, 2]) if by else f["time"][:n]
    return x, y


def main(argv):
    by = None
    if "--by" in argv:
        i = argv.index("--by")
        by = argv[i + 1] if i + 1 < len(argv) else None
        argv = argv[:i] + argv[i + 2:]
        if by == "time":
            by = None
    if len(argv) != 5:
        print(__doc__)
        return 2
    csv_path, a_path, b_path, png = argv[1:]
    rows = pick(load_rows(csv_path))
    if not rows:
        print("plot_compare: every difference is zero (below the noise floor): nothing to plot")
        return 0
    n = len(rows)
    ncol = 2 if n > 1 else 1
    nrow = (n + ncol - 1) // ncol
    fig, axes = plt.subplots(nrow, ncol, figsize=(6.4 * ncol, 3.0 * nrow), squeeze=False)
    xlabel = "%s angle [deg]" % by if by else "t [s]"
    la, lb = legend_labels([a_path, b_path])  # the parameters that differ, else file names
    if la == lb:
        la, lb = "A", "B"
    print("plot_compare: legends A = %s, B = %s" % (la, lb))
    with h5py.File(a_path, "r") as fa, h5py.File(b_path, "r") as fb:
        for ax, r in zip(axes.flat, rows):
            xa, ya = series(fa, r, by)
            xb, yb = series(fb, r, by)
            sgn = 1 if xa[-1] >= xa[0] else -1
            ax.plot(xa, ya, "-", lw=1.5, label="A: " + la)
            ax.plot(xb, yb, "--", lw=1.2, label="B: " + lb)
            ax.set_title("%s  (max|A-B| %.3g %s)" % (r["quantity"], r["max_abs_diff"], r["unit"]),
                         fontsize=9)
            ax.set_xlabel(xlabel)
            ax.set_ylabel("%s [%s]" % (axis_name(r), r["unit"]), fontsize=8)
            ax.grid(alpha=0.3)
            lo, hi = max(sgn * xa[0], sgn * xb[0]), min(sgn * xa[-1], sgn * xb[-1])
            m = (sgn * xa >= lo - 1e-12) & (sgn * xa <= hi + 1e-12)
            ax2 = ax.twinx()
            ax2.plot(xa[m], ya[m] - np.interp(sgn * xa[m], sgn * xb, yb), color="tab:red", lw=0.8,
                     label="A - B")
            ax2.set_ylabel("A - B [%s]" % r["unit"], color="tab:red", fontsize=8)
            print("plot_compare: panel %s: axes %s ; %s ; %s" % (
                r["quantity"], ax.get_xlabel(), ax.get_ylabel(), ax2.get_ylabel()))
            ax2.tick_params(axis="y", colors="tab:red", labelsize=7)
            h1, l1 = ax.get_legend_handles_labels()
            h2, l2 = ax2.get_legend_handles_labels()
            ax.legend(h1 + h2, l1 + l2, fontsize=7, loc="best")
    for ax in list(axes.flat)[n:]:
        ax.set_visible(False)
    fig.suptitle("A: %s   B: %s" % (a_path, b_path), fontsize=9)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    print("plot_compare: wrote %s (%d panels)" % (png, n))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
