"""`flexmb sweep` (docs/sweep.md) against independent references.

usage: /usr/bin/python3 tests/test_sweep.py FLEXMB CASES_DIR TEST

TEST:
  grid       2x3 grid (m x theta0) of a bar pendulum with -j 2: six rows in grid order; the
             peak pin reaction of each run equals the hand-derived m g (2.5 - 1.5 cos theta0)
             (energy: omega^2 = 3 g (1 - cos theta0) / L at the bottom, where the pin carries
             m g + m (L/2) omega^2); energy drift < 1e-6 J; each run's state datasets equal
             bitwise those of `flexmb run --set ...` of the same parameters.
  counts     --grid runs every combination (3 x 2 = 6), --zip pairs the lists (3), ranges
             start:stop:count give count evenly spaced values with both ends exact.
  failing    L = 1, -1, 2: the run with L = -1 is failed with the loader's message in the
             summary; the two others complete with the analytic peak; exit status 4.
  resume     SIGINT half-way through five runs (-j 1): exit 130, the summary holds the
             completed runs; `--resume` runs only the others (the completed files are not
             rewritten: same inode and mtime), and the summary ends complete and correct.
  badinput   unknown parameter, empty list, empty item, malformed range, unequal --zip
             lists, on the command line and in a study file: exit 2 and the position.
  yaml       the `sweep:` section of a study file gives the same runs as --vary.
  metrics    quick-return (elastic and rigid rocker): each metric equals its numpy
             recomputation from the run's file (peak |deflection|, its time and crank angle,
             peak reactions, peak drive torque, energy drift).
  stress     a cantilever bar (d = 20 mm, L = 1 m, E = 200 GPa, static start) with tip
             loads P = 50, 100 N and yield 100 MPa: stress_max.bar equals the hand value
             P L (d/2) / (pi d^4/64) (1e-9), stress_yield_ratio.bar that over 100 MPa,
             stress_max_time.bar = 0 (the static start's record), units Pa, 1, s in
             summary.h5; the quick-return's stress_max.rocker (metrics) equals the numpy
             peak of /beams/rocker/stress.
  events     clearance slider-crank (2 clearances) and the switching system (2 input
             amplitudes): impact_force_max, contact_fraction and impacts of the clearance
             joint, mode_changes of every switching element, each equal to its numpy
             recomputation from the run's file; the clearance runs have impacts.
  variants   named variants declared in the case (`variants:`): --vary bar=light,heavy
             runs each variant once with its parameter values (the peaks equal the
             analytic m g (2.5 - 1.5 cos theta0) of each variant's m and theta0, and each
             run file's /parameters hold them), a later --set of one of a variant's
             parameters wins, the study file takes variants as names; unknown variants
             (--vary, study file, run --set) and malformed variants sections are refused
             with the position and the declared names.
  userfiles  -o DIR holding the user's summary.csv, summary.h5, a run's .log or .xmf: each
             refused (exit 2, every file unchanged, nothing written); --force replaces them,
             a second sweep replaces its own files without --force; a temporary-looking
             summary.csv.tmp of the user's is never touched; a case input (a table) called
             summary.csv in DIR is refused even with --force, byte-identical.
  plot       scripts/plot_sweep.py --print: one series per mass, sorted by theta0, the
             analytic peak reactions, axes labelled with the parameter's description and
             unit (from its comment in the case) and the metric's unit, and a PNG; the
             quick-return's model variants: the rigid runs named as having no rocker
             deflection, drawn for the joint force; identical lines drawn once.
  mpi        `mpirun -n 3 --oversubscribe flexmb sweep` gives the summary of -j 2 (every
             column but wall_time).
"""
import csv
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np

FLEXMB, CASES, TEST = sys.argv[1], sys.argv[2], sys.argv[3]
G = 9.81
FAILURES = []


def check(cond, msg):
    if not cond:
        FAILURES.append(msg)
        print("FAIL: " + msg)
    return cond


def sweep(args, cwd, env=None, prefix=()):
    return subprocess.run(list(prefix) + [FLEXMB, "sweep"] + args, cwd=cwd, capture_output=True,
                          text=True, env=env, timeout=600)


def rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def pendulum(tmp, t_end=1.0):
    """The bar pendulum case with a shorter run (the peak is at the bottom, t ~ 0.42 s)."""
    text = open(os.path.join(CASES, "pendulum.yaml"), encoding="utf-8").read()
    text = re.sub(r"t_end: 5", "t_end: %g" % t_end, text)
    text = re.sub(r"(?m)^output:.*$", "", text)
    path = os.path.join(tmp, "pend.yaml")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def peak(m, theta0):
    return m * G * (2.5 - 1.5 * math.cos(theta0))


