"""Validity in every summary (docs/output.md "Validity", docs/sweep.md): `flexmb run`,
`run --quiet` (one line), /solver/statistics and the sweep's summary.csv / summary.h5, each
column with a case built to trigger it.

  edge      bar pendulum (cases/pendulum.yaml, released at theta0) swept over theta0 =
            0.3, 0.5 with t_end = 0.3 s, before it reaches the bottom (quarter period
            ~0.42 s): the pin force still grows, its peak is the last record
            (reaction_max.pin equals force_magnitude[-1]) and edge_peaks holds
            reaction_max.pin@last; with t_end = 1 s the peak (the bottom, m g (2.5 - 1.5
            cos theta0)) is inside the window and not flagged; plot_sweep.py --print lists
            the flagged points of the short window as "edge" and none of the long one.
  warnings  steel cantilever (d = 20 mm, L = 1 m, static start, yield 200 MPa) with tip
            loads P = 100 and 300 N: deflection_ratio = P L^2 / (3 E I) (hand, 1e-9);
            P = 100 N (2.1 %, 127 MPa) has no warning; P = 300 N (6.4 % > 5 %, 382 MPa >
            200 MPa) has both warnings (deflection_range.bar: the linear beam's 0.05), in run's stderr, in the one line of run -q ("2
            warnings"), in /solver/statistics@warnings and in the warnings column of
            summary.csv and summary.h5.
  error     four-bar (cases/four_bar.yaml) at its fixed h = 1e-4 s: error_ratio > 1 and
            equal to /solver/statistics@error_sum, the step warning in the warnings
            column; with step=adaptive the ratio is <= 1 and there is no warning.
  energy    the pendulum at h = 0.05 s, Newmark with numerical damping (gamma = 0.6):
            energy_drift_ratio equals max |E - E(0)| / max(|T|, |V|, |W|) recomputed with
            numpy from /energy, is above 1e-3 (the damping dissipates), and the -q line
            quotes it; at h = 1e-3 s with HHT alpha = -0.05 it is below 1e-6.
usage: test_validity.py FLEXMB SRC_DIR WHAT
"""
import csv
import math
import os
import re
import subprocess
import sys
import tempfile

import h5py
import numpy as np

failures = 0
G = 9.81


def check(cond, msg):
    global failures
    print(("ok:   " if cond else "FAIL: ") + msg)
    failures += not cond


def rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def sweep(flexmb, tmp, args):
    return subprocess.run([flexmb, "sweep"] + args, cwd=tmp, capture_output=True, text=True,
                          timeout=600)


def run(flexmb, *args):
    return subprocess.run([flexmb, "run"] + list(args), capture_output=True, text=True,
                          timeout=600)


def pendulum(src, tmp, t_end, solver=None):
    text = open(os.path.join(src, "cases", "pendulum.yaml"), encoding="utf-8").read()
    text = re.sub(r"t_end: 5", "t_end: %g" % t_end, text)
    if solver:
        text = re.sub(r"(?m)^solver:.*$", "solver: " + solver, text)
    text = re.sub(r"(?m)^output:.*$", "", text)
    path = os.path.join(tmp, "pend_%g.yaml" % t_end)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


CANTILEVER = """parameters:
  P: 100
gravity: [0, 0]
solver: {h: 1e-4, t_end: 2e-4, start: static}
bodies:
  - name: bar
    beam: {E: 200e9, rho: 7800, section: {circle: 0.02}, length: 1.0, elements: 10,
           reference: cantilever, yield: 200e6}
    pose: [0, 0, 0]
joints:
  - {name: root, type: weld, bodies: [ground, bar], points: [[0, 0], start]}
forces:
  - {name: tip, type: point, body: bar, point: end, fy: -P}
"""


