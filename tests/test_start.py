"""Rigid-motion start (docs/theory.md, "Consistent start"), on cases/quick_return.yaml at
5 rad/s (one revolution), where the case gives only the crank speed:

  - the rocker's elastic velocities at t = 0 are zero (the beam moves rigidly with its
    carrier frame; the former mass-metric projection gave slope rates of -8 to -63 rad/s);
  - every body's initial velocity equals the rigid linkage's, derived here by hand:
    A = r (cos th, sin th); the rocker through O2 = (0, -h1) and A: psi = atan2(h1 + r sin th,
    r cos th), psi' from d/dt; B = O2 + l2 (cos psi, sin psi); the link from B to C on the
    ram's guide y = h2: sin phi = (h2 - yB) / l3, phi' = -yB' / (l3 cos phi);
    xC' = xB' - l3 sin(phi) phi'; within 1e-9;
  - the peak |deflection| changes by < 0.5 % when every body's rigid-body velocity is
    written in the case (a copy of the case with those velocities) (measured: identical to
    round-off, since both starts are the same rigid motion);
  - a given velocity the joints do not allow is changed and reported.
usage: test_start.py FLEXMB SRC_DIR
"""
import math
import os
import re
import subprocess
import sys
import tempfile

import h5py
import numpy as np

failures = 0


def check(cond, msg):
    global failures
    print(("ok:   " if cond else "FAIL: ") + msg)
    failures += not cond


def rigid_velocities(w, th=math.pi / 2, r=0.15, l2=0.6, l3=0.5, h1=0.3, h2=0.3):
    ax, ay = r * math.cos(th), r * math.sin(th)
    axd, ayd = -r * w * math.sin(th), r * w * math.cos(th)
    X, Y = ax, h1 + ay  # A relative to O2
    psi = math.atan2(Y, X)
    psid = (X * ayd - Y * axd) / (X * X + Y * Y)
    xb, yb = l2 * math.cos(psi), -h1 + l2 * math.sin(psi)
    xbd, ybd = -l2 * math.sin(psi) * psid, l2 * math.cos(psi) * psid
    phi = math.asin((h2 - yb) / l3)
    phid = -ybd / (l3 * math.cos(phi))
    xcd = xbd - l3 * math.sin(phi) * phid
    return {"crank": (0.0, 0.0, w), "sliderD": (axd, ayd, psid), "rocker": (0.0, 0.0, psid),
            "link": (xbd, ybd, phid), "sliderE": (xcd, 0.0, 0.0)}


def inertial(q, qd):
    c, s = math.cos(q[2]), math.sin(q[2])
    px, py = qd[0] - qd[2] * q[1], qd[1] + qd[2] * q[0]
    return (c * px - s * py, s * px + c * py, qd[2])


def run(flexmb, case, out, *sets):
    args = [flexmb, "run", case, "-o", out]
    for s in sets:
        args += ["--set", s]
    p = subprocess.run(args, capture_output=True, text=True)
    check(p.returncode == 0, "run %s %s" % (os.path.basename(case), p.stderr.strip()[-300:]))
    return p


def main():
    flexmb, src = sys.argv[1], sys.argv[2]
    case = os.path.join(src, "cases", "quick_return.yaml")
    w = 5.0
    ref = rigid_velocities(w)
    with tempfile.TemporaryDirectory() as tmp:
        a = os.path.join(tmp, "crank_only.h5")
        run(flexmb, case, a, "omega=5", "revolutions=1")
        with h5py.File(a, "r") as f:
            qd = f["bodies/rocker/qd"][0]
            check(np.max(np.abs(qd[3:])) == 0.0, "rocker elastic velocities at t = 0 are zero")
            worst = 0.0
            for b, v in ref.items():
                got = inertial(f["bodies/%s/q" % b][0], f["bodies/%s/qd" % b][0])
                worst = max(worst, max(abs(g - e) for g, e in zip(got, v)))
            print("rigid-body velocities vs hand kinematics: max difference %.3g" % worst)
            check(worst < 1e-9, "every body starts with the rigid linkage's velocity")
            peak_a = np.max(np.abs(f["beams/rocker/deflection"][:]))
        # the same case with every body's rigid velocity written in it
        text = open(case, encoding="utf-8").read()
        for b, v in ref.items():
            block = re.search(r"  - name: %s\n(?:    .*\n)*?    pose: \[.*\]\n" % b, text)
            check(block is not None, "found body %s in the case" % b)
            if block is None:
                continue
            vel = "    velocity: [%.17g, %.17g, %.17g]\n" % v
            body = block.group(0)
            rest = text[block.end():]
            if rest.startswith("    velocity:"):
                rest = rest[rest.index("\n") + 1:]
            text = text[:block.start()] + body + vel + rest
        case2 = os.path.join(tmp, "all_given.yaml")
        with open(case2, "w", encoding="utf-8") as f:
            f.write(text)
        b2 = os.path.join(tmp, "all_given.h5")
        run(flexmb, case2, b2, "omega=5", "revolutions=1")
        with h5py.File(b2, "r") as f:
            peak_b = np.max(np.abs(f["beams/rocker/deflection"][:]))
        rel = abs(peak_a - peak_b) / peak_a
        print("peak |deflection|: crank speed only %.6g m, all velocities given %.6g m (rel %.3g)"
              % (peak_a, peak_b, rel))
        check(rel < 5e-3, "peak deflection independent of the velocities written")
        # an inconsistent given velocity: the pendulum bar's pinned end cannot move
        pend = os.path.join(src, "cases", "pendulum.yaml")
        ptext = open(pend, encoding="utf-8").read().replace("velocity: [0, 0, 0]",
                                                            "velocity: [1, 0, 0]")
        case3 = os.path.join(tmp, "bad_velocity.yaml")
        with open(case3, "w", encoding="utf-8") as f:
            f.write(ptext)
        p = subprocess.run([flexmb, "check", case3], capture_output=True, text=True)
        check(p.returncode == 0 and "body 'bar': the given initial velocity was changed" in p.stdout,
              "check reports the changed velocity: %s" % p.stdout.strip().splitlines()[-2:])
    print("FAILED" if failures else "passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