def check_peaks(table, where):
    for r in table:
        if r["status"] != "complete":
            continue
        m = float(r.get("m", 1.0))
        th = float(r.get("theta0", math.pi / 6))
        ref = peak(m, th)
        got = float(r["reaction_max.pin"])
        check(abs(got - ref) <= 1e-5 * ref,
              "%s: run %s peak reaction %.9g, analytic %.9g" % (where, r["run"], got, ref))
        check(float(r["energy_drift"]) < 1e-6, "%s: run %s energy drift %s J" %
              (where, r["run"], r["energy_drift"]))


def test_grid(tmp):
    case = pendulum(tmp)
    p = sweep([case, "--vary", "m=1,2", "--vary", "theta0=0.1,0.3,0.5", "-j", "2", "-o", "g"],
              tmp)
    check(p.returncode == 0, "grid: exit %d: %s" % (p.returncode, p.stderr))
    table = rows(os.path.join(tmp, "g", "summary.csv"))
    want = [(m, th) for m in ("1", "2") for th in ("0.1", "0.3", "0.5")]
    check([(r["m"], r["theta0"]) for r in table] == want, "grid: rows %s" %
          [(r["m"], r["theta0"]) for r in table])
    check(all(r["status"] == "complete" for r in table), "grid: not all complete")
    check(all(r["steps"] == "1000" for r in table), "grid: steps != t_end / h = 1000")
    check_peaks(table, "grid")
    with h5py.File(os.path.join(tmp, "g", "summary.h5"), "r") as f:
        check(int(f.attrs["complete"]) == 1 and int(f.attrs["runs"]) == 6, "grid: summary.h5 attrs")
        check(np.allclose(f["parameters/theta0"][:], [0.1, 0.3, 0.5] * 2), "grid: h5 theta0")
        check(np.array_equal(f["metrics/reaction_max.pin"][:],
                             [float(r["reaction_max.pin"]) for r in table]), "grid: h5 != csv")
    state = ["/time", "/bodies/bar/q", "/bodies/bar/qd", "/bodies/bar/qdd", "/bodies/bar/pose",
             "/joints/pin/reaction", "/energy"]
    for r in table:
        single = os.path.join(tmp, "single.h5")
        s = subprocess.run([FLEXMB, "run", case, "-q", "-o", single, "--set", "m=" + r["m"],
                            "--set", "theta0=" + r["theta0"]], capture_output=True, text=True)
        check(s.returncode == 0, "single run failed: " + s.stderr)
        with h5py.File(single, "r") as a, h5py.File(os.path.join(tmp, "g", r["file"]), "r") as b:
            for d in state:
                check(np.array_equal(a[d][:], b[d][:]), "grid: %s %s differs from the single run"
                      % (r["file"], d))


def test_counts(tmp):
    case = pendulum(tmp, 0.01)
    p = sweep([case, "--vary", "m=1:2:3", "--vary", "theta0=0.1,0.2", "-o", "grid", "-q"], tmp)
    t = rows(os.path.join(tmp, "grid", "summary.csv"))
    check(p.returncode == 0 and len(t) == 6, "counts: grid gave %d rows (exit %d)" %
          (len(t), p.returncode))
    check([r["m"] for r in t] == ["1", "1", "1.5", "1.5", "2", "2"], "counts: grid m order %s" %
          [r["m"] for r in t])
    p = sweep([case, "--vary", "m=1:2:3", "--vary", "theta0=0.1,0.2,0.3", "--zip", "-o", "zip",
               "-q"], tmp)
    t = rows(os.path.join(tmp, "zip", "summary.csv"))
    check(p.returncode == 0 and [(r["m"], r["theta0"]) for r in t] ==
          [("1", "0.1"), ("1.5", "0.2"), ("2", "0.3")], "counts: zip rows %s" %
          [(r["m"], r["theta0"]) for r in t])
    # 0.1:0.3:3 -> 0.1, 0.2, 0.3 exactly at the ends; the middle is 0.1 + 0.2 / 2
    p = sweep([case, "--vary", "theta0=0.1:0.3:3", "-o", "rng", "-q"], tmp)
    t = rows(os.path.join(tmp, "rng", "summary.csv"))
    check([float(r["theta0"]) for r in t] == [0.1, 0.1 + (0.3 - 0.1) * 0.5, 0.3],
          "counts: range values %s" % [r["theta0"] for r in t])


