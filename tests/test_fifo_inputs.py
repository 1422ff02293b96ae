"""Inputs and outputs that are FIFOs (named pipes) with no writer: refused at once, never
waited on (docs/case-format.md, "Limits").
  - the case file, a beam's mesh, a table() file, a sweep's study file and a results file
    given to compare being a FIFO: exit 2, "not a regular file", within the time limit;
  - `run -o` onto a FIFO, with and without --force, and a sweep whose DIR holds a FIFO
    under a run log's name: exit 2, "not a regular file", the FIFO still there.
Each command is killed after 20 s (a hang fails the test).
usage: test_fifo_inputs.py FLEXMB SRC_DIR
"""
import os
import shutil
import stat
import subprocess
import sys
import tempfile

failures = 0


def check(cond, msg):
    global failures
    print(("ok:   " if cond else "FAIL: ") + msg)
    failures += not cond


def flexmb(exe, args, cwd):
    try:
        p = subprocess.run([exe] + args, cwd=cwd, capture_output=True, text=True, timeout=20)
    except subprocess.TimeoutExpired:
        return None, "(killed after 20 s: waiting on the FIFO)"
    return p.returncode, p.stderr.strip()


def refused(exe, args, cwd, what):
    code, err = flexmb(exe, args, cwd)
    check(code == 2 and "not a regular file" in err, "%s: exit %s, %s" % (what, code, err))


def main():
    exe, src = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as d:
        for name in ("case.yaml", "mesh.msh", "table.csv", "study.yaml", "out.h5"):
            os.mkfifo(os.path.join(d, name))
        with open(os.path.join(d, "m.yaml"), "w") as f:
            f.write("bodies:\n  - name: b\n    beam: {E: 2e11, rho: 7800, section: {circle: "
                    "0.01}, mesh: mesh.msh}\n")
        with open(os.path.join(d, "t.yaml"), "w") as f:
            f.write('bodies:\n  - {name: a, mass: 1, bar: 1}\njoints:\n'
                    '  - {name: pin, type: revolute, bodies: [ground, a], points: [[0, 0], start]}\n'
                    '  - {name: drv, type: driver, coordinate: angle, bodies: [a, ground], '
                    'function: "table(\\"table.csv\\", t)"}\n')
        refused(exe, ["check", "case.yaml"], d, "case FIFO")
        refused(exe, ["check", "m.yaml"], d, "mesh FIFO")
        refused(exe, ["check", "t.yaml"], d, "table FIFO")
        refused(exe, ["sweep", "study.yaml", "--vary", "L=1,2"], d, "study FIFO")
        refused(exe, ["compare", "out.h5", "out.h5", "-q"], d, "compare input FIFO")
        case = os.path.join(d, "pendulum.yaml")
        shutil.copy(os.path.join(src, "cases", "pendulum.yaml"), case)
        for extra in ([], ["--force"]):
            refused(exe, ["run", case, "-q", "-o", "out.h5"] + extra, d, "run -o FIFO %s" % extra)
            check(stat.S_ISFIFO(os.stat(os.path.join(d, "out.h5")).st_mode),
                  "run -o FIFO %s: the FIFO is still there" % extra)
        os.mkdir(os.path.join(d, "sw"))
        os.mkfifo(os.path.join(d, "sw", "L=1.log"))
        refused(exe, ["sweep", case, "--vary", "L=1,2", "-o", "sw", "-q"], d, "sweep log FIFO")
        check(sorted(os.listdir(os.path.join(d, "sw"))) == ["L=1.log"],
              "sweep log FIFO: nothing written")
    print("%d failure(s)" % failures if failures else "ok: FIFO inputs and outputs")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