def test_edge(flexmb, src, tmp):
    script = os.path.join(src, "scripts", "plot_sweep.py")
    for t_end, edge in ((0.3, True), (1.0, False)):
        case = pendulum(src, tmp, t_end)
        out = "e%g" % t_end
        p = sweep(flexmb, tmp, [case, "--vary", "theta0=0.3,0.5", "-o", out, "-q"])
        check(p.returncode == 0, "edge: sweep exit %d %s" % (p.returncode, p.stderr[-300:]))
        for r in rows(os.path.join(tmp, out, "summary.csv")):
            with h5py.File(os.path.join(tmp, out, r["file"]), "r") as f:
                fm = f["joints/pin/force_magnitude"][:]
                flagged = "reaction_max.pin@last" in r["edge_peaks"].split(",")
                check(flagged == edge, "edge: t_end %g theta0 %s: edge_peaks '%s'"
                      % (t_end, r["theta0"], r["edge_peaks"]))
                got = float(r["reaction_max.pin"])
                if edge:
                    check(got == fm[-1], "edge: t_end %g: the peak is the last record" % t_end)
                else:
                    th = float(r["theta0"])
                    want = G * (2.5 - 1.5 * math.cos(th))
                    check(abs(got - want) <= 1e-5 * want,
                          "edge: t_end %g theta0 %g: peak %.6g, hand %.6g" % (t_end, th, got,
                                                                            want))
                check(f["solver/statistics"].attrs["edge_peaks"] == r["edge_peaks"],
                      "edge: /solver/statistics@edge_peaks equals the column")
        with h5py.File(os.path.join(tmp, out, "summary.h5"), "r") as f:
            col = list(f["edge_peaks"].asstr()[:])
            check(all(("reaction_max.pin@last" in c) == edge for c in col),
                  "edge: summary.h5 edge_peaks %s" % col)
        q = subprocess.run([sys.executable, script, os.path.join(tmp, out), "reaction_max.pin",
                            "--x", "theta0", "--print", "-o", os.path.join(tmp, out + ".png")],
                           capture_output=True, text=True)
        fl = [l for l in q.stdout.splitlines() if l.startswith("flagged:")]
        check(q.returncode == 0 and len(fl) == (2 if edge else 0) and
              all(l.endswith(" edge") for l in fl),
              "edge: plot_sweep.py flags %s (t_end %g)" % (fl, t_end))


def test_warnings(flexmb, src, tmp):
    case = os.path.join(tmp, "cant.yaml")
    with open(case, "w") as f:
        f.write(CANTILEVER)
    E, d, L = 200e9, 0.02, 1.0
    I = math.pi * d ** 4 / 64
    kinds = ("deflects 6.4 % of its length", "exceeds its yield stress: 382 MPa")
    for P, nw in ((100, 0), (300, 2)):
        h5 = os.path.join(tmp, "c%d.h5" % P)
        p = run(flexmb, case, "-o", h5, "--set", "P=%d" % P)
        w = [l for l in p.stderr.splitlines() if "warning" in l]
        check(len(w) == nw and all(any(k in l for l in w) for k in kinds[:nw]),
              "warnings: P = %d: run stderr %s" % (P, w))
        check("validity" in p.stdout and ("%d warning" % nw) in p.stdout,
              "warnings: P = %d: the summary's validity line" % P)
        q = run(flexmb, case, "-o", h5, "--set", "P=%d" % P, "-q")
        lines = q.stdout.splitlines()
        check(len(lines) == 1 and lines[0].endswith("; %d warning%s" % (nw, "" if nw == 1 else "s"))
              and len([l for l in q.stderr.splitlines() if "warning" in l]) == nw,
              "warnings: P = %d: run -q one line %s and the warnings on stderr" % (P, lines))
        with h5py.File(h5, "r") as f:
            text = f["solver/statistics"].attrs["warnings"]
            check(len([l for l in text.splitlines() if l]) == nw and
                  all(k in text for k in kinds[:nw]), "warnings: P = %d: /solver/statistics" % P)
            want = P * L ** 2 / (3 * E * I)
            got = f["solver/statistics"].attrs["deflection_ratio.bar"]
            check(abs(got - want) <= 1e-9 * want,
                  "warnings: P = %d: deflection_ratio %.9g, hand P L^2/(3 E I) %.9g"
                  % (P, got, want))
    p = sweep(flexmb, tmp, [case, "--vary", "P=100,300", "-o", "w", "-q"])
    check(p.returncode == 0, "warnings: sweep exit %d" % p.returncode)
    t = rows(os.path.join(tmp, "w", "summary.csv"))
    for r in t:
        want = float(r["P"]) * L ** 2 / (3 * E * I)
        check(abs(float(r["deflection_ratio.bar"]) - want) <= 1e-9 * want,
              "warnings: sweep deflection_ratio.bar, P = %s" % r["P"])
        check(float(r["deflection_range.bar"]) == 0.05,
              "warnings: the linear beam's range 0.05 in deflection_range.bar")
        nw = 2 if r["P"] == "300" else 0
        parts = [x for x in r["warnings"].split(" | ") if x]
        check(len(parts) == nw and all(any(k in x for x in parts) for k in kinds[:nw]),
              "warnings: sweep warnings column, P = %s: %s" % (r["P"], parts))
    with h5py.File(os.path.join(tmp, "w", "summary.h5"), "r") as f:
        col = list(f["warnings"].asstr()[:])
        check(col[0] == "" and all(k in col[1] for k in kinds), "warnings: summary.h5 column")
        check(f["metrics/deflection_ratio.bar"].attrs["units"] == "1",
              "warnings: deflection_ratio units")