def test_failing(tmp):
    case = pendulum(tmp)
    p = sweep([case, "--vary", "L=1,-1,2", "-j", "2", "-o", "f", "-q"], tmp)
    check(p.returncode == 4, "failing: exit %d, want 4" % p.returncode)
    t = rows(os.path.join(tmp, "f", "summary.csv"))
    st = {r["L"]: r for r in t}
    check(st["-1"]["status"] == "failed" and "bar length must be > 0" in st["-1"]["message"],
          "failing: L=-1 row %s" % st["-1"])
    check(st["1"]["status"] == "complete" and st["2"]["status"] == "complete",
          "failing: other runs not complete")
    check_peaks([st["1"], st["2"]], "failing")


def test_resume(tmp):
    case = pendulum(tmp, 2.0)
    args = [case, "--vary", "theta0=0.1:0.5:5", "-j", "1", "-o", "r"]
    proc = subprocess.Popen([FLEXMB, "sweep"] + args, cwd=tmp, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    summary = os.path.join(tmp, "r", "summary.csv")
    t0 = time.monotonic()
    while time.monotonic() - t0 < 120 and proc.poll() is None:
        if os.path.exists(summary) and sum(r["status"] == "complete" for r in rows(summary)) >= 2:
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=120)
    check(proc.returncode == 130, "resume: interrupted sweep exit %d, want 130" % proc.returncode)
    first = rows(summary)
    done = [r["file"] for r in first if r["status"] == "complete"]
    check(2 <= len(done) < 5, "resume: %d complete after the interrupt" % len(done))
    check(all(r["status"] in ("complete", "interrupted", "pending") for r in first),
          "resume: statuses %s" % [r["status"] for r in first])
    stamp = {f: (os.stat(os.path.join(tmp, "r", f)).st_ino,
                 os.stat(os.path.join(tmp, "r", f)).st_mtime_ns) for f in done}
    p = sweep(args + ["--resume"], tmp)
    check(p.returncode == 0, "resume: exit %d: %s" % (p.returncode, p.stderr))
    final = rows(summary)
    check(all(r["status"] == "complete" for r in final), "resume: not all complete")
    for r in final:
        path = os.path.join(tmp, "r", r["file"])
        if r["file"] in done:
            check((os.stat(path).st_ino, os.stat(path).st_mtime_ns) == stamp[r["file"]],
                  "resume: %s was run again" % r["file"])
            check(r["message"] == "complete already (--resume)", "resume: message " + r["message"])
        else:
            check(r["message"] == "", "resume: %s not run again" % r["file"])
    check("%d run now, %d complete already" % (5 - len(done), len(done)) in p.stderr,
          "resume: count line missing: " + p.stderr[-300:])
    check_peaks(final, "resume")


def test_badinput(tmp):
    case = pendulum(tmp, 0.01)
    cli = [(["--vary", "Lx=1,2"], r"argument 4 \(--vary Lx=1,2\): unknown parameter 'Lx' "
            r"\(.*has: L, m, theta0\)"),
           (["--vary", "L="], r"argument 4 .*L: empty list of values"),
           (["--vary", "L=1,,2"], r"L: empty value at character 5"),
           (["--vary", "L=1:2"], r"L: malformed range '1:2' at character 3"),
           (["--vary", "L=1:2:0"], r"malformed range '1:2:0'"),
           (["--vary", "L=1,x y"], r"'x y' at character 5 is not a number"),
           (["--vary", "L=1,2", "--vary", "m=1,2,3", "--zip"], r"--zip: m has 3 values but L "
            r"has 2"),
           (["--vary", "L=1,1.0"], r"value 1 is listed twice")]
    for extra, pattern in cli:
        p = sweep([case] + extra + ["-o", "bad"], tmp)
        check(p.returncode == 2 and re.search(pattern, p.stderr),
              "badinput %s: exit %d, stderr %r" % (extra, p.returncode, p.stderr))
    studies = [("sweep:\n  case: pend.yaml\n  vary:\n    Lx: [1, 2]\n",
                r"study.yaml:4:5: unknown parameter 'Lx'"),
               ("sweep:\n  case: pend.yaml\n  vary:\n    L: []\n", r"study.yaml:4:5: L: empty"),
               ("sweep:\n  case: pend.yaml\n  vary:\n    L: [1, '2:3']\n",
                r"study.yaml:4:12: L: malformed range '2:3'"),
               ("sweep:\n  case: pend.yaml\n  vary: {L: [1]}\n  jobz: 2\n",
                r"study.yaml:4:3: unknown key 'jobz'"),
               ("sweep:\n  case: pend.yaml\n  mode: zip\n  vary:\n    L: [1, 2]\n    m: 1:2:3\n",
                r"--zip: m has 3 values")]
    for text, pattern in studies:
        with open(os.path.join(tmp, "study.yaml"), "w", encoding="utf-8") as f:
            f.write(text)
        p = sweep(["study.yaml", "-o", "bad"], tmp)
        check(p.returncode == 2 and re.search(pattern, p.stderr),
              "badinput study %r: exit %d, stderr %r" % (text, p.returncode, p.stderr))
    check(not os.path.exists(os.path.join(tmp, "bad")), "badinput: an output directory was made")


