"""The quick-return's cutting and return strokes (scripts/quick_return_strokes.py) against
hand values and against runs.

usage: /usr/bin/python3 tests/test_quick_return_strokes.py FLEXMB QUICK_RETURN.yaml SCRIPTS

- r = 0.15, h1 = 0.3 by hand: the rocker turns where it is tangent to the crank circle,
  O1A perpendicular to O2A, i.e. r^2 + r h1 sin(theta) = 0, sin(theta) = -1/2: theta =
  330 and 210 deg; counter-clockwise from 330 over the top to 210 is 240 deg (cutting),
  back past the bottom 120 deg (return). The script's computed angles equal these.
- Rigid rocker runs (5 rad/s, 1.2 revolutions from 90 deg), r = 0.15 and r = 0.1: the
  crank angles where the ram's x turns (parabola through five records of 0.29 deg) equal
  the computed ones within 0.01 deg, and at each computed angle O1A . O2A = 0.
"""
import math
import os
import re
import subprocess
import sys
import tempfile

FAILURES = []


def check(cond, msg):
    print(("ok:   " if cond else "FAIL: ") + msg)
    if not cond:
        FAILURES.append(msg)


def main(argv):
    flexmb, case, scripts = argv[1:4]
    script = os.path.join(scripts, "quick_return_strokes.py")
    p = subprocess.run([sys.executable, script], capture_output=True, text=True)
    m = re.search(r"turns at crank (\S+) deg .* and (\S+) deg .*cutting stroke (\S+) deg, "
                  r"return (\S+) deg", p.stdout)
    got = [float(v) for v in m.groups()] if m else []
    check(p.returncode == 0 and got and all(abs(g - w) < 1e-9 for g, w in
                                            zip(got, (330, 210, 240, 120))),
          "r = 0.15, h1 = 0.3: turns at 330 and 210 deg, strokes 240 and 120 deg (%s)" % got)
    with tempfile.TemporaryDirectory(prefix="fmb_strokes_") as tmp:
        for r in (0.15, 0.1):
            out = os.path.join(tmp, "r%g.h5" % r)
            q = subprocess.run([flexmb, "run", case, "-q", "-o", out, "--set", "model=rigid",
                                "--set", "r=%g" % r, "--set", "omega=5", "--set",
                                "revolutions=1.2"], capture_output=True, text=True)
            check(q.returncode == 0, "rigid run, r = %g: exit %d %s" % (r, q.returncode, q.stderr))
            p = subprocess.run([sys.executable, script, out], capture_output=True, text=True)
            print(p.stdout, p.stderr)
            c = re.search(r"turns at crank (\S+) deg .* and (\S+) deg", p.stdout)
            mx = re.search(r"maxima at crank (.*) deg, minima at (.*) deg", p.stdout)
            if not (p.returncode == 0 and c and mx):
                check(False, "r = %g: the script's output" % r)
                continue
            t1, t2 = float(c.group(1)), float(c.group(2))
            for t in (t1, t2):  # tangency: O1A . O2A = r^2 + r h1 sin(t) = 0
                th = math.radians(t)
                ax, ay = r * math.cos(th), r * math.sin(th)
                # the angle is printed to 1e-4 deg: |dot| <= r h1 (5e-5 deg in rad)
                check(abs(ax * ax + ay * (ay + 0.3)) <= r * 0.3 * math.radians(5e-5),
                      "r = %g: at %.4f deg O1A is perpendicular to O2A (to the printed "
                      "digits)" % (r, t))
            hi = [float(v) for v in mx.group(1).split(",")]
            lo = [float(v) for v in mx.group(2).split(",")]
            check(len(hi) == 1 and abs(hi[0] - t1) < 0.01 and len(lo) == 1
                  and abs(lo[0] - t2) < 0.01,
                  "r = %g: the ram turns at %s and %s deg, computed %.4f and %.4f"
                  % (r, hi, lo, t1, t2))
    print("%d failure(s)" % len(FAILURES))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
