#!/usr/bin/python3
"""Why the clearance slider-crank does not approach the ideal joint with the seed's damping:
an independent single-DOF impact model of the journal against the bearing wall.

  m x'' = -F_N(x, x'),  x = penetration, from x = 0, x' = v until x = 0 again; e = -x'_out / v.

F_N re-typed from seed 002 (eqs 7-11; docs/theory.md section 12), not taken from flexmb:
  F_K = pi E* L / 2 x sqrt(x / (2 (c + x))),  K_N = dF_K/dx,
  step damping:  F_N = F_K + STEP(x, 0, 0, d_max, eta K_N) x'   (seed eqs 9-10)
  LN / Flores:   F_N = F_K (1 + chi x'), chi = 3 (1 - e^2) / (4 v) or 8 (1 - e) / (5 e v)
  F_N >= 0 (no adhesion).
Integrated by scipy's DOP853 (rtol 1e-12) with the exit as an event. Cross-check of the
step-damping numbers: the energy lost in a nearly elastic impact is, to first order in the
damping, 2 int_0^x_max D(x) x'(x) dx with x'(x) from the undamped impact
(x'^2 = v^2 - 2 V(x) / m), so e = sqrt(1 - dE / E0) (quadrature, printed beside).

Slider-crank numbers (cases/slider_crank_clearance.yaml, steel, R_B 10 mm, L 10 mm):
effective mass at the journal 0.07 kg (the rod turning about its crank pin, I_A / l^2 =
(2.5e-4 + 0.21 * 0.06^2) / 0.12^2, the slider being held across the guide at dead centre);
impact speeds 0.45 m/s (the start: the crank pin moves at r omega = 1.05 m/s across the
guide while the journal sits centred) and 0.01 .. 0.1 m/s (the rattle measured in the runs).

usage: /usr/bin/python3 bench/clearance_impact_1dof.py
"""
import math

import numpy as np
from scipy.integrate import quad, solve_ivp

ES = 1.0 / (2 * (1 - 0.3**2) / 207e9)  # steel on steel, Pa
L = 10e-3
M = 0.07


def elastic(x, c):
    a = math.pi * ES * L / 2
    y = x / (c + x)
    return a * x * math.sqrt(y / 2), a / math.sqrt(2) * (1.5 * math.sqrt(y) - 0.5 * y**1.5)


def step3(x, x1):
    if x >= x1:
        return 1.0
    s = x / x1
    return s * s * (3 - 2 * s)


def force(x, xd, c, damping, v0):
    if x <= 0:
        return 0.0
    FK, KN = elastic(x, c)
    kind, p = damping
    if kind == "step":
        eta, dmax = p
        F = FK + eta * KN * step3(x, dmax) * xd
    elif kind == "ln":
        F = FK * (1 + 0.75 * (1 - p * p) / v0 * xd)
    else:  # flores
        F = FK * (1 + 1.6 * (1 - p) / (p * v0) * xd)
    return max(F, 0.0)


def restitution(v0, c, damping, m=M):
    def rhs(t, s):
        return [s[1], -force(s[0], s[1], c, damping, v0) / m]

    def leave(t, s):
        return s[0]

    leave.terminal, leave.direction = True, -1
    # contact time scale (Hertz): a few x_max / v0
    FK1, _ = elastic(1e-6, c)
    xm = (2.5 * 0.5 * m * v0 * v0 / (FK1 / 1e-6**1.5)) ** 0.4
    T = 50 * xm / v0
    sol = solve_ivp(rhs, (0, T), [0.0, v0], method="DOP853", rtol=1e-12, atol=[1e-18, 1e-14],
                    events=leave, max_step=xm / v0 / 50, first_step=xm / v0 / 1e4)
    if not sol.t_events[0].size:
        return float("nan"), float(np.max(sol.y[0]))
    return -sol.y_events[0][0][1] / v0, float(np.max(sol.y[0]))


def restitution_quadrature(v0, c, eta, dmax, m=M):
    """First-order energy loss of the step damping over the undamped impact."""
    E0 = 0.5 * m * v0 * v0

    def V(x):
        return quad(lambda s: elastic(s, c)[0], 0, x, epsabs=0, epsrel=1e-12)[0]

    lo, hi = 0.0, c + 1e-3
    for _ in range(200):  # x_max: V(x_max) = E0
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if V(mid) < E0 else (lo, mid)
    xm = 0.5 * (lo + hi)

    def integrand(x):
        w = v0 * v0 - 2 * V(x) / m
        return eta * elastic(x, c)[1] * step3(x, dmax) * math.sqrt(max(w, 0.0))

    dE = 2 * quad(integrand, 0, xm, limit=200)[0]
    return math.sqrt(max(1 - dE / E0, 0.0)), xm


def main():
    seed = ("step", (1e-3, 1e-4))
    print("Seed damping (eta 1e-3 s, d_max 0.1 mm), m = %.2f kg:" % M)
    print("| c (mm) | v (m/s) | max penetration (um) | e (DOP853) | e (energy quadrature) |")
    print("|---|---|---|---|---|")
    for c in (1e-4, 1e-5, 1e-6):
        for v in (0.45, 0.1, 0.02):
            e, xm = restitution(v, c, seed)
            eq, _ = restitution_quadrature(v, c, 1e-3, 1e-4)
            print("| %g | %g | %.3f | %.6f | %.6f |" % (c * 1e3, v, xm * 1e6, e, eq))
    print()
    print("Damping that acts at um penetrations (c = 0.001 mm, v = 0.02 / 0.45 m/s):")
    print("| damping | e at 0.02 m/s | e at 0.45 m/s |")
    print("|---|---|---|")
    for name, d in (("step, d_max = c (1 um), eta 1e-3 s", ("step", (1e-3, 1e-6))),
                    ("step, d_max = 10 um, eta 1e-3 s", ("step", (1e-3, 1e-5))),
                    ("lankarani_nikravesh e = 0.9", ("ln", 0.9)),
                    ("flores e = 0.9", ("flores", 0.9)),
                    ("flores e = 0.5", ("flores", 0.5))):
        e1, _ = restitution(0.02, 1e-6, d)
        e2, _ = restitution(0.45, 1e-6, d)
        print("| %s | %.4f | %.4f |" % (name, e1, e2))


if __name__ == "__main__":
    main()