VARIANTS = """variants:
  bar:
    light: {m: 1}
    heavy: {m: 2, theta0: 0.5}
"""


def test_variants(tmp):
    case = pendulum(tmp)
    with open(case, "a", encoding="utf-8") as f:
        f.write(VARIANTS)
    declared = {"light": (1.0, math.pi / 6), "heavy": (2.0, 0.5)}  # (m, theta0) as above
    p = sweep([case, "--vary", "bar=light,heavy", "-j", "2", "-o", "v", "-q"], tmp)
    check(p.returncode == 0, "variants: exit %d: %s" % (p.returncode, p.stderr))
    table = rows(os.path.join(tmp, "v", "summary.csv"))
    check([r["bar"] for r in table] == ["light", "heavy"], "variants: one run per variant (%s)"
          % [r["bar"] for r in table])
    check([r["file"] for r in table] == ["bar=light.h5", "bar=heavy.h5"],
          "variants: files named by the variant (%s)" % [r["file"] for r in table])
    for r in table:
        m, th = declared[r["bar"]]
        got, ref = float(r["reaction_max.pin"]), peak(m, th)
        check(abs(got - ref) <= 1e-5 * ref, "variants: %s peak reaction %.9g, analytic %.9g"
              % (r["bar"], got, ref))
        with h5py.File(os.path.join(tmp, "v", r["file"]), "r") as f:
            a = f["parameters"].attrs
            check(float(a["m"]) == m and abs(float(a["theta0"]) - th) < 1e-15
                  and list(a["_overrides"]) == ["bar=" + r["bar"]],
                  "variants: %s file parameters m %s theta0 %s, overrides %s"
                  % (r["bar"], a["m"], a["theta0"], list(a["_overrides"])))
    with h5py.File(os.path.join(tmp, "v", "summary.h5"), "r") as f:
        check(list(f["parameters/bar"].asstr()[:]) == ["light", "heavy"],
              "variants: summary.h5 holds the names")
    # a later --set of a variant's parameter wins (--set comes after the varied values)
    out = os.path.join(tmp, "later.h5")
    s = subprocess.run([FLEXMB, "run", case, "-q", "-o", out, "--set", "bar=heavy", "--set",
                        "theta0=0.2"], capture_output=True, text=True)
    with h5py.File(out, "r") as f:
        a = f["parameters"].attrs
        check(s.returncode == 0 and float(a["m"]) == 2 and float(a["theta0"]) == 0.2,
              "variants: --set bar=heavy --set theta0=0.2 gives m 2, theta0 0.2")
    # a study file: the variants as names
    with open(os.path.join(tmp, "vstudy.yaml"), "w", encoding="utf-8") as f:
        f.write("sweep:\n  case: pend.yaml\n  vary:\n    bar: [heavy]\n    L: [1, 2]\n")
    p = sweep(["vstudy.yaml", "-o", "vs", "-q"], tmp)
    t = rows(os.path.join(tmp, "vs", "summary.csv"))
    check(p.returncode == 0 and [(r["bar"], r["L"]) for r in t] == [("heavy", "1"),
                                                                     ("heavy", "2")],
          "variants: study file (%s)" % [(r.get("bar"), r.get("L")) for r in t])
    # refused: unknown variant (command line, study file, run), malformed sections
    p = sweep([case, "--vary", "bar=light,hevy", "-o", "bad"], tmp)
    check(p.returncode == 2 and re.search(r"argument 4 \(--vary bar=light,hevy\): 'hevy' is "
                                          r"not a variant of 'bar' \(.* declares: light,heavy\)",
                                          p.stderr), "variants: unknown variant: %r" % p.stderr)
    with open(os.path.join(tmp, "vstudy.yaml"), "w", encoding="utf-8") as f:
        f.write("sweep:\n  case: pend.yaml\n  vary:\n    bar: [lite]\n")
    p = sweep(["vstudy.yaml", "-o", "bad"], tmp)
    check(p.returncode == 2 and re.search(r"vstudy.yaml:4:5: 'lite' is not a variant of 'bar'",
                                          p.stderr), "variants: study file: %r" % p.stderr)
    p = sweep([case, "--vary", "brr=light", "-o", "bad"], tmp)
    check(p.returncode == 2 and re.search(r"unknown parameter 'brr' .*variant groups: bar\)",
                                          p.stderr), "variants: unknown group: %r" % p.stderr)
    s = subprocess.run([FLEXMB, "check", case, "--set", "bar=medium"], capture_output=True,
                       text=True)
    check(s.returncode == 2 and re.search(r"pend.yaml:\d+:\d+: override 'bar=medium': "
                                          r"'medium' is not a variant of 'bar' \(variants: "
                                          r"light, heavy\)", s.stderr),
          "variants: run --set bar=medium: %r" % s.stderr)
    text = open(case, encoding="utf-8").read()
    n = text[:text.index(VARIANTS)].count("\n") + 3  # the line of the variant
    for bad, pattern in (("    light: {mass: 1}\n", r":%d:13: variant 'light' of group 'bar': "
                          r"unknown parameter 'mass' \(parameters: L, m, theta0\)" % n),
                         ("    light: 1\n", r":%d:12: variant 'light' of group 'bar' must be a "
                          r"mapping" % n),
                         ("    light: {m: [1, 2]}\n", r":%d:16: variant 'light' of group 'bar': "
                          r"parameter 'm' must be a number" % n)):
        with open(os.path.join(tmp, "badv.yaml"), "w", encoding="utf-8") as f:
            f.write(text.replace(VARIANTS, "variants:\n  bar:\n" + bad))
        s = subprocess.run([FLEXMB, "check", os.path.join(tmp, "badv.yaml")],
                           capture_output=True, text=True)
        check(s.returncode == 2 and re.search(pattern, s.stderr),
              "variants: malformed %r: %r" % (bad, s.stderr))
    with open(os.path.join(tmp, "badv.yaml"), "w", encoding="utf-8") as f:
        f.write(text.replace(VARIANTS, "variants:\n  m:\n    one: {L: 1}\n"))
    s = subprocess.run([FLEXMB, "check", os.path.join(tmp, "badv.yaml")], capture_output=True,
                       text=True)
    check(s.returncode == 2 and "variant group 'm' has the name of a parameter" in s.stderr,
          "variants: group named as a parameter: %r" % s.stderr)
    check(not os.path.exists(os.path.join(tmp, "bad")), "variants: an output directory was made")


