"""Beam section forces and stresses (docs/theory.md section 7, "Section forces and
stress"; /beams/<b>/forces, /beams/<b>/stress, /viz/beams/stress) against hand values.

A steel bar (E = 200 GPa), L = 1 m, 10 elements, cantilever reference, welded to the
ground at its root, without gravity, loaded at its tip by a point force (fx, fy) and
started in its quasi-static shape (solver: start: static): record 0 is the static
solution.

  bent_circle     d = 20 mm, tip load fy = -P = -100 N: M(x) = -P (L - x) at every node
                  (Hermite elements are nodally exact under point loads: 1e-9 of P L),
                  N = 0; bending stress M c / I with c = d/2, I = pi d^4/64: 127.32 MPa
                  at the root; combined = |M| c / I.
  bent_rectangle  b x h = 20 x 10 mm (h in the bending plane), P = 10 N: I = b h^3/12,
                  c = h/2: 30.0 MPa at the root.
  bent_tube       tube D = 20 mm, d = 16 mm, P = 100 N: I = pi (D^4 - d^4)/64,
                  c = D/2: 215.6 MPa at the root.
  bent_given_c    {A: 3e-4, I: 8e-9, c: 0.012}, P = 100 N: 150 MPa at the root.
  axial_circle    d = 20 mm, fx = 10 kN: N = 10 kN at every node, sigma = N / A =
                  31.83 MPa, no bending.
  axial_rectangle 20 x 10 mm, fx = 10 kN: 50.0 MPa.
  combined        d = 20 mm, fx = 10 kN and fy = -100 N: combined = N/A + |M| c/I =
                  31.83 + 127.32 MPa at the root; the fibre stresses N/A -+ M c/I; and
                  /viz/beams/stress = |axial_force|/A + |moment| c/I at every drawn point.
  nonlinear       the bent circle as a co-rotational beam: the root moment balances the
                  tip load on the deflected arm, M(0) = -P x_tip (x_tip = L + u_tip from
                  /beams/bar/points), and the last element carries the load's component
                  along its chord, N = -P dy / l (chord dx, dy, length l): 1e-6 of P L
                  and of P.
  yield           bent circle with yield 100 MPa: the run warns, naming the beam, the
                  time, the node and 127.3 MPa (also with --quiet); with yield 200 MPa it
                  does not; the summary prints the peak and its share of the yield.
  errors          `yield` with an {A, I} section without c, and a tube whose inner
                  diameter is not below the outer one, are case errors naming the key.
usage: test_stress.py FLEXMB WHAT
"""
import math
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

failures = 0
E, L, PI = 200e9, 1.0, math.pi


def check(cond, msg):
    global failures
    print(("ok:   " if cond else "FAIL: ") + msg)
    failures += not cond


def case(section, fx, fy, extra=""):
    return f"""gravity: [0, 0]
solver:
  h: 1e-4
  t_end: 2e-4
  start: static
bodies:
  - name: bar
    beam:
      E: {E}
      rho: 7800
      section: {section}
      length: {L}
      elements: 10
      reference: cantilever
{extra}    pose: [0, 0, 0]
joints:
  - name: root
    type: weld
    bodies: [ground, bar]
    points: [[0, 0], start]
forces:
  - name: tip
    type: point
    body: bar
    point: end
    fx: {fx}
    fy: {fy}
"""


def run(flexmb, tmp, text, *args):
    path = os.path.join(tmp, "c.yaml")
    with open(path, "w") as f:
        f.write(text)
    out = os.path.join(tmp, "c.h5")
    p = subprocess.run([flexmb, "run", path, "-o", out, *args], capture_output=True,
                       text=True)
    return p, out


def near(got, want, tol, what):
    err = float(np.max(np.abs(np.asarray(got) - np.asarray(want))))
    check(err <= tol, "%s: max error %.3g (limit %.3g)" % (what, err, tol))


