"""Unit plausibility and beam frequencies in `flexmb check` (docs/case-format.md,
"Plausibility checks").

  slips      cases/quick_return.yaml with one value in the wrong unit: E_steel = 200 (GPa
             written as Pa), rho = 7.8 (g/cm^3), d = 12 (mm written as m) each get one
             warning naming the beam, the value and that slip, and check still exits 0;
             E_steel = 200 also gets the warning that the rocker's first frequency
             (0.0132 rad/s, hand: 416.5 rad/s x sqrt(200 / 200e9)) lies below the drive.
  shipped    every case in cases/ checks without a warning.
  resonance  a steel cantilever (d = 12 mm, L = 0.6 m, 10 elements) welded to the ground
             next to a rigid crank driven at a constant speed Omega: check prints the
             beam's first frequency, against the hand value 1.8751^2 sqrt(EI/(rho A L^4))
             = 148.36 rad/s (1e-4), and warns at Omega = omega1 (1 x), omega1/2 (2 x) and
             2 omega1 (below the drive speed), not at omega1/5 (nearest harmonic 3 Omega is
             40 % away) nor for a driver whose speed varies.
usage: test_check_units.py FLEXMB CASES_DIR WHAT
"""
import glob
import math
import os
import subprocess
import sys
import tempfile

failures = 0


def check(cond, msg):
    global failures
    print(("ok:   " if cond else "FAIL: ") + msg)
    failures += not cond


def run(flexmb, path, *sets):
    args = [flexmb, "check", path]
    for s in sets:
        args += ["--set", s]
    return subprocess.run(args, capture_output=True, text=True, timeout=300)


def warnings(p):
    return [l for l in p.stderr.splitlines() if "warning" in l]


CANTILEVER = """parameters:
  W: 10
gravity: [0, 0]
solver: {h: 1e-4, t_end: 0.1}
bodies:
  - name: arm
    beam: {E: 200e9, rho: 7800, section: {circle: 0.012}, length: 0.6, elements: 10,
           reference: cantilever}
    pose: [0, 0, 0]
  - {name: crank, mass: 1, bar: 0.1, pose: [0, 1, 0]}
joints:
  - {name: root, type: weld, bodies: [ground, arm], points: [[0, 0], start]}
  - {name: O, type: revolute, bodies: [ground, crank], points: [[0, 1], start]}
  - {name: motor, type: driver, coordinate: angle, bodies: [crank, ground], function: %s}
"""


def main():
    flexmb, cases, what = sys.argv[1], sys.argv[2], sys.argv[3]
    qr = os.path.join(cases, "quick_return.yaml")
    if what == "slips":
        for s, key, slip in (("E_steel=200", "E = 200 Pa", "GPa written as Pa?"),
                             ("rho=7.8", "rho = 7.8 kg/m^3", "g/cm^3 written as kg/m^3?"),
                             ("d=12", "section size", "mm written as m?")):
            p = run(flexmb, qr, s)
            w = [l for l in warnings(p) if "outside the engineering range" in l]
            check(p.returncode == 0, "%s: check exits 0 (%d)" % (s, p.returncode))
            check(len(w) == 1 and "beam 'rocker'" in w[0] and key in w[0] and slip in w[0],
                  "%s: one warning naming the beam, '%s' and '%s': %s" % (s, key, slip, w))
        p = run(flexmb, qr, "E_steel=200")
        w = [l for l in warnings(p) if "below the speed 20 rad/s" in l]
        want = 416.47 * math.sqrt(200 / 200e9)
        check(len(w) == 1 and ("%.4g rad/s" % want) in w[0],
              "E_steel=200: first frequency %.4g rad/s below the drive: %s" % (want, w))
    elif what == "shipped":
        for path in sorted(glob.glob(os.path.join(cases, "*.yaml"))):
            p = run(flexmb, path)
            check(p.returncode == 0 and not warnings(p),
                  "%s: no warning (%s)" % (os.path.basename(path), warnings(p)))
    elif what == "resonance":
        E, rho, d, L = 200e9, 7800, 0.012, 0.6
        A, I = math.pi * d * d / 4, math.pi * d ** 4 / 64
        w1 = 1.87510407 ** 2 * math.sqrt(E * I / (rho * A * L ** 4))
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "c.yaml")
            tests = ((w1, "within 15 % of 1 x"), (w1 / 2, "within 15 % of 2 x"),
                     (2 * w1, "below the speed"), (w1 / 5, None))
            for W, expect in tests:
                with open(path, "w") as fh:
                    fh.write(CANTILEVER % "W*t")
                p = run(flexmb, path, "W=%.17g" % W)
                line = [l for l in p.stdout.splitlines() if "beam arm" in l]
                got = float(line[0].split("conditions)")[1].split()[0]) if line else float("nan")
                check(abs(got - w1) <= 1e-4 * w1,
                      "Omega %.4g: first frequency %.6g rad/s, hand %.6g" % (W, got, w1))
                w = warnings(p)
                if expect:
                    check(len(w) == 1 and expect in w[0] and "beam 'arm'" in w[0] and
                          "drive 'motor'" in w[0], "Omega %.4g: warns '%s': %s" % (W, expect, w))
                else:
                    check(not w, "Omega %.4g: no warning (%s)" % (W, w))
            with open(path, "w") as fh:  # a varying speed is not a constant-speed drive
                fh.write(CANTILEVER % "W*t + 50*t^2")
            p = run(flexmb, path, "W=%.17g" % w1)
            check(not warnings(p) and "drive 'motor'" not in p.stdout,
                  "varying drive speed: not compared (%s)" % warnings(p))
    else:
        print("unknown test", what)
        return 2
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
