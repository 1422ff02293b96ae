"""Drivers from the expression functions, run through the integrator.

A bar pinned to the ground at its start is driven in angle by f(t); the recorded angle,
rate and angular acceleration are compared with hand formulas:
  - step(t, 0, 0, 1, 1) = 3s^2 - 2s^3 (s = t clipped to [0, 1]), rate 6s(1 - s),
    acceleration 6 - 12s; step5(t, 0, 0, 1, 1) = 10s^3 - 15s^4 + 6s^5, rate 30s^2(1 - s)^2,
    acceleration 60s(1 - s)(1 - 2s); the ramp if(t < 1, t^2/2, t - 1/2): rate min(t, 1),
    acceleration 1 then 0.
    At t = 0 the consistent start solves for the acceleration with the driver's exact
    f''(0+) (6, 0 and 1): checked to 1e-9. Later the rate and acceleration are the HHT
    integrator's (h = 1e-3), whose error for a prescribed motion is O(h^2 f''') ~ 1e-5;
    the angle is the constraint itself (phi_tol 1e-11).
  - table("lin.csv", t): the angle at knots and between them equals np.interp of the
    file's rows, the rate in the middle of each segment equals that segment's slope, and
    beyond the last row the angle is constant.
  - spline("sin.csv", t) through 21 samples of sin on [0, 2 pi] (knot spacing h_k): the
    angle is within the cubic-spline interpolation bound 5/384 h_k^4 max|sin''''| of
    sin(t) everywhere, the rate within h_k^3/24 max|sin''''| of cos(t) away from the two
    end segments (Hall & Meyer, J. Approx. Theory 16 (1976) 105, for the complete spline;
    a not-a-knot spline's end segments extrapolate the neighbouring cubic).
/solver: the integrator, its parameters and the coefficients it used, for an HHT, a
Newmark and a generalized-alpha run (hand formulas of docs/theory.md), and the table
files' paths and SHA-256 (hashlib).
A driver whose function turns NaN during the run stops it with the expression and time.
The example cases/motor_profile.yaml (step5 ramp times a spline of an encoder log made
from theta = 10 t + 0.01 sin(10 pi t)): crank angle and speed against the product rule
on the closed forms, within the spline bounds (knots every 10 ms).
usage: test_expr_drivers.py FLEXMB SRC_DIR
"""
import hashlib
import math
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


CASE = """title: driven bar
parameters: {{L: 1.0, m: 1.0}}
solver: {{integrator: {integ}, h: 1e-3, t_end: {t_end}}}
bodies:
  - {{name: bar, mass: m, bar: L, pose: [0, 0, 0]}}
joints:
  - {{name: pin, type: revolute, bodies: [ground, bar], points: [[0, 0], start]}}
  - name: motor
    type: driver
    bodies: [bar, ground]
    coordinate: angle
    function: {fn}
"""


def run(flexmb, tmp, fn, t_end, integ="hht", extra=()):
    case = os.path.join(tmp, "bar.yaml")
    with open(case, "w", encoding="utf-8") as f:
        f.write(CASE.format(fn=fn, t_end=t_end, integ=integ))
    out = os.path.join(tmp, "bar.h5")
    p = subprocess.run([flexmb, "run", case, "-q", "--force", "-o", out, *extra],
                       capture_output=True, text=True)
    return p, out


def series(out):
    with h5py.File(out, "r") as f:
        return (f["time"][:], f["bodies/bar/q"][:, 2], f["bodies/bar/qd"][:, 2],
                f["bodies/bar/qdd"][:, 2])


def at(t, x, tt):
    return x[int(np.argmin(abs(t - tt)))]


def ramps(flexmb, tmp):
    s = lambda t: min(max(t, 0.0), 1.0)
    cases = {
        "step(t, 0, 0, 1, 1)": (lambda t: 3 * s(t)**2 - 2 * s(t)**3,
                                lambda t: 6 * s(t) * (1 - s(t)),
                                lambda t: 6 - 12 * s(t) if t < 1 else 0.0),
        "step5(t, 0, 0, 1, 1)": (lambda t: 10 * s(t)**3 - 15 * s(t)**4 + 6 * s(t)**5,
                                 lambda t: 30 * s(t)**2 * (1 - s(t))**2,
                                 lambda t: 60 * s(t) * (1 - s(t)) * (1 - 2 * s(t))),
        "if(t < 1, t^2/2, t - 0.5)": (lambda t: t * t / 2 if t < 1 else t - 0.5,
                                      lambda t: min(t, 1.0),
                                      lambda t: 1.0 if t < 1 else 0.0),
    }
    # HHT's acceleration is that of a time shifted by about |alpha| h (alpha = -0.05): its
    # error is bounded by |alpha| h max|third derivative| (12 cubic, 60 quintic, 0 ramp)
    f3 = {"step(t, 0, 0, 1, 1)": 12, "step5(t, 0, 0, 1, 1)": 60, "if(t < 1, t^2/2, t - 0.5)": 0}
    for fn, (f0, f1, f2) in cases.items():
        f3max = f3[fn]
        p, out = run(flexmb, tmp, fn, 1.5)
        check(p.returncode == 0, "%s: run %s" % (fn, p.stderr.strip()))
        if p.returncode:
            continue
        t, q, qd, qdd = series(out)
        check(abs(qdd[0] - f2(0.0)) < 1e-9 and abs(qd[0]) < 1e-12,
              "%s: start acceleration %.12g = f''(0+) = %g" % (fn, qdd[0], f2(0.0)))
        for tt in (0.1, 0.25, 0.5, 0.75, 0.9, 1.25, 1.5):
            e = (abs(at(t, q, tt) - f0(tt)), abs(at(t, qd, tt) - f1(tt)),
                 abs(at(t, qdd, tt) - f2(tt)))
            check(e[0] < 1e-10 and e[1] < 2e-5 and e[2] < 1e-6 + 0.05 * 1e-3 * f3max,
                  "%s at t = %g: angle, rate, acceleration errors %.2e %.2e %.2e" %
                  ((fn, tt) + e))