def bent(flexmb, tmp, section, P, A, I, c, what):
    p, out = run(flexmb, tmp, case(section, 0, -P))
    check(p.returncode == 0, "%s: run exits 0 (%s)" % (what, p.stderr.strip()[-200:]))
    with h5py.File(out, "r") as f:
        b = f["beams/bar"]
        x = b["x0"][:]
        nm, s = b["forces"][0], b["stress"][0]
        check(abs(b.attrs["c"] - c) <= 1e-15 and abs(b.attrs["A"] - A) <= 1e-12 * A
              and abs(b.attrs["I"] - I) <= 1e-12 * I, "%s: section A, I, c attributes" % what)
        M = -P * (L - x)
        near(nm[:, 1], M, 1e-9 * P * L, "%s: M(x) = -P (L - x)" % what)
        near(nm[:, 0], 0 * x, 1e-9 * P, "%s: N = 0" % what)
        sb = M * c / I
        near(s[:, 1], sb, 1e-9 * abs(sb[0]), "%s: bending stress M c/I" % what)
        near(s[:, 2], np.abs(sb), 1e-9 * abs(sb[0]), "%s: combined stress |M| c/I" % what)
        print("  %s: root stress %.6g MPa (hand %.6g MPa)" % (what, s[0, 2] / 1e6,
                                                              P * L * c / I / 1e6))


def axial(flexmb, tmp, section, F, A, what):
    p, out = run(flexmb, tmp, case(section, F, 0))
    check(p.returncode == 0, "%s: run exits 0" % what)
    with h5py.File(out, "r") as f:
        nm, s = f["beams/bar/forces"][0], f["beams/bar/stress"][0]
        near(nm[:, 0], F + 0 * nm[:, 0], 1e-9 * F, "%s: N = F at every node" % what)
        near(nm[:, 1], 0 * nm[:, 1], 1e-9 * F * L, "%s: M = 0" % what)
        near(s[:, 0], F / A + 0 * s[:, 0], 1e-9 * F / A, "%s: axial stress F / A" % what)
        near(s[:, 2], F / A + 0 * s[:, 0], 1e-9 * F / A, "%s: combined = F / A" % what)
        print("  %s: stress %.6g MPa (hand %.6g MPa)" % (what, s[0, 0] / 1e6, F / A / 1e6))


