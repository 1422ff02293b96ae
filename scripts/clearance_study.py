#!/usr/bin/python3
"""The seed 002 studies on cases/slider_crank_clearance.yaml: RMS deviation of the slider
acceleration from the ideal-joint curve over the last crank revolution, against clearance
(200 rpm), crank speed (0.25 mm) and friction (the seed's Table 3 sets), plus the zero
clearance limit; prints a Markdown table (docs/validation.md) and writes the plots.

usage: /usr/bin/python3 scripts/clearance_study.py [--flexmb build/flexmb] [--out DIR]
           [--revs 3] [--h 1e-5] [--only clearance|speed|friction|limit]

Runs are recorded every h = 1e-5 s (also the largest adaptive step) so that the impact
spikes are sampled finely.
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot_clearance import load, plot, rms_deviation  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASE = os.path.join(ROOT, "cases", "slider_crank_clearance.yaml")

STUDIES = {
    "clearance": [dict(clearance=c, rpm=200, mu=0, mu_d=0) for c in (0.1e-3, 0.25e-3, 0.5e-3, 1e-3)],
    "speed": [dict(clearance=0.25e-3, rpm=n, mu=0, mu_d=0) for n in (100, 150, 200, 250)],
    "friction": [dict(clearance=0.25e-3, rpm=200, mu=s, mu_d=d)
                 for s, d in ((0, 0), (0.08, 0.05), (0.3, 0.25))],
    "limit": [dict(clearance=c, rpm=200, mu=0, mu_d=0) for c in (1e-4, 1e-5, 1e-6)],
}


def run(flexmb, out, p, revs, h):
    name = "c%g_rpm%g_mu%g" % (1e3 * p["clearance"], p["rpm"], p["mu"])
    path = os.path.join(out, name + ".h5")
    sets = ["%s=%r" % kv for kv in p.items()] + ["revs=%d" % revs, "h=%g" % h, "every=1"]
    cmd = [flexmb, "run", CASE, "-o", path, "--quiet"]
    for s in sets:
        cmd += ["--set", s]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        sys.exit("flexmb failed (%s): %s" % (" ".join(cmd), r.stderr + r.stdout))
    import h5py
    with h5py.File(path, "r") as f:
        steps = int(f["solver/statistics"].attrs["steps"])
    return path, steps


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--flexmb", default=os.path.join(ROOT, "build", "flexmb"))
    ap.add_argument("--out", default="clearance_study")
    ap.add_argument("--revs", type=int, default=3)
    ap.add_argument("--h", type=float, default=1e-5)
    ap.add_argument("--only", choices=sorted(STUDIES))
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    print("| study | clearance (mm) | rpm | mu_s / mu_d | steps | RMS deviation (m/s^2) "
          "| ideal RMS (m/s^2) | max penetration (um) | contact fraction |")
    print("|---|---|---|---|---|---|---|---|---|")
    for study, cases in STUDIES.items():
        if a.only and study != a.only:
            continue
        paths = []
        for p in cases:
            path, steps = run(a.flexmb, a.out, p, a.revs, a.h)
            paths.append(path)
            d = load(path)
            m = d["th"] >= d["th"][-1] - 2 * 3.141592653589793
            ideal = float((d["ideal"][m] ** 2).mean() ** 0.5)
            print("| %s | %g | %g | %g / %g | %d | %.4g | %.4g | %.3g | %.3f |" % (
                study, 1e3 * p["clearance"], p["rpm"], p["mu"], p["mu_d"], steps,
                rms_deviation(d), ideal, 1e6 * d["penetration"][m].max(),
                d["contact"][m].mean()), flush=True)
        plot(paths, os.path.join(a.out, study + ".png"), "B", "slider", "crank", True)


if __name__ == "__main__":
    main()