def tables(flexmb, tmp):
    xs = np.array([0.0, 0.5, 1.0, 1.5, 2.0])
    ys = np.array([0.0, 0.2, 0.1, 0.5, 0.5])
    with open(os.path.join(tmp, "lin.csv"), "w", encoding="utf-8") as f:
        f.write("t, angle\n" + "".join("%r, %r\n" % (a, b) for a, b in zip(xs, ys)))
    p, out = run(flexmb, tmp, 'table("lin.csv", t)', 2.5)
    check(p.returncode == 0, "table driver runs %s" % p.stderr.strip())
    if p.returncode == 0:
        t, q, qd, _ = series(out)
        for tt in np.arange(0, 2.51, 0.125):
            check(abs(at(t, q, tt) - np.interp(tt, xs, ys)) < 1e-10,
                  "table: angle at t = %g is %.12g (interpolated %.12g)" %
                  (tt, at(t, q, tt), np.interp(tt, xs, ys)))
        for k in range(4):
            mid = 0.5 * (xs[k] + xs[k + 1])
            slope = (ys[k + 1] - ys[k]) / (xs[k + 1] - xs[k])
            check(abs(at(t, qd, mid) - slope) < 1e-7,
                  "table: rate at t = %g is %.10g (segment slope %g)" % (mid, at(t, qd, mid),
                                                                       slope))
        check(abs(at(t, qd, 2.4)) < 1e-7, "table: rate 0 beyond the last row")
        with h5py.File(out, "r") as f:
            a = f["solver"].attrs
            paths = [v.decode() if isinstance(v, bytes) else v for v in a["tables"]]
            sums = [v.decode() if isinstance(v, bytes) else v for v in a["table_sha256"]]
            kinds = [v.decode() if isinstance(v, bytes) else v for v in a["table_kinds"]]
        want = hashlib.sha256(open(os.path.join(tmp, "lin.csv"), "rb").read()).hexdigest()
        check(len(paths) == 1 and os.path.samefile(paths[0], os.path.join(tmp, "lin.csv")) and
              sums == [want] and kinds == ["table"],
              "/solver records the table: %s %s %s (sha256 %s)" % (paths, kinds, sums, want))

    n = 21
    x = np.linspace(0, 2 * math.pi, n)
    hk = x[1] - x[0]
    with open(os.path.join(tmp, "sin.csv"), "w", encoding="utf-8") as f:
        f.write("t, angle\n" + "".join("%r, %r\n" % (a, b) for a, b in zip(x, np.sin(x))))
    p, out = run(flexmb, tmp, 'spline("sin.csv", t)', 2 * math.pi)
    check(p.returncode == 0, "spline driver runs %s" % p.stderr.strip())
    if p.returncode == 0:
        t, q, qd, _ = series(out)
        e0 = np.max(abs(q - np.sin(t)))
        inner = (t >= x[1]) & (t <= x[-2])
        e1 = np.max(abs(qd - np.cos(t))[inner])
        check(e0 <= 5 / 384 * hk**4, "spline: |angle - sin| <= %.3e (bound 5/384 h^4 = %.3e)" %
              (e0, 5 / 384 * hk**4))
        check(e1 <= hk**3 / 24, "spline: |rate - cos| <= %.3e inside (bound h^3/24 = %.3e)" %
              (e1, hk**3 / 24))


