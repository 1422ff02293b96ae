"""Tests of `flexmb compare` (src/io/compare.c, compare_quantities.c) and `flexmb modes`
(src/cli/check.c).

usage: /usr/bin/python3 tests/test_compare.py FLEXMB compare
       /usr/bin/python3 tests/test_compare.py FLEXMB modes QUICK_RETURN.yaml

compare: runs a rigid slider-crank (written here, 0 degrees of freedom: the positions
are exact kinematics up to the Newton tolerance) with h = 1 ms (A) and h = 1.5 ms (B).
A's records at 1 and 2 ms past a B record fall inside B's steps, where the linear
interpolation of B errs by (t - tk)(tk+1 - t)/2 x''(t): the difference of the slider
position is then that error, max 0.5 ms * 1 ms / 2 * max|x''| with
max|x''| = r w^2 (1 + r/L) = 13.33 m/s^2 at top dead centre, i.e. 3.33e-6 m; the RMS
from the same formula over A's records. Checks the table and CSV against this estimate,
recomputes every CSV row with numpy (np.interp of B onto A's times), checks that two
identical files give exactly zero everywhere, the PNG (scripts/plot_compare.py), the
CSV-only fallback without python, and the exit status for a missing file.

modes: the first natural frequencies of the quick-return rocker (12 mm steel rod,
0.6 m, pinned-pinned) against Euler-Bernoulli: w_n = (n pi)^2 sqrt(EI / (rho A L^4)),
and exit 2 / 3 for an unknown / rigid body.
"""
import csv
import math
import os
import re
import subprocess
import sys
import tempfile

import h5py
import numpy as np

FAILURES = []

CASE = """# rigid slider-crank for tests/test_compare.py
title: slider-crank (compare test)
parameters:
  r: 0.1
  L: 0.3
  rhoA: 7.85
  ms: 0.5
  omega: 10
gravity: [0, -9.81]
solver: {integrator: hht, alpha: -0.05, h: %(h)s, t_end: 0.3}
bodies:
  - name: crank
    mass: rhoA*r
    bar: r
    pose: [0, 0, 0]
    velocity: [0, 0, omega]
  - name: rod
    mass: rhoA*L
    bar: L
    pose: [r, 0, 0]
  - name: slider
    mass: ms
    inertia: ms*(0.1^2 + 0.05^2)/12
    pose: [r + L, 0, 0]
joints:
  - name: O
    type: revolute
    bodies: [ground, crank]
    points: [[0, 0], start]
  - name: A
    type: revolute
    bodies: [crank, rod]
    points: [end, start]
  - name: B
    type: revolute
    bodies: [rod, slider]
    points: [end, [0, 0]]
  - name: guide
    type: prismatic
    bodies: [slider, ground]
    points: [[0, 0], [0, 0]]
    axis: [1, 0]
  - name: motor
    type: driver
    coordinate: angle
    bodies: [crank, ground]
    function: omega*t
"""


def check(cond, msg):
    if not cond:
        FAILURES.append(msg)
    print(("ok:   " if cond else "FAIL: ") + msg)


def run(cmd, env=None, cwd=None):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env, cwd=cwd)
    print("$ " + " ".join(cmd) + "  -> exit %d" % p.returncode)
    if p.returncode != 0 or len(p.stdout) < 4000:
        print(p.stdout, p.stderr, sep="")
    return p


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return {r["quantity"]: r for r in csv.DictReader(f)}


def recompute(a, b, dataset, column):
    """max |A - B(tA)|, rms, max |A| over A's records in the common interval."""
    with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
        ta, tb = fa["time"][:], fb["time"][:]
        ya = fa[dataset][:].reshape(len(ta), -1)[:, column]
        yb = fb[dataset][:].reshape(len(tb), -1)[:, column]
    lo, hi = max(ta[0], tb[0]), min(ta[-1], tb[-1])
    tol = 1e-9 * max(abs(lo), abs(hi), 1e-3)
    m = (ta >= lo - tol) & (ta <= hi + tol)
    d = ya[m] - np.interp(ta[m], tb, yb)
    return np.max(np.abs(d)), np.sqrt(np.mean(d * d)), np.max(np.abs(ya[m]))


