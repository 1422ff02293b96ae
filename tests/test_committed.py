"""Readers take the committed records of a results file (docs/output.md, "Records and
crash safety").

usage: /usr/bin/python3 tests/test_committed.py FLEXMB CASE.yaml

Runs CASE (a.h5: a clean run, every dataset as long as /time = committed_records), then
makes two copies shaped like the files a SIGKILL left before the commit marker existed
and may still leave now (bench/kill_stress.py saw both): b.h5 with committed_records set
to 3/5 of the records, /time 256 rows longer with zeros in them (a header written ahead
of its data) and one joint dataset shortened (but longer than the committed count);
c.h5 the same without the attribute (an old file: the fewest rows count). Checks, against
the numbers set by hand here:
- scripts/flexmb_results.py: records() = the committed count (b), the fewest rows (c);
  series() returns exactly those rows of a.h5; frames() only frames of those records;
- `flexmb compare b.h5 a.h5` and `c.h5 a.h5` succeed (without the committed count, the
  zeros appended to /time make it non-increasing: exit 2) and every difference is 0,
  the last compared time being the last committed record's.
"""
import csv
import os
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
from flexmb_results import frames, records, series  # noqa: E402

FAILURES = []


def check(cond, msg):
    print(("ok   " if cond else "FAIL ") + msg)
    if not cond:
        FAILURES.append(msg)
    return cond


def doctor(path, committed):
    """Shape a finished file like a killed run's: /time 256 rows ahead (zeros), one joint
    dataset shortened; committed_records set (or deleted for committed = None)."""
    with h5py.File(path, "r+") as f:
        n = f["time"].shape[0]
        f["time"].resize((n + 256,))
        f["time"][n:] = 0.0
        j = next(iter(f["joints"]))
        v = f["joints/%s/violation" % j]
        v.resize((n - (n - (committed or 0)) // 2 if committed else n - 100,))
        if committed is None:
            del f.attrs["committed_records"]
            del f.attrs["committed_frames"]
        else:
            f.attrs["committed_records"] = np.int64(committed)
        return n, v.shape[0]


def compare(flexmb, a, b, tmp, label):
    prefix = os.path.join(tmp, label)
    env = dict(os.environ, FMB_PYTHON="/bin/false")  # CSV only
    p = subprocess.run([flexmb, "compare", a, b, "-o", prefix, "--only", "all", "--quiet"],
                       capture_output=True, text=True, env=env)
    if not check(p.returncode == 0, "%s: compare exits 0 (got %d: %s)"
                 % (label, p.returncode, p.stderr.strip()[-300:])):
        return None
    with open(prefix + ".csv", newline="") as fcsv:
        return list(csv.DictReader(fcsv))


def main(argv):
    flexmb, case = argv[1], argv[2]
    with tempfile.TemporaryDirectory(prefix="fmb_committed_") as tmp:
        a = os.path.join(tmp, "a.h5")
        p = subprocess.run([flexmb, "run", case, "-o", a, "--quiet"], capture_output=True,
                           text=True)
        if not check(p.returncode == 0, "run: %s" % p.stderr.strip()):
            return 1
        with h5py.File(a, "r") as f:
            n = f["time"].shape[0]
            t = f["time"][:]
            q0 = f["bodies/%s/q" % next(iter(f["bodies"]))][:]
            check(int(f.attrs["committed_records"]) == n,
                  "clean run: committed_records = %d = /time rows" % n)
            check(records(f) == n, "clean run: records() = %d" % n)
            nf = len(f["viz/record"])
            check(int(f.attrs["committed_frames"]) == nf and frames(f) == nf,
                  "clean run: committed_frames = frames() = %d" % nf)
        k = 3 * n // 5
        b, c = os.path.join(tmp, "b.h5"), os.path.join(tmp, "c.h5")
        shutil.copyfile(a, b)
        shutil.copyfile(a, c)
        _, vb = doctor(b, k)
        _, vc = doctor(c, None)
        print("a: %d records; b: committed %d, /time %d, violation %d; c: /time %d, "
              "violation %d" % (n, k, n + 256, vb, n + 256, vc))
        for path, want, label in ((b, k, "b (marker)"), (c, vc, "c (no marker: fewest rows)")):
            with h5py.File(path, "r") as f:
                check(records(f) == want, "%s: records() = %d (got %d)" % (label, want, records(f)))
                ts = series(f, "time")
                check(len(ts) == want and np.array_equal(ts, t[:want]),
                      "%s: series(time) = a's first %d times" % (label, want))
                body = next(iter(f["bodies"]))
                check(np.array_equal(series(f, "bodies/%s/q" % body), q0[:want]),
                      "%s: series(q) = a's first %d rows" % (label, want))
                rec = f["viz/record"][:frames(f)]
                check(len(rec) > 0 and rec[-1] < want,
                      "%s: frames() = %d, all below record %d" % (label, len(rec), want))
            rows = compare(flexmb, path, a, tmp, label.split()[0])
            if rows is not None:
                diffs = [float(r["max_abs_diff"]) for r in rows]
                tmax = max(float(r["t_max_diff"]) for r in rows)
                check(len(rows) > 5 and max(diffs) == 0.0,
                      "%s: compare against a: %d quantities, every difference 0 (max %g)"
                      % (label, len(rows), max(diffs) if diffs else -1))
                check(tmax <= t[want - 1],
                      "%s: compared times within the committed records (<= %g)"
                      % (label, t[want - 1]))
    print("%d failure(s)" % len(FAILURES))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
