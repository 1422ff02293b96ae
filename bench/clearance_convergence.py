#!/usr/bin/python3
"""Step convergence of the seed 002 slider-crank's statistics (cases/slider_crank_clearance.yaml):
RMS of the slider acceleration's deviation from the ideal-joint curve over the whole run
(default 20 crank revolutions) and the peak |a - a_ideal|, for the case's adaptive steps at
several error tolerances and largest steps. Records every 1e-5 s (the impact spikes sampled
finely; the record interval is also the largest step unless h_max is given).

usage: /usr/bin/python3 bench/clearance_convergence.py [--flexmb build/flexmb] [--out DIR]
           [--revs 20] [--clearance 0.25e-3] [--rpm 200] [--set NAME=VALUE ...]
           [VARIANT ...]
VARIANT: rtol_step[:h_max] (default: 1e-3 5e-4 2.5e-4 1e-3:1e-6).
"""
import argparse
import os
import re
import subprocess
import sys
import time

import h5py
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from plot_clearance import load  # noqa: E402

CASE = os.path.join(ROOT, "cases", "slider_crank_clearance.yaml")


def case_with(out, rtol, hmax):
    text = open(CASE).read()
    extra = "rtol_step: %g, " % rtol + ("h_max: %g, " % hmax if hmax else "")
    text, n = re.subn(r"solver: \{", "solver: {" + extra, text, count=1)
    assert n == 1
    path = os.path.join(out, "case_%g_%g.yaml" % (rtol, hmax or 0))
    with open(path, "w") as f:
        f.write(text)
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--flexmb", default=os.path.join(ROOT, "build", "flexmb"))
    ap.add_argument("--out", default="/tmp/clearance_convergence")
    ap.add_argument("--revs", type=int, default=20)
    ap.add_argument("--clearance", type=float, default=0.25e-3)
    ap.add_argument("--rpm", type=float, default=200)
    ap.add_argument("--record", type=float, default=1e-5)
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("variants", nargs="*", default=["1e-3", "5e-4", "2.5e-4", "1e-3:1e-6"])
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    print("| rtol_step | h_max (s) | steps | wall (s) | RMS dev. (m/s^2) | peak dev. (m/s^2) "
          "| impacts | contact fraction |")
    print("|---|---|---|---|---|---|---|---|")
    for v in a.variants:
        parts = v.split(":")
        rtol = float(parts[0])
        hmax = float(parts[1]) if len(parts) > 1 else 0.0
        case = case_with(a.out, rtol, hmax)
        h5 = os.path.join(a.out, "run_%g_%g.h5" % (rtol, hmax))
        cmd = [a.flexmb, "run", case, "-o", h5, "--quiet", "--set", "revs=%d" % a.revs,
               "--set", "h=%g" % a.record, "--set", "clearance=%r" % a.clearance,
               "--set", "rpm=%r" % a.rpm]
        for s in a.set:
            cmd += ["--set", s]
        t0 = time.time()
        r = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.time() - t0
        if r.returncode:
            sys.exit("flexmb failed (%s): %s" % (" ".join(cmd), r.stderr + r.stdout))
        d = load(h5)
        dev = d["a"] - d["ideal"]
        with h5py.File(h5, "r") as f:
            st = f["solver/statistics"].attrs
            steps, impacts, cf = int(st["steps"]), int(st["impacts.B"]), float(st["contact_fraction.B"])
        print("| %g | %s | %d | %.1f | %.2f | %.0f | %d | %.3f |" % (
            rtol, "%g" % hmax if hmax else "%g (records)" % a.record, steps, wall,
            float(np.sqrt(np.mean(dev ** 2))), float(np.abs(dev).max()), impacts, cf), flush=True)
        os.remove(h5)


if __name__ == "__main__":
    main()