def test_yaml(tmp):
    pendulum(tmp)
    with open(os.path.join(tmp, "study.yaml"), "w", encoding="utf-8") as f:
        f.write("sweep:\n  case: pend.yaml\n  mode: grid\n  output: y\n  jobs: 2\n"
                "  set: {L: 2}\n  vary:\n    m: [1, 2]\n    theta0: 0.1:0.3:2\n")
    sub = os.path.join(tmp, "elsewhere")
    os.mkdir(sub)
    p = sweep(["../study.yaml", "-q"], sub)  # the case is found next to the study file
    check(p.returncode == 0, "yaml: exit %d: %s" % (p.returncode, p.stderr))
    t = rows(os.path.join(sub, "y", "summary.csv"))
    check([(r["m"], r["theta0"]) for r in t] == [("1", "0.1"), ("1", "0.3"), ("2", "0.1"),
                                                  ("2", "0.3")], "yaml: rows")
    check_peaks(t, "yaml")
    with h5py.File(os.path.join(sub, "y", t[0]["file"]), "r") as f:
        check(abs(f["parameters"].attrs["L"] - 2.0) == 0, "yaml: set L=2 not applied")


def test_metrics(tmp):
    p = sweep([os.path.join(CASES, "quick_return.yaml"), "--vary", "omega=20,30", "--vary",
               "rigid_rocker=0,1", "--set", "revolutions=0.3", "-j", "2", "-o", "q", "-q"], tmp)
    check(p.returncode == 0, "metrics: exit %d: %s" % (p.returncode, p.stderr))
    for r in rows(os.path.join(tmp, "q", "summary.csv")):
        with h5py.File(os.path.join(tmp, "q", r["file"]), "r") as f:
            t = f["time"][:]
            crank = np.degrees(f["bodies/crank/pose"][:, 2])
            if r["rigid_rocker"] == "0":
                v = np.abs(f["beams/rocker/deflection"][:])
                i = int(np.argmax(v.max(axis=1)))
                check(float(r["deflection_max.rocker"]) == v.max(), "metrics: deflection")
                check(float(r["deflection_max_time.rocker"]) == t[i], "metrics: time of peak")
                check(abs(float(r["deflection_max_angle.rocker"]) - crank[i] % 360) < 1e-9,
                      "metrics: crank angle at the peak")
            else:
                check(r["deflection_max.rocker"] == "", "metrics: rigid rocker has a deflection")
            for j in ("O1", "A", "O2", "B", "C", "guide", "D_on_rocker"):
                check(float(r["reaction_max." + j]) == f["joints/%s/force_magnitude" % j][:].max(),
                      "metrics: reaction_max." + j)
            check(float(r["drive_torque_max.motor"]) ==
                  np.abs(f["joints/motor/drive_torque"][:]).max(), "metrics: drive torque")
            e = f["energy"][:, 3]
            check(float(r["energy_drift"]) == np.abs(e - e[0]).max(), "metrics: energy drift")
            if r["rigid_rocker"] == "0":
                check(float(r["stress_max.rocker"]) ==
                      f["beams/rocker/stress"][:, :, 2].max(), "metrics: stress_max")


