#!/usr/bin/env python3
"""cases/quick_return_friction.yaml at 20 rad/s with constant bristle damping (`--set
vd_D=0`), the run whose corner LCP "jammed" at t = 0.6221 s (docs/theory.md section 9,
"Jams"). Cause: the LuGre root search started from the Newton iterate's sliding velocity
(0.071 m/s), where the law over the step (sigma1 dz/dt spikes after a reversal) gives
mu = 3.3, beyond what the corner forces can carry on the elastic rocker: no contact
solution there, so the step failed, although the step's root lies at v = 8e-5 m/s with
mu = -0.49. The search now starts from v = 0 (mu = sigma0 z_n) when the iterate's
velocity jams and halves steps that land in a jam. Checks:

1. The run completes its 2 revolutions past D's reversal at t = 0.622 s (the old code
   stops there: "contact LCP failed at t = 0.6221", exit status 4) at the case's
   h = 1e-4 s (the search restarts from v = 0 twice), where the spike's hand bound
   2 sigma1 mu0 / (h sigma0) = 4.04 stays below a/b = 5: no step can wedge. At h = 5e-5 s
   (bound 8.08 > a/b) steps into a jam are also halved back (the old code stops at
   t = 0.29835 s), and a step at t = 0.311 s converges into |mu| = 5.53 > a/b: a wedge
   (check 4), which the code before the wedge check accepted silently (its records, every
   20th step, missed it: |mu| <= 3.14). So at 5e-5 every step is recorded and the run
   must pass t = 0.29835 s and either complete or stop with the wedge message; checks 2
   and 3 hold on every record it wrote.
2. Energy: T + V - W never rises above its start value (the friction and the scheme only
   dissipate: a wrong root, a friction force not opposing the sliding, would add energy;
   measured max rise 0.0 J) and falls by at most 1e-3 of the friction work (measured
   2.9e-4: HHT's numerical dissipation of the rocker modes each reversal excites, all of
   it negative; 2.0e-4 with alpha = -0.02; 2.7e-5 with vd_D = 1 mm/s, whose reversals
   excite less).
3. The coefficient at every record is one the corner forces carried: |mu| = |friction| /
   sum(normal) stays below a/b = 5 (the single-face limit), so no record is a jammed state.

4. With h = 1e-5 s the constant-sigma1 law's spike after a reversal (up to
   2 sigma1 mu0 / (h sigma0) = 40.4) wedges the block: a step at t = 0.296 s converges
   into |mu| = 18.6 (diagonal contact, the friction far beyond what the corner forces
   carry). A property of the law, not of the step (smaller steps make the spike larger).
   A converged step into a wedged state is never accepted: the run must stop there with a
   message that names the joint and the cause: a coefficient beyond both mu0 = 0.75 and
   a/b = 5 yet within the hand bound 2 sigma1 mu0 / (h sigma0) quoted in it, and vd as the
   remedy. Until the wedge was checked on the converged state, whether the run stopped
   (in Newton, at 0.456 s) or ran on through wedged states with a warning depended on
   rounding: omega = 20 +- 1 ulp (20.000000000000004, 19.999999999999996) flipped it, and a
   changed summation order in the iteration matrix (same matrix to 1e-16) made the
   omega = 20 run complete with |mu| 10.5 accepted at t = 0.456 s. So the check is made at
   all three omegas, which must stop alike.
5. The stop keeps what was computed (below).

Usage: test_quick_return_friction_vd0.py FLEXMB CASE WORKDIR
"""
import os
import subprocess
import sys

import h5py
import numpy as np

