"""Checks of the reference's linkage runs (tests/reference/README.md).

usage: /usr/bin/python3 check_run.py QR_REFERENCE energy
       /usr/bin/python3 check_run.py QR_REFERENCE peak OMEGA LO HI [REV1_LO REV1_HI]
       /usr/bin/python3 check_run.py QR_REFERENCE balance OMEGA LO HI

energy: the undriven linkage (crank free, started with the rigid mechanism's velocities
at 20 rad/s, gravity on, no damping) for 0.3 s with dt 1e-4 and 5e-5: T + V + U must
stay constant. Asserts max |E(t) - E(0)| below 1e-4 of the largest kinetic energy at
dt 1e-4 and falling by the integrator's second order when dt is halved (ratio 3 to 5.5).

peak: two revolutions of the driven linkage at OMEGA rad/s (default mesh and step);
asserts the second revolution's peak deflection within [LO, HI] mm (and the first
revolution's within [REV1_LO, REV1_HI] mm when given), and the energy balance
T + V + U - W (W: work of the crank driver) constant within 3e-4 of the largest T
(measured at dt 1e-4: 2.4e-7 at 5 rad/s, 1.1e-5 at 10, 1.1e-4 at 20; second order in dt).

balance: the same run; asserts only the energy balance and prints where the second
revolution's peak lies against [LO, HI] without asserting it (5 and 10 rad/s: the
converged reference lies 0.2 % and 0.6 % above the bands of the two other codes;
README.md, "The validation bands").
"""
import re
import subprocess
import sys


def run(exe, *args):
    r = subprocess.run([exe] + [str(a) for a in args], stdout=subprocess.PIPE, text=True)
    sys.stdout.write(r.stdout)
    if r.returncode:
        raise SystemExit("%s failed (%d)" % (exe, r.returncode))
    peaks = [float(x) for x in re.search(r"revolution 1 (\S+) mm, revolution 2 (\S+) mm",
                                          r.stdout).groups()]
    ratio = float(re.search(r"ratio (\S+)\)", r.stdout).group(1))
    return peaks, ratio


def energy(exe):
    _, e1 = run(exe, "--free", "--omega", 20, "--t-end", 0.3, "--dt", 1e-4)
    _, e2 = run(exe, "--free", "--omega", 20, "--t-end", 0.3, "--dt", 5e-5)
    ok = e1 < 1e-4 and 3 <= e1 / e2 <= 5.5
    print("energy error / max T: %.3e (dt 1e-4), %.3e (dt 5e-5), ratio %.2f" % (e1, e2, e1 / e2))
    return ok


def peak(exe, w, lo, hi, lo1=None, hi1=None):
    (p1, p2), e = run(exe, "--omega", w)
    ok = lo <= p2 <= hi and e < 3e-4
    print("second revolution peak %.4f mm, band [%g, %g]" % (p2, lo, hi))
    if lo1 is not None:
        ok = ok and lo1 <= p1 <= hi1
        print("first revolution peak %.4f mm, band [%g, %g]" % (p1, lo1, hi1))
    print("energy error / max T: %.3e (limit 3e-4)" % e)
    return ok


if __name__ == "__main__":
    exe, what = sys.argv[1], sys.argv[2]
    if what == "energy":
        good = energy(exe)
    elif what == "balance":
        w, lo, hi = [float(x) for x in sys.argv[3:6]]
        (p1, p2), e = run(exe, "--omega", w)
        good = e < 3e-4
        print("energy error / max T: %.3e (limit 3e-4)" % e)
        print("second revolution peak %.4f mm; band of the other codes [%g, %g] mm: %s "
              "(not asserted)" % (p2, lo, hi, "inside" if lo <= p2 <= hi else
                                  "%+.2f %% %s" % (100 * (p2 - (hi if p2 > hi else lo)) /
                                                   (hi if p2 > hi else lo),
                                                   "above" if p2 > hi else "below")))
    else:
        good = peak(exe, *[float(x) for x in sys.argv[3:]])
    print("ok" if good else "FAILED")
    sys.exit(0 if good else 1)