def main():
    flexmb, what = sys.argv[1], sys.argv[2]
    d = 0.02
    Ac, Ic = PI * d * d / 4, PI * d ** 4 / 64
    with tempfile.TemporaryDirectory() as tmp:
        if what == "bent_circle":
            bent(flexmb, tmp, "{circle: 0.02}", 100.0, Ac, Ic, d / 2, what)
        elif what == "bent_rectangle":
            bt, h = 0.02, 0.01
            bent(flexmb, tmp, "{rectangle: [0.02, 0.01]}", 10.0, bt * h, bt * h ** 3 / 12,
                 h / 2, what)
        elif what == "bent_tube":
            D, di = 0.02, 0.016
            bent(flexmb, tmp, "{tube: [0.02, 0.016]}", 100.0, PI * (D * D - di * di) / 4,
                 PI * (D ** 4 - di ** 4) / 64, D / 2, what)
        elif what == "bent_given_c":
            bent(flexmb, tmp, "{A: 3e-4, I: 8e-9, c: 0.012}", 100.0, 3e-4, 8e-9, 0.012, what)
        elif what == "axial_circle":
            axial(flexmb, tmp, "{circle: 0.02}", 1e4, Ac, what)
        elif what == "axial_rectangle":
            axial(flexmb, tmp, "{rectangle: [0.02, 0.01]}", 1e4, 0.02 * 0.01, what)
        elif what == "combined":
            F, P, c = 1e4, 100.0, d / 2
            p, out = run(flexmb, tmp, case("{circle: 0.02}", F, -P))
            check(p.returncode == 0, "combined: run exits 0")
            with h5py.File(out, "r") as f:
                b = f["beams/bar"]
                x, s = b["x0"][:], b["stress"][0]
                M = -P * (L - x)
                near(s[:, 0], F / Ac + 0 * x, 1e-9 * F / Ac, "combined: axial stress N/A")
                near(s[:, 1], M * c / Ic, 1e-9 * P * L * c / Ic, "combined: bending M c/I")
                want = F / Ac + np.abs(M) * c / Ic
                near(s[:, 2], want, 1e-9 * want[0], "combined: |N/A| + |M| c/I")
                print("  combined: root %.6g MPa = %.6g + %.6g MPa (hand)"
                      % (s[0, 2] / 1e6, F / Ac / 1e6, P * L * c / Ic / 1e6))
                v = f["viz/beams"]
                for fr in range(v["stress"].shape[0]):
                    vs = v["stress"][fr]
                    ref = np.abs(v["axial_force"][fr]) / Ac + np.abs(v["moment"][fr]) * c / Ic
                    near(vs, ref, 1e-7 * np.max(ref),
                         "combined: /viz stress = |axial_force|/A + |moment| c/I, frame %d" % fr)
        elif what == "nonlinear":
            P = 100.0
            text = case("{circle: 0.02}", 0, -P, "      geometry: nonlinear\n")
            p, out = run(flexmb, tmp, text)
            check(p.returncode == 0, "nonlinear: run exits 0")
            with h5py.File(out, "r") as f:
                b = f["beams/bar"]
                pts, nm = b["points"][0], b["forces"][0]
                xtip = pts[-1, 0] - pts[0, 0]
                near(nm[0, 1], -P * xtip, 1e-6 * P * L, "nonlinear: M(0) = -P x_tip")
                dx, dy = pts[-1, 0] - pts[-2, 0], pts[-1, 1] - pts[-2, 1]
                near(nm[-1, 0], -P * dy / math.hypot(dx, dy), 1e-6 * P,
                     "nonlinear: N of the last element = the load along its chord")
                check(abs(xtip - L) > 1e-4 * L, "nonlinear: the arm shortened (u_tip %.3g m)"
                      % (xtip - L))
        elif what == "yield":
            for y, warn in ((100e6, True), (200e6, False)):
                for q in ([], ["-q"]):
                    p, _ = run(flexmb, tmp, case("{circle: 0.02}", 0, -100,
                                                 "      yield: %g\n" % y), *q)
                    w = [l for l in p.stderr.splitlines() if "yield" in l]
                    tag = "yield %g MPa%s" % (y / 1e6, " -q" if q else "")
                    check(p.returncode == 0, "%s: run exits 0" % tag)
                    if warn:
                        ok = len(w) == 1 and all(k in w[0] for k in (
                            "warning", "beam 'bar'", "t = 0 s", "node 0", "127.3 MPa"))
                        check(ok, "%s: one warning naming beam, time, node, value: %s"
                              % (tag, w))
                    else:
                        check(not w, "%s: no yield warning (%s)" % (tag, w))
                    if not q:
                        check("peak stress 127.3 MPa" in p.stdout and
                              ("%.0f %% of yield" % (127.32 / (y / 1e6) * 100)) in p.stdout,
                              "%s: the summary gives the peak and its share of yield" % tag)
        elif what == "errors":
            bad = [("{A: 3e-4, I: 8e-9}", "      yield: 2e8\n",
                    "'yield' needs the section's extreme-fibre distance"),
                   ("{tube: [0.02, 0.02]}", "", "tube [D, d] needs outer diameter")]
            for sec, extra, msg in bad:
                p, _ = run(flexmb, tmp, case(sec, 0, -1, extra))
                check(p.returncode == 2 and msg in p.stderr and "c.yaml:" in p.stderr,
                      "%s: case error naming the file and '%s' (%s)"
                      % (sec, msg, p.stderr.strip()))
        else:
            print("unknown test", what)
            return 2
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