def test_error(flexmb, src, tmp):
    case = os.path.join(src, "cases", "four_bar.yaml")
    for step, big in (("fixed", True), ("adaptive", False)):
        h5 = os.path.join(tmp, "fb_%s.h5" % step)
        args = ["--set", "step=adaptive"] if step == "adaptive" else []
        p = run(flexmb, case, "-o", h5, "-q", *args)
        check(p.returncode == 0, "error: %s run exit %d" % (step, p.returncode))
        with h5py.File(h5, "r") as f:
            er = f["solver/statistics"].attrs["error_ratio"]
            check(er == f["solver/statistics"].attrs["error_sum"],
                  "error: %s: error_ratio = /solver/statistics@error_sum" % step)
            check((er > 1) == big, "error: %s: error ratio %.3g %s 1" % (step, er,
                                                                       ">" if big else "<="))
            w = f["solver/statistics"].attrs["warnings"]
            check(("local error estimate accumulated" in w) == big,
                  "error: %s: the step warning in /solver/statistics: '%s'" % (step, w[:80]))
        check(("error ratio %.3g" % er) in p.stdout, "error: %s: -q line quotes the ratio" % step)


def test_energy(flexmb, src, tmp):
    for solver, lo in (("{integrator: newmark, gamma: 0.6, h: 0.05, t_end: 2}", True),
                       (None, False)):
        case = pendulum(src, tmp, 2.0, solver)
        h5 = os.path.join(tmp, "pe.h5")
        p = run(flexmb, case, "-o", h5, "-q")
        check(p.returncode == 0, "energy: run exit %d %s" % (p.returncode, p.stderr))
        with h5py.File(h5, "r") as f:
            e = f["energy"][:]
            want = np.abs(e[:, 3] - e[0, 3]).max() / np.abs(e[:, :3]).max()
            got = f["solver/statistics"].attrs["energy_drift_ratio"]
        check(abs(got - want) <= 1e-12 + 1e-12 * want,
              "energy: drift ratio %.6g, numpy %.6g" % (got, want))
        check((got > 1e-3) if lo else (got < 1e-6), "energy: %s: ratio %.3g"
              % ("damped, h = 0.05 s" if lo else "h = 1e-3 s", got))
        check(("energy drift %.3g of the largest energy" % got) in p.stdout,
              "energy: -q line quotes it")


def main():
    flexmb, src, what = sys.argv[1], sys.argv[2], sys.argv[3]
    with tempfile.TemporaryDirectory() as tmp:
        globals()["test_" + what](flexmb, src, tmp)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