def test_compare(flexmb):
    with tempfile.TemporaryDirectory(prefix="fmb_compare_") as tmp:
        files = {}
        for name, h in (("a", "1e-3"), ("b", "1.5e-3")):
            case = os.path.join(tmp, "sc_%s.yaml" % name)
            with open(case, "w", encoding="utf-8") as f:
                f.write(CASE % {"h": h})
            files[name] = os.path.join(tmp, "%s.h5" % name)
            p = run([flexmb, "run", case, "-q", "-o", files[name]])
            check(p.returncode == 0, "run with h = %s" % h)
        a, b = files["a"], files["b"]

        # --- A against B
        prefix = os.path.join(tmp, "ab")
        p = run([flexmb, "compare", a, b, "-o", prefix, "--only", "all", "--noise", "0"])
        check(p.returncode == 0, "compare exit 0")
        check("common interval: [0, 0.3] s, 301 records of A" in p.stdout,
              "table header: common interval and record count")
        rows = read_csv(prefix + ".csv")
        for q in ("bodies/slider/pose[x]", "bodies/crank/pose[angle]", "bodies/rod/q[theta]",
                  "bodies/slider/qdd[rbar_x]", "joints/guide/reaction[Fy1]", "energy[total]"):
            check(q in rows, "CSV has the row %s" % q)
            check(re.search(r"^\s+%s\s" % re.escape(q), p.stdout, re.M) is not None,
                  "table has the row %s" % q)
        check(not any(k.startswith("sliders/") for k in rows),
              "no slider rows for a model without slider_beam joints")

        # hand estimate of the interpolation error of x_B (slider position)
        r_, L_, w_ = 0.1, 0.3, 10.0
        est_max = 0.5e-3 * 1e-3 / 2 * r_ * w_**2 * (1 + r_ / L_)
        ta = np.arange(301) * 1e-3
        tk = np.floor(ta / 1.5e-3 + 1e-9) * 1.5e-3
        wt = w_ * ta
        xdd = -r_ * w_**2 * (np.cos(wt) + (r_ / L_) * np.cos(2 * wt))  # leading order
        err = (ta - tk) * (tk + 1.5e-3 - ta) / 2 * np.abs(xdd)
        err[np.isclose(ta - tk, 0, atol=1e-12)] = 0.0
        est_rms = np.sqrt(np.mean(err**2))
        got = rows["bodies/slider/pose[x]"]
        gmax, grms = float(got["max_abs_diff"]), float(got["rms_diff"])
        print("slider x: max|A-B| %.4e (estimate %.4e), rms %.4e (estimate %.4e)"
              % (gmax, est_max, grms, est_rms))
        check(abs(gmax - est_max) < 0.02 * est_max,
              "max |A - B| of the slider position %.4e = hand estimate %.4e within 2%%"
              % (gmax, est_max))
        check(abs(grms - est_rms) < 0.05 * est_rms,
              "rms of the slider position difference %.4e = estimate %.4e within 5%%"
              % (grms, est_rms))
        check(float(got["t_max_diff"]) in (0.001, 0.002), "max difference next to t = 0")
        check(float(rows["bodies/crank/pose[angle]"]["max_abs_diff"]) < 1e-9,
              "driven crank angle: linear in t, interpolation exact (%s)"
              % rows["bodies/crank/pose[angle]"]["max_abs_diff"])

        # every row against an independent recomputation
        # (tolerance: relative 1e-9, plus round-off of the interpolation, 1e-13 max|A|)
        worst, wq = 0.0, ""
        for q, r in rows.items():
            m, s, ma = recompute(a, b, r["dataset"], int(r["column"]))
            for key, ref in (("max_abs_diff", m), ("rms_diff", s), ("max_abs_a", ma)):
                e = abs(float(r[key]) - ref) / (1e-9 * abs(ref) + 1e-13 * ma + 1e-300)
                if e > worst:
                    worst, wq = e, "%s %s: %s vs numpy %.17g" % (q, key, r[key], ref)
        check(worst <= 1, "every CSV row equals numpy's recomputation (worst: %s)" % wq)
        with open(prefix + ".png", "rb") as f:
            check(f.read(8) == b"\x89PNG\r\n\x1a\n", "PNG written by scripts/plot_compare.py")
        check("plot: " + prefix + ".png" in p.stdout, "summary names the PNG")

        # --- identical files: exactly zero
        a2 = os.path.join(tmp, "a_copy.h5")
        with open(a, "rb") as src, open(a2, "wb") as dst:
            dst.write(src.read())
        p = run([flexmb, "compare", a, a2, "-o", os.path.join(tmp, "aa"), "-q", "--only", "all"])
        check(p.returncode == 0 and p.stdout == "", "compare -q: exit 0, no table")
        rows = read_csv(os.path.join(tmp, "aa.csv"))
        check(len(rows) > 30, "identical files: %d rows" % len(rows))
        check(all(float(r["max_abs_diff"]) == 0.0 and float(r["rms_diff"]) == 0.0
                  for r in rows.values()), "identical files: every difference exactly 0")

        # --- B against A (B's records interpolated the other way round), default prefix
        p = run([flexmb, "compare", b, a, "-q", "--noise", "0"], cwd=tmp)
        check(p.returncode == 0 and os.path.exists(os.path.join(tmp, "b_vs_a.csv")),
              "default prefix B_vs_A in the current directory")
        rows = read_csv(os.path.join(tmp, "b_vs_a.csv"))
        # B's odd records (1.5, 4.5 ms, ...) fall midway between two of A's: (0.5 ms)^2 / 2
        est = 0.5e-3**2 / 2 * r_ * w_**2 * (1 + r_ / L_)
        got = float(rows["bodies/slider/pose[x]"]["max_abs_diff"])
        check(abs(got - est) < 0.02 * est,
              "B against A: max |B - A| %.4e = hand estimate %.4e within 2%%" % (got, est))

        # --- no python: CSV only, still success
        env = dict(os.environ, FMB_PYTHON=os.path.join(tmp, "no_python"))
        p = run([flexmb, "compare", a, b, "-o", os.path.join(tmp, "nopy")], env=env)
        check(p.returncode == 0 and os.path.exists(os.path.join(tmp, "nopy.csv"))
              and not os.path.exists(os.path.join(tmp, "nopy.png")),
              "without python: exit 0, CSV, no PNG")
        check("note" in p.stderr, "without python: a note on stderr")

        # --- errors
        p = run([flexmb, "compare", a, os.path.join(tmp, "missing.h5")])
        check(p.returncode == 2 and "missing.h5" in p.stderr, "missing file: exit 2, named")
        p = run([flexmb, "compare", a])
        check(p.returncode == 1, "one file only: usage error")
        p = run([flexmb, "compare", a, b, "--set", "x=1"])
        check(p.returncode == 1, "--set with compare: usage error")
        p = run([flexmb, "compare", a, b, "--only", "forces"])
        check(p.returncode == 1 and "--only" in p.stderr, "unknown kind: usage error")
        p = run([flexmb, "compare", a, b, "--by", "no_such_body", "-o", os.path.join(tmp, "x")])
        check(p.returncode == 3 and "no_such_body" in p.stderr, "--by unknown body: exit 3")

        # --- default: the engineer's set (the slider's x, y on its ground guide, joint
        # forces, the drive torque), no solver coordinates; units on every row; --only
        # reactions: without the duplicated forces on body 2
        p = run([flexmb, "compare", a, b, "-o", os.path.join(tmp, "def")])
        rows = read_csv(os.path.join(tmp, "def.csv"))
        check(set(rows) == {"bodies/slider/pose[x]", "joints/O/force_magnitude",
                            "joints/A/force_magnitude", "joints/B/force_magnitude",
                            "joints/guide/force_magnitude", "joints/motor/drive_torque"},
              "default set: slider x (its y stays 0: left out), joint forces, drive torque "
              "(%s)" % sorted(rows))
        check(all(r["unit"] in ("m", "rad", "N", "N m", "J") for r in rows.values()),
              "every row has a unit")
        p = run([flexmb, "compare", a, b, "-o", os.path.join(tmp, "rea"), "--only", "reactions"])
        rows = read_csv(os.path.join(tmp, "rea.csv"))
        names = {q.split("[", 1)[1].rstrip("]") for q in rows if "/reaction[" in q}
        check(names <= {"Fx1", "Fy1", "Mz1", "Mz2"} and {"Fx1", "Fy1"} <= names,
              "reactions: Fx1, Fy1, Mz1, Mz2 only (%s)" % sorted(names))
        check(re.search(r"^\s+reactions\s+\S+\s+\S+\s+joints/", p.stdout, re.M) is not None,
              "headline per kind")


