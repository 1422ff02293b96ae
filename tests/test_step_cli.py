"""Step control as the user sees it (flexmb run; docs/case-format.md 'solver',
docs/output.md '/solver/statistics'):
  - an adaptive run (tests/step/pendulum_large.yaml, rtol_step = atol_step = 1e-4, records
    every 0.05 s) records "adaptive" in /solver, lands its records on k * 0.05 s, keeps
    every step within [h_min, h_max] <= the record interval, accepts no step above the
    tolerance (max_error <= 1) and prints the step-size and error-estimate summary lines;
  - a fixed run of the driven four-bar at h = 1e-3 (tests/step/four_bar.yaml) prints the
    step-error warning on stderr, records h_min = h_max = 1e-3 and an error_sum > 1 that
    matches the warning; at h = 1e-5 there is no warning;
  - bad input: 'step: sometimes' and h_min > h_max are refused with the file and line.
Independent values: the record interval and the step h come from the case, not from
the program.
usage: test_step_cli.py FLEXMB SRC_DIR
"""
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


def run(flexmb, case, out, *sets):
    args = [flexmb, "run", case, "-o", out]
    for s in sets:
        args += ["--set", s]
    return subprocess.run(args, capture_output=True, text=True)


def main():
    flexmb, src = sys.argv[1], sys.argv[2]
    d = os.path.join(src, "tests", "step")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "p.h5")
        p = run(flexmb, os.path.join(d, "pendulum_large.yaml"), out, "tol=1e-4")
        check(p.returncode == 0, "adaptive pendulum runs: " + p.stderr.strip()[:200])
        check("step size           adaptive" in p.stdout, "summary names the adaptive mode")
        check("error estimate" in p.stdout, "summary gives the error estimate")
        with h5py.File(out, "r") as f:
            st = f["solver/statistics"].attrs
            check(f["solver"].attrs["step"] in (b"adaptive", "adaptive"), "/solver@step adaptive")
            t = f["time"][:]
            k = np.round(t / 0.05)
            check(np.abs(t - 0.05 * k).max() < 1e-12 and len(t) == 41,
                  "records on k * 0.05 s (%d records)" % len(t))
            check(0 < st["h_min"] <= st["h_max"] <= 0.05 + 1e-15,
                  "0 < h_min %.3g <= h_max %.3g <= 0.05" % (st["h_min"], st["h_max"]))
            check(st["max_error"] <= 1.0, "accepted steps within the tolerance (%.3g)"
                  % st["max_error"])
            check(st["steps"] >= 2.0 / st["h_max"] - 1e-9,
                  "steps %d >= t_end / h_max" % st["steps"])
            check(st["rejected_error"] >= 0 and st["rejected_event"] == 0, "rejection counts")

        out = os.path.join(tmp, "f.h5")
        p = run(flexmb, os.path.join(d, "four_bar.yaml"), out, "dt=1e-3")
        check(p.returncode == 0, "fixed four-bar h = 1e-3 runs")
        m = re.search(r"warning: the local error estimate accumulated over the run is "
                      r"([0-9.e+]+) times its tolerance .*, largest at t = ([0-9.e+-]+) s in "
                      r"body '(\w+)'", p.stderr)
        check(m is not None, "h = 1e-3 warns with a ratio, a time and a body: "
              + p.stderr.strip()[:300])
        with h5py.File(out, "r") as f:
            st = f["solver/statistics"].attrs
            # steps are t_k - t_{k-1} with t_k = k h: equal to h up to rounding
            check(abs(st["h_min"] - 1e-3) < 1e-15 and abs(st["h_max"] - 1e-3) < 1e-15,
                  "fixed: h_min = h_max = 1e-3")
            if m:
                check(abs(st["error_sum"] / float(m.group(1)) - 1) < 1e-2
                      and abs(st["max_error_time"] - float(m.group(2))) < 1e-6,
                      "the warning's ratio and time are /solver/statistics' error_sum, max_error_time")
            check(m is not None and m.group(3) in str(st["max_error_coordinate"]),
                  "max_error_coordinate names the body")
        p = run(flexmb, os.path.join(d, "four_bar.yaml"), out, "dt=1e-5")
        check(p.returncode == 0 and "warning: the local error" not in p.stderr,
              "h = 1e-5: no warning")

        bad = os.path.join(tmp, "bad.yaml")
        text = open(os.path.join(d, "pendulum_large.yaml")).read()
        with open(bad, "w") as f:
            f.write(text.replace("atol_step: tol}", "atol_step: tol, step: sometimes}"))
        line = 1 + text[:text.index("solver:")].count("\n")
        p = run(flexmb, bad, os.path.join(tmp, "b.h5"))
        check(p.returncode != 0 and ("bad.yaml:%d" % line) in p.stderr
              and "unknown step 'sometimes'" in p.stderr,
              "step: sometimes refused at line %d: %s" % (line, p.stderr.strip()[:200]))
        with open(bad, "w") as f:
            f.write(text.replace("atol_step: tol}", "atol_step: tol, h_min: 1, h_max: 0.1}"))
        p = run(flexmb, bad, os.path.join(tmp, "b.h5"))
        check(p.returncode != 0 and "bad.yaml:%d" % line in p.stderr
              and "'h_min' (1) is larger than 'h_max' (0.1)" in p.stderr,
              "h_min > h_max refused: " + p.stderr.strip()[:200])
    print("all checks passed" if failures == 0 else "%d failure(s)" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
