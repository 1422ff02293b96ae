"""Joint reactions in joint and body axes, force magnitude and drive torque
(docs/output.md, "Joint reactions"), against Newton's laws written out by hand.

  pendulum (cases/pendulum.yaml, uniform bar pinned at one end, released from 30 deg):
      in the bar's axes the pin pulls the bar along its axis with
      T = m (g cos(theta) + (L/2) theta'^2) (radial Newton's law for the centre of mass,
      theta from the downward vertical), i.e. reaction_body Fx2 = -T, within 1e-6 relative
      (theta, theta' from /bodies/bar/pose and qd, not from the reaction); the joint-axes
      reaction of a joint whose first body is the ground equals the inertial one; the
      force magnitude equals |(Fx, Fy)|.
  driven (tests/reactions/driven_bar.yaml): constant angular acceleration alpha of a bar
      pinned at its end: drive_torque = m L^2 / 3 alpha, and in the bar's axes the pin's
      force on the bar is (-m L/2 w^2, m L/2 alpha), within 1e-6 relative.
usage: test_reaction_axes.py FLEXMB SRC_DIR pendulum|driven
"""
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
    if not cond:
        failures += 1


def run(flexmb, case, out):
    p = subprocess.run([flexmb, "run", case, "-o", out, "-q"], capture_output=True, text=True)
    check(p.returncode == 0, f"run {os.path.basename(case)} (exit {p.returncode}) {p.stderr}")
    return h5py.File(out, "r")


def rel(a, b):
    return np.max(np.abs(a - b)) / np.max(np.abs(b))


def pendulum(flexmb, src, tmp):
    f = run(flexmb, os.path.join(src, "cases", "pendulum.yaml"), os.path.join(tmp, "p.h5"))
    m, L, g = 1.0, 1.0, 9.81
    phi = f["bodies/bar/pose"][:, 2]  # angle of the bar's axis
    w = f["bodies/bar/qd"][:, 2]
    theta = phi + np.pi / 2  # from the downward vertical
    T = m * (g * np.cos(theta) + 0.5 * L * w**2)
    rb = f["joints/pin/reaction_body"][:]
    e = rel(rb[:, 3], -T)
    print(f"pendulum: axial force vs m (g cos theta + L/2 theta'^2): rel {e:.3g}")
    check(e < 1e-6, "axial component of the pin force in the bar's axes")
    ri = f["joints/pin/reaction"][:]
    rj = f["joints/pin/reaction_joint"][:]
    check(np.max(np.abs(rj - ri)) <= 1e-12 * np.max(np.abs(ri)),
          "joint axes of a ground-first joint are the inertial axes")
    fm = f["joints/pin/force_magnitude"][:]
    check(rel(fm, np.hypot(ri[:, 3], ri[:, 4])) < 1e-14, "force magnitude")
    # the body-axes force has the inertial magnitude
    check(rel(np.hypot(rb[:, 3], rb[:, 4]), fm) < 1e-12, "rotation keeps the magnitude")


def driven(flexmb, src, tmp):
    f = run(flexmb, os.path.join(src, "tests", "reactions", "driven_bar.yaml"),
            os.path.join(tmp, "d.h5"))
    m, L, alpha = 1.5, 0.8, 3.0
    t = f["time"][:]
    tau = f["joints/motor/drive_torque"][:]
    e = rel(tau, np.full_like(tau, m * L * L / 3 * alpha))
    print(f"drive torque vs m L^2/3 alpha = {m * L * L / 3 * alpha}: rel {e:.3g}")
    check(e < 1e-6, "drive torque")
    w = alpha * t
    rb = f["joints/pin/reaction_body"][:]  # bar is body 2
    fx, fy = -m * L / 2 * w**2, np.full_like(t, m * L / 2 * alpha)
    ex, ey = rel(rb[1:, 3], fx[1:]), rel(rb[:, 4], fy)
    print(f"pin force in bar axes: radial rel {ex:.3g}, tangential rel {ey:.3g}")
    check(ex < 1e-6 and ey < 1e-6, "pin force on the bar in its own axes")
    check("drive_torque" not in f["joints/pin"], "a revolute joint has no drive dataset")


def main():
    flexmb, src, which = sys.argv[1], sys.argv[2], sys.argv[3]
    with tempfile.TemporaryDirectory() as tmp:
        {"pendulum": pendulum, "driven": driven}[which](flexmb, src, tmp)
    print("FAILED" if failures else "passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
