#!/usr/bin/python3
"""Study: the damping factor eta of the seed's step damping (eqs 9-10,
D_max = eta K_N, ramp over d_max = 0.1 mm) against
  A. the impact restitution: a journal (0.07 kg, the slider-crank's effective mass) thrown
     at the bearing wall (c = 0.25 mm, steel, R_B 10 mm, L 10 mm) at 0.45 / 0.1 / 0.02 m/s:
     flexmb (a pin in a bearing on the ground, adaptive steps, events) beside the
     single-DOF integration of the re-typed law (bench/clearance_impact_1dof.py);
  B. the slider acceleration of cases/slider_crank_clearance.yaml (c = 0.25 mm, 200 rpm,
     frictionless, 2 revolutions, adaptive h_max 1e-5 s) over the last revolution: RMS
     deviation from the hand-derived ideal curve, the largest |a - a_ideal| and the 99th
     percentile of |a - a_ideal|, the largest normal force, the impacts (contact onsets).
Numbers in docs/validation.md ("Damping factor eta").

usage: /usr/bin/python3 bench/clearance_eta.py build/flexmb .
"""
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clearance_impact_1dof import restitution  # noqa: E402
from clearance_limit import ideal_acceleration  # noqa: E402

ETAS = (0.0, 1e-4, 1e-3, 3e-3, 1e-2, 3e-2)
C = 0.25e-3

PIN = """title: journal thrown at the bearing wall (bench/clearance_eta.py)
solver: {integrator: hht, alpha: 0, step: adaptive, h: 1e-5, t_end: %(T)g}
output: pin.h5
bodies:
  - name: pin
    mass: 0.07
    inertia: 1e-6
    pose: [0, 0, 0]
    velocity: [0, %(v)g, 0]
forces:
  - name: B
    type: clearance
    bodies: [pin, ground]
    points: [[0, 0], [0, 0]]
    clearance: %(c)g
    bearing_radius: 10e-3
    length: 10e-3
    eta: %(eta)g
"""


def flexmb_rebound(flexmb, tmp, v, eta):
    case = os.path.join(tmp, "pin.yaml")
    # flight to the wall, the impact, and some flight back
    with open(case, "w") as f:
        f.write(PIN % dict(v=-v, c=C, eta=eta, T=1.6 * C / v + 5e-4))
    out = os.path.join(tmp, "pin.h5")
    r = subprocess.run([flexmb, "run", case, "-o", out, "--quiet"], capture_output=True, text=True)
    if r.returncode:
        sys.exit("FAIL: pin run\n" + r.stderr)
    with h5py.File(out, "r") as f:
        con = f["joints/B/clearance/contact"][:]
        qd = f["bodies/pin/qd"][:, 1]
        steps = int(f["solver/statistics"].attrs["steps"])
    on = np.nonzero(con > 0)[0]
    after = np.nonzero((np.arange(len(con)) > on[-1]))[0] if len(on) else []
    if not len(on) or not len(after):
        return float("nan"), steps
    return qd[after[0]] / v, steps


def crank(flexmb, tmp, eta):
    text = open(os.path.join(sys.argv[2], "cases", "slider_crank_clearance.yaml")).read()
    anchor = "    mu_d: mu_d\n"
    case = os.path.join(tmp, "crank.yaml")
    with open(case, "w") as f:
        f.write(text.replace(anchor, anchor + "    eta: %g\n" % eta))
    out = os.path.join(tmp, "crank.h5")
    cmd = [flexmb, "run", case, "-o", out, "--quiet", "--set", "clearance=%g" % C,
           "--set", "revs=2", "--set", "h=1e-5"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        sys.exit("FAIL: %s\n%s" % (" ".join(cmd), r.stderr))
    with h5py.File(out, "r") as f:
        a = f["bodies/slider/qdd"][:, 0]
        th = f["bodies/crank/q"][:, 2]
        g = f["joints/B/clearance"]
        con, FN = g["contact"][:], g["normal_force"][:]
        steps = int(f["solver/statistics"].attrs["steps"])
    m = th >= th[-1] - 2 * np.pi
    d = np.abs(a[m] - ideal_acceleration(th[m], 200 * 2 * np.pi / 60, 0.05, 0.12))
    onsets = int(np.sum((con[m][1:] > 0) & (con[m][:-1] == 0)))
    return dict(rms=float(np.sqrt(np.mean(d ** 2))), peak=float(d.max()),
                p99=float(np.percentile(d, 99)), fn=float(FN[m].max()), onsets=onsets,
                contact=float(np.mean(con[m])), steps=steps)


def main():
    flexmb = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        print("A. restitution, c = %g mm, 0.07 kg (flexmb / 1-DOF):" % (C * 1e3))
        print("| eta (s) | e at 0.45 m/s | e at 0.1 m/s | e at 0.02 m/s |")
        print("|---|---|---|---|")
        for eta in ETAS:
            cells = []
            for v in (0.45, 0.1, 0.02):
                ef, _ = flexmb_rebound(flexmb, tmp, v, eta)
                e1, _ = restitution(v, C, ("step", (eta, 1e-4)))
                cells.append("%.4f / %.4f" % (ef, e1))
            print("| %g | %s |" % (eta, " | ".join(cells)), flush=True)
        print()
        print("B. slider-crank, c = %g mm, 200 rpm, last of 2 revolutions:" % (C * 1e3))
        print("| eta (s) | steps | RMS dev. (m/s^2) | 99th pct |a - a_id| | max |a - a_id| | "
              "max F_N (N) | impacts | contact fraction |")
        print("|---|---|---|---|---|---|---|---|")
        for eta in ETAS:
            d = crank(flexmb, tmp, eta)
            print("| %g | %d | %.1f | %.1f | %.0f | %.0f | %d | %.3f |"
                  % (eta, d["steps"], d["rms"], d["p99"], d["peak"], d["fn"], d["onsets"],
                     d["contact"]), flush=True)


if __name__ == "__main__":
    main()
