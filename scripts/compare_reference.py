"""Compare flexmb's rocker deflection on the quick-return linkage with the independent
reference (tests/reference/qr_reference.c, README.md there).

usage: /usr/bin/python3 scripts/compare_reference.py [--omega 5,10,20,30]
           [--nonlinear 0,1] [--flexmb build/flexmb]
           [--reference build/tests/qr_reference] [--case cases/quick_return.yaml]
           [--dt DT] [--n-el N] [--ref-elements 10] [--ref-dt auto]
           [--workdir out/compare_reference] [--reuse]

For each crank speed W (default 5, 10, 20 and 30 rad/s; about two minutes) it runs
the reference (CSV; 10 elements, dt 1e-4 below 25 rad/s and 1e-5 from 25 rad/s on, where
the rocker deflects by ~150 mm: tests/reference/README.md) and flexmb
(`flexmb run CASE --set theta0=0 --set out_every=1 --set omega=W --set nonlinear=N
[--set dt=DT] [--set n_el=N] -o X.h5`), both from the rigid-motion start with the
crank at angle 0, two revolutions, and computes on each the deflection metric

    d(t) = max over 21 equally spaced material points of |distance from the chord
           through the rocker's end points|.

flexmb's 21 points (10 elements; with n_el = N, 2N + 1 points: nodes and midpoints) are
its nodes (/beams/<rocker>/points, deflection) and its element midpoints. A midpoint is
the element's own cubic at its centre: for `geometry: linear` the cubic Hermite
interpolation of the nodal v and slope phi in the body frame (docs/output.md),
v_mid = (v_k + v_k+1)/2 + (l/8)(phi_k - phi_k+1); for `geometry: nonlinear` the
co-rotational element's local cubic, i.e. the midpoint of the element's chord moved by
(l/8)(theta_k - theta_k+1) along the chord's normal, theta = phi - (chord angle), l the
chord's length, node positions (x0 + u, v) in the body frame from the inertial points.
Checked: the midpoints of a 10-element run agree with the nodes of a 20-element run at
the same material points within 0.016 mm (linear) and 0.011 mm (nonlinear) over one
revolution at 10 rad/s, as closely as the two meshes' common nodes do (0.015, 0.010 mm).

Metric over the SECOND crank revolution (crank angle 2 pi ... 4 pi): each run's peak of
d, the peak difference (flexmb - reference) / reference peak, and the pointwise
difference max |d_flexmb - d_ref| over that revolution with both interpolated linearly
on the reference's crank angles, as a percentage of the reference's peak.

--reuse keeps existing files in the work directory (same names) instead of rerunning.
A run that fails (e.g. flexmb's step control, or the reference's Newton at too large a
step at 30 rad/s: give --ref-dt 1e-5) is reported in the table and the others go on.
"""
import argparse
import math
import os
import subprocess
import sys
import time

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from flexmb_results import records  # noqa: E402


def reference_series(path):
    """t, crank angle, d(t) of a reference CSV."""
    d = np.genfromtxt(path, delimiter=",", names=True, skip_header=1)
    return d["t"], d["theta"], d["d"]


