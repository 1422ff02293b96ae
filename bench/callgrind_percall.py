#!/usr/bin/env python3
"""Inclusive instructions per call of the stepping pieces from callgrind output files.

    valgrind --tool=callgrind --callgrind-out-file=qr.out build/flexmb run \\
        cases/quick_return.yaml --set revolutions=1 --set out_every=100000 --no-viz
    bench/callgrind_percall.py qr.out [more.out ...]

Per file: the program total and, for the residual (fmb_sim_eval_residual), the assembly
(fmb_sim_assemble), a step attempt (fmb_sim_try_step) and the beam's class functions,
inclusive instructions / calls (calls summed over the "=> ... (Nx)" lines of
callgrind_annotate's inclusive annotation). Instruction counts do not depend on the
machine's load (docs/performance.md, "Method")."""
import re
import subprocess
import sys

FUNCS = ["fmb_sim_eval_residual", "fmb_sim_assemble", "fmb_sim_try_step",
         "beam_forces", "beam_mass_times", "beam_blocks", "fmb_beam_tangent_add"]


def annotate(out, *opts):
    return subprocess.run(["callgrind_annotate", *opts, out], capture_output=True,
                          text=True, check=True).stdout.splitlines()


def main():
    for out in sys.argv[1:]:
        inc = annotate(out, "--inclusive=yes")
        auto = annotate(out, "--inclusive=yes", "--auto=yes")
        total = next(l.split()[0] for l in inc if "PROGRAM TOTALS" in l)
        cols = []
        for f in FUNCS:
            tot = max((int(l.split()[0].replace(",", "")) for l in inc
                       if re.search(r":%s( \[|$)" % f, l.rstrip())), default=0)
            calls = sum(int(m.group(1).replace(",", "")) for l in auto
                        for m in [re.search(r"=> .*:%s \((\d[\d,]*)x\)" % f, l)] if m)
            cols.append("%s %.0f x %d" % (f.replace("fmb_sim_", ""),
                                          tot / calls if calls else 0, calls))
        print("%s: total %s; %s" % (out, total, "; ".join(cols)))


if __name__ == "__main__":
    main()