flexmb, case, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
fails = []
def checks(dt, every, may_wedge=False):
    path = os.path.join(work, f"qrf_vd0_{dt}.h5")
    if os.path.exists(path):
        os.remove(path)
    cmd = [flexmb, "run", case, "-o", path, "--no-viz", "--quiet", "--force", "--set", "vd_D=0",
           "--set", f"dt={dt}", "--set", f"out_every={every}"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    wedged = p.returncode == 4 and "wedges: its LuGre coefficient" in p.stdout + p.stderr
    if p.returncode != 0 and not (may_wedge and wedged):
        fails.append(f"{' '.join(cmd)} exited {p.returncode}:\n{p.stdout}{p.stderr}")
        return
    f = h5py.File(path, "r")
    n = int(f.attrs["committed_records"])
    t = f["time"][:n]
    t_end = 2 * 2 * np.pi / 20.0
    if wedged:
        print(f"dt {dt}: stopped at the wedge at t = {t[-1]:.6f}")
        if not t[-1] > 0.29835 + 1e-3:
            fails.append(f"dt {dt}: stopped at t = {t[-1]:.6f}, not past the old jam at 0.29835 s")
    elif abs(t[-1] - t_end) > 1e-9:
        fails.append(f"dt {dt}: run ended at t = {t[-1]:.6f}, expected {t_end:.6f}")
    c = f["contacts/D_on_rocker"]
    v = c["v"][:n]
    rev = t[1:][np.diff(np.sign(v)) != 0]
    print(f"dt {dt}: reversals of D's sliding velocity at t =", np.round(rev, 4))
    if not wedged and not np.any(np.abs(rev - 0.622) < 0.003):
        fails.append(f"dt {dt}: no reversal near t = 0.622 s: the run does not cover the old stop")
    E = f["energy"][:n]
    pf = np.abs(c["friction_total"][:n] * v)
    Dw = np.sum(0.5 * (pf[1:] + pf[:-1]) * np.diff(t))
    drift = np.abs(E[:, 3] - E[0, 3]).max()
    rise = (E[:, 3] - E[0, 3]).max()
    print(f"dt {dt}: friction work {Dw:.3f} J, max |T + V - W - (T + V - W)(0)| {drift:.3e} J "
          f"({drift / Dw:.2e}), largest rise {rise:.3e} J")
    if not Dw > 100.0:
        fails.append(f"dt {dt}: friction work only {Dw:.3g} J: the check would be vacuous")
    if not rise <= 1e-9 * Dw:
        fails.append(f"dt {dt}: T + V - W rises by {rise:.3e} J: energy created")
    if not drift <= 1e-3 * Dw:
        fails.append(f"dt {dt}: T + V - W drifts by {drift:.3e} J > 1e-3 x {Dw:.3f} J")
    N = np.abs(c["normal"][:n]).sum(axis=1)
    mu = np.abs(c["friction_total"][:n]) / np.where(N > 0, N, np.inf)
    print(f"dt {dt}: largest |mu| at the records {mu.max():.3f} (a/b = 5)")
    if not mu.max() < 5.0:
        fails.append(f"dt {dt}: |mu| reaches {mu.max():.3f} >= a/b = 5 at a record")


checks("1e-4", 10)
checks("5e-5", 1, may_wedge=True)

# 4. h = 1e-5: stops at the wedge, at omega = 20 and +- 1 ulp alike
import re
def wedge_run(omega, tag):
    path = os.path.join(work, f"qrf_vd0_h1e-5{tag}.h5")
    cmd = [flexmb, "run", case, "-o", path, "--no-viz", "--quiet", "--force", "--set", "vd_D=0",
           "--set", "dt=1e-5", "--set", "out_every=100", "--set", "revolutions=1.5",
           "--set", f"omega={omega}"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    msg = p.stdout + p.stderr
    m = re.search(r"the slider of joint 'D_on_rocker' \(line \d+\) wedges: its LuGre coefficient "
                  r"over the step reached ([-0-9.e+]+) at v = ([-0-9.e+]+) m/s.*?a/b = ([0-9.e+]+).*?"
                  r"2 sigma1 mu0 / \(h sigma0\) = ([0-9.e+]+) at h = ([0-9.e+-]+) s.*?set vd > 0",
                  msg, re.S)
    tm = re.search(r"the step from t = ([0-9.]+)", msg)
    if p.returncode == 0 or not m or not tm:
        fails.append(f"h = 1e-5, omega {omega}: expected a stop naming the wedge of 'D_on_rocker' "
                     f"(exit {p.returncode}):\n{msg[:1500]}")
        return p, msg, path
    mu_w, bound, hh = abs(float(m.group(1))), float(m.group(4)), float(m.group(5))
    hand = 2 * 350 * 0.75 / (hh * 1.3e6)
    print(f"h = 1e-5, omega {omega}: stops at t = {tm.group(1)}: |mu| {mu_w:.3g}, a/b {m.group(3)}, "
          f"bound {bound:.3g} (hand {hand:.3g})")
    if not (mu_w > 5.0 and mu_w > 0.75 and mu_w <= hand * (1 + 1e-9) and abs(bound - hand) <= 1e-3 * hand):
        fails.append(f"omega {omega}: wedge numbers: |mu| {mu_w}, bound {bound}, hand bound {hand}")
    return p, msg, path


for omega, tag in (("20.000000000000004", "_up"), ("19.999999999999996", "_down")):
    wedge_run(omega, tag)
p2, msg, path2 = wedge_run("20", "")

# 5. the stop keeps what was computed (docs/output.md "Records and crash safety", README exit
# codes): exit 4 (run failure), the file closed as failed (complete = 0, status "failed"),
# its records every 100 steps plus the last completed step, which is the step the message
# says the failed one started from; the last record finite
fm = re.search(r"the step from t = ([0-9.e+-]+) could not be completed", msg)
if p2.returncode != 4:
    fails.append(f"h = 1e-5: exit {p2.returncode}, want 4 (run failure)")
if not fm or not os.path.exists(path2):
    fails.append(f"h = 1e-5: no 'step from t = ...' in the message or no file {path2}")
else:
    import h5py
    import numpy as np
    with h5py.File(path2, "r") as f:
        n = int(f.attrs["committed_records"])
        t = f["time"][:n]
        status = f["solver/statistics"].attrs["status"]
        status = status.decode() if isinstance(status, bytes) else str(status)
        complete = int(f.attrs["complete"])
        last = f["bodies/rocker/q"][n - 1]
        t_from = float(fm.group(1))
        print(f"h = 1e-5 file: {n} records, last t = {t[-1]:.9g} (message: step from {t_from}), "
              f"complete {complete}, status {status}")
        steps = np.round(t[1:-1] / 1e-3)  # the records between: every 100 steps of 1e-5
        if not (complete == 0 and status == "failed"):
            fails.append(f"h = 1e-5 file: complete {complete}, status {status!r}")
        if not (abs(t[-1] - t_from) <= 1e-9 and np.all(np.abs(t[1:-1] - steps * 1e-3) <= 1e-9)
                and np.all(np.diff(t) > 0)):
            fails.append(f"h = 1e-5 file: last time {t[-1]!r} vs the failed step's start {t_from}, "
                         f"or records off the 1 ms grid")
        if not np.all(np.isfinite(last)):
            fails.append("h = 1e-5 file: the last record is not finite")

for m in fails:
    print("FAIL:", m)
sys.exit(1 if fails else 0)
