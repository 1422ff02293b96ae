#!/usr/bin/python3
"""Quick-return convergence in mesh and time step (flexmb against itself: no
independent reference; reference_flexmb_* compares the deflection with one).

Runs cases/quick_return.yaml at 20 rad/s for one crank revolution and compares the
maximum transverse deflection of the rocker (over time and along the bar, from the
Hermite interpolation of the nodal coordinates) between
  - 20 and 40 elements (h = 1e-4), and
  - the two finest time steps h = 5e-5 and 2.5e-5 (20 elements).
Both changes must stay below 2 %. The numbers are printed for docs/validation.md.
The maximum is taken over records every 2e-4 s (about 1/30 of the rocker's
vibration period in the mechanism, ~45 ms), the same instants for every run.

usage: test_quick_return_convergence.py FLEXMB CASE OUTDIR
"""
import os
import subprocess
import sys

import h5py
import numpy as np


def run(flexmb, case, out, n_el, dt):
    # records every 2e-4 s whatever the step, so that every run samples the same times
    every = max(1, round(2e-4 / dt))
    cmd = [flexmb, "run", case, "-o", out, "--quiet", "--set", f"n_el={n_el}",
           "--set", f"dt={dt}", "--set", "revolutions=1", "--set", f"out_every={every}"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def max_deflection(path, body="rocker"):
    """max |v(x, t)| with v from the cubic Hermite interpolation of the nodal v, phi."""
    with h5py.File(path, "r") as f:
        q = f[f"bodies/{body}/q"][:]
        x0 = f[f"beams/{body}/x0"][:]
    nn = len(x0)
    # simply supported: node 0 keeps phi; interior nodes u, v, phi; last node u, phi
    cols = {}
    c = 3
    for k in range(nn):
        for dof in ("u", "v", "phi"):
            removed = (k == 0 and dof in ("u", "v")) or (k == nn - 1 and dof == "v")
            if not removed:
                cols[(k, dof)] = c
                c += 1
    assert c == q.shape[1], (c, q.shape)

    def nodal(k, dof):
        return q[:, cols[(k, dof)]] if (k, dof) in cols else np.zeros(q.shape[0])

    vmax = 0.0
    xi = np.linspace(0.0, 1.0, 21)
    h1 = 1 - 3 * xi**2 + 2 * xi**3
    h2 = xi - 2 * xi**2 + xi**3
    h3 = 3 * xi**2 - 2 * xi**3
    h4 = xi**3 - xi**2
    for e in range(nn - 1):
        l = x0[e + 1] - x0[e]
        v = (np.outer(nodal(e, "v"), h1) + l * np.outer(nodal(e, "phi"), h2)
             + np.outer(nodal(e + 1, "v"), h3) + l * np.outer(nodal(e + 1, "phi"), h4))
        vmax = max(vmax, np.abs(v).max())
    return vmax


def main():
    flexmb, case, outdir = sys.argv[1:4]
    os.makedirs(outdir, exist_ok=True)
    res = {}
    for n_el, dt in ((20, 1e-4), (40, 1e-4), (20, 5e-5), (20, 2.5e-5)):
        out = os.path.join(outdir, f"qr_conv_{n_el}_{dt:g}.h5")
        run(flexmb, case, out, n_el, dt)
        res[(n_el, dt)] = max_deflection(out)
        print(f"n_el = {n_el:3d}, h = {dt:7.1e}: max deflection {res[(n_el, dt)] * 1e3:.4f} mm")
    d_mesh = abs(res[(40, 1e-4)] / res[(20, 1e-4)] - 1)
    d_time = abs(res[(20, 2.5e-5)] / res[(20, 5e-5)] - 1)
    print(f"change 20 -> 40 elements: {d_mesh * 100:.3f} %")
    print(f"change h = 5e-5 -> 2.5e-5: {d_time * 100:.3f} %")
    ok = d_mesh < 0.02 and d_time < 0.02
    print("1 passed, 0 failed" if ok else "0 passed, 1 failed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
