"""The parameter count of a case is capped (docs/case-format.md, "Limits"): name lookups are
linear, so the load time grows with the square of the count (10,000 chained parameters take
about 1 s of CPU, 40,000 about 10 s).
  - 10,001 parameters: exit 2, FILE:10002:3 (the first one over the limit) and the limit;
  - 40,000: the same message, refused at once (< 1 s of CPU);
  - 10,000 chained parameters: the case loads (exit 0).
usage: test_param_limit.py FLEXMB
"""
import os
import resource
import subprocess
import sys
import tempfile

failures = 0


def check(cond, msg):
    global failures
    print(("ok:   " if cond else "FAIL: ") + msg)
    failures += not cond


def case(n):
    return ("parameters:\n  p0: 1\n" + "".join("  p%d: p%d+1\n" % (i, i - 1) for i in range(1, n))
            + "bodies:\n  - {name: x, mass: p%d, bar: 1}\n" % (n - 1))


def run(exe, path):
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    p = subprocess.run([exe, "check", path], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stderr.strip(), resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before


def main():
    exe = sys.argv[1]
    with tempfile.TemporaryDirectory() as d:
        for n, ok in ((10001, False), (40000, False), (10000, True)):
            path = os.path.join(d, "p%d.yaml" % n)
            with open(path, "w") as f:
                f.write(case(n))
            code, err, cpu = run(exe, path)
            what = "%d parameters: exit %d in %.2f s CPU: %s" % (n, code, cpu, err[:200])
            if ok:
                check(code == 0, what)
            else:
                check(code == 2 and "p%d.yaml:10002:3: more than 10000 parameters (%d given)"
                      % (n, n) in err and cpu < 1.0, what)
    print("%d failure(s)" % failures if failures else "ok: the parameter count is capped")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