def flexmb_points(f, rocker="rocker"):
    """Signed distances (nt x 2N+1) of the nodes and element midpoints of flexmb's rocker
    from the chord through its end nodes (positive to the left of start -> end)."""
    n = records(f)
    g = f["beams/" + rocker]
    P = g["points"][:n, :, :2]                 # inertial node positions
    phi = g["slope"][:n]                        # section rotation / slope, body frame
    q = f["bodies/%s/q" % rocker][:n]
    th = q[:, 2]                                # body-frame angle
    nonlinear = str(g.attrs.get("geometry", b"linear")).find("nonlinear") >= 0
    c, s = np.cos(th)[:, None], np.sin(th)[:, None]
    # body-frame node positions
    dx = P[:, :, 0] - q[:, 0:1]
    dy = P[:, :, 1] - q[:, 1:2]
    bx = c * dx + s * dy
    by = -s * dx + c * dy
    nn = P.shape[1]
    mx = np.empty((n, nn - 1))
    my = np.empty((n, nn - 1))
    for k in range(nn - 1):
        ex = bx[:, k + 1] - bx[:, k]
        ey = by[:, k + 1] - by[:, k]
        l = np.hypot(ex, ey)
        if nonlinear:
            beta = np.arctan2(ey, ex)
            w = l / 8 * ((phi[:, k] - beta) - (phi[:, k + 1] - beta))
            mx[:, k] = 0.5 * (bx[:, k] + bx[:, k + 1]) - w * ey / l
            my[:, k] = 0.5 * (by[:, k] + by[:, k + 1]) + w * ex / l
        else:
            le = g["x0"][k + 1] - g["x0"][k]
            mx[:, k] = 0.5 * (bx[:, k] + bx[:, k + 1])
            my[:, k] = 0.5 * (by[:, k] + by[:, k + 1]) + le / 8 * (phi[:, k] - phi[:, k + 1])
    X = np.empty((n, 2 * nn - 1))
    Y = np.empty((n, 2 * nn - 1))
    X[:, 0::2], Y[:, 0::2] = bx, by
    X[:, 1::2], Y[:, 1::2] = mx, my
    # distance from the chord through the end nodes
    cx = X[:, -1:] - X[:, :1]
    cy = Y[:, -1:] - Y[:, :1]
    cl = np.hypot(cx, cy)
    return (cx * (Y - Y[:, :1]) - cy * (X - X[:, :1])) / cl


def flexmb_series(path, crank="crank", rocker="rocker"):
    with h5py.File(path, "r") as f:
        if int(f.attrs.get("complete", 1)) != 1:
            print("warning: %s is not a complete run" % path, file=sys.stderr)
        n = records(f)
        t = f["time"][:n]
        theta = f["bodies/%s/q" % crank][:n, 2]
        v = flexmb_points(f, rocker)
    return t, theta, np.abs(v).max(axis=1)


def second_revolution(theta, d):
    m = (theta >= 2 * math.pi - 1e-9) & (theta <= 4 * math.pi + 1e-9)
    return theta[m], d[m]


def ref_peak(ref):
    return second_revolution(ref[1], ref[2])[1].max()


def metric(ref, fmb):
    """(peak_ref, peak_fmb, peak difference %, pointwise difference %)"""
    tr, dr = second_revolution(ref[1], ref[2])
    tf, df = second_revolution(fmb[1], fmb[2])
    pr, pf = dr.max(), df.max()
    lo, hi = max(tr[0], tf[0]), min(tr[-1], tf[-1])
    m = (tr >= lo) & (tr <= hi)
    diff = np.abs(np.interp(tr[m], tf, df) - dr[m]).max()
    return pr, pf, 100 * (pf - pr) / pr, 100 * diff / pr


