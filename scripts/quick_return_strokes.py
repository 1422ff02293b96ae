#!/usr/bin/python3
"""Crank angles of the quick-return's cutting and return strokes: computed from the
geometry, and measured in runs.

usage: /usr/bin/python3 scripts/quick_return_strokes.py [--r R --h1 H1] [RUN.h5 ...]
           [--crank crank] [--ram sliderE]

The linkage of cases/quick_return.yaml (docs/quick_return.md): crank O1A of radius r
about O1 = (0, 0), turning counter-clockwise; the rocker pivot O2 = (0, -h1) below O1
(r < h1); the slider A on the rocker. The rocker, and with it the ram, turns back where
it is tangent to the crank circle, i.e. where O2A is perpendicular to O1A:

    OA . (A - O2) = r^2 + r h1 sin(theta) = 0   ->   sin(theta) = -r / h1

two crank angles below O1: theta_1 = 360 deg - asin(r / h1) (right of O2) and theta_2 =
180 deg + asin(r / h1). From theta_1 the crank turns over the top (the side of the circle
away from O2) to theta_2: 180 + 2 asin(r / h1) degrees, the slow (cutting) stroke; from
theta_2 back to theta_1 past the bottom: 180 - 2 asin(r / h1), the quick return. The ram
position is a monotonic function of the rocker angle over its swing, so the ram turns at
the same crank angles. r = 0.15, h1 = 0.3: asin(1/2) = 30 deg, cutting stroke from 330
to 210 deg (240 deg of crank rotation), return from 210 to 330 deg (120 deg).

Without runs, prints the computed angles for --r and --h1 (default 0.15 and 0.3). With
runs (results files of the quick-return), takes r and h1 from each file's /parameters,
prints the computed angles and the measured ones: the crank angles (/bodies/CRANK/pose,
degrees in [0, 360)) where the ram's x (/bodies/RAM/pose) has its maxima and minima,
each refined by a parabola through the five records around it.
"""
import argparse
import math
import sys

import h5py
import numpy as np


def strokes(r, h1):
    """(theta_1, theta_2, cutting, return) in degrees: the ram turns at theta_1 (start of
    the cutting stroke) and theta_2 (its end); the strokes' crank rotations."""
    if not 0 < r < h1:
        raise ValueError("needs 0 < r < h1 (an oscillating rocker): r = %g, h1 = %g" % (r, h1))
    a = math.degrees(math.asin(r / h1))
    return 360.0 - a, 180.0 + a, 180.0 + 2 * a, 180.0 - 2 * a


def turning_points(theta, x):
    """Crank angles (deg, [0, 360)) of the interior maxima and minima of x(theta), each
    the vertex of a parabola through the five records around it: ([maxima], [minima])."""
    out = ([], [])
    for i in range(2, len(x) - 2):
        hi = x[i] >= x[i - 1] and x[i] > x[i + 1]
        lo = x[i] <= x[i - 1] and x[i] < x[i + 1]
        if not (hi or lo):
            continue
        t = theta[i - 2:i + 3] - theta[i]
        a, b, _ = np.polyfit(t, x[i - 2:i + 3], 2)
        out[0 if hi else 1].append(math.degrees(theta[i] - b / (2 * a)) % 360.0)
    return out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("runs", nargs="*")
    ap.add_argument("--r", type=float, default=0.15)
    ap.add_argument("--h1", type=float, default=0.3)
    ap.add_argument("--crank", default="crank")
    ap.add_argument("--ram", default="sliderE")
    a = ap.parse_args(argv[1:])
    todo = a.runs or [None]
    for path in todo:
        r, h1 = a.r, a.h1
        if path:
            with h5py.File(path, "r") as f:
                p = f["parameters"].attrs
                r, h1 = float(p["r"]), float(p["h1"])
                n = int(f.attrs.get("committed_records", f["time"].shape[0]))
                theta = f["bodies/%s/pose" % a.crank][:n, 2]
                x = f["bodies/%s/pose" % a.ram][:n, 0]
            print("%s: r = %g m, h1 = %g m" % (path, r, h1))
        t1, t2, cut, ret = strokes(r, h1)
        print("computed: ram turns at crank %.4f deg (cutting stroke starts) and %.4f deg "
              "(it ends); cutting stroke %.4f deg, return %.4f deg of crank rotation"
              % (t1, t2, cut, ret))
        if path:
            hi, lo = turning_points(theta, x)
            print("measured: ram x maxima at crank %s deg, minima at %s deg"
                  % (", ".join("%.4f" % v for v in hi) or "none",
                     ", ".join("%.4f" % v for v in lo) or "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
