"""A second Ctrl-C (SIGINT) soon after the first, while the interrupted run closes its file
(docs/output.md, "Records and crash safety"): the close is waited for, never cut short.
For second signals 0, 20, 100 and 200 ms after the first (the close of the quick-return
with a record per step takes 0.1 - 0.4 s):
  - the run exits 130 with its results under the output name (complete = 0, records > 0)
    and no staged .NAME.partial left, or, when the second signal came while the run was
    still stopping, it ends at once saying where the staged file is (which exists);
  - at least one second signal arrives before the run ends (its message is printed), so
    the test does test the close.
usage: test_double_sigint.py FLEXMB SRC_DIR
"""
import os
import signal
import subprocess
import sys
import tempfile
import time

import h5py

failures = 0


def check(cond, msg):
    global failures
    print(("ok:   " if cond else "FAIL: ") + msg)
    failures += not cond


def main():
    exe, src = sys.argv[1], sys.argv[2]
    case = os.path.join(src, "cases", "quick_return.yaml")
    seen = 0
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "dbl.h5")
        for delay in (0.0, 0.02, 0.1, 0.2):
            for f in os.listdir(d):
                os.remove(os.path.join(d, f))
            p = subprocess.Popen([exe, "run", case, "-q", "-o", out, "--set", "out_every=1",
                                  "--set", "revolutions=50"], stderr=subprocess.PIPE, text=True)
            time.sleep(2.5)
            p.send_signal(signal.SIGINT)
            time.sleep(delay)
            if p.poll() is None:
                p.send_signal(signal.SIGINT)
            err = p.communicate(timeout=120)[1]
            files = sorted(os.listdir(d))
            what = "second SIGINT after %g s: exit %d, files %s, stderr %r" % (
                delay, p.returncode, files, err.strip()[:300])
            if "closing" in err or "interrupted again" in err:
                seen += 1
            if p.returncode == -signal.SIGINT:  # ended at once: it must say where the file is
                check("interrupted again" in err and ".dbl.h5.partial" in err and
                      ".dbl.h5.partial" in files, what)
                continue
            ok = p.returncode == 130 and files == ["dbl.h5", "dbl.xmf"]
            if ok:
                with h5py.File(out, "r") as f:
                    ok = f.attrs["complete"] == 0 and len(f["time"]) > 0
            check(ok, what)
    check(seen > 0, "%d of 4 second signals arrived before the run ended" % seen)
    print("%d failure(s)" % failures if failures else "ok: a second SIGINT waits for the close")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
