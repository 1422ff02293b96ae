"""Visualization output (/viz and the XDMF sidecar) without ParaView: size, frames, --no-viz.

usage: /usr/bin/python3 tests/test_viz.py FLEXMB CASES_DIR

Checks (docs/output.md, "Visualization"):
- the sidecar's size does not grow with the record count: the rigid quick-return with
  10x more records (2,500 -> 25,000) gives a sidecar less than 1.3x larger, of at most a
  few MB, with at most viz_frames frames (the old sidecar grew by ~6 kB per record);
- viz_every: frames at every k-th record and the last;
- --no-viz: no /viz, no sidecar (a stale one of an earlier run is removed), and every other
  dataset identical, bit for bit, to the run with visualization;
- `block: [L, W]`: the inertia defaults to m (L^2 + W^2) / 12 (uniform rectangle), written
  as /bodies/<body>@block_length, block_width; bad block sizes and viz_frames: 1 are refused
  with the file and line.
"""
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

failures = 0


def check(ok, what):
    global failures
    print("%s: %s" % ("ok" if ok else "FAIL", what))
    if not ok:
        failures += 1
    return ok


def run(flexmb, *args):
    p = subprocess.run([flexmb, "run", *args, "-q"], capture_output=True, text=True)
    return p


def frames_of(h5):
    with h5py.File(h5, "r") as f:
        return len(f["time"]), f["viz/record"][:].tolist(), int(f["viz"].attrs["every"])


def main(argv):
    flexmb, cases = argv[1], argv[2]
    qr = os.path.join(cases, "quick_return.yaml")
    with tempfile.TemporaryDirectory() as tmp:
        # --- sidecar size against the record count (rigid rocker: fast)
        sizes = {}
        for rev, tag in ((0.8, "small"), (8, "large")):
            h5 = os.path.join(tmp, "qr_%s.h5" % tag)
            p = run(flexmb, qr, "-o", h5, "--set", "rigid_rocker=1", "--set", "out_every=1",
                    "--set", "revolutions=%g" % rev)
            if not check(p.returncode == 0, "quick-return %s run: %s" % (tag, p.stderr.strip())):
                return 1
            nt, recs, every = frames_of(h5)
            sizes[tag] = (nt, len(recs), os.path.getsize(h5[:-3] + ".xmf"))
            print("%s: %d records, %d frames (every %d), sidecar %.2f MB"
                  % (tag, nt, len(recs), every, sizes[tag][2] / 1e6))
            check(len(recs) <= 1000, "%s: at most viz_frames = 1000 frames" % tag)
        (n1, f1, s1), (n2, f2, s2) = sizes["small"], sizes["large"]
        check(n2 >= 25000 and n2 > 9 * n1, "the large run has >= 25,000 records, ~10x the small")
        check(s2 < 1.3 * s1, "sidecar %.2f MB vs %.2f MB for %.1fx the records"
              % (s2 / 1e6, s1 / 1e6, n2 / n1))
        check(s2 < 6e6, "sidecar of the 25,000-record run: %.2f MB < 6 MB" % (s2 / 1e6))

        # --- viz_every, and the last record
        h5 = os.path.join(tmp, "pend.h5")
        case = os.path.join(cases, "pendulum.yaml")
        text = open(case, encoding="utf-8").read()
        every_case = os.path.join(tmp, "pend_every.yaml")
        with open(every_case, "w", encoding="utf-8") as f:
            f.write(text.replace("t_end: 5}", "t_end: 5, viz_every: 7}", 1))
        p = run(flexmb, every_case, "-o", h5)
        if check(p.returncode == 0, "viz_every: 7 runs: %s" % p.stderr.strip()):
            nt, recs, every = frames_of(h5)
            want = list(range(0, nt, 7))
            if want[-1] != nt - 1:
                want.append(nt - 1)
            check(every == 7 and recs == want,
                  "viz_every 7: frames at records 0, 7, 14, ... and the last (%d frames of %d)"
                  % (len(recs), nt))

        # --- --no-viz: nothing else changes
        a, b = os.path.join(tmp, "viz.h5"), os.path.join(tmp, "noviz.h5")
        open(b[:-3] + ".xmf", "w").write("<?xml version=\"1.0\" ?><Xdmf/>")  # a stale sidecar
        pa = run(flexmb, qr, "-o", a, "--set", "revolutions=0.1")
        pb = run(flexmb, qr, "-o", b, "--set", "revolutions=0.1", "--no-viz")
        check(pa.returncode == 0 and pb.returncode == 0, "runs with and without --no-viz")
        check(not os.path.exists(b[:-3] + ".xmf"), "--no-viz: no sidecar (the stale one removed)")
        with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
            check("viz" in fa and "viz" not in fb, "--no-viz: no /viz group")
            names = []
            fa.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) and
                          not n.startswith("viz/") and not n.startswith("solver/") else None)
            same = [n for n in names if n in fb and np.array_equal(fa[n][()], fb[n][()])]
            check(len(same) == len(names) and len(names) > 20,
                  "--no-viz: the other %d datasets are identical" % len(names))
            want = 0.2 * (0.04**2 + 0.02**2) / 12  # slider D: mD = 0.2 kg, block 40 x 20 mm
            g = fa["bodies/sliderD"]
            check(abs(g.attrs["inertia"] - want) <= 1e-15 * want and
                  g.attrs["block_length"] == 0.04 and g.attrs["block_width"] == 0.02,
                  "block: [0.04, 0.02] gives inertia m (L^2 + W^2)/12 = %.6g kg m^2" % want)

        # --- bad input
        lines = open(qr, encoding="utf-8").read().split("\n")
        k = next(i for i, l in enumerate(lines) if l.strip().startswith("block: [0.04"))
        for bad, msg in (("block: [0.04, -0.02]", "block [length, width] must both be > 0"),
                         ("block: [0.04]", "block")):
            bad_case = os.path.join(tmp, "bad_block.yaml")
            with open(bad_case, "w", encoding="utf-8") as f:
                f.write("\n".join(lines[:k] + ["    " + bad] + lines[k + 1:]))
            p = subprocess.run([flexmb, "check", bad_case], capture_output=True, text=True)
            check(p.returncode == 2 and msg in p.stderr and "bad_block.yaml:%d:" % (k + 1)
                  in p.stderr, "%s refused with file and line: %s" % (bad, p.stderr.strip()))
        k = next(i for i, l in enumerate(lines) if l.strip().startswith("output_every:"))
        bad_case = os.path.join(tmp, "bad_frames.yaml")
        with open(bad_case, "w", encoding="utf-8") as f:
            f.write("\n".join(lines[:k + 1] + ["  viz_frames: 1"] + lines[k + 1:]))
        p = subprocess.run([flexmb, "check", bad_case], capture_output=True, text=True)
        check(p.returncode == 2 and "viz_frames" in p.stderr and
              "bad_frames.yaml:%d:" % (k + 2) in p.stderr,
              "viz_frames: 1 refused with file and line: %s" % p.stderr.strip())
    print("%d failure(s)" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