CANTILEVER = """parameters:
  P: 100
gravity: [0, 0]
solver: {h: 1e-4, t_end: 2e-4, start: static}
bodies:
  - name: bar
    beam: {E: 200e9, rho: 7800, section: {circle: 0.02}, length: 1.0, elements: 10,
           reference: cantilever, yield: 100e6}
    pose: [0, 0, 0]
joints:
  - {name: root, type: weld, bodies: [ground, bar], points: [[0, 0], start]}
forces:
  - {name: tip, type: point, body: bar, point: end, fy: -P}
"""


def test_stress(tmp):
    path = os.path.join(tmp, "cant.yaml")
    with open(path, "w") as f:
        f.write(CANTILEVER)
    p = sweep([path, "--vary", "P=50,100", "-o", "s", "-q"], tmp)
    check(p.returncode == 0, "stress: exit %d: %s" % (p.returncode, p.stderr))
    d = 0.02
    per_newton = 1.0 * (d / 2) / (math.pi * d ** 4 / 64)  # L c / I
    t = rows(os.path.join(tmp, "s", "summary.csv"))
    check(len(t) == 2, "stress: two rows")
    for r in t:
        want = float(r["P"]) * per_newton
        got = float(r["stress_max.bar"])
        check(abs(got - want) <= 1e-9 * want, "stress: stress_max %.6g, hand %.6g" % (got, want))
        check(abs(float(r["stress_yield_ratio.bar"]) - want / 100e6) <= 1e-9,
              "stress: yield ratio")
        check(float(r["stress_max_time.bar"]) == 0.0, "stress: time of the peak")
        print("stress: P = %s N: %.6g MPa (hand %.6g MPa)" % (r["P"], got / 1e6, want / 1e6))
    with h5py.File(os.path.join(tmp, "s", "summary.h5"), "r") as f:
        for k, u in (("stress_max.bar", "Pa"), ("stress_yield_ratio.bar", "1"),
                     ("stress_max_time.bar", "s")):
            a = f["metrics/" + k].attrs["units"]
            check((a.decode() if isinstance(a, bytes) else a) == u, "stress: units of " + k)


def test_events(tmp):
    p = sweep([os.path.join(CASES, "slider_crank_clearance.yaml"), "--vary",
               "clearance=0.25e-3,0.5e-3", "--set", "revs=0.3", "-j", "2", "-o", "c", "-q"], tmp)
    check(p.returncode == 0, "events: clearance exit %d: %s" % (p.returncode, p.stderr))
    for r in rows(os.path.join(tmp, "c", "summary.csv")):
        with h5py.File(os.path.join(tmp, "c", r["file"]), "r") as f:
            g = f["joints/B/clearance"]
            fn, c = g["normal_force"][:], g["contact"][:] != 0
            starts = int(c[0]) + int(np.sum(c[1:] & ~c[:-1]))
            check(float(r["impact_force_max.B"]) == np.abs(fn).max(), "events: impact force")
            check(abs(float(r["contact_fraction.B"]) - c.mean()) < 1e-12,
                  "events: contact fraction")
            check(int(float(r["impacts.B"])) == starts, "events: impacts %s vs %d"
                  % (r["impacts.B"], starts))
            check(starts > 0, "events: clearance %s: no impact" % r["clearance"])
    p = sweep([os.path.join(CASES, "switching.yaml"), "--vary", "A=4,6", "--set", "t_end=1.5",
               "-j", "2", "-o", "s", "-q"], tmp)
    check(p.returncode == 0, "events: switching exit %d: %s" % (p.returncode, p.stderr))
    for r in rows(os.path.join(tmp, "s", "summary.csv")):
        with h5py.File(os.path.join(tmp, "s", r["file"]), "r") as f:
            for name, g in f["switches"].items():
                mode = g["mode"][:]
                n = int(np.sum(mode[1:] != mode[:-1]))
                check(int(float(r["mode_changes." + name])) == n,
                      "events: mode_changes.%s %s vs %d" % (name, r["mode_changes." + name], n))
    with h5py.File(os.path.join(tmp, "s", "summary.h5"), "r") as f:
        check(f["metrics/mode_changes.ratchet"].attrs["units"] in ("1", b"1"),
              "events: mode_changes unit")


