"""Checks of the reference's beam alone against closed-form and independently computed
values (tests/reference/README.md).

usage: /usr/bin/python3 check_beam.py QR_REFERENCE cantilever|frequency

cantilever: the rocker's section clamped at x = 0 under a tip force P = k EI/L^2 (k = 1
and 3), static. The reference's tip displacements with 2, 4, 8, 16 elements against the
inextensible elastica, theta'' = (P/EI) cos(theta), theta(0) = 0, theta'(L) = 0,
x' = cos(theta), y' = sin(theta), solved here by shooting with classical Runge-Kutta.
Asserts: the error falls from 2 to 8 elements, 16 elements within 2 P/EA L (the
remaining difference is the rod's axial strain, P/EA = 2.5e-5 at k = 1: the elastica is
inextensible), and the elastica at k = 1 agrees with Bisshopp & Drucker's tabulated tip
deflection 0.30172 L to 1e-5 L.

frequency: the first bending frequency of the straight rocker pinned at both ends with
2, 4, 8, 16 elements against (pi/L)^2 sqrt(EI/(rho A)) (Euler-Bernoulli, no rotary
inertia). Asserts: the relative error of 8 elements below 1e-5 and the observed order
of convergence log2(e_n / e_2n) from 2 to 8 elements between 3.5 and 4.5 (cubic
Hermite: 4; 16 elements reach 1e-6).
"""
import math
import re
import subprocess
import sys

E, D, RHO, L = 200e9, 0.012, 7800.0, 0.6
A = math.pi * D * D / 4
I = math.pi * D ** 4 / 64


def elastica(k, n=4000):
    """tip (u/L, v/L) of the inextensible cantilever under the tip force k EI/L^2 (down)."""
    lam = k / L ** 2  # P/EI

    def shoot(c):
        h = L / n
        y = [0.0, c, 0.0, 0.0]  # theta, theta', x, y

        def f(s):
            return [s[1], lam * math.cos(s[0]), math.cos(s[0]), math.sin(s[0])]
        for _ in range(n):
            k1 = f(y)
            k2 = f([y[i] + 0.5 * h * k1[i] for i in range(4)])
            k3 = f([y[i] + 0.5 * h * k2[i] for i in range(4)])
            k4 = f([y[i] + h * k3[i] for i in range(4)])
            y = [y[i] + h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]) for i in range(4)]
        return y

    lo, hi = -10 * lam * L, 0.0  # theta'(L) as a function of theta'(0) = c
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if shoot(mid)[1] > 0:
            hi = mid
        else:
            lo = mid
    y = shoot(0.5 * (lo + hi))
    return (y[2] - L) / L, y[3] / L


def run(exe, *args):
    r = subprocess.run([exe] + [str(a) for a in args], stdout=subprocess.PIPE, text=True)
    if r.returncode:
        raise SystemExit("%s failed (%d)" % (exe, r.returncode))
    return r.stdout


def cantilever(exe):
    ok = True
    for k in (1, 3):
        ue, ve = elastica(k)
        print("elastica PL^2/EI = %g: tip u/L = %.7f, v/L = %.7f" % (k, ue, ve))
        errs = []
        for n in (2, 4, 8, 16):
            out = run(exe, "--cantilever", n, k)
            u, v = map(float, re.search(r"u/L = (\S+), v/L = (\S+)", out).groups())
            errs.append(math.hypot(u - ue, v - ve))
            print("  %2d elements: u/L = %.7f, v/L = %.7f, |error| = %.2e L" % (n, u, v, errs[-1]))
        if not all(errs[i + 1] < errs[i] for i in range(2)):
            print("FAIL: error does not fall with the mesh"); ok = False
        tol = 2 * k * E * I / L ** 2 / (E * A)
        if errs[-1] > tol:
            print("FAIL: 16 elements off by %.2e L (limit %.2e L)" % (errs[-1], tol)); ok = False
        if k == 1 and abs(-ve - 0.30172) > 1e-5:
            print("FAIL: elastica %.6f against the tabulated 0.30172" % -ve); ok = False
    return ok


def frequency(exe):
    w_exact = (math.pi / L) ** 2 * math.sqrt(E * I / (RHO * A))
    print("pinned-pinned exact omega1 = %.6f rad/s" % w_exact)
    errs = []
    for n in (2, 4, 8, 16):
        w = float(re.search(r"omega1 = (\S+)", run(exe, "--frequency", n)).group(1))
        errs.append(abs(w - w_exact) / w_exact)
        print("  %2d elements: omega1 = %.6f rad/s, relative error %.3e" % (n, w, errs[-1]))
    ok = True
    orders = [math.log2(errs[i] / errs[i + 1]) for i in range(2)]  # 16: at rounding
    print("  observed orders: " + ", ".join("%.2f" % p for p in orders))
    if errs[2] > 2e-5 or errs[3] > 2e-6:
        print("FAIL: 8 / 16 elements' errors %.2e / %.2e above 2e-5 / 2e-6" % (errs[2], errs[3]))
        ok = False
    if not all(3.5 <= p <= 4.5 for p in orders):
        print("FAIL: order of convergence not 4"); ok = False
    return ok


if __name__ == "__main__":
    exe, what = sys.argv[1], sys.argv[2]
    good = {"cantilever": cantilever, "frequency": frequency}[what](exe)
    print("ok" if good else "FAILED")
    sys.exit(0 if good else 1)
