"""Provenance in result files (docs/output.md, "Provenance"): /parameters holds every
evaluated parameter and the --set overrides, /solver/statistics the run statistics, and
the plot scripts build legends from the parameters that differ.

  - two pendulum runs with --set theta0=0.2 / 0.4: /parameters theta0 equals the override,
    L and m the case's values (1, 1), the derived-free case gives no other difference;
    overrides ["theta0=0.2"]; statistics: steps = t_end / h = 5000, records = steps + 1,
    status "complete", newton_iterations >= steps;
  - legend_labels on them: "theta0 = 0.2", "theta0 = 0.4", and the compare plot's legends;
  - scripts/plot_quick_return.py on two quick-return runs with --set omega=5 / 10
    (0.05 revolutions) prints the labels it plots: "omega = 5" and "omega = 10";
  - its --overlay with a third run at omega 5 and --set nonlinear=1 pairs the two omega 5
    runs in one row (linear and nonlinear maxima) and leaves omega 10 alone; the
    /beams/rocker geometry attributes are "linear" and "nonlinear".
usage: test_provenance.py FLEXMB SRC_DIR
"""
import os
import subprocess
import sys
import tempfile

import h5py

failures = 0


def check(cond, msg):
    global failures
    print(("ok:   " if cond else "FAIL: ") + msg)
    if not cond:
        failures += 1


def run(flexmb, case, out, *sets):
    args = [flexmb, "run", case, "-o", out, "-q"]
    for s in sets:
        args += ["--set", s]
    p = subprocess.run(args, capture_output=True, text=True)
    check(p.returncode == 0, f"run {' '.join(sets)} (exit {p.returncode}) {p.stderr.strip()}")


def main():
    flexmb, src = sys.argv[1], sys.argv[2]
    sys.path.insert(0, os.path.join(src, "scripts"))
    from flexmb_results import legend_labels, overrides, parameters

    pend = os.path.join(src, "cases", "pendulum.yaml")
    qr = os.path.join(src, "cases", "quick_return.yaml")
    with tempfile.TemporaryDirectory() as tmp:
        a, b = os.path.join(tmp, "a.h5"), os.path.join(tmp, "b.h5")
        run(flexmb, pend, a, "theta0=0.2")
        run(flexmb, pend, b, "theta0=0.4")
        with h5py.File(a, "r") as f:
            p = parameters(f)
            check(p == {"L": 1.0, "m": 1.0, "theta0": 0.2}, f"parameters {p}")
            check(overrides(f) == ["theta0=0.2"], f"overrides {overrides(f)}")
            st = dict(f["solver/statistics"].attrs)
            st = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in st.items()}
            check(st["steps"] == 5000 and st["records"] == 5001 and st["status"] == "complete",
                  f"statistics {st}")
            check(st["newton_iterations"] >= st["steps"] and st["wall_time"] > 0,
                  "Newton iterations and wall time recorded")
            check(f.attrs["case_path"].endswith("pendulum.yaml"), "case path recorded")
        labels = legend_labels([a, b])
        check(labels == ["theta0 = 0.2", "theta0 = 0.4"], f"legend labels {labels}")
        p = subprocess.run([flexmb, "compare", a, b, "-o", os.path.join(tmp, "ab"), "-q"],
                           capture_output=True, text=True)
        q = subprocess.run(["/usr/bin/python3", os.path.join(src, "scripts", "plot_compare.py"),
                            os.path.join(tmp, "ab.csv"), a, b, os.path.join(tmp, "ab2.png")],
                           capture_output=True, text=True)
        check(p.returncode == 0 and "legends A = theta0 = 0.2, B = theta0 = 0.4" in q.stdout,
              "compare's plot legends from the differing parameter (%s)" % q.stdout.strip())

        q5, q10 = os.path.join(tmp, "q5.h5"), os.path.join(tmp, "q10.h5")
        run(flexmb, qr, q5, "omega=5", "revolutions=0.05")
        run(flexmb, qr, q10, "omega=10", "revolutions=0.05")
        p = subprocess.run(["/usr/bin/python3", os.path.join(src, "scripts", "plot_quick_return.py"),
                            q5, q10, "-o", os.path.join(tmp, "q.png")],
                           capture_output=True, text=True)
        got = [l[len("label: "):] for l in p.stdout.splitlines() if l.startswith("label: ")]
        check(p.returncode == 0 and got == ["omega = 5", "omega = 10"],
              f"plot_quick_return legends {got} {p.stderr.strip()[-300:]}")
        # --overlay pairs a linear and a nonlinear run of the same speed by the other
        # parameters; the table's maxima are those of the files' deflections
        n5 = os.path.join(tmp, "n5.h5")
        run(flexmb, qr, n5, "omega=5", "revolutions=0.05", "nonlinear=1")
        p = subprocess.run(["/usr/bin/python3", os.path.join(src, "scripts", "plot_quick_return.py"),
                            "--overlay", q5, n5, q10, "-o", os.path.join(tmp, "ov.png")],
                           capture_output=True, text=True)
        rows = {l.split("  ")[0].strip(): l for l in p.stdout.splitlines()
                if l.startswith("omega =")}
        with h5py.File(q5, "r") as f:
            geo = f["beams/rocker"].attrs["geometry"]
        with h5py.File(n5, "r") as f:
            geo_n = f["beams/rocker"].attrs["geometry"]
        ok = (p.returncode == 0 and set(rows) == {"omega = 5", "omega = 10"}
              and rows["omega = 5"].count("mm") == 2 and rows["omega = 10"].count("mm") == 1
              and os.path.exists(os.path.join(tmp, "ov.png")))
        check(ok, f"plot_quick_return --overlay pairs omega = 5 linear/nonlinear: {rows} "
              f"{p.stderr.strip()[-300:]}")
        check((geo == b"linear" or geo == "linear") and (geo_n == b"nonlinear" or
              geo_n == "nonlinear"), f"/beams/rocker geometry attributes {geo}, {geo_n}")
    print("FAILED" if failures else "passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
