"""Output safety (docs/output.md, "Output safety"; fuzz findings overwrite_self,
output_traversal): `flexmb run` never replaces an input or a file it did not write.
  - -o equal to the case file, to a mesh the case reads, to an existing directory: exit 2,
    nothing written, the inputs byte-identical;
  - -o an existing file that is not a flexmb result: exit 2, unchanged; with --force it
    is replaced; a previous flexmb result is replaced without --force;
  - `output: ../victim.txt` in a case file (run from the case's folder) is refused like -o
    (the victim unchanged);
  - a normal run sets the root attribute complete = 1;
  - -o a table the case reads: refused, the table intact, named as a file the case reads
    (not "the mesh");
  - -o a 4000-character path: the cause ("File name too long") is in the message, the
    path shortened;
  - `modes CASE -o` follows the same rule: onto the case file refused (the case intact),
    onto a file flexmb did not write refused unless --force.
usage: test_output_safety.py FLEXMB SRC_DIR
"""
import os
import shutil
import subprocess
import sys
import tempfile

import h5py

failures = 0


def check(cond, msg):
    global failures
    print(("ok:   " if cond else "FAIL: ") + msg)
    failures += not cond


def run(flexmb, *args, cwd=None):
    return run_err(flexmb, *args, cwd=cwd)[0]


def run_err(flexmb, *args, cwd=None):
    p = subprocess.run([flexmb, "run", *args, "-q"], capture_output=True, text=True, cwd=cwd)
    print("$ flexmb run %s -> %d %s" % (" ".join(args)[:300], p.returncode, p.stderr.strip()))
    return p.returncode, p.stderr


def main():
    flexmb, src = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        case = os.path.join(tmp, "four_bar.yaml")
        shutil.copy(os.path.join(src, "cases", "four_bar.yaml"), case)
        original = open(case, "rb").read()
        check(run(flexmb, case, "-o", case) == 2 and open(case, "rb").read() == original,
              "-o the case file: refused, case intact")
        # a case that reads a mesh
        shutil.copy(os.path.join(src, "meshes", "rocker_10.msh"), os.path.join(tmp, "r.msh"))
        qr = open(os.path.join(src, "cases", "quick_return.yaml"), encoding="utf-8").read()
        qr = qr.replace("      elements: n_el ", "      mesh: r.msh #")
        qcase = os.path.join(tmp, "qr.yaml")
        with open(qcase, "w", encoding="utf-8") as f:
            f.write(qr)
        mesh = os.path.join(tmp, "r.msh")
        mesh_bytes = open(mesh, "rb").read()
        check(run(flexmb, qcase, "-o", mesh, "--set", "revolutions=0.01") == 2 and
              open(mesh, "rb").read() == mesh_bytes, "-o the mesh: refused, mesh intact")
        os.mkdir(os.path.join(tmp, "dir.h5"))
        check(run(flexmb, case, "-o", os.path.join(tmp, "dir.h5")) == 2, "-o a directory: refused")
        victim = os.path.join(tmp, "victim.txt")
        with open(victim, "w") as f:
            f.write("precious\n")
        check(run(flexmb, case, "-o", victim) == 2 and open(victim).read() == "precious\n",
              "-o a file flexmb did not write: refused, unchanged")
        out = os.path.join(tmp, "r.h5")
        check(run(flexmb, case, "-o", out) == 0, "new output written")
        with h5py.File(out, "r") as f:
            check(int(f.attrs["complete"]) == 1, "complete = 1 after a normal run")
        check(run(flexmb, case, "-o", out) == 0, "a previous flexmb result is replaced")
        check(run(flexmb, case, "-o", victim, "--force") == 0 and
              open(victim, "rb").read(4) == b"\x89HDF", "--force replaces it")
        # output: ../victim2.txt in a case one directory down
        sub = os.path.join(tmp, "sub")
        os.mkdir(sub)
        v2 = os.path.join(tmp, "victim2.txt")
        with open(v2, "w") as f:
            f.write("precious\n")
        text = open(case, encoding="utf-8").read()
        text = "\n".join(l for l in text.splitlines() if not l.startswith("output:"))
        with open(os.path.join(sub, "c.yaml"), "w", encoding="utf-8") as f:
            f.write(text + "\noutput: ../victim2.txt\n")
        check(run(flexmb, "c.yaml", cwd=sub) == 2 and open(v2).read() == "precious\n",
              "output: ../victim2.txt: refused, unchanged")
        # -o a table of the case
        for name in ("motor_profile.yaml", "motor_profile.csv"):
            shutil.copy(os.path.join(src, "cases", name), os.path.join(tmp, name))
        table = os.path.join(tmp, "motor_profile.csv")
        table_bytes = open(table, "rb").read()
        code, err = run_err(flexmb, os.path.join(tmp, "motor_profile.yaml"), "-o", table)
        check(code == 2 and open(table, "rb").read() == table_bytes and
              "a file the case reads" in err and "the mesh" not in err,
              "-o the table: refused, table intact, not called the mesh")
        # a very long output path: the cause still in the message
        code, err = run_err(flexmb, case, "-o", os.path.join(tmp, "y" * 4000 + ".h5"))
        check(code != 0 and "File name too long" in err and len(err) < 1000,
              "-o a 4000-character path: the cause in a %d-character message" % len(err))
        # modes CASE -o: the same rule
        def modes(*args):
            p = subprocess.run([flexmb, "modes", *args], capture_output=True, text=True)
            print("$ flexmb modes %s -> %d %s" % (" ".join(args), p.returncode, p.stderr.strip()))
            return p.returncode
        case = os.path.join(tmp, "pendulum.yaml")  # one degree of freedom: one mode
        shutil.copy(os.path.join(src, "cases", "pendulum.yaml"), case)
        original = open(case, "rb").read()
        check(modes(case, "-o", case) == 2 and open(case, "rb").read() == original,
              "modes -o the case file: refused, case intact")
        v3 = os.path.join(tmp, "victim3.h5")
        with open(v3, "w") as f:
            f.write("precious\n")
        check(modes(case, "-o", v3) == 2 and open(v3).read() == "precious\n",
              "modes -o a file flexmb did not write: refused, unchanged")
        check(modes(case, "-o", v3, "--force") == 0 and open(v3, "rb").read(4) == b"\x89HDF",
              "modes --force replaces it")
    print("FAILED" if failures else "passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
