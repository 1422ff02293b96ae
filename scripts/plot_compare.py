"""Plot of `flexmb compare A.h5 B.h5` (called by flexmb itself; also usable by hand).

usage: /usr/bin/python3 scripts/plot_compare.py PREFIX.csv A.h5 B.h5 OUT.png

Reads the CSV written by `flexmb compare` (one row per quantity: quantity, dataset,
column, column_name, max_abs_diff, rms_diff, max_abs_a, rel_diff, t_max_diff) and draws
up to six quantities: every slider axial position (/sliders/*/s) first, then the body
pose components and joint reaction components with the largest differences relative to
their scale. Each panel shows A and B against time and, on the right axis, A - B with B
interpolated linearly onto A's times (as flexmb compare does).
"""
import csv
import sys

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

MAX_PANELS = 6


def load_rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        for k in ("max_abs_diff", "rms_diff", "max_abs_a", "rel_diff", "t_max_diff"):
            r[k] = float(r[k])
        r["column"] = int(r["column"])
    return rows


def pick(rows):
    """Sliders first, then the largest relative differences among poses and reactions
    (ignoring components that are zero or round-off compared with their dataset)."""
    scale = {}
    for r in rows:
        scale[r["dataset"]] = max(scale.get(r["dataset"], 0.0), r["max_abs_a"])
    chosen = [r for r in rows if r["dataset"].startswith("/sliders/")][:MAX_PANELS]

    def meaningful(r):
        return r["max_abs_a"] > 1e-6 * scale[r["dataset"]] and r["max_abs_a"] > 1e-12

    for kind, limit in (("/pose", 2), ("/reaction", 2), ("/deflection", 1), ("/energy", 1)):
        cand = [r for r in rows if r["dataset"].endswith(kind) and meaningful(r)
                and r not in chosen]
        cand.sort(key=lambda r: -r["rel_diff"] if np.isfinite(r["rel_diff"]) else 0)
        for r in cand[:limit]:
            if len(chosen) < MAX_PANELS:
                chosen.append(r)
    return chosen


def series(f, dataset, column):
    d = f[dataset][:]
    d = d.reshape(d.shape[0], -1)
    return f["time"][:len(d)], d[:, column]


def main(argv):
    if len(argv) != 5:
        print(__doc__)
        return 2
    csv_path, a_path, b_path, png = argv[1:]
    rows = pick(load_rows(csv_path))
    if not rows:
        print("plot_compare: nothing to plot")
        return 1
    n = len(rows)
    ncol = 2 if n > 1 else 1
    nrow = (n + ncol - 1) // ncol
    fig, axes = plt.subplots(nrow, ncol, figsize=(6.4 * ncol, 3.0 * nrow), squeeze=False)
    with h5py.File(a_path, "r") as fa, h5py.File(b_path, "r") as fb:
        for ax, r in zip(axes.flat, rows):
            ta, ya = series(fa, r["dataset"], r["column"])
            tb, yb = series(fb, r["dataset"], r["column"])
            ax.plot(ta, ya, "-", lw=1.5, label="A")
            ax.plot(tb, yb, "--", lw=1.2, label="B")
            ax.set_title("%s  (max|A-B| %.3g, rms %.3g)"
                         % (r["quantity"], r["max_abs_diff"], r["rms_diff"]), fontsize=9)
            ax.set_xlabel("t [s]")
            ax.grid(alpha=0.3)
            lo, hi = max(ta[0], tb[0]), min(ta[-1], tb[-1])
            m = (ta >= lo - 1e-12) & (ta <= hi + 1e-12)
            ax2 = ax.twinx()
            ax2.plot(ta[m], ya[m] - np.interp(ta[m], tb, yb), color="tab:red", lw=0.8,
                     label="A - B")
            ax2.set_ylabel("A - B", color="tab:red", fontsize=8)
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
