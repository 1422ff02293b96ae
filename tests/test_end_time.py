"""Runs end exactly at t_end (fuzz findings silent_h_gt_tend, ubsan_float_cast_nsteps):
  - h = 1 > t_end = 0.1: one shortened step, /time = [0, 0.1], the summary says so;
  - h = 0.3, t_end = 1: records at 0, 0.3, 0.6, 0.9 and 1 (last step 0.1);
  - h = 0.25, t_end = 1: exactly 4 steps, no extra step;
  - h = 1e-300, t_end = 1e300: refused before running (exit 3) with the step count;
  - a run that stops before t_end (a force sqrt(0.0905 - t), not finite past t = 0.0905 s; h = 3 ms not dividing t_end =
    0.2 s): exit 4, the summary says "stopped" and says nothing of a last step shortened
    to end at t_end, which it never reached.
usage: test_end_time.py FLEXMB SRC_DIR
"""
import os
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


def main():
    flexmb, src = sys.argv[1], sys.argv[2]
    d = os.path.join(src, "tests", "fuzz_cases")
    base = open(os.path.join(d, "silent_h_gt_tend.yaml"), encoding="utf-8").read()
    with tempfile.TemporaryDirectory() as tmp:
        for h, t_end, want in ((1, 0.1, [0, 0.1]), (0.3, 1, [0, 0.3, 0.6, 0.9, 1.0]),
                               (0.25, 1, [0, 0.25, 0.5, 0.75, 1.0])):
            case = os.path.join(tmp, "c.yaml")
            with open(case, "w", encoding="utf-8") as f:
                f.write(base.replace("solver: {h: 1, t_end: 0.1}",
                                     "solver: {h: %g, t_end: %g}" % (h, t_end)))
            out = os.path.join(tmp, "c.h5")
            p = subprocess.run([flexmb, "run", case, "-o", out], capture_output=True, text=True)
            check(p.returncode == 0, "h = %g, t_end = %g: exit 0" % (h, t_end))
            with h5py.File(out, "r") as f:
                t = f["time"][:]
            check(len(t) == len(want) and np.allclose(t, want, rtol=0, atol=1e-15),
                  "h = %g, t_end = %g: /time = %s (got %s)" % (h, t_end, want, list(t)))
            shortened = "shortened" in p.stdout
            check(shortened == (abs(t_end / h - round(t_end / h)) > 1e-9),
                  "h = %g, t_end = %g: the summary says whether the last step was shortened"
                  % (h, t_end))
        stop = open(os.path.join(d, "runtime_div_zero.yaml"), encoding="utf-8").read()
        case = os.path.join(tmp, "stop.yaml")
        with open(case, "w", encoding="utf-8") as f:
            f.write(stop.replace("solver: {h: 1e-3, t_end: 0.2}", "solver: {h: 3e-3, t_end: 0.2}")
                    .replace("1/(t-0.1)", "sqrt(0.0905-t)"))
        p = subprocess.run([flexmb, "run", case, "-o", os.path.join(tmp, "stop.h5")],
                           capture_output=True, text=True)
        check(p.returncode == 4 and "stopped" in p.stdout,
              "run stopped at t = 0.09 s: exit %d, summary says stopped" % p.returncode)
        check("shortened" not in p.stdout and "to end at t_end" not in p.stdout,
              "a stopped run does not claim a last step shortened to end at t_end")
        p = subprocess.run([flexmb, "run", os.path.join(d, "ubsan_float_cast_nsteps.yaml"), "-o",
                            os.path.join(tmp, "u.h5")], capture_output=True, text=True)
        check(p.returncode == 3 and "steps" in p.stderr and "t_end" in p.stderr,
              "absurd step count refused: exit %d, %s" % (p.returncode, p.stderr.strip()))
    print("FAILED" if failures else "passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