QR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cases", "quick_return.yaml")


def test_compare_angle(flexmb):
    """Runs of the rigid quick-return at 5 and 10 rad/s recorded at the same crank angles
    (out_every 20 and 10, dt 1e-4, 3 rad of crank angle so that both end on a record of
    the same grid; an end off the grid would be compared by interpolation): the kinematics depend on the crank angle only, so
    against the crank angle every pose difference is zero (below the noise floor), while
    against time they differ and the reactions (inertia forces ~ omega^2) differ too."""
    with tempfile.TemporaryDirectory(prefix="fmb_compare_") as tmp:
        a, b = os.path.join(tmp, "w5.h5"), os.path.join(tmp, "w10.h5")
        for out, w, every in ((a, 5, 20), (b, 10, 10)):
            p = run([flexmb, "run", QR, "-q", "-o", out, "--set", "rigid_rocker=1", "--set",
                     "omega=%d" % w, "--set", "out_every=%d" % every, "--set",
                     "revolutions=3/(2*pi)"])
            check(p.returncode == 0, "rigid quick-return at %d rad/s" % w)
        pre = os.path.join(tmp, "ang")
        p = run([flexmb, "compare", a, b, "--by", "crank", "--wrap", "-o", pre])
        check(p.returncode == 0, "compare --by crank")
        rows = read_csv(pre + ".csv")
        poses = [r for r in rows.values() if r["kind"] == "poses"]
        check(len(poses) == 2, "default set: the ram's x and y (%d pose rows)" % len(poses))
        p = run([flexmb, "compare", a, b, "--by", "crank", "--wrap", "-o", pre, "--only",
                 "poses,reactions"])
        rows = read_csv(pre + ".csv")
        poses = [r for r in rows.values() if r["kind"] == "poses"]
        # the pose columns not identically zero (within 1e-9 of the largest of their
        # unit) in the two files; the others (the crank pivot's x, y, the ram's angle) are
        # left out
        live = 0
        with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
            peak = {}
            for f in (fa, fb):
                for body in f["bodies"]:
                    m = np.max(np.abs(f["bodies/%s/pose" % body][:]), axis=0)
                    peak[body] = np.maximum(peak.get(body, 0), m)
            top = {"m": max(max(v[:2]) for v in peak.values()),
                   "rad": max(v[2] for v in peak.values())}
            live = sum(int(v[k] > 1e-9 * top["m" if k < 2 else "rad"])
                       for v in peak.values() for k in range(3))
        check(len(poses) == live and live < 15,
              "%d pose rows: the %d of 15 not zero in both runs" % (len(poses), live))
        check(all(float(r["max_abs_diff"]) == 0.0 for r in poses),
              "every pose difference is zero against the crank angle")
        check(float(rows["joints/O2/reaction[Fy1]"]["max_abs_diff"]) > 1.0,
              "the reactions differ (inertia forces)")
        check(all(0 <= float(r["at_max_diff"]) < 360 for r in rows.values()), "--wrap: [0, 360)")
        p = run([flexmb, "compare", a, b, "-o", os.path.join(tmp, "time")])
        rows = read_csv(os.path.join(tmp, "time.csv"))
        check(float(rows["bodies/sliderE/pose[x]"]["max_abs_diff"]) > 1e-3,
              "against time the poses differ")


