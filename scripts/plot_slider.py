#!/usr/bin/python3
"""Plot a frictional slider's contact forces and velocity from flexmb results.

usage: /usr/bin/python3 scripts/plot_slider.py RUN.h5 [RUN2.h5 ...] [-o slider.png]
           [--joint guide] [--body slider] [--pendulum rod] [--title TEXT]

In the style of seed 000, Figs. 3, 4, 7 and 8, one column of panels against time:
  (a) the corner normal forces F1+, F2+ (lower face) and F1-, F2- (upper face);
  (b) the normal resultant F_N = F1+ + F2+ - F1- - F2- and the friction force
      F_f = sum of the corner friction forces (positive opposes positive sliding);
  (c) the slider's velocity v_Cx along x (from its pose; the guide's sliding velocity
      /contacts/<joint>/v dashed), sticking intervals (/contacts/<joint>/stick) shaded;
  (d) with --pendulum BODY: the slider position x_C and the angle of BODY (Fig. 7).
Several files are overlaid (one line style per file, labelled by file name).
--joint defaults to the first joint under /contacts, --body to that joint's body1.
Needs h5py and matplotlib (/usr/bin/python3 has them). Writes a PNG.
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
from flexmb_results import records  # noqa: E402

CORNERS = ("F1+", "F2+", "F1-", "F2-")
COLORS = ("tab:blue", "tab:orange", "tab:green", "tab:red")
STYLES = ("-", "--", ":", "-.")


def body_velocity(g, n):
    """Inertial velocity of a rigid body's frame origin from its carrier coordinates:
    R = A(theta) rbar, so Rdot = A(theta) (rbar_dot + thetadot J rbar), J = [0 -1; 1 0]."""
    q, qd = g["q"][:n], g["qd"][:n]
    th, w = q[:, 2], qd[:, 2]
    ux = qd[:, 0] - w * q[:, 1]
    uy = qd[:, 1] + w * q[:, 0]
    c, s = np.cos(th), np.sin(th)
    return c * ux - s * uy, s * ux + c * uy


def stick_spans(t, stick):
    """(t0, t1) intervals where stick == 1."""
    spans, start = [], None
    for k in range(len(t)):
        if stick[k] and start is None:
            start = t[k]
        if not stick[k] and start is not None:
            spans.append((start, t[k]))
            start = None
    if start is not None:
        spans.append((start, t[-1]))
    return spans


def load(path, joint, body, pendulum):
    with h5py.File(path, "r") as f:
        if "contacts" not in f or not len(f["contacts"]):
            raise SystemExit("%s: no /contacts (no joint with friction)" % path)
        joint = joint or sorted(f["contacts"].keys())[0]
        if joint not in f["contacts"]:
            raise SystemExit("%s: no /contacts/%s (joints with friction: %s)"
                             % (path, joint, ", ".join(f["contacts"].keys())))
        c = f["contacts"][joint]
        body = body or f["joints"][joint].attrs["body1"]
        if body not in f["bodies"]:
            raise SystemExit("%s: no body '%s'" % (path, body))
        n = records(f)  # committed records (a killed run's file may hold more rows)
        d = {"t": f["time"][:n], "N": c["normal"][:n], "Ff": c["friction"][:n],
             "ft": c["friction_total"][:n], "mode": c["mode"][:n], "stick": c["stick"][:n],
             "v": c["v"][:n], "joint": joint, "body": body,
             "x": f["bodies"][body]["pose"][:n, 0]}
        d["vx"], _ = body_velocity(f["bodies"][body], n)
        if pendulum:
            if pendulum not in f["bodies"]:
                raise SystemExit("%s: no body '%s'" % (path, pendulum))
            d["angle"] = f["bodies"][pendulum]["pose"][:, 2]
        return d


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="+", help="flexmb HDF5 results")
    ap.add_argument("-o", "--output", default="slider.png", help="PNG file (slider.png)")
    ap.add_argument("--joint", help="sliding joint with friction (default: the first)")
    ap.add_argument("--body", help="slider body (default: the joint's body1)")
    ap.add_argument("--pendulum", help="also plot x_C and this body's angle (Fig. 7)")
    ap.add_argument("--title", help="figure title")
    a = ap.parse_args(argv[1:])
    runs = [(os.path.basename(p), load(p, a.joint, a.body, a.pendulum)) for p in a.files]
    npan = 4 if a.pendulum else 3
    fig, ax = plt.subplots(npan, 1, figsize=(8, 2.6 * npan + 0.6), sharex=True)
    multi = len(runs) > 1
    for i, (name, d) in enumerate(runs):
        ls = STYLES[i % len(STYLES)]
        tag = (" " + name) if multi else ""
        t = d["t"]
        for k in range(4):
            ax[0].plot(t, d["N"][:, k], ls, color=COLORS[k], label=CORNERS[k] + tag)
        FN = d["N"][:, 0] + d["N"][:, 1] - d["N"][:, 2] - d["N"][:, 3]
        ax[1].plot(t, FN, ls, color="tab:blue", label="$F_N$" + tag)
        ax[1].plot(t, d["ft"], ls, color="tab:red", label="$F_f$" + tag)
        ax[2].plot(t, d["vx"], ls, color="k", label="$v_{Cx}$ (%s)%s" % (d["body"], tag))
        ax[2].plot(t, d["v"], ls, color="tab:orange", lw=0.8, alpha=0.8,
                   label="v in %s%s" % (d["joint"], tag))
        if i == 0:
            for t0, t1 in stick_spans(t, d["stick"]):
                ax[2].axvspan(t0, t1, color="0.85", lw=0)
            modes = sorted(set(int(m) for m in np.unique(d["mode"])))
            names = {0: "none", 1: "single point", 2: "single face", 3: "diagonal"}
            ax[0].set_title("contact modes seen: " + ", ".join(names[m] for m in modes),
                            fontsize=9)
        if a.pendulum:
            ax[3].plot(t, d["x"], ls, color="tab:blue", label="$x_C$ (m)" + tag)
            ax[3].plot(t, d["angle"], ls, color="tab:green",
                       label="angle of %s (rad)%s" % (a.pendulum, tag))
    ax[0].set_ylabel("normal force (N)")
    ax[1].set_ylabel("force (N)")
    ax[2].set_ylabel("velocity (m/s)")
    ax[2].text(0.01, 0.03, "shaded: stick (|v| < v_stick)", transform=ax[2].transAxes,
               fontsize=8, color="0.4")
    if a.pendulum:
        ax[3].set_ylabel("m, rad")
    ax[-1].set_xlabel("t (s)")
    for k, x in enumerate(ax):
        x.grid(True, lw=0.3)
        x.legend(fontsize=7, ncol=4 if k == 0 else 2, loc="best")
        x.text(-0.1, 1.0, "(%s)" % "abcd"[k], transform=x.transAxes, fontsize=10,
               va="top")
    fig.suptitle(a.title or "slider %s, joint %s: %s" % (runs[0][1]["body"],
                                                        runs[0][1]["joint"],
                                                        ", ".join(n for n, _ in runs)),
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(a.output, dpi=120)
    print("wrote %s" % a.output)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
