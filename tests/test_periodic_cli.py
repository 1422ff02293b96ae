"""`flexmb periodic` from the command line (docs/case-format.md "flexmb periodic"), each part
against an independent source:

  continuation  forced mass-spring-damper (m = 2 kg, k = 800 N/m, c = 4 N s/m, F0 = 10 N)
                followed over the forcing frequency W = 8 .. 18 rad/s (6 points): the
                amplitude max |x| over each written period against the closed form
                F0 / sqrt((k - m W^2)^2 + (c W)^2) (relative 2e-3: the integrator's
                O((W h)^2) error at h = 1e-3 s), and the CSV's largest |mu| against
                exp(-zeta wn T) (2e-4: O(h^2)); every point converged and stable.
  unstable      cases/pendulum_parametric.yaml inside the first Mathieu tongue: exit 0,
                the instability warning, /periodic/multipliers against a numpy RK4
                integration of the linearized equation (1e-6), /periodic/critical_mode
                (the pendulum angle dominates) and the Floquet mode file; outside the
                tongue (W = 8) no warning and |mu| = 1 within 1e-6.
  errors        a case with a clearance joint: exit 3 naming the force and its line; no
                constant-rate driver and no --period: exit 2 asking for --period;
                --method outside `periodic`: usage error (exit 1).
usage: test_periodic_cli.py FLEXMB SRC_DIR PART
"""
import csv
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
    print(("ok   " if cond else "FAIL ") + msg)
    if not cond:
        failures += 1