def test_compare_engineer(flexmb):
    """Rigid against flexible quick-return at 5 rad/s, a quarter revolution: the default
    (engineer's) set ranked against the mechanism's scales. The headline quantities are
    the ram position, a pin force or the drive torque, each at least 1e-3 of the
    mechanism scale of its unit (recomputed here from the files: the largest value of any
    joint force, or of the drive torque); no row is zero in both runs; --quantity picks
    quantities by label, prefix or pattern, and an unmatched one is an error naming it."""
    with tempfile.TemporaryDirectory(prefix="fmb_compare_") as tmp:
        a, b = os.path.join(tmp, "flex.h5"), os.path.join(tmp, "rigid.h5")
        for out, rigid in ((a, 0), (b, 1)):
            p = run([flexmb, "run", QR, "-q", "-o", out, "--set", "omega=5", "--set",
                     "revolutions=0.25", "--set", "rigid_rocker=%d" % rigid])
            check(p.returncode == 0, "quick-return, rigid_rocker = %d" % rigid)
        pre = os.path.join(tmp, "fr")
        p = run([flexmb, "compare", a, b, "-o", pre])
        check(p.returncode == 0, "compare flexible against rigid: exit 0")
        with open(pre + ".csv", newline="", encoding="utf-8") as f:
            ranked = sorted(csv.DictReader(f), key=lambda r: int(r["rank"]))
        with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
            joints = [j for j in fa["joints"] if j in fb["joints"]]
            fmax = max(np.max(f["joints/%s/force_magnitude" % j][:]) for f in (fa, fb)
                       for j in joints)
            tmax = max(np.max(np.abs(f["joints/motor/drive_torque"][:])) for f in (fa, fb))
            xa, xb = fa["bodies/sliderE/pose"][:, 0], fb["bodies/sliderE/pose"][:, 0]
            dx = np.max(np.abs(xa - np.interp(fa["time"][:], fb["time"][:], xb)))
            zero = [j for j in joints
                    if not np.any(fa["joints/%s/force_magnitude" % j][:])
                    and not np.any(fb["joints/%s/force_magnitude" % j][:])]
        wanted = re.compile(r"^(bodies/sliderE/pose\[x\]|joints/[^/]+/force_magnitude|"
                            r"joints/motor/drive_torque)$")
        head = ranked[:3]
        print("headline:", [(r["quantity"], r["mech_rel_diff"]) for r in head])
        check(len(head) == 3 and all(wanted.match(r["quantity"]) for r in head),
              "the headline is the ram position, pin forces or the drive torque")
        for r in head:
            d = float(r["max_abs_diff"])
            scale = fmax if r["unit"] == "N" else tmax if r["unit"] == "N m" else None
            if scale is None:
                continue
            check(abs(float(r["scale"]) / scale - 1) < 1e-12 and d / scale >= 1e-3,
                  "%s: %.4g %s = %.3g of the mechanism's %.4g %s (>= 1e-3)"
                  % (r["quantity"], d, r["unit"], d / scale, scale, r["unit"]))
        check(re.search(r"^\s+1\. (joints|bodies)/\S+", p.stdout, re.M) is not None,
              "the summary lists the headline")
        q = {r["quantity"]: r for r in ranked}
        check("bodies/sliderE/pose[x]" in q
              and abs(float(q["bodies/sliderE/pose[x]"]["max_abs_diff"]) - dx) <= 1e-12,
              "ram position difference %.4g m = numpy's" % dx)
        check(zero and all("joints/%s/force_magnitude" % j not in q for j in zero),
              "joint forces zero in both runs (%s) are left out" % zero)
        check(all(float(r["max_abs_a"]) > 0 or float(r["max_abs_b"]) > 0 for r in ranked),
              "no row is zero in both runs")
        check(all(r["unit"] in ("m", "N", "N m") for r in ranked), "units m, N, N m")
        # the plot (scripts/plot_compare.py by hand, as compare runs it): the panels are
        # the ranking's first rows at >= 1e-3 of their scale, every axis with a unit
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts",
                              "plot_compare.py")
        q = run(["/usr/bin/python3", script, pre + ".csv", a, b, pre + "_p.png"])
        panels = re.findall(r"^plot_compare: panel (\S+): axes (.*)$", q.stdout, re.M)
        big = [r["quantity"] for r in ranked if float(r["mech_rel_diff"]) >= 1e-3][:6]
        check(q.returncode == 0 and [p_[0] for p_ in panels] == big,
              "plot: panels %s = the ranking's rows at >= 1e-3 of their scale %s"
              % ([p_[0] for p_ in panels], big))
        check(panels and all(all(re.search(r"\[(s|m|N|N m)\]$", ax.strip())
                                 for ax in p_[1].split(" ; ")) for p_ in panels),
              "plot: a unit on every axis (%s)" % [p_[1] for p_ in panels])
        # --only reactions --noise 0: exactly the columns that are not zero in both files
        p = run([flexmb, "compare", a, b, "-o", pre + "r", "--only", "reactions", "--noise", "0"])
        got = set(read_csv(pre + "r.csv"))
        want = set()
        with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
            for j in joints:
                for col, name in ((0, "Fx1"), (1, "Fy1"), (2, "Mz1"), (5, "Mz2")):
                    if any(np.any(f["joints/%s/reaction" % j][:, col]) for f in (fa, fb)):
                        want.add("joints/%s/reaction[%s]" % (j, name))
                for leaf in ("force_magnitude", "drive_torque", "drive_force"):
                    path = "joints/%s/%s" % (j, leaf)
                    if path in fa and path in fb and (np.any(fa[path][:]) or np.any(fb[path][:])):
                        want.add(path)
        check(got == want, "--only reactions: the %d columns not zero in both runs (extra %s, "
              "missing %s)" % (len(want), sorted(got - want), sorted(want - got)))
        # --quantity
        p = run([flexmb, "compare", a, b, "-o", pre + "q", "--quantity",
                 "bodies/sliderE/pose[x]", "--quantity", "joints/B"])
        got = set(read_csv(pre + "q.csv"))
        check(p.returncode == 0 and "bodies/sliderE/pose[x]" in got
              and "joints/B/force_magnitude" in got and "joints/B/reaction[Fy1]" in got
              and all(k == "bodies/sliderE/pose[x]" or k.startswith("joints/B/") for k in got),
              "--quantity: a label and a prefix (%s)" % sorted(got))
        p = run([flexmb, "compare", a, b, "-o", pre + "p", "--quantity", "joints/*/drive_torque"])
        check(set(read_csv(pre + "p.csv")) == {"joints/motor/drive_torque"}, "--quantity: a pattern")
        p = run([flexmb, "compare", a, b, "-o", pre + "x", "--quantity", "joints/nope"])
        check(p.returncode == 3 and "joints/nope" in p.stderr, "unmatched --quantity: exit 3, named")


