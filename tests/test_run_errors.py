#!/usr/bin/python3
"""A run that fails mid-way keeps its results: a slider driven off the end of its
elastic guide (tests/run_cases/slider_off_guide.yaml, guide from 0 to 0.5 m, slider at
0.3 + t m/s) must stop with exit code 4 and "CASE:LINE: error: slider 'ride' ran off its
guide ..." (LINE of the joint), near t = 0.2 s, and leave a readable HDF5 file whose
datasets all hold the same records, the last one before t = 0.2 s.

usage: test_run_errors.py FLEXMB CASE OUTDIR
"""
import os
import re
import subprocess
import sys

import h5py
import numpy as np


def main():
    flexmb, case, outdir = sys.argv[1:4]
    os.makedirs(outdir, exist_ok=True)
    out = os.path.join(outdir, "off_guide.h5")
    p = subprocess.run([flexmb, "run", case, "-o", out, "--quiet"], capture_output=True,
                       text=True)
    print(p.stderr.strip())
    ok = True
    if p.returncode != 4:
        print(f"FAIL: exit code {p.returncode}, expected 4 (run failure)")
        ok = False
    joint_line = next(i + 1 for i, l in enumerate(open(case)) if "name: ride" in l)
    m = re.search(r"^(.*):(\d+): error: slider 'ride' ran off its guide 'guide' at t = "
                  r"([0-9.eE+-]+): material coordinate ([0-9.eE+-]+) m", p.stderr, re.M)
    if not m:
        print("FAIL: message not found")
        ok = False
    else:
        t_off = float(m.group(3))
        if m.group(1) != case or int(m.group(2)) != joint_line:
            print(f"FAIL: location {m.group(1)}:{m.group(2)}, expected {case}:{joint_line}")
            ok = False
        # the slider reaches x = 0.5 at t = 0.2 s: the failing step ends just after
        if not (0.2 <= t_off <= 0.2 + 1e-3 + 1e-12):
            print(f"FAIL: stopped at t = {t_off}, expected in [0.2, 0.201]")
            ok = False
    with h5py.File(out, "r") as f:
        t = f["time"][:]
        n = len(t)
        lengths = set()

        def visit(name, obj):
            if isinstance(obj, h5py.Dataset) and obj.shape and obj.maxshape[0] is None:
                lengths.add(obj.shape[0])
        f.visititems(visit)
        print(f"{n} records, last t = {t[-1]:.4f} s, dataset lengths {sorted(lengths)}")
        if lengths != {n}:
            print("FAIL: datasets of different lengths")
            ok = False
        if not (0.19 < t[-1] < 0.2 + 1e-12) or not np.all(np.diff(t) > 0):
            print("FAIL: the records do not end at the last accepted step before 0.2 s")
            ok = False
        s = f["sliders/ride/s"][:]
        if not np.allclose(s, 0.3 + t, atol=1e-9):
            print("FAIL: /sliders/ride/s differs from 0.3 + t")
            ok = False
    print("1 passed, 0 failed" if ok else "0 passed, 1 failed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