def run(args, cwd):
    p = subprocess.run(args, cwd=cwd, capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


HARMONIC = """title: forced mass-spring-damper
parameters: {m: 2, k: 800, c: 4, F0: 10, W: 15}
solver: {h: 1e-3, t_end: 1}
bodies:
  - {name: p, mass: m, inertia: 1, pose: [0, 0, 0]}
joints:
  - {name: g, type: prismatic, bodies: [p, ground], axis: [1, 0]}
  - {name: clock, type: driver, coordinate: angle, bodies: [wheel], function: W*t}
forces:
  - {name: s, type: spring, bodies: [ground, p], points: [[1, 0], [0, 0]], stiffness: k,
     damping: c}
  - {name: f, type: point, body: p, fx: F0*cos(W*t)}
"""
# the period comes from the constant-rate driver of a light wheel (2 pi / W): the forcing
# and the wheel share it
HARMONIC = HARMONIC.replace(
    "bodies:\n", "bodies:\n  - {name: wheel, mass: 0.1, inertia: 0.01, pose: [0, 1, 0]}\n"
).replace(
    "joints:\n", "joints:\n  - {name: hub, type: revolute, bodies: [ground, wheel], "
    "points: [[0, 1], [0, 0]]}\n")


def continuation(flexmb, src, tmp):
    path = os.path.join(tmp, "harmonic.yaml")
    with open(path, "w") as f:
        f.write(HARMONIC)
    code, out = run([flexmb, "periodic", path, "--vary", "W=8:18:6", "-o", "h.h5"], tmp)
    print(out)
    check(code == 0, f"continuation exit status {code}")
    rows = list(csv.DictReader(open(os.path.join(tmp, "h_continuation.csv"))))
    check(len(rows) == 6, f"{len(rows)} rows (6 points)")
    m, k, c, F0 = 2.0, 800.0, 4.0, 10.0
    wn, zeta = math.sqrt(k / m), c / (2 * math.sqrt(k * m))
    for r in rows:
        W = float(r["W"])
        check(r["status"] == "converged" and r["stable"] == "yes", f"W = {W}: {r['status']}")
        X = F0 / math.hypot(k - m * W * W, c * W)
        with h5py.File(os.path.join(tmp, r["file"]), "r") as h:
            x = h["bodies/p/q"][:, 0]
        amp = 0.5 * (x.max() - x.min())
        check(abs(amp - X) <= 2e-3 * X, f"W = {W}: amplitude {amp:.8f} vs {X:.8f} "
              f"(rel {abs(amp - X) / X:.2e})")
        mu = float(r["max_modulus"])
        want = math.exp(-zeta * wn * 2 * math.pi / W)
        check(abs(mu - want) <= 2e-4, f"W = {W}: |mu| {mu:.6f} vs exp(-zeta wn T) {want:.6f}")


def mathieu_rk4(A, W):
    l, m, Ic, g = 1.0, 1.0, 0.01, 9.81
    IO = Ic + m * l * l
    T = 2 * math.pi / W
    N = 100000
    h = T / N

    def f(t, y):
        return np.array([y[1], -(m * l / IO) * (g - A * W * W * math.cos(W * t)) * y[0]])

    M = np.zeros((2, 2))
    for col in range(2):
        y = np.eye(2)[col].copy()
        for n in range(N):
            t = n * h
            k1 = f(t, y)
            k2 = f(t + h / 2, y + h / 2 * k1)
            k3 = f(t + h / 2, y + h / 2 * k2)
            k4 = f(t + h, y + h * k3)
            y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        M[:, col] = y
    ev = np.linalg.eigvals(M)
    return sorted(ev, key=lambda z: -abs(z))


def unstable(flexmb, src, tmp):
    case = os.path.join(src, "cases", "pendulum_parametric.yaml")
    W = 6.234
    code, out = run([flexmb, "periodic", case, "--period", repr(2 * math.pi / W), "-o",
                     "pend.h5"], tmp)
    print(out)
    check(code == 0, f"exit status {code}")
    check("warning: the periodic orbit is unstable" in out, "instability warning")
    ref = mathieu_rk4(0.05, W)
    with h5py.File(os.path.join(tmp, "pend.h5"), "r") as h:
        mu = h["periodic/multipliers"][:]
        mode = h["periodic/critical_mode"][:]
        summ = h["periodic/summary"][0]
    check(abs(mu[0, 0] - ref[0].real) <= 1e-6 and abs(mu[0, 1]) <= 1e-9,
          f"mu_1 {mu[0, 0]:.9f} vs RK4 {ref[0].real:.9f}")
    check(abs(mu[1, 0] - ref[1].real) <= 1e-6, f"mu_2 {mu[1, 0]:.9f} vs RK4 {ref[1].real:.9f}")
    check(abs(summ[4] - abs(ref[0])) <= 1e-6, f"summary largest modulus {summ[4]:.9f}")
    # coordinates: pivot x y theta, bob x y theta; the mode swings the bob: its angle
    # (index 5) is the largest entry, the driven pivot does not move, nothing is vertical
    check(abs(abs(mode[5, 0]) - 1.0) <= 1e-9 and np.abs(mode[0:3, 0]).max() <= 1e-9
          and abs(mode[4, 0]) <= 1e-9, f"critical mode {mode[:, 0]}")
    check(os.path.exists(os.path.join(tmp, "pend_floquet.h5")) and
          os.path.exists(os.path.join(tmp, "pend_floquet.xmf")), "Floquet mode file")
    code, out = run([flexmb, "periodic", case, "--set", "W=8", "--period",
                     repr(2 * math.pi / 8), "-o", "pend8.h5"], tmp)
    check(code == 0 and "unstable" not in out, f"W = 8: exit {code}, no warning")
    with h5py.File(os.path.join(tmp, "pend8.h5"), "r") as h:
        mu = h["periodic/multipliers"][:]
    check(abs(mu[0, 2] - 1.0) <= 1e-6, f"W = 8: |mu| {mu[0, 2]:.9f} (on the unit circle)")


def errors(flexmb, src, tmp):
    case = os.path.join(src, "cases", "slider_crank_clearance.yaml")
    code, out = run([flexmb, "periodic", case, "-o", "x.h5"], tmp)
    print(out)
    check(code == 3 and "force 'B'" in out and "line" in out and "smooth models" in out,
          f"clearance joint refused (exit {code})")
    code, out = run([flexmb, "periodic", os.path.join(src, "cases", "pendulum_parametric.yaml"),
                     "-o", "y.h5"], tmp)
    print(out)
    check(code == 2 and "--period" in out, f"no period: exit {code}")
    code, out = run([flexmb, "run", os.path.join(src, "cases", "pendulum_parametric.yaml"),
                     "--method", "dense"], tmp)
    check(code == 1 and "only valid with" in out, f"--method with run: exit {code}")


def main():
    flexmb, src, part = sys.argv[1], sys.argv[2], sys.argv[3]
    with tempfile.TemporaryDirectory() as tmp:
        {"continuation": continuation, "unstable": unstable, "errors": errors}[part](
            flexmb, src, tmp)
    print(f"{part}: {failures} failure(s)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
