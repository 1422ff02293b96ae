"""Interrupt `flexmb run` and check that the results file holds the completed steps.

usage: /usr/bin/python3 tests/test_sigint.py FLEXMB CASE.yaml

Makes a long version of CASE (solver h = 1e-5, t_end = 1000: hours of work), starts
`flexmb run`, sends SIGINT after about a second (then the same with SIGTERM and SIGHUP), and checks
the exit status (130, 143, 129), that the HDF5 file opens, that every dataset has the same
number of records as /time, which is > 0, that the times are k * h, and that the XDMF
sidecar describes exactly those records. With output_every = 997 the records are every
997 steps and the last one is the last completed step. The run writes under a staged name
(DIR/.NAME.partial) and moves it to NAME when it ends, also after a signal. Finally SIGKILL
(no clean close) of a run whose output name holds an earlier result: that result must be
untouched (an output is replaced only as a whole) and the staged file written so far must
keep the crash-safety contract (tests/kill_check.py): it opens, its committed_records
attribute counts records that every dataset holds complete (time = k h, no fill value),
records were committed within a few seconds, and the staged sidecar names only committed
frames. Datasets may be longer than committed_records after a kill (HDF5 1.10 writes a
flush's metadata in no guaranteed order): readers take the committed count, so equal raw
lengths are not the contract there; after a clean stop they are (and equal the count).
bench/kill_stress.py repeats the SIGKILL part many times under load.
"""
import filecmp
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kill_check  # noqa: E402

H = 1e-5
FAILURES = []


def check(cond, msg):
    if not cond:
        FAILURES.append(msg)
        print("FAIL: " + msg)
    return cond


def long_case(case, tmp, every=1):
    text = open(case, encoding="utf-8").read()
    solver = ("solver: {integrator: hht, alpha: -0.05, h: %g, t_end: 1000, output_every: %d}"
              % (H, every))
    text, n = re.subn(r"(?m)^solver:.*$", solver, text)
    if n == 0:
        text += "\n" + solver + "\n"
    text = re.sub(r"(?m)^output:.*$", "", text)
    path = os.path.join(tmp, "long_%d.yaml" % every)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def staged(h5):
    d, n = os.path.split(h5)
    return os.path.join(d, "." + n + ".partial")


