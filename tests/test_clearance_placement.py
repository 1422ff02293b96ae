#!/usr/bin/python3
"""A clearance joint means the same under `joints:` (cases/slider_crank_clearance.yaml) and
under `forces:`: the shipped case and the same file with the item moved to a
`forces:` section, with non-default keys added to the item (flores damping, restitution,
friction, thresholds, eta/d_max unused by flores but given), run 0.05 s: every dataset of
/joints/B/clearance, /bodies and /energy is identical bit for bit, and each of the added
keys changes the result (so a key dropped on one of the two paths would show).

usage: test_clearance_placement.py FLEXMB SRC
"""
import os
import re
import subprocess
import sys
import tempfile

import h5py
import numpy as np

flexmb, src = sys.argv[1], sys.argv[2]
text = open(os.path.join(src, "cases", "slider_crank_clearance.yaml")).read()
ITEM = "  - name: B\n"
EXTRA = ("    damping: flores\n    restitution: 0.6\n    v_min: 2e-3\n    v_s: 2e-4\n"
         "    v_d: 3e-3\n")
failures = 0


def item_bounds(t):
    a = t.index(ITEM)
    b = t.find("\n  - ", a + 1)
    b = len(t) if b < 0 else b + 1
    return a, b


def under_forces(t):
    """The same case with item B moved from joints: to a forces: section at the end."""
    a, b = item_bounds(t)
    item = t[a:b]
    assert not re.search(r"^forces:", t, re.M), "the case has a forces: section: adapt the test"
    return t[:a] + t[b:].rstrip("\n") + "\nforces:\n" + item


def with_keys(t, extra):
    a, b = item_bounds(t)
    item = t[a:b].rstrip("\n") + "\n" + extra
    return t[:a] + item + t[b:]


def run(tmp, name, case_text):
    case = os.path.join(tmp, name + ".yaml")
    with open(case, "w") as f:
        f.write(case_text)
    out = os.path.join(tmp, name + ".h5")
    cmd = [flexmb, "run", case, "-o", out, "--quiet", "--set", "revs=0.1667",
           "--set", "mu=0.08", "--set", "mu_d=0.05", "--set", "clearance=1e-4"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        sys.exit("FAIL: %s\n%s" % (" ".join(cmd), r.stderr))
    data = {}
    with h5py.File(out, "r") as f:
        def visit(path, obj):
            if isinstance(obj, h5py.Dataset) and (path.startswith("joints/B/clearance")
                                                  or path.startswith("bodies/")
                                                  or path == "energy"):
                data[path] = obj[()]
        f.visititems(visit)
    return data


assert ITEM in text and "type: clearance" in text[text.index(ITEM):]
with tempfile.TemporaryDirectory() as tmp:
    j = run(tmp, "joints", with_keys(text, EXTRA))
    f = run(tmp, "forces", under_forces(with_keys(text, EXTRA)))
    plain = run(tmp, "plain", text)
print("%d datasets compared (joints/B/clearance, bodies, energy)" % len(j))
if sorted(j) != sorted(f) or not any(k.startswith("joints/B/clearance") for k in j):
    print("FAIL: dataset lists differ or no clearance output: %s vs %s" % (sorted(j), sorted(f)))
    failures += 1
for k in sorted(j):
    if k in f and not np.array_equal(j[k], f[k]):
        print("FAIL: %s differs between joints: and forces: (max |diff| %.3g)"
              % (k, np.max(np.abs(j[k] - f[k]))))
        failures += 1
# the added keys matter: without them the slider moves differently
d = np.max(np.abs(j["bodies/slider/qdd"] - plain["bodies/slider/qdd"]))
print("slider acceleration with / without the added keys: max |diff| %.3g m/s^2" % d)
if not d > 1.0:
    print("FAIL: the added keys change nothing (they would not test the two paths)")
    failures += 1
print("%d failure(s)" % failures)
sys.exit(1 if failures else 0)
