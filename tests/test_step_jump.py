"""Steps the adaptive control accepts under the jump rule (docs/theory.md "Local error
estimate and step control", "Steps accepted as acceleration jumps"): the quick-return with
LuGre slider friction (cases/quick_return_friction.yaml, zeta = 0.02, 0.15 revolutions,
default tolerances rtol_step 1e-3, atol_step 1e-6) accepts steps whose error ratio r is far
above 1 (1.1e3 measured) as acceleration jumps right after restarts at the slider's element
crossings: r fell only like h on rejection and the one-time error r h / t_span is within the
tolerance. Checks:
  - independent reference: fixed h = 5e-7 steps (itself checked against h = 1e-6: they
    agree to < 0.01 tolerance units). The adaptive run's global error at every record, per
    coordinate in units of atol_step + rtol_step max_t |q_ref| (the step control's scale),
    is within 1: the steps accepted under the rule are accurate (measured 0.30);
  - /solver/statistics counts those steps apart (jump_steps > 0, jump_ratio > 1,
    jump_error <= 1 as the rule requires) and max_error, the summary's "at most", is the
    largest ratio of the steps accepted on the ratio (<= 1). The old code reported
    max_error 1.14e3 and had no jump_* statistics: this test failed there;
  - the summary prints the jump-rule line with the same count.
usage: test_step_jump.py FLEXMB SRC_DIR
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


def run(flexmb, case, out, *sets):
    args = [flexmb, "run", case, "-o", out, "--no-viz"]
    for s in sets:
        args += ["--set", s]
    p = subprocess.run(args, capture_output=True, text=True)
    check(p.returncode == 0, "run %s: %s" % (" ".join(sets), p.stderr.strip()[-300:]))
    return p


def coords(path):
    """Records' times and all bodies' coordinates side by side."""
    with h5py.File(path, "r") as f:
        t = f["time"][:]
        q = np.hstack([f["bodies"][b]["q"][:] for b in sorted(f["bodies"])])
    return t, q


def error_units(path, ref):
    """Largest global error over records and coordinates in tolerance units."""
    t, q = coords(path)
    tr, qr = coords(ref)
    idx = np.array([int(np.argmin(np.abs(tr - x))) for x in t])
    if np.abs(tr[idx] - t).max() > 1e-9:
        return np.inf
    w = 1e-6 + 1e-3 * np.abs(qr).max(axis=0)
    return (np.abs(q - qr[idx]) / w).max()


def main():
    flexmb, src = sys.argv[1], sys.argv[2]
    case = os.path.join(src, "cases", "quick_return_friction.yaml")
    base = ("zeta=0.02", "revolutions=0.15")
    with tempfile.TemporaryDirectory() as tmp:
        a, r5, r10 = (os.path.join(tmp, n) for n in ("a.h5", "r5.h5", "r10.h5"))
        p = run(flexmb, case, a, *base, "step=adaptive")
        run(flexmb, case, r5, *base, "dt=5e-7", "out_every=2000")
        run(flexmb, case, r10, *base, "dt=1e-6", "out_every=1000")
        eref = error_units(r10, r5)
        check(eref < 0.01, "reference: h = 1e-6 vs 5e-7 differ by %.3g tolerance units" % eref)
        e = error_units(a, r5)
        check(e <= 1.0, "adaptive run within its tolerance: %.3g units vs h = 5e-7" % e)
        with h5py.File(a, "r") as f:
            st = f["solver/statistics"].attrs
            keys = ("jump_steps", "jump_error", "jump_ratio", "max_error")
            if not all(k in st for k in keys):
                check(False, "/solver/statistics has %s" % ", ".join(keys))
                return
            n, je, jr, me = (float(st[k]) for k in keys)
        check(n > 0 and jr > 1.0, "steps accepted above the ratio under the jump rule: %d "
              "(largest one-time error's ratio %.3g)" % (n, jr))
        check(0.0 < je <= 1.0, "their one-time error r h / t_span %.3g <= 1" % je)
        check(me <= 1.0, "max_error %.3g <= 1: the steps accepted on the ratio" % me)
        line = [x for x in p.stdout.splitlines() if x.lstrip().startswith("jump rule")]
        check(len(line) == 1 and (" %d steps" % n) in line[0],
              "summary's jump-rule line: %s" % (line[0].strip() if line else "-"))


if __name__ == "__main__":
    main()
    sys.exit(1 if failures else 0)