def test_userfiles(tmp):
    case = pendulum(tmp, t_end=0.05)
    out = os.path.join(tmp, "u")
    mine = {"summary.csv": b"my data\n", "summary.h5": b"<my/>\n", "L=1.log": b"my notes\n",
            "L=2.xmf": b"my sketch\n"}
    args = [case, "--vary", "L=1,2", "-o", out, "--quiet"]
    for name, text in mine.items():
        os.makedirs(out, exist_ok=True)
        for f in os.listdir(out):
            os.remove(os.path.join(out, f))
        with open(os.path.join(out, name), "wb") as f:
            f.write(text)
        p = sweep(args, tmp)
        check(p.returncode == 2 and "not replaced" in p.stderr and name in p.stderr,
              "userfiles: the user's %s refused: exit %d, %s" % (name, p.returncode, p.stderr))
        check(os.listdir(out) == [name] and open(os.path.join(out, name), "rb").read() == text,
              "userfiles: %s unchanged and nothing written (%s)" % (name, os.listdir(out)))
    for name, text in mine.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(text)
    with open(os.path.join(out, "summary.csv.tmp"), "wb") as f:
        f.write(b"keep me\n")
    p = sweep(args + ["--force"], tmp)
    check(p.returncode == 0, "userfiles: --force: exit %d %s" % (p.returncode, p.stderr))
    table = rows(os.path.join(out, "summary.csv"))
    check([r["status"] for r in table] == ["complete", "complete"],
          "userfiles: --force runs complete: %s" % [r["status"] for r in table])
    p = sweep(args, tmp)
    check(p.returncode == 0, "userfiles: the sweep's own files replaced without --force: exit "
          "%d %s" % (p.returncode, p.stderr))
    check(open(os.path.join(out, "summary.csv.tmp"), "rb").read() == b"keep me\n",
          "userfiles: the user's summary.csv.tmp untouched")
    check(sorted(os.listdir(out)) == ["L=1.h5", "L=1.log", "L=1.xmf", "L=2.h5", "L=2.log",
                                      "L=2.xmf", "summary.csv", "summary.csv.tmp",
                                      "summary.h5"],
          "userfiles: no temporaries left: %s" % sorted(os.listdir(out)))
    # a case input in DIR called summary.csv: never overwritten, even with --force
    d = os.path.join(tmp, "t")
    os.makedirs(d)
    shutil.copy(os.path.join(CASES, "motor_profile.csv"), os.path.join(d, "summary.csv"))
    text = open(os.path.join(CASES, "motor_profile.yaml"), encoding="utf-8").read()
    text = text.replace("motor_profile.csv", "summary.csv").replace("t_end: 1}", "t_end: 0.05}")
    with open(os.path.join(d, "mp.yaml"), "w", encoding="utf-8") as f:
        f.write(text)
    before = open(os.path.join(d, "summary.csv"), "rb").read()
    for extra in ([], ["--force"]):
        p = sweep([os.path.join(d, "mp.yaml"), "--vary", "ms=0.5,0.6", "-o", d, "--quiet"] +
                  extra, tmp)
        check(p.returncode == 2 and "refusing to overwrite an input" in p.stderr,
              "userfiles: input summary.csv %s: exit %d, %s" % (extra, p.returncode, p.stderr))
        check(open(os.path.join(d, "summary.csv"), "rb").read() == before and
              sorted(os.listdir(d)) == ["mp.yaml", "summary.csv"],
              "userfiles: input summary.csv byte-identical, nothing written %s" % extra)


