"""Warnings that are true and actionable (docs/theory.md "Local error estimate and step
control", "Energy balance check"):
  case NAME  the shipped case cases/NAME.yaml runs (flexmb run -q) with exactly the warnings
             its comments announce (lines '# expected warning: TEXT'; none: no warning).
  step       a pendulum (cases/pendulum.yaml, no driver: its angle is free) at a fixed
             h = 0.05 s: the step-error warning in run's stderr, in the one line of run -q
             ("1 warning"), in /solver/statistics@warnings and in the sweep summary's
             warnings column; the warning is true: the angle's global error against
             h = 1e-3 s exceeds the tolerance atol_step + rtol_step max|q|; run at the h the
             warning advises, the warning is gone (run, run -q, sweep column).
  energy     the pendulum with HHT alpha = -0.3 (strong numerical damping) at h = 0.1 s
             over 20 s: max |E - E(0)| / max(|T|, |V|, |W|) recomputed with numpy from
             /energy is above 1e-2 and the energy warning says so (run, run -q, sweep
             column); at the h it advises the energy warning is gone.
usage: test_warnings.py FLEXMB SRC_DIR WHAT [NAME]
"""
import csv
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


def run(flexmb, *args, cwd=None):
    return subprocess.run([flexmb, "run"] + list(args), capture_output=True, text=True,
                          timeout=600, cwd=cwd)


def warnings_of(stderr):
    return [l.split("warning: ", 1)[1] for l in stderr.splitlines() if "warning: " in l]


def test_case(flexmb, src, tmp, name):
    case = os.path.join(src, "cases", name + ".yaml")
    want = [l.split(":", 1)[1].strip() for l in open(case, encoding="utf-8")
            if l.startswith("# expected warning:")]
    h5 = os.path.join(tmp, name + ".h5")
    p = run(flexmb, case, "-o", h5, "-q", "--no-viz")
    check(p.returncode == 0, "%s: exit %d %s" % (name, p.returncode, p.stderr[-300:]))
    got = warnings_of(p.stderr)
    check(len(got) == len(want) and all(any(w in g for g in got) for w in want),
          "%s: warnings %s, expected %s" % (name, got, want))
    n = len(want)
    check(p.stdout.rstrip().endswith("; %d warning%s" % (n, "" if n == 1 else "s")),
          "%s: the -q line counts %d: %s" % (name, n, p.stdout.strip()[-80:]))


PEND = """parameters:
  dt: 0.05
  alpha: -0.05
  t_end: 2
gravity: [0, -9.81]
solver: {integrator: hht, alpha: alpha, h: dt, t_end: t_end}
bodies:
  - {name: bar, mass: 1.0, bar: 1.0, pose: [0, 0, -pi/2 + pi/6], velocity: [0, 0, 0]}
joints:
  - {name: pin, type: revolute, bodies: [ground, bar], points: [[0, 0], start]}
"""


def advised_h(text, key):
    m = re.search(r"; h = ([0-9.e+-]+) s (meets|keeps)", text)
    return float(m.group(1)) if m and key in text else None


def one_kind(flexmb, tmp, what, key, sets, reference=None):
    case = os.path.join(tmp, "pend.yaml")
    with open(case, "w") as f:
        f.write(PEND)
    args = []
    for s in sets:
        args += ["--set", s]
    h5 = os.path.join(tmp, what + ".h5")
    p = run(flexmb, case, "-o", h5, "--no-viz", *args)
    w = [x for x in warnings_of(p.stderr) if key in x]
    check(p.returncode == 0 and len(w) == 1, "%s: run warns once '%s': %s" % (what, key, w))
    check("warning" in p.stdout, "%s: the validity line counts it" % what)
    q = run(flexmb, case, "-o", h5, "--no-viz", "-q", *args)
    lines = q.stdout.splitlines()
    check(q.returncode == 0 and len(lines) == 1 and
          any(key in x for x in warnings_of(q.stderr)),
          "%s: run -q: one line and the warning on stderr" % what)
    with h5py.File(h5, "r") as f:
        text = f["solver/statistics"].attrs["warnings"]
        check(key in text, "%s: /solver/statistics@warnings" % what)
        e = f["energy"][:]
        drift = np.abs(e[:, 3] - e[0, 3]).max() / np.abs(e[:, :3]).max()
        q0 = f["bodies/bar/q"][:]
        t0 = f["time"][:]
    h = advised_h(w[0] if w else "", key)
    check(h is not None, "%s: the warning advises a step" % what)
    if h is None:
        return
    p = run(flexmb, case, "-o", h5, "--no-viz", *args, "--set", "dt=%.6g" % h)
    check(p.returncode == 0 and not any(key in x for x in warnings_of(p.stderr)),
          "%s: at the advised h = %g the warning is gone: %s" % (what, h,
                                                                warnings_of(p.stderr)))
    sw = subprocess.run([flexmb, "sweep", case, *args, "--vary",
                         "dt=%s,%.6g" % (dict(s.split("=") for s in sets).get("dt", "0.05"), h),
                         "-o", "sw", "-q"], cwd=tmp, capture_output=True, text=True,
                        timeout=600)
    check(sw.returncode == 0, "%s: sweep exit %d" % (what, sw.returncode))
    with open(os.path.join(tmp, "sw", "summary.csv"), newline="", encoding="utf-8") as f:
        r = list(csv.DictReader(f))
    col = [key in x["warnings"] for x in r]
    check(len(r) == 2 and sum(col) == 1 and col[[float(x["dt"]) for x in r].index(
        max(float(x["dt"]) for x in r))],
          "%s: sweep warnings column: the large step only %s" % (what, col))
    return drift, t0, q0


def test_step(flexmb, src, tmp):
    key = "local error estimate accumulated"
    res = one_kind(flexmb, tmp, "step", key, ["dt=0.05"])
    if not res:
        return
    _, t0, q0 = res
    ref = os.path.join(tmp, "ref.h5")
    p = run(flexmb, os.path.join(tmp, "pend.yaml"), "-o", ref, "--no-viz", "-q",
            "--set", "dt=1e-3")
    check(p.returncode == 0, "step: reference h = 1e-3 runs")
    with h5py.File(ref, "r") as f:
        tr, qr = f["time"][:], f["bodies/bar/q"][:, 2]
    err = np.abs(q0[:, 2] - np.interp(t0, tr, qr)).max() / (1e-6 + 1e-3 * np.abs(qr).max())
    check(err > 1, "step: the warning is true: the angle's global error at h = 0.05 is %.3g "
          "tolerances" % err)


def test_energy(flexmb, src, tmp):
    key = "energy balance"
    res = one_kind(flexmb, tmp, "energy", key, ["dt=0.1", "alpha=-0.3", "t_end=20"])
    if res:
        check(res[0] > 1e-2, "energy: the drift from /energy is %.3g > 1e-2" % res[0])


def main():
    flexmb, src, what = sys.argv[1], sys.argv[2], sys.argv[3]
    with tempfile.TemporaryDirectory() as tmp:
        if what == "case":
            test_case(flexmb, src, tmp, sys.argv[4])
        else:
            {"step": test_step, "energy": test_energy}[what](flexmb, src, tmp)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