def solver_attrs(flexmb, tmp):
    runs = (("hht", ["--set", "integrator=hht"], -0.05),
            ("newmark", ["--set", "integrator=newmark"], None),
            ("generalized_alpha", ["--set", "integrator=generalized_alpha"], None))
    for name, extra, alpha in runs:
        p, out = run(flexmb, tmp, "2*t", 0.01, integ=name)
        check(p.returncode == 0, "%s run %s" % (name, p.stderr.strip()))
        if p.returncode:
            continue
        with h5py.File(out, "r") as f:
            a = dict(f["solver"].attrs)
        it = a["integrator"].decode() if isinstance(a["integrator"], bytes) else a["integrator"]
        if name == "hht":  # alpha = -0.05 (default): am = 0, af = -alpha
            al = float(a["alpha"])
            want = (0.0, -al, 0.25 * (1 - al)**2, 0.5 - al)
            ok = al == alpha
        elif name == "newmark":  # beta, gamma as given (defaults 1/4, 1/2)
            want = (0.0, 0.0, 0.25, 0.5)
            ok = True
        else:  # Chung & Hulbert with rho_inf = 0.8 (default)
            r = float(a["rho_inf"])
            am, af = (2 * r - 1) / (r + 1), r / (r + 1)
            want = (am, af, 0.25 * (1 - am + af)**2, 0.5 - am + af)
            ok = r == 0.8
        got = tuple(float(a[k]) for k in ("alpha_m", "alpha_f", "beta", "gamma"))
        check(it == name and ok and all(abs(g - w) < 1e-15 for g, w in zip(got, want)),
              "/solver of a %s run: integrator %s, (alpha_m, alpha_f, beta, gamma) = %s, "
              "expected %s" % (name, it, got, want))
        check("tables" not in a, "%s: no tables attribute without tables" % name)


def nonfinite(flexmb, tmp):
    p, _ = run(flexmb, tmp, "sqrt(0.5 - t)", 1.0)
    check(p.returncode != 0 and "joint 'motor' (line 8, driver" in p.stderr and
          "is not finite at t = 0.50" in p.stderr and ": function 'sqrt(0.5 - t)' = " in p.stderr and
          "nan (f' = " in p.stderr,
          "a NaN driver stops the run with its expression and time: exit %d, %s" %
          (p.returncode, p.stderr.strip()))


def example(flexmb, src, tmp):
    out = os.path.join(tmp, "mp.h5")
    p = subprocess.run([flexmb, "run", os.path.join(src, "cases", "motor_profile.yaml"), "-q",
                        "-o", out], capture_output=True, text=True)
    check(p.returncode == 0, "cases/motor_profile.yaml runs %s" % p.stderr.strip())
    if p.returncode:
        return
    with h5py.File(out, "r") as f:
        t, q, qd = f["time"][:], f["bodies/crank/q"][:, 2], f["bodies/crank/qd"][:, 2]
    T, w = 0.3, 10 * math.pi
    s = np.clip(t / T, 0, 1)
    st = s**3 * (10 - 15 * s + 6 * s * s)
    sd = np.where(t < T, 30 * s * s * (1 - s)**2 / T, 0.0)
    th = 10 * t + 0.01 * np.sin(w * t)
    thd = 10 + 0.01 * w * np.cos(w * t)
    hk, d4 = 0.01, 0.01 * w**4  # knot spacing, max |4th derivative of theta|
    inner = (t >= 0.01) & (t <= 0.99)
    e0 = np.max(abs(q - st * th))
    e1 = np.max(abs(qd - (sd * th + st * thd))[inner])
    check(e0 <= 5 / 384 * hk**4 * d4 + 1e-10,
          "motor_profile: crank angle within %.2e of ramp x profile (bound %.2e)" %
          (e0, 5 / 384 * hk**4 * d4))
    # the integrator's speed for a prescribed angle f errs by h^2/12 max|f3| (trapezoidal
    # rule; f3 the third derivative of f = s theta, largest where the ramp ends)
    u = np.linspace(0, 1, 20001)
    tt = u * T
    s1 = 30 * u**2 * (1 - u)**2 / T
    s2 = 60 * u * (1 - u) * (1 - 2 * u) / T**2
    s3 = 60 * (1 - 6 * u + 6 * u * u) / T**3
    th0, th1 = 10 * tt + 0.01 * np.sin(w * tt), 10 + 0.01 * w * np.cos(w * tt)
    th2, th3 = -0.01 * w * w * np.sin(w * tt), -0.01 * w**3 * np.cos(w * tt)
    s0 = u**3 * (10 - 15 * u + 6 * u * u)
    f3 = max(np.max(abs(s3 * th0 + 3 * s2 * th1 + 3 * s1 * th2 + s0 * th3)), 0.01 * w**3)
    bound = hk**3 / 24 * d4 + 1e-6 / 12 * f3
    check(e1 <= bound,
          "motor_profile: crank speed within %.2e (bound: spline %.2e + integrator %.2e)" %
          (e1, hk**3 / 24 * d4, 1e-6 / 12 * f3))
    check(abs(qd[0]) < 1e-12 and abs(q[0]) < 1e-12, "motor_profile: starts at rest")


def main():
    flexmb, src = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        ramps(flexmb, tmp)
        tables(flexmb, tmp)
        solver_attrs(flexmb, tmp)
        nonfinite(flexmb, tmp)
        example(flexmb, src, tmp)
    print("FAILED" if failures else "passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