def wait_for_records(h5, proc, seconds):
    """Wait until the writer has flushed something (file exists) and `seconds` passed."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < 30:
        if proc.poll() is not None:
            return False
        if os.path.exists(staged(h5)) and time.monotonic() - t0 >= seconds:
            return True
        time.sleep(0.05)
    return False


def check_killed(h5, sig):
    label = signal.Signals(sig).name
    if not check(os.path.exists(h5), "%s: staged file exists" % label):
        return
    probs = kill_check.problems(h5, H)
    check(not probs, "%s: the committed records keep the contract: %s" % (label, probs))
    if not probs:
        n = kill_check.committed(h5)
        print("%s: %d committed records" % (label, n))
        check(n > 0, "%s: records committed within the ~3 s before the kill" % label)


def check_file(h5, sig):
    label = signal.Signals(sig).name
    if not check(os.path.exists(h5), "%s: results file exists" % label):
        return
    try:
        f = h5py.File(h5, "r")
    except OSError as e:
        check(False, "%s: results file opens: %s" % (label, e))
        return
    with f:
        t = f["time"][:]
        nt = len(t)
        print("%s: %d records, last t = %g" % (label, nt, t[-1] if nt else float("nan")))
        check(nt > 0, "%s: at least one record" % label)
        lengths = {}
        f.visititems(lambda n, o: lengths.__setitem__(n, o.shape[0])
                     if isinstance(o, h5py.Dataset) and not n.endswith("point_names")
                     and not n.startswith("viz/") else None)  # /viz: frames, checked below
        bad = {n: k for n, k in lengths.items() if k != nt}
        check(not bad, "%s: every dataset has %d records: %s" % (label, nt, bad))
        check(int(f.attrs["committed_records"]) == nt,
              "%s: committed_records = %d records" % (label, nt))
        if "viz" in f:
            check(int(f.attrs["committed_frames"]) == len(f["viz/record"]),
                  "%s: committed_frames = the %d frames" % (label, len(f["viz/record"])))
        every = int(f["solver"].attrs["output_every"])
        k = np.arange(nt)
        if every == 1:
            check(np.allclose(t, k * H, rtol=1e-9, atol=1e-12), "%s: time = k h" % label)
        elif nt >= 2:
            # records every `every` steps, then the last completed step between records
            check(np.allclose(t[:-1], k[:-1] * every * H, rtol=1e-9, atol=1e-12),
                  "%s: records at k * output_every * h" % label)
            last = t[-1] / H
            check(abs(last - round(last)) < 1e-6 and 0 < t[-1] - t[-2] <= every * H * (1 + 1e-9),
                  "%s: last record = the last completed step (t = %.6g)" % (label, t[-1]))
        check(t[-1] < 1000, "%s: stopped before t_end" % label)
        if nt:
            q = f["bodies"][next(iter(f["bodies"]))]["q"][-1]
            check(np.all(np.isfinite(q)), "%s: last record is complete" % label)
    xmf = h5[:-3] + ".xmf"
    if check(os.path.exists(xmf), "%s: sidecar exists" % label):
        text = open(xmf, encoding="utf-8").read()  # one temporal collection per grid
        ntx = len(re.findall(r"<Time Value=", text)) / max(1, text.count('"Temporal"'))
        with h5py.File(h5, "r") as f:
            every = int(f["viz"].attrs["every"])
            recs = list(range(0, nt, every))
            if recs and recs[-1] != nt - 1:
                recs.append(nt - 1)  # the last record is a frame, also after a signal
            check(np.array_equal(f["viz/record"][:], recs),
                  "%s: frames at every %d-th record and the last" % (label, every))
        check(ntx == len(recs), "%s: sidecar describes the %d frames of the %d records (%d)"
              % (label, len(recs), nt, ntx))


def run_and_signal(flexmb, case, tmp, sig, expect, earlier=None):
    h5 = os.path.join(tmp, "int_%d_%s.h5" % (sig, os.path.basename(case)[:-5]))
    if earlier:  # an earlier result under the output name (flexmb's own: it may replace it)
        shutil.copyfile(earlier, h5)
        shutil.copyfile(earlier, os.path.join(tmp, "earlier_copy.h5"))
    proc = subprocess.Popen([flexmb, "run", case, "-o", h5], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    # a clean stop closes the file whatever has been flushed; a SIGKILL keeps only what the
    # writer flushed (once per second of wall time): wait for a few flushes, also under load
    started = wait_for_records(h5, proc, 1.0 if expect is not None else 3.0)
    if not check(started, "%s: run started and created its file" % signal.Signals(sig).name):
        proc.kill()
        print(proc.communicate()[1])
        return
    proc.send_signal(sig)
    try:
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        check(False, "%s: run did not stop within 60 s" % signal.Signals(sig).name)
    print(out, err, sep="")
    label = signal.Signals(sig).name
    if expect is not None:
        check(proc.returncode == expect, "%s: exit status %d, expected %d"
              % (label, proc.returncode, expect))
        check("interrupted" in err, "%s: stderr says interrupted" % label)
        check(os.path.basename(h5) in out, "%s: summary names the output" % label)
    if expect is not None:
        check(not os.path.exists(staged(h5)), "%s: staged file moved to the output name" % label)
        check_file(h5, sig)
    else:  # killed: the earlier output is untouched, the staged file holds the records
        check(filecmp.cmp(h5, os.path.join(tmp, "earlier_copy.h5"), shallow=False),
              "%s: the earlier output is byte-identical" % label)
        check_killed(staged(h5), sig)
    return h5


def main(argv):
    flexmb, case = argv[1], argv[2]
    with tempfile.TemporaryDirectory(prefix="fmb_sigint_") as tmp:
        long = long_case(case, tmp)
        first = run_and_signal(flexmb, long, tmp, signal.SIGINT, 130)
        run_and_signal(flexmb, long, tmp, signal.SIGTERM, 143)
        run_and_signal(flexmb, long, tmp, signal.SIGHUP, 129)
        # between records: the last completed step is written too
        run_and_signal(flexmb, long_case(case, tmp, 997), tmp, signal.SIGINT, 130)
        run_and_signal(flexmb, long, tmp, signal.SIGKILL, None, earlier=first)
    print("%d failure(s)" % len(FAILURES))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
