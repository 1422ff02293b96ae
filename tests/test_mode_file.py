"""Mode files (`flexmb modes CASE -o FILE`, docs/output.md "Mode files"): the pinned-
pinned bar with a mid-span mass (tests/modes/beam_mass.yaml). Record k is mode k: time =
[1, 2, 3]; /modes/omega equals the listed frequencies; the bar's nodal deflection in
record 2 (the first bending mode) has the shape of the analytic mode
w(x) = sin(beta x) - cos(a)/cosh(a) sinh(beta x) (symmetric about mid-span, a = beta L/2
from r a (tan a - tanh a) = 2): modal assurance criterion >= 0.99999; the energy shares
of each mode sum to 1; the XDMF sidecar lists 3 time steps.
usage: test_mode_file.py FLEXMB SRC_DIR
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


def main():
    flexmb, src = sys.argv[1], sys.argv[2]
    case = os.path.join(src, "tests", "modes", "beam_mass.yaml")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "m.h5")
        p = subprocess.run([flexmb, "modes", case, "-n", "3", "-o", out], capture_output=True,
                           text=True)
        print(p.stdout, p.stderr)
        check(p.returncode == 0, "modes -o exit 0")
        listed = [float(m.group(1)) for m in re.finditer(r"^\s+\d+\s+(\S+)\s+\S+ ", p.stdout,
                                                         re.M)]
        with h5py.File(out, "r") as f:
            check(list(f["time"][:]) == [1.0, 2.0, 3.0], "time = mode numbers")
            om = f["modes/omega"][:].ravel()
            check(len(listed) == 3 and np.allclose(om, listed, rtol=1e-7), "omega as listed")
            sh = f["modes/energy_share"][:]
            check(np.allclose(sh.sum(axis=1), 1.0, atol=1e-12), "energy shares sum to 1")
            x0 = f["beams/bar/x0"][:]
            v = f["beams/bar/deflection"][1]
        L, d, Mp, rho = 0.6, 0.012, 0.3, 7800.0
        A = math.pi * d * d / 4
        r = Mp / (rho * A * L)
        lo, hi = 1e-9, math.pi / 2 - 1e-15
        for _ in range(200):
            a = 0.5 * (lo + hi)
            if r * a * (math.tan(a) - math.tanh(a)) - 2 > 0:
                hi = a
            else:
                lo = a
        beta = 2 * a / L
        xh = np.minimum(x0, L - x0)  # symmetric mode: mirror the right half
        w = np.sin(beta * xh) - math.cos(a) / math.cosh(a) * np.sinh(beta * xh)
        mac = np.dot(v, w) ** 2 / (np.dot(v, v) * np.dot(w, w))
        print("first bending mode: MAC against the analytic shape %.9f" % mac)
        check(mac >= 0.99999, "mode shape matches the analytic one")
        with open(os.path.splitext(out)[0] + ".xmf", encoding="utf-8") as f:
            text = f.read()  # one temporal collection per grid
            check(text.count("<Time ") == 3 * text.count('"Temporal"') > 0,
                  "XDMF lists 3 time steps")
    print("FAILED" if failures else "passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
