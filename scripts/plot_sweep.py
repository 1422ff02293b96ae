#!/usr/bin/python3
"""Plot a metric of a `flexmb sweep` summary against a varied parameter.

usage: /usr/bin/python3 scripts/plot_sweep.py SUMMARY METRIC [--x PARAM] [-o OUT.png]
                                              [--print] [--list]

SUMMARY  DIR/summary.h5 or the sweep directory DIR
METRIC   a metric column (e.g. deflection_max.rocker, reaction_max.B, energy_drift) or
         steps, newton_iterations, wall_time
--x      the parameter on the abscissa (default: the first numeric parameter that takes
         more than one value)
-o       the plot (default DIR/METRIC_vs_PARAM.png)
--print  also print each series as "LABEL: x y" lines (the plotted numbers)
--list   print the metrics of the summary and exit

One line per combination of the other varied parameters (e.g. rigid_rocker = 0 and 1 give
the flexible and the rigid curve), each sorted by x; runs that did not complete are left
out (their count is printed). Flagged points are marked: a red ring where the metric's peak
lies on the first or last record of the run's window (summary column edge_peaks: the true
peak may lie outside it), a red cross where the run warned (column warnings); --print lists
them as "flagged: LABEL: x y edge|warning". Layout of summary.h5: docs/sweep.md.
"""
import argparse
import os
import sys

import h5py
import numpy as np


def load(path):
    if os.path.isdir(path):
        path = os.path.join(path, "summary.h5")
    with h5py.File(path, "r") as f:
        params = {}
        for name in f["parameters"]:
            d = f["parameters"][name]
            params[name] = d.asstr()[:] if d.dtype.kind == "O" else d[:]
        metrics = {name: f["metrics"][name][:] for name in f.get("metrics", {})}
        for name in ("steps", "newton_iterations", "wall_time"):
            metrics[name] = f[name][:].astype(float)
        status = f["status"].asstr()[:]
        n = len(status)
        edges = f["edge_peaks"].asstr()[:] if "edge_peaks" in f else [""] * n
        warns = f["warnings"].asstr()[:] if "warnings" in f else [""] * n
        order = [p for p in str(f.attrs.get("parameters", "")).split(",") if p in params]
    params = {p: params[p] for p in order + sorted(set(params) - set(order))}  # study order
    return path, params, metrics, status, list(edges), list(warns)


def series(params, values, status, x):
    """{label: (xs, ys, runs)} for the complete runs, one per combination of the other
    parameters, sorted by x."""
    others = [p for p in params if p != x]
    out = {}
    for i in range(len(status)):
        if status[i] != "complete" or not np.isfinite(values[i]):
            continue
        label = ", ".join("%s=%s" % (p, fmt(params[p][i])) for p in others) or "all runs"
        out.setdefault(label, []).append((float(params[x][i]), float(values[i]), i))
    return {k: tuple(np.array(c) for c in zip(*sorted(v))) for k, v in out.items()}


def flags(metric, edge, warn):
    """What marks run's point: 'edge' (the metric's peak on the window's edge), 'warning'."""
    out = []
    if any(e.split("@")[0] == metric for e in edge.split(",") if e):
        out.append("edge")
    if warn:
        out.append("warning")
    return out


def fmt(v):
    if isinstance(v, (str, bytes)):
        return v if isinstance(v, str) else v.decode()
    return "%.6g" % v


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("summary")
    ap.add_argument("metric", nargs="?")
    ap.add_argument("--x")
    ap.add_argument("-o", "--output")
    ap.add_argument("--print", action="store_true")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    path, params, metrics, status, edges, warns = load(a.summary)
    if a.list or not a.metric:
        print("\n".join(sorted(metrics)))
        return 0
    if a.metric not in metrics:
        sys.exit("plot_sweep.py: no metric '%s' in %s (--list shows them)" % (a.metric, path))
    numeric = [p for p in params if params[p].dtype.kind != "O" and len(set(params[p])) > 1]
    x = a.x or (numeric[0] if numeric else None)
    if x not in params or params[x].dtype.kind == "O":
        sys.exit("plot_sweep.py: --x must be a numeric varied parameter (%s)" %
                 ", ".join(numeric))
    lines = series(params, metrics[a.metric], status, x)
    left = int(np.sum(status != "complete"))
    if left:
        print("plot_sweep.py: %d run(s) not complete, left out" % left)
    if a.print:
        for label, (xs, ys, _) in lines.items():
            print("%s: %s" % (label, " ".join("%.17g %.17g" % p for p in zip(xs, ys))))
        for label, (xs, ys, runs) in lines.items():
            for xv, yv, i in zip(xs, ys, runs):
                fl = flags(a.metric, edges[int(i)], warns[int(i)])
                if fl:
                    print("flagged: %s: %.17g %.17g %s" % (label, xv, yv, "|".join(fl)))
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4.5))
    marked = set()
    for label, (xs, ys, runs) in lines.items():
        ax.plot(xs, ys, "o-", label=label)
        for xv, yv, i in zip(xs, ys, runs):
            for fl in flags(a.metric, edges[int(i)], warns[int(i)]):
                what = ("peak on the window's edge" if fl == "edge" else "run warned")
                ax.plot([xv], [yv], "o" if fl == "edge" else "x", ms=13 if fl == "edge" else 9,
                        mfc="none", mec="red", mew=1.5,
                        label=None if what in marked else what)
                marked.add(what)
    ax.set_xlabel(x)
    with h5py.File(path, "r") as f:
        unit = f["metrics"][a.metric].attrs.get("units", "") if a.metric in f.get(
            "metrics", {}) else ("s" if a.metric == "wall_time" else "")
    ax.set_ylabel(a.metric + (" [%s]" % unit if unit else ""))
    ax.grid(True, alpha=0.3)
    if len(lines) > 1 or list(lines) != ["all runs"] or marked:
        ax.legend()
    out = a.output or os.path.join(os.path.dirname(path) or ".", "%s_vs_%s.png" % (a.metric, x))
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print("plot: " + out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