def hermite(x0, v, ph, xs):
    e = min(max(int(np.searchsorted(x0, xs, side="right")) - 1, 0), len(x0) - 2)
    l = x0[e + 1] - x0[e]
    t = (xs - x0[e]) / l
    h = (1 - 3 * t**2 + 2 * t**3, l * (t - 2 * t**2 + t**3), 3 * t**2 - 2 * t**3, l * (t**3 - t**2))
    return h[0] * v[:, e] + h[1] * ph[:, e] + h[2] * v[:, e + 1] + h[3] * ph[:, e + 1]


def test_compare_mesh(flexmb):
    """The flexible quick-return on 10 and 20 rocker elements: the deflection rows compare
    11 stations along the rocker; each row's max|A - B| equals an independent Hermite
    interpolation of each file's nodal deflections and slopes (numpy) to round-off."""
    with tempfile.TemporaryDirectory(prefix="fmb_compare_") as tmp:
        a, b = os.path.join(tmp, "e10.h5"), os.path.join(tmp, "e20.h5")
        for out, n in ((a, 10), (b, 20)):
            p = run([flexmb, "run", QR, "-q", "-o", out, "--set", "n_el=%d" % n, "--set",
                     "omega=10", "--set", "revolutions=0.05"])
            check(p.returncode == 0, "quick-return, %d elements" % n)
        pre = os.path.join(tmp, "mesh")
        p = run([flexmb, "compare", a, b, "--only", "deflection", "-o", pre, "--noise", "0"])
        check(p.returncode == 0, "compare deflection across meshes")
        rows = [r for r in read_csv(pre + ".csv").values() if r["kind"] == "deflection"]
        xs_rows = sorted(float(r["column_name"].split("=")[1]) for r in rows)
        check(len(rows) == 9 and 0.0 not in xs_rows and 0.6 not in xs_rows,
              "11 stations less the two supports, where v = 0 in both runs (%s)" % xs_rows)
        with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
            ga, gb = fa["beams/rocker"], fb["beams/rocker"]
            ta, tb = fa["time"][:], fb["time"][:]
            worst = 0.0
            for r in rows:
                xs = float(r["column_name"].split("=")[1])
                ya = hermite(ga["x0"][:], ga["deflection"][:], ga["slope"][:], xs)
                yb = hermite(gb["x0"][:], gb["deflection"][:], gb["slope"][:], xs)
                d = np.max(np.abs(ya - np.interp(ta, tb, yb)))
                worst = max(worst, abs(d - float(r["max_abs_diff"])) / max(d, 1e-300))
        print("deflection stations: worst relative mismatch with numpy %.3g" % worst)
        check(worst < 1e-9, "station differences equal the Hermite recomputation")


