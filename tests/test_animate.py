"""scripts/paraview_animate.py on a short run: frame count, frames that show motion, the
movie, and the deflection series against the HDF5 file.

usage: /usr/bin/python3 tests/test_animate.py FLEXMB CASES_DIR SCRIPTS_DIR
Exit 77 (skipped) without pvpython or xvfb-run. Runs the script under a plain
`xvfb-run -a` (as README.md shows it), whose X server resets when its last client leaves:
the script holds a connection open so that ParaView's second open of the display is not
refused (before: 4 of 12 to 3 of 24 runs failed with four suites' copies at once; after:
0 of 32, docs/output.md "Animation script").

Checks: --frames 5 writes exactly PREFIX_0000.png .. PREFIX_0004.png (no sixth), each not
of one colour, the first and last different (the crank turned); PREFIX.ogv is an Ogg
file; PREFIX_deflection.csv has every record's time (/time) and, for the rocker (10
elements: mid-span is node 5, where the Hermite interpolation gives the nodal value), the
mid-span deflection /beams/rocker/deflection[:, 5] and max |deflection| over the nodes.
"""
import csv
import glob
import os
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np
from matplotlib import image

failures = 0


def check(ok, what):
    global failures
    print("%s: %s" % ("ok" if ok else "FAIL", what))
    if not ok:
        failures += 1
    return ok


def main(argv):
    flexmb, cases, scripts = argv[1], argv[2], argv[3]
    if not shutil.which("pvpython") or not shutil.which("xvfb-run"):
        print("pvpython or xvfb-run not installed: skipped")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        h5 = os.path.join(tmp, "qr.h5")
        p = subprocess.run([flexmb, "run", os.path.join(cases, "quick_return.yaml"), "-q", "-o",
                            h5, "--set", "revolutions=0.25"], capture_output=True, text=True)
        if not check(p.returncode == 0, "quick-return run: %s" % p.stderr.strip()[-300:]):
            return 1
        prefix = os.path.join(tmp, "movie", "qr")
        p = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1024x768x24", sys.executable,
                            os.path.join(scripts, "paraview_animate.py"), h5, "-o", prefix,
                            "--frames", "5", "--forces", "--size", "320x240"],
                           capture_output=True, text=True)
        print(p.stdout[-2000:])
        if not check(p.returncode == 0, "paraview_animate.py exit 0 (%d): %s"
                     % (p.returncode, p.stderr.strip()[-500:])):
            return 1
        pngs = sorted(glob.glob(prefix + "_[0-9][0-9][0-9][0-9].png"))
        check([os.path.basename(x) for x in pngs] == ["qr_%04d.png" % k for k in range(5)],
              "--frames 5: frames qr_0000.png .. qr_0004.png (%d)" % len(pngs))
        imgs = [image.imread(x) for x in pngs]
        check(all(im.shape[:2] == (240, 320) for im in imgs), "frames are 320 x 240")
        check(all(float(np.std(im[..., :3])) > 0.01 for im in imgs), "no frame is of one colour")
        if len(imgs) == 5:
            diff = float(np.mean(np.abs(imgs[0][..., :3] - imgs[-1][..., :3])))
            check(diff > 1e-3, "first and last frames differ (mean |difference| %.4f)" % diff)
        ogv = prefix + ".ogv"
        check(os.path.exists(ogv) and open(ogv, "rb").read(4) == b"OggS", "Ogg movie written")
        with open(prefix + "_deflection.csv") as f:
            rows = list(csv.reader(f))
        head, data = rows[0], np.array(rows[1:], dtype=float)
        with h5py.File(h5, "r") as f:
            t = f["time"][:]
            v = f["beams/rocker/deflection"][:]
            x0 = f["beams/rocker/x0"][:]
        check(head == ["t", "rocker_mid", "rocker_max_abs"], "CSV columns %s" % head)
        check(len(x0) == 11 and abs(x0[5] - 0.3) < 1e-12, "rocker node 5 at mid-span")
        check(data.shape[0] == len(t) and np.array_equal(data[:, 0], t),
              "CSV has every record's time (%d)" % len(t))
        check(np.allclose(data[:, 1], v[:, 5], rtol=0, atol=1e-15),
              "mid-span deflection = nodal deflection at node 5 (max %.3g mm)"
              % (1e3 * np.max(np.abs(v[:, 5]))))
        check(np.allclose(data[:, 2], np.max(np.abs(v), axis=1), rtol=0, atol=0),
              "max |deflection| over the nodes")
        check(os.path.getsize(prefix + "_deflection.png") > 5000, "deflection plot written")
    print("%d failure(s)" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