def test_plot(tmp):
    case = pendulum(tmp)
    p = sweep([case, "--vary", "m=1,2", "--vary", "theta0=0.5,0.1,0.3", "-j", "2", "-o", "p",
               "-q"], tmp)
    check(p.returncode == 0, "plot: sweep exit %d" % p.returncode)
    script = os.path.join(os.path.dirname(CASES), "scripts", "plot_sweep.py")
    png = os.path.join(tmp, "p.png")
    q = subprocess.run([sys.executable, script, os.path.join(tmp, "p"), "reaction_max.pin",
                        "--x", "theta0", "--print", "-o", png], capture_output=True, text=True)
    check(q.returncode == 0, "plot: exit %d: %s" % (q.returncode, q.stderr))
    lines = {l.split(":")[0]: [float(x) for x in l.split(":")[1].split()]
             for l in q.stdout.splitlines() if l.startswith("m = ")}
    check(sorted(lines) == ["m = 1", "m = 2"], "plot: series %s" % sorted(lines))
    # the axes: the parameter's description and unit from its comment in the case
    # (`theta0: pi/6  # release angle from the downward vertical, rad`), the metric's
    # unit from summary.h5
    check("axes: release angle from the downward vertical theta0 [rad] | peak force in "
          "joint pin [N]" in q.stdout, "plot: axis labels with units: %r" % q.stdout[-300:])
    for label, v in lines.items():
        xs, ys = v[0::2], v[1::2]
        check(xs == [0.1, 0.3, 0.5], "plot: %s abscissae %s (sorted theta0)" % (label, xs))
        m = float(label[4:])
        for x, y in zip(xs, ys):
            check(abs(y - peak(m, x)) <= 1e-5 * peak(m, x), "plot: %s at %g: %g, analytic %g"
                  % (label, x, y, peak(m, x)))
    check(os.path.getsize(png) > 10000 if os.path.exists(png) else False, "plot: no PNG")

    # the quick-return's model variants: the rigid runs have no rocker deflection (named,
    # not dropped silently) but have joint forces (drawn)
    qr = os.path.join(CASES, "quick_return.yaml")
    p = sweep([qr, "--vary", "model=rigid,linear", "--vary", "omega=5,10", "--set",
               "revolutions=0.01", "-j", "2", "-o", "qv", "-q"], tmp)
    check(p.returncode == 0, "plot: quick-return variants sweep exit %d" % p.returncode)

    def plot(metric, d="qv"):
        q = subprocess.run([sys.executable, script, os.path.join(tmp, d), metric, "--print",
                            "--x", "omega", "-o", os.path.join(tmp, d + ".png")],
                           capture_output=True, text=True)
        check(q.returncode == 0, "plot %s: exit %d: %s" % (metric, q.returncode, q.stderr))
        return q.stdout, {l.split(":")[0] for l in q.stdout.splitlines() if ": " in l
                          and re.match(r"^\S+ = ", l) and not l.startswith("plot")}

    out, labels = plot("deflection_max.rocker")
    check(labels == {"model = linear"} and
          "model = rigid: no deflection_max.rocker in these runs" in out,
          "plot: rigid runs named as having no deflection: %r" % out)
    check("axes: crank speed omega [rad/s] | peak deflection of rocker [m]" in out,
          "plot: quick-return axes %r" % out)
    out, labels = plot("reaction_max.B")
    series_ = [l for l in out.splitlines() if l.startswith("model = ")]
    check(len(series_) == 2 and all(len(l.split(":")[1].split()) == 4 for l in series_),
          "plot: rigid and linear force lines, two speeds each: %r" % series_)
    # a flag grid that runs the rigid rocker twice: its two identical lines are one
    p = sweep([qr, "--vary", "rigid_rocker=1", "--vary", "nonlinear=0,1", "--vary",
               "omega=5,10", "--set", "revolutions=0.01", "-j", "2", "-o", "qf", "-q"], tmp)
    out, labels = plot("reaction_max.B", "qf")
    check([l.split(":")[0] for l in out.splitlines() if l.startswith("rigid_rocker")] ==
          ["rigid_rocker = 1, nonlinear = 0 or 1 (identical)"],
          "plot: identical lines drawn once: %r" % out)


def test_mpi(tmp):
    mpirun = shutil.which("mpirun")
    case = pendulum(tmp)
    args = [case, "--vary", "m=1,2", "--vary", "theta0=0.1,0.3,0.5"]
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    p = sweep(args + ["-o", "mpi"], tmp, env, [mpirun, "-n", "3", "--oversubscribe"])
    check(p.returncode == 0, "mpi: exit %d: %s" % (p.returncode, p.stderr))
    check("over 3 MPI ranks" in p.stderr, "mpi: not an MPI sweep: " + p.stderr)
    q = sweep(args + ["-o", "loc", "-j", "2"], tmp)
    a, b = rows(os.path.join(tmp, "mpi", "summary.csv")), rows(os.path.join(tmp, "loc",
                                                                                "summary.csv"))
    for r in a + b:
        r.pop("wall_time")
    check(len(a) == 6 and a == b, "mpi: summary differs from -j 2")
    check_peaks(a, "mpi")


def main():
    tmp = tempfile.mkdtemp(prefix="fmb_sweep_")
    try:
        globals()["test_" + TEST](tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if FAILURES:
        print("%d failure(s)" % len(FAILURES))
        return 1
    print("ok: sweep " + TEST)
    return 0


if __name__ == "__main__":
    sys.exit(main())
