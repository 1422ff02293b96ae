#!/usr/bin/env python3
"""cases/quick_return_friction.yaml at 10 rad/s, undamped (`--set omega=10`): the run
that stopped at t = 0.6262 s ("Newton did not converge": the LuGre law linearized across
a reversal of slider D's sliding velocity on the falling branch of the law over a step,
under ~0.5 kN; docs/quick_return.md "Rigid against flexible rocker, and friction at D").
Checks against independent references:

1. The run completes its 2 revolutions (t = 4 pi / 10 s) past D's reversals.
2. The undamped limit zeta -> 0: the runs with rocker damping zeta = 0.005, 0.0025,
   0.00125 (which the old solver also completed) converge to the undamped run at the
   first order in zeta, over the first revolution and over the window of the reversal at
   t = 0.626 s alone: the RMS drive-torque differences halve with zeta (ratio of
   successive differences 1.7 .. 2.3; measured 1.75, 1.87, 1.93 over [0.6, 0.66] s and
   1.84, 1.92, 1.96 over [0, 0.6] s). A wrong root at the reversal (a false stick, the
   other branch of the non-monotone step law) would leave a difference that does not go
   to zero.
3. Energy: the solver's T + V - W stays within 1e-4 of the friction work over the run
   (measured 2.8e-6). Friction acts at the block's faces, +-b = 6 mm across the curved
   rocker, which slide at v (1 -+ b kappa); W booked it as f v at the centre until
   fmb_contact_friction_power, and drifted by 1.5e-3 (b kappa ~ 1.6e-3; 1 % at 20 rad/s).
4. dt refinement through the reversal with 2 % rocker damping (zeta = 0.02 damps the
   rocker's unresolved modes, which otherwise differ at every dt): dt = 1e-4, 5e-5, 2.5e-5
   over 1.05 revolutions; the RMS drive-torque differences over the reversal's window
   [0.6, 0.66] s fall by 4 per halving (bound 3.4 .. 4.6: observed order 2, measured
   3.986, HHT's order; D's velocity there 3.3, order 1.7).

Usage: test_quick_return_friction_10.py FLEXMB CASE WORKDIR
"""
import os
import subprocess
import sys

import h5py
import numpy as np

flexmb, case, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
fails = []


def run(out, *sets):
    path = os.path.join(work, out)
    if os.path.exists(path):
        os.remove(path)
    cmd = [flexmb, "run", case, "-o", path, "--no-viz", "--quiet", "--force", "--set", "omega=10"]
    for s in sets:
        cmd += ["--set", s]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        print(f"FAIL: {' '.join(cmd)} exited {p.returncode}:\n{p.stdout}{p.stderr}")
        sys.exit(1)
    return h5py.File(path, "r")


# 1. as a user runs it: 2 revolutions, undamped
f = run("qrf10.h5")
t = f["time"][:]
t_end = 2 * 2 * np.pi / 10.0
if abs(t[-1] - t_end) > 1e-9:
    fails.append(f"run ended at t = {t[-1]:.6f}, expected {t_end:.6f}")
v = f["contacts/D_on_rocker/v"][:]
rev = t[1:][np.diff(np.sign(v)) != 0]
print("reversals of D's sliding velocity at t =", np.round(rev, 4))
if not np.any(np.abs(rev - 0.626) < 0.005):
    fails.append("no reversal near t = 0.626 s: the run does not cover the old stop")

# 2. zeta -> 0 over 1.1 revolutions
tau0 = f["joints/motor/drive_torque"][:]
windows = ((0.0, 0.6), (0.6, 0.66))
d = {w: [] for w in windows}
for z in ("0.005", "0.0025", "0.00125"):
    g = run(f"qrf10_z{z}.h5", f"zeta={z}", "revolutions=1.1")
    tg, taug = g["time"][:], g["joints/motor/drive_torque"][:]
    for w in windows:
        m = (tg >= w[0] - 1e-9) & (tg <= w[1] + 1e-9)
        m0 = (t >= w[0] - 1e-9) & (t <= w[1] + 1e-9)
        if not np.allclose(tg[m], t[m0]):
            fails.append(f"zeta {z}: records do not match in {w}")
            continue
        d[w].append(np.sqrt(np.mean((taug[m] - tau0[m0]) ** 2)))
for w in windows:
    if len(d[w]) != 3:
        continue
    r = [d[w][0] / d[w][1], d[w][1] / d[w][2]]
    print(f"window {w}: rms |tau(zeta) - tau(0)| = " + ", ".join(f"{x:.4e}" for x in d[w]) +
          f" N m (zeta 0.005, 0.0025, 0.00125); ratios {r[0]:.3f}, {r[1]:.3f}")
    for x in r:
        if not 1.7 <= x <= 2.3:
            fails.append(f"window {w}: ratio {x:.3f} not 2 (first order in zeta)")

# 3. energy
c = f["contacts/D_on_rocker"]
E = f["energy"][:]
pf = np.abs(c["friction_total"][:] * v)
Dw = np.sum(0.5 * (pf[1:] + pf[:-1]) * np.diff(t))
drift = np.abs(E[:, 3] - E[0, 3]).max()
print(f"friction work {Dw:.3f} J, max |T + V - W - (T + V - W)(0)| {drift:.3e} J ({drift / Dw:.2e})")
if not Dw > 50.0:
    fails.append(f"friction work only {Dw:.3g} J: the check would be vacuous")
if not drift <= 1e-4 * Dw:
    fails.append(f"T + V - W drifts by {drift:.3e} J > 1e-4 x {Dw:.3f} J")

# 4. dt refinement, zeta = 0.02, window of the reversal
w = (0.6, 0.66)
taus = []
for dt, every in (("1e-4", "10"), ("5e-5", "20"), ("2.5e-5", "40")):
    g = run(f"qrf10_dt{dt}.h5", "zeta=0.02", "revolutions=1.05", f"dt={dt}", f"out_every={every}")
    tg = g["time"][:]
    m = (tg >= w[0] - 1e-9) & (tg <= w[1] + 1e-9)
    taus.append(g["joints/motor/drive_torque"][:][m])
if len(set(len(x) for x in taus)) == 1:
    e1 = np.sqrt(np.mean((taus[0] - taus[1]) ** 2))
    e2 = np.sqrt(np.mean((taus[1] - taus[2]) ** 2))
    print(f"dt refinement (zeta 0.02) over {w}: rms |dtau| {e1:.4e}, {e2:.4e} N m, ratio {e1 / e2:.3f} "
          f"(observed order {np.log2(e1 / e2):.2f})")
    if not 3.4 <= e1 / e2 <= 4.6:
        fails.append(f"dt refinement: ratio {e1 / e2:.3f}, expected 4 (second order)")
else:
    fails.append("dt refinement: record counts differ in the window")

for msg in fails:
    print("FAIL:", msg)
sys.exit(1 if fails else 0)
