#!/usr/bin/python3
"""Study (not a ctest; tests/test_clearance_limit.py is the short check): the zero-clearance
limit of the clearance joint. Does the slider acceleration of
cases/slider_crank_clearance.yaml (200 rpm, frictionless, adaptive steps, h_max 1e-5 s)
approach the ideal-joint curve as the clearance c shrinks?

Measure: RMS of (slider acceleration - ideal acceleration) over the second half of one crank
revolution (t > 0.15 s; the start impact at 0.45 m/s is 0.15 s behind), records every 1e-5 s.
Reference: the rigid slider-crank's kinematics at constant crank speed, differentiated by
hand (x = r cos th + sqrt(l^2 - r^2 sin^2 th), re-typed below), independent of the solver.

Dampings compared (the case's clearance joint B gets the keys written below):
  seed     the seed's step damping, eta 1e-3 s, d_max 0.1 mm (the case's default)
  step_c   the same with d_max = c (the ramp scaled with the clearance)
  ln       lankarani_nikravesh, restitution 0.9
  flores   flores, restitution 0.5
  ln_mu    ln with the seed's friction set mu_s / mu_d = 0.08 / 0.05 (damps the journal's
           swing along the bearing wall, which frictionless contact leaves undamped)
  ln_a0, flores_a0, step_c_a0  the same with HHT alpha = 0 (no numerical dissipation)
Numbers in docs/validation.md ("Zero-clearance limit").

usage: /usr/bin/python3 bench/clearance_limit.py build/flexmb . [variant ...]
"""
import os
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np

KEYS = {"seed": "", "step_c": "    d_max: clearance\n",
        "ln": "    damping: lankarani_nikravesh\n    restitution: 0.9\n",
        "flores": "    damping: flores\n    restitution: 0.5\n",
        "ln_mu": "    damping: lankarani_nikravesh\n    restitution: 0.9\n"}
KEYS["ln_a0"], KEYS["flores_a0"], KEYS["step_c_a0"] = KEYS["ln"], KEYS["flores"], KEYS["step_c"]
SETS = {"ln_mu": ["--set", "mu=0.08", "--set", "mu_d=0.05"]}  # the seed's Table 3 set
# the same without the integrator's numerical dissipation (HHT alpha 0: trapezoidal rule)
SUBS = {k: ("alpha: -0.1", "alpha: 0") for k in ("ln_a0", "flores_a0", "step_c_a0")}
CLEARANCES = (1e-4, 1e-5, 1e-6, 1e-7)


def ideal_acceleration(th, w, r, l):
    S = l * l - (r * np.sin(th)) ** 2
    return (-r * w * w * np.cos(th) - r * r * w * w * np.cos(2 * th) / np.sqrt(S)
            - r ** 4 * w * w * np.sin(2 * th) ** 2 / (4 * S ** 1.5))


def variant_case(src, tmp, name):
    text = open(os.path.join(src, "cases", "slider_crank_clearance.yaml")).read()
    anchor = "    mu_d: mu_d\n"
    assert anchor in text
    path = os.path.join(tmp, "case_%s.yaml" % name)
    text = text.replace(anchor, anchor + KEYS[name])
    if name in SUBS:
        assert SUBS[name][0] in text
        text = text.replace(*SUBS[name])
    with open(path, "w") as f:
        f.write(text)
    return path


def run(flexmb, case, c, out, extra=(), revs=1.0, t0=0.15):
    cmd = [flexmb, "run", case, "-o", out, "--quiet", "--set", "clearance=%g" % c,
           "--set", "revs=%g" % revs, "--set", "h=1e-5", *extra]
    w0 = time.time()
    r = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.time() - w0
    if r.returncode:
        sys.exit("FAIL: %s\n%s" % (" ".join(cmd), r.stderr))
    with h5py.File(out, "r") as f:
        t = f["time"][:]
        a = f["bodies/slider/qdd"][:, 0]
        th = f["bodies/crank/q"][:, 2]
        g = f["joints/B/clearance"]
        contact, pen = g["contact"][:], g["penetration"][:]
        steps = int(f["solver/statistics"].attrs["steps"])
    ai = ideal_acceleration(th, 200 * 2 * np.pi / 60, 0.05, 0.12)
    m = t > t0
    return dict(rms=float(np.sqrt(np.mean((a[m] - ai[m]) ** 2))),
                ideal=float(np.sqrt(np.mean(ai[m] ** 2))), steps=steps, wall=wall,
                contact=float(np.mean(contact[m])), pen=float(np.max(pen[m])))


def main():
    flexmb, src = sys.argv[1], sys.argv[2]
    names = sys.argv[3:] or list(KEYS)
    print("| damping | c (mm) | steps | wall (s) | RMS deviation (m/s^2) | ideal RMS | "
          "contact fraction | max penetration (um) |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            case = variant_case(src, tmp, name)
            rms = []
            for c in CLEARANCES:
                d = run(flexmb, case, c, os.path.join(tmp, "%s_%g.h5" % (name, c)),
                        SETS.get(name, ()))
                rms.append(d["rms"])
                print("| %s | %g | %d | %.1f | %.3f | %.2f | %.3f | %.4f |"
                      % (name, c * 1e3, d["steps"], d["wall"], d["rms"], d["ideal"],
                         d["contact"], d["pen"] * 1e6), flush=True)
            orders = ["%.2f" % np.log10(rms[k] / rms[k + 1]) for k in range(len(rms) - 1)]
            print("| %s | observed order per decade of c: %s | | | | | | |"
                  % (name, ", ".join(orders)), flush=True)


if __name__ == "__main__":
    main()
