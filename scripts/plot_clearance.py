#!/usr/bin/python3
"""Slider acceleration against crank angle (ideal joints overlaid) and the journal's orbit
inside the clearance circle, from flexmb runs of cases/slider_crank_clearance.yaml.

usage: /usr/bin/python3 scripts/plot_clearance.py RUN.h5 [RUN2.h5 ...] [-o clearance.png]
           [--joint B] [--slider slider] [--crank crank] [--last-rev]

The ideal curve is the rigid slider-crank's kinematics at constant crank speed w
(x = r cos th + sqrt(L^2 - r^2 sin^2 th), differentiated twice by hand):
  a = -r w^2 cos th - r^2 w^2 cos 2th / sqrt(S) - r^4 w^2 sin^2 2th / (4 S^(3/2)),
  S = L^2 - r^2 sin^2 th,
with r, L and w (rpm) read from the run's parameters (/case/parameters). Needs h5py and
matplotlib (/usr/bin/python3 has them). Writes a PNG.
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
from flexmb_results import parameters, records  # noqa: E402


def ideal_acceleration(th, w, r, L):
    S = L * L - (r * np.sin(th)) ** 2
    return (-r * w * w * np.cos(th) - r * r * w * w * np.cos(2 * th) / np.sqrt(S)
            - r ** 4 * w * w * np.sin(2 * th) ** 2 / (4 * S ** 1.5))


def load(path, joint="B", slider="slider", crank="crank"):
    """Time, crank angle, slider acceleration (inertial x), ideal acceleration, the
    clearance outputs and the parameters of one run."""
    with h5py.File(path, "r") as f:
        p = parameters(f)
        n = records(f)  # committed records (a killed run's file may hold more rows)
        t = f["time"][:n]
        a = f["bodies/%s/qdd" % slider][:n, 0]  # slider frame never turns (prismatic)
        th = f["bodies/%s/q" % crank][:n, 2]
        g = f["joints/%s/clearance" % joint]
        out = {k: g[k][:n] for k in ("eccentricity", "penetration", "normal_force",
                                    "friction_force", "contact")}
    w = p["rpm"] * 2 * np.pi / 60
    return dict(t=t, th=th, a=a, ideal=ideal_acceleration(th, w, p["r"], p["L"]), p=p, w=w,
                **out)


def last_rev(d):
    """Mask of the last full crank revolution."""
    return d["th"] >= d["th"][-1] - 2 * np.pi


def rms_deviation(d):
    m = last_rev(d)
    return float(np.sqrt(np.mean((d["a"][m] - d["ideal"][m]) ** 2)))


def plot(paths, out, joint, slider, crank, only_last):
    runs = [load(p, joint, slider, crank) for p in paths]
    fig, ax = plt.subplots(1, 2, figsize=(13, 5), gridspec_kw={"width_ratios": [2, 1]})
    for path, d in zip(paths, runs):
        m = last_rev(d) if only_last else np.ones_like(d["t"], bool)
        deg = np.degrees(d["th"][m])
        lab = "%s: c = %.3g mm, %g rpm, mu = %g (RMS dev %.3g m/s^2)" % (
            os.path.basename(path), 1e3 * d["p"]["clearance"], d["p"]["rpm"], d["p"]["mu"],
            rms_deviation(d))
        ax[0].plot(deg, d["a"][m], lw=0.7, label=lab)
        e = d["eccentricity"][m]
        ax[1].plot(1e3 * e[:, 0], 1e3 * e[:, 1], lw=0.5)
    d = runs[0]
    m = last_rev(d) if only_last else np.ones_like(d["t"], bool)
    ax[0].plot(np.degrees(d["th"][m]), d["ideal"][m], "k--", lw=1.2, label="ideal joints")
    ax[0].set_xlabel("crank angle (deg)")
    ax[0].set_ylabel("slider acceleration (m/s^2)")
    ax[0].legend(fontsize=7)
    lim = 0
    for d in runs:
        c = 1e3 * d["p"]["clearance"]
        lim = max(lim, c)
        phi = np.linspace(0, 2 * np.pi, 200)
        ax[1].plot(c * np.cos(phi), c * np.sin(phi), "k:", lw=0.8)
    ax[1].set_aspect("equal")
    ax[1].set_xlim(-1.2 * lim, 1.2 * lim)
    ax[1].set_ylim(-1.2 * lim, 1.2 * lim)
    ax[1].set_xlabel("e_x (mm)")
    ax[1].set_ylabel("e_y (mm)")
    ax[1].set_title("journal centre in the clearance circle")
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print("wrote", out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("runs", nargs="+")
    ap.add_argument("-o", "--output", default="clearance.png")
    ap.add_argument("--joint", default="B")
    ap.add_argument("--slider", default="slider")
    ap.add_argument("--crank", default="crank")
    ap.add_argument("--last-rev", action="store_true", help="only the last revolution")
    a = ap.parse_args()
    plot(a.runs, a.output, a.joint, a.slider, a.crank, a.last_rev)


if __name__ == "__main__":
    main()
