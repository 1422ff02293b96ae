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
--print  also print each series as "LABEL: x y" lines (the plotted numbers) and the axes'
         labels ("axes: X | Y")
--list   print the metrics of the summary and exit

One line per combination of the other varied parameters, labelled `model = rigid`, `omega
= 10` (lines with identical values, e.g. the rigid rocker under a beam-only flag, are drawn
once and labelled with every value); each sorted by x. Runs that did not complete are left
out (their count is printed), and so are runs for which the metric does not exist (a rigid
body has no deflection): such a line is named in the legend as having no value and on
stdout, never dropped silently. The axes carry units: the metric's from its `units`
attribute in summary.h5, the parameter's from its comment in the case file as stored in a
run's results file (`omega: 20  # crank speed, rad/s` gives "crank speed omega [rad/s]").
Flagged points are marked: a red ring where the metric's peak lies on the first or last
record of the run's window (summary column edge_peaks: the true peak may lie outside it), a
red cross where the run warned (column warnings); --print lists them as
"flagged: LABEL: x y edge|warning". Layout of summary.h5: docs/sweep.md.
"""
import argparse
import os
import re
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
    """{label: (xs, ys, runs)} for the complete runs with a value, one per combination of
    the other parameters, sorted by x, lines with identical values merged (runs: the first
    merged line's run indices); and the labels of the combinations that completed without a
    value of the metric."""
    others = [p for p in params if p != x]
    out, keys, novalue = {}, {}, []
    for i in range(len(status)):
        if status[i] != "complete":
            continue
        key = tuple(fmt(params[p][i]) for p in others)
        keys.setdefault(key, [])
        if np.isfinite(values[i]):
            keys[key].append((float(params[x][i]), float(values[i]), i))
    groups = []  # [(points, [keys])], identical points merged
    for key, pts in keys.items():
        if not pts:
            novalue.append(key)
            continue
        pts = sorted(pts)
        for g in groups:
            if [p[:2] for p in g[0]] == [p[:2] for p in pts]:
                g[1].append(key)
                break
        else:
            groups.append((pts, [key]))
    for pts, ks in groups:
        out[label_of(others, ks)] = tuple(np.array(c) for c in zip(*pts))
    return out, [label_of(others, [k]) for k in novalue]


def label_of(others, keys):
    """`model = rigid, omega = 5`; merged lines: `rigid_rocker = 1, nonlinear = 0 or 1`."""
    if not others:
        return "all runs"
    parts = []
    for j, p in enumerate(others):
        vals = []
        for k in keys:
            if k[j] not in vals:
                vals.append(k[j])
        parts.append("%s = %s" % (p, " or ".join(vals)))
    return ", ".join(parts) + (" (identical)" if len(keys) > 1 else "")


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


METRIC_NAMES = {
    "deflection_max": "peak deflection of %s",
    "deflection_max_time": "time of the peak deflection of %s",
    "deflection_max_angle": "crank angle at the peak deflection of %s",
    "reaction_max": "peak force in joint %s",
    "drive_torque_max": "peak drive torque of %s",
    "drive_force_max": "peak drive force of %s",
    "contact_max": "peak contact force of %s",
    "impact_force_max": "peak impact force of %s",
    "contact_fraction": "fraction of records in contact, %s",
    "impacts": "impacts of %s",
    "mode_changes": "mode changes of %s",
    "energy_drift": "energy drift",
    "steps": "steps",
    "newton_iterations": "Newton iterations",
    "wall_time": "wall time",
}


def metric_label(metric, unit):
    head, _, owner = metric.partition(".")
    name = METRIC_NAMES.get(head)
    text = (name % owner if "%s" in name else name) if name else metric
    return text + (" [%s]" % unit if unit else "")


def parameter_label(path, stem, name):
    """`crank speed omega [rad/s]` from the parameter's comment in the case text stored in
    the run file DIR/STEM.h5 (`omega: 20  # crank speed, rad/s (seed: 20)`); else NAME."""
    try:
        with h5py.File(os.path.join(os.path.dirname(path), stem + ".h5"), "r") as f:
            text = f.attrs["case"]
            text = text.decode() if isinstance(text, bytes) else str(text)
    except (OSError, KeyError):
        return name
    m = re.search(r"(?m)^\s+%s\s*:[^#\n]*#\s*([^\n]*)$" % re.escape(name), text)
    if not m:
        return name
    comment = m.group(1).split("(")[0].strip().rstrip(";.")
    desc, sep, unit = comment.rpartition(",")
    unit = unit.strip()
    if sep and re.fullmatch(r"[A-Za-z/^0-9. ]{1,12}", unit) and len(unit.split()) <= 2:
        return "%s %s [%s]" % (desc.strip(), name, unit)
    return name  # no unit: a flag or a count, its name says more than a long comment


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
    lines, novalue = series(params, metrics[a.metric], status, x)
    left = int(np.sum(status != "complete"))
    if left:
        print("plot_sweep.py: %d run(s) not complete, left out" % left)
    for label in novalue:
        print("plot_sweep.py: %s: no %s in these runs (the metric does not exist for them)"
              % (label, a.metric))
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
    for label in novalue:  # named, not dropped silently
        ax.plot([], [], " ", label="%s: no value (no such quantity)" % label)
    with h5py.File(path, "r") as f:
        unit = f["metrics"][a.metric].attrs.get("units", "") if a.metric in f.get(
            "metrics", {}) else ("s" if a.metric == "wall_time" else "")
        unit = unit.decode() if isinstance(unit, bytes) else str(unit)
        stems = [v.decode() if isinstance(v, bytes) else str(v) for v in f["file"][:]]
        done = [i for i in range(len(status)) if status[i] == "complete"]
    stem = stems[done[0]] if done else (stems[0] if stems else "")
    stem = stem[:-3] if stem.endswith(".h5") else stem
    xlabel, ylabel = parameter_label(path, stem, x), metric_label(a.metric, unit)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if a.print:
        print("axes: %s | %s" % (xlabel, ylabel))
    ax.grid(True, alpha=0.3)
    if len(lines) + len(novalue) > 1 or list(lines) != ["all runs"] or marked:
        ax.legend(fontsize=8)
    out = a.output or os.path.join(os.path.dirname(path) or ".", "%s_vs_%s.png" % (a.metric, x))
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print("plot: " + out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