def run(cmd):
    """(output, seconds), or (None, seconds) when the command failed (its output and
    the command are printed)."""
    t0 = time.time()
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stdout)
        sys.stderr.write("failed: %s\n" % " ".join(cmd))
        return None, time.time() - t0
    return r.stdout, time.time() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--omega", default="5,10,20,30")
    ap.add_argument("--nonlinear", default="0,1")
    ap.add_argument("--flexmb", default=os.path.join(ROOT, "build", "flexmb"))
    ap.add_argument("--reference", default=os.path.join(ROOT, "build", "tests", "qr_reference"))
    ap.add_argument("--case", default=os.path.join(ROOT, "cases", "quick_return.yaml"))
    ap.add_argument("--dt", default=None, help="flexmb time step (case default 1e-4)")
    ap.add_argument("--n-el", default=None, help="flexmb rocker elements (case default 10)")
    ap.add_argument("--ref-elements", default="10")
    ap.add_argument("--ref-dt", default="auto",
                    help="reference time step; auto: 1e-4 below 25 rad/s, else 1e-5")
    ap.add_argument("--workdir", default=os.path.join("out", "compare_reference"))
    ap.add_argument("--reuse", action="store_true")
    ap.add_argument("--check-peak", type=float, default=None, metavar="PCT",
                    help="exit 1 when a peak differs from the reference's by more than PCT %%")
    ap.add_argument("--check-pointwise", type=float, default=None, metavar="PCT",
                    help="exit 1 when the pointwise difference exceeds PCT %% of the "
                         "reference's peak")
    a = ap.parse_args()
    os.makedirs(a.workdir, exist_ok=True)
    omegas = [float(w) for w in a.omega.split(",") if w]
    nls = [int(x) for x in a.nonlinear.split(",") if x]
    rows = []
    for w in omegas:
        tag = "%g" % w
        ref_dt = a.ref_dt if a.ref_dt != "auto" else ("1e-4" if w < 25 else "1e-5")
        rcsv = os.path.join(a.workdir, "ref_w%s_n%s_dt%s.csv" % (tag, a.ref_elements, ref_dt))
        if not (a.reuse and os.path.exists(rcsv)):
            out, sec = run([a.reference, "--omega", tag, "--elements", a.ref_elements,
                            "--dt", ref_dt, "--every", "1", "-o", rcsv + ".part"])
            print("reference %s rad/s: %.1f s" % (tag, sec), flush=True)
            if out is None:
                rows.append((w, None) + (math.nan,) * 4)
                continue
            os.replace(rcsv + ".part", rcsv)
        ref = reference_series(rcsv)
        for nl in nls:
            sets = ["theta0=0", "out_every=1", "omega=" + tag, "nonlinear=%d" % nl]
            if a.dt:
                sets.append("dt=" + a.dt)
            if a.n_el:
                sets.append("n_el=" + a.n_el)
            h5 = os.path.join(a.workdir, "flexmb_w%s_nl%d%s%s.h5" % (
                tag, nl, "_dt" + a.dt if a.dt else "", "_n" + a.n_el if a.n_el else ""))
            if not (a.reuse and os.path.exists(h5)):
                cmd = [a.flexmb, "run", a.case, "--quiet", "--no-viz"]
                for s in sets:
                    cmd += ["--set", s]
                out, sec = run(cmd + ["-o", h5])
                print("flexmb %s rad/s nonlinear=%d: %.1f s" % (tag, nl, sec), flush=True)
                if out is None:
                    rows.append((w, nl, ref_peak(ref)) + (math.nan,) * 3)
                    continue
            rows.append((w, nl) + metric(ref, flexmb_series(h5)))
    print()
    print("second revolution; reference: %s elements, dt %s; flexmb: n_el %s, dt %s"
          % (a.ref_elements, a.ref_dt if a.ref_dt != "auto" else "1e-4 (1e-5 from 25 rad/s)",
             a.n_el or "case", a.dt or "case"))
    print("%8s %9s %12s %12s %10s %12s" % ("omega", "nonlin", "ref peak mm", "flexmb mm",
                                          "peak %", "pointwise %"))
    for w, nl, pr, pf, dp, dd in rows:
        if nl is None:
            print("%8g %9s %12s   (the reference failed)" % (w, "-", "-"))
            continue
        print("%8g %9d %12.4f %12.4f %+10.2f %12.2f" % (w, nl, 1e3 * pr, 1e3 * pf, dp, dd))
    bad = 0
    for w, nl, pr, pf, dp, dd in rows:
        if nl is None or not (math.isfinite(dp) and math.isfinite(dd)):
            print("FAIL %g rad/s: a run failed" % w)
            bad += 1
            continue
        if a.check_peak is not None and not abs(dp) <= a.check_peak:
            print("FAIL %g rad/s nonlinear=%d: peak %+.2f %% > %g %%" % (w, nl, dp, a.check_peak))
            bad += 1
        if a.check_pointwise is not None and not dd <= a.check_pointwise:
            print("FAIL %g rad/s nonlinear=%d: pointwise %.2f %% > %g %%"
                  % (w, nl, dd, a.check_pointwise))
            bad += 1
    if a.check_peak is not None or a.check_pointwise is not None:
        print("%d failure(s)" % bad)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
