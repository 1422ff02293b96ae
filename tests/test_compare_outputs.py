"""`flexmb compare -o PREFIX` follows the output rule of `run -o` (docs/output.md, "Output
safety") for PREFIX.csv and PREFIX.png:
  - the user's PREFIX.csv, or a PREFIX.png that matplotlib did not write: exit 2, unchanged;
  - --force replaces them; an earlier comparison's files are replaced without it;
  - a results file named like the CSV (r.csv compared with -o r): exit 2 even with --force,
    the input byte-identical.
usage: test_compare_outputs.py FLEXMB SRC_DIR
"""
import os
import shutil
import subprocess
import sys
import tempfile

failures = 0


def check(cond, msg):
    global failures
    print(("ok:   " if cond else "FAIL: ") + msg)
    failures += not cond


def main():
    exe, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    with tempfile.TemporaryDirectory() as d:
        def flexmb(*args):
            p = subprocess.run([exe, *args], cwd=d, capture_output=True, text=True, timeout=300)
            print("$ flexmb %s -> %d %s" % (" ".join(args), p.returncode, p.stderr.strip()[:300]))
            return p.returncode, p.stderr

        case = os.path.join(src, "cases", "pendulum.yaml")
        check(flexmb("run", case, "-q", "-o", "a.h5")[0] == 0 and
              flexmb("run", case, "-q", "-o", "b.h5", "--set", "L=1.01")[0] == 0, "two runs")
        png = os.path.join(d, "a_vs_b.png")
        for name, text in (("a_vs_b.csv", b"my notes\n"), ("a_vs_b.png", b"my picture\n")):
            path = os.path.join(d, name)
            with open(path, "wb") as f:
                f.write(text)
            code, err = flexmb("compare", "a.h5", "b.h5", "-q")
            check(code == 2 and "not replaced" in err and open(path, "rb").read() == text,
                  "the user's %s refused and unchanged" % name)
            code, err = flexmb("compare", "a.h5", "b.h5", "-q", "--force")
            check(code == 0 and (not os.path.exists(path) or open(path, "rb").read() != text),
                  "--force replaces %s" % name)  # (no plot without matplotlib)
            if os.path.exists(png):
                os.remove(png)
        code, err = flexmb("compare", "a.h5", "b.h5", "-q")
        check(code == 0, "an earlier comparison is replaced without --force")
        shutil.copy(os.path.join(d, "a.h5"), os.path.join(d, "r.csv"))
        before = open(os.path.join(d, "r.csv"), "rb").read()
        for extra in ([], ["--force"]):
            code, err = flexmb("compare", "r.csv", "b.h5", "-q", "-o", "r", *extra)
            check(code == 2 and "refusing to overwrite an input" in err and
                  open(os.path.join(d, "r.csv"), "rb").read() == before,
                  "-o onto the input r.csv %s: refused, byte-identical" % extra)
    print("%d failure(s)" % failures if failures else "ok: compare keeps the user's files")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
