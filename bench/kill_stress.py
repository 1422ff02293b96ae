"""Crash-safety stress test of the results writer: many SIGKILLs at random times, under load.

usage: /usr/bin/python3 bench/kill_stress.py FLEXMB CASE.yaml [--kills N] [--jobs J]
           [--min S] [--max S] [--seed K] [--no-marker] [--set NAME=VALUE ... --h H]

Runs CASE with h = 1e-5, t_end = 1000 (hours of work; a one-line `solver:` is replaced;
with --set the case is run as it is with those parameters, and --h gives the step
between records for the check), J runs at a time (the load: J > the
cores keeps every run competing for CPU and disk), and kills each with SIGKILL at a time
drawn uniformly from [min, max] seconds after its staged file appeared. Every staged file
left behind is checked with tests/kill_check.py: the contract of docs/output.md ("Records
and crash safety"); --no-marker checks the contract of files without the commit marker
(every time series as long as /time), for binaries older than the marker. Prints one line
per kill and a summary: kills, failures, committed records (min/median/max).
Not part of the timed suite (minutes of run time).
"""
import argparse
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import kill_check  # noqa: E402

H = 1e-5


def long_case(case, tmp):
    text = open(case, encoding="utf-8").read()
    solver = "solver: {integrator: hht, alpha: -0.05, h: %g, t_end: 1000, output_every: 1}" % H
    text, n = re.subn(r"(?m)^solver:.*$", solver, text)
    if n == 0:
        text += "\n" + solver + "\n"
    text = re.sub(r"(?m)^output:.*$", "", text)
    path = os.path.join(tmp, "long.yaml")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("flexmb")
    ap.add_argument("case")
    ap.add_argument("--kills", type=int, default=100)
    ap.add_argument("--jobs", type=int, default=4)
    ap.add_argument("--min", type=float, default=0.05)
    ap.add_argument("--max", type=float, default=3.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-marker", action="store_true")
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--h", type=float, default=H)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    fails, counts, started = 0, [], 0
    with tempfile.TemporaryDirectory(prefix="fmb_kill_") as tmp:
        case = long_case(a.case, tmp) if not a.set else os.path.abspath(a.case)
        sets = [x for kv in a.set for x in ("--set", kv)]
        running = []  # (proc, staged path, kill time or None, index)
        done = 0
        while done < a.kills:
            while len(running) < a.jobs and started < a.kills:
                h5 = os.path.join(tmp, "k%d.h5" % started)
                p = subprocess.Popen([a.flexmb, "run", case, "-o", h5, "--quiet"] + sets,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                d, n = os.path.split(h5)
                running.append([p, os.path.join(d, "." + n + ".partial"), None, started,
                                time.monotonic()])
                started += 1
            time.sleep(0.005)
            now = time.monotonic()
            for r in list(running):
                p, staged, tkill, i, t0 = r
                if p.poll() is not None:
                    print("run %d ended by itself (status %d): %s"
                          % (i, p.returncode, p.stderr.read().decode()[-300:]))
                    running.remove(r)
                    done += 1
                    fails += 1
                    continue
                if tkill is None and os.path.exists(staged):
                    r[2] = tkill = now + rng.uniform(a.min, a.max)
                if tkill is not None and now >= tkill:
                    p.send_signal(signal.SIGKILL)
                    p.wait()
                    p.stderr.close()
                    probs = kill_check.problems(staged, a.h, marker=not a.no_marker)
                    try:
                        n = kill_check.committed(staged)
                    except (OSError, KeyError):
                        n = -1
                    counts.append(n)
                    print("kill %3d after %.2f s: %d records%s" % (
                        i, now - t0, n, "" if not probs else "  FAIL: " + "; ".join(probs)))
                    sys.stdout.flush()
                    fails += bool(probs)
                    running.remove(r)
                    done += 1
                    for ext in ("", ".xmf"):
                        if os.path.exists(staged + ext):
                            os.remove(staged + ext)
    counts.sort()
    counts = counts or [-1]
    print("%d kills, %d failures; committed records min %d, median %d, max %d" % (
        a.kills, fails, counts[0], counts[len(counts) // 2], counts[-1]))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