def test_modes(flexmb, case):
    p = run([flexmb, "modes", case, "rocker", "-n", "3"])
    check(p.returncode == 0, "modes exit 0")
    om = [float(m.group(1)) for m in re.finditer(r"^\s+\d+\s+(\S+)\s+\S+\s*$", p.stdout, re.M)]
    check(len(om) == 3, "three frequencies listed (%d)" % len(om))
    E, rho, d, L = 200e9, 7800.0, 0.012, 0.6
    A, I = math.pi * d**2 / 4, math.pi * d**4 / 64
    for n, w in enumerate(om[:2], 1):
        exact = (n * math.pi)**2 * math.sqrt(E * I / (rho * A * L**4))
        check(abs(w - exact) < 2e-3 * exact,
              "mode %d: %.6g rad/s, Euler-Bernoulli %.6g rad/s" % (n, w, exact))
    hz = [float(m.group(2)) for m in re.finditer(r"^\s+\d+\s+(\S+)\s+(\S+)\s*$", p.stdout, re.M)]
    check(all(abs(h - w / (2 * math.pi)) < 1e-6 * w for h, w in zip(hz, om)), "Hz = rad/s / 2 pi")
    p = run([flexmb, "modes", case, "rocker"])
    check(p.returncode == 0 and len(re.findall(r"^\s+\d+\s+\S+\s+\S+\s*$", p.stdout, re.M)) == 6,
          "default: 6 frequencies")
    p = run([flexmb, "modes", case, "crank"])
    check(p.returncode == 3 and "rigid" in p.stderr, "rigid body: exit 3")
    p = run([flexmb, "modes", case, "no_such_body"])
    check(p.returncode == 2 and "no_such_body" in p.stderr and "rocker" in p.stderr,
          "unknown body: exit 2, lists the beams")
    # without BODY: the mechanism's modes (values checked in test_mech_modes.c); the
    # first one at the start against the hand estimate of docs/theory.md section 11
    # (219 rad/s from the overhang's stiffness and the ram and link masses, within 10 %)
    p = run([flexmb, "modes", case, "-n", "2"])
    check(p.returncode == 0 and "mechanism modes at t = 0 s" in p.stdout,
          "no body: mechanism modes")
    rows = [l.split() for l in p.stdout.splitlines() if l.strip().startswith("1 ")]
    check(rows and abs(float(rows[0][1]) / 219.0 - 1) < 0.1,
          "first mechanism mode near the hand estimate 219 rad/s")
    check("negative omega" not in p.stdout,
          "every mode positive: no note on negative omega")
    # an inverted bar pendulum (pin at its lower end, upright under gravity) is statically
    # unstable: lambda = -m g (L/2) / (m L^2 / 3) < 0, omega = -sqrt(3 g / (2 L))
    with tempfile.TemporaryDirectory(prefix="fmb_modes_") as tmp:
        inv = os.path.join(tmp, "inverted.yaml")
        with open(inv, "w", encoding="utf-8") as f:
            f.write("gravity: [0, -9.81]\nsolver: {h: 1e-3, t_end: 0.01}\nbodies:\n"
                    "  - {name: arm, mass: 1, bar: 1, pose: [0, 0, pi/2]}\njoints:\n"
                    "  - {name: pin, type: revolute, bodies: [ground, arm], "
                    "points: [[0, 0], start]}\n")
        p = run([flexmb, "modes", inv, "-n", "1"])
        rows = [l.split() for l in p.stdout.splitlines() if l.strip().startswith("1 ")]
        want = -math.sqrt(3 * 9.81 / 2)
        check(p.returncode == 0 and rows and abs(float(rows[0][1]) / want - 1) < 1e-6,
              "inverted pendulum: omega %s = -sqrt(3 g / (2 L)) = %.6g"
              % (rows[0][1] if rows else "?", want))
        check("negative omega" in p.stdout, "negative omega: the note explains it")
    p = run([flexmb, "modes", case, "rocker", "--at", "0.1"])
    check(p.returncode == 1, "--at with a body: usage error")
    p = run([flexmb, "modes", case, "rocker", "-n", "0"])
    check(p.returncode == 1, "-n 0: usage error")


def main(argv):
    flexmb, what = os.path.abspath(argv[1]), argv[2]
    if what == "compare":
        test_compare(flexmb)
    elif what == "compare_angle":
        test_compare_angle(flexmb)
    elif what == "compare_engineer":
        test_compare_engineer(flexmb)
    elif what == "compare_mesh":
        test_compare_mesh(flexmb)
    elif what == "modes":
        test_modes(flexmb, argv[3])
    else:
        print(__doc__)
        return 2
    print("%d failure(s)" % len(FAILURES))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
