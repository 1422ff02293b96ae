#!/usr/bin/python3
"""Chunk size of the results file (src/io/writer_commit.c): a chunk holds 4096 records or at
most 1 MiB (at least one record), because HDF5 allocates, compresses and writes chunks
whole, and no longer than the run's records (a short run's chunk would be mostly fill
values, compressed too). The quick-return with a 3,000-element rocker (rows of 9,003
coordinates = 72 kB) and 17 records (16 steps) must have (1) every growing dataset's chunk
= min(4096, records, max(1, floor(2^20 / row bytes))) records, computed here from the
dataset's own row shape, (2)
every growing dataset compressed losslessly, byte shuffle then deflate, with the case's
`compress: 1`, and (3) a file no larger than its chunks in use, ceil(records / chunk) x
chunk bytes summed over the datasets, plus 2 MiB for metadata and fixed datasets. With
256-record chunks for every row the same file is 99 MB (the test fails); the bound is
13.6 MB. (4) The default `compress` (automatic) leaves this run uncompressed: 17 records
x 6 x 8 bytes x 9,003 coordinates = 7.3 MB, below the 64 MiB of FMB_COMPRESS_AUTO_BYTES.

usage: test_chunks.py FLEXMB CASE OUTDIR
"""
import os
import subprocess
import sys

import h5py
import numpy as np

MIB = 1 << 20


def main():
    flexmb, case, outdir = sys.argv[1:4]
    os.makedirs(outdir, exist_ok=True)
    text = open(case, encoding="utf-8").read()
    if "\nsolver:\n" not in text:
        print("FAIL: %s has no block 'solver:' to add compress to" % case)
        return 1
    forced = os.path.join(outdir, "chunks_compress.yaml")
    with open(forced, "w", encoding="utf-8") as f:  # same directory: meshes resolve alike
        f.write(text.replace("\nsolver:\n", "\nsolver:\n  compress: 1\n", 1))
    sets = ["--set", "n_el=3000", "--set", "revolutions=0.005", "--set", "out_every=1"]
    bad = 0
    auto = os.path.join(outdir, "chunks_auto.h5")
    p = subprocess.run([flexmb, "run", case, "-o", auto, "--quiet", "--no-viz"] + sets,
                       capture_output=True, text=True)
    if p.returncode != 0:
        print("FAIL: run exit %d: %s" % (p.returncode, p.stderr[-500:]))
        return 1
    with h5py.File(auto, "r") as f:
        filt = [d.name for d in (f["bodies/rocker/q"], f["time"]) if d.compression]
        if filt or f["solver"].attrs["compress"] != 0:
            print("FAIL: the automatic default compressed a 7.3 MB run: %s" % filt)
            bad += 1
    out = os.path.join(outdir, "chunks.h5")
    p = subprocess.run([flexmb, "run", forced, "-o", out, "--quiet", "--no-viz"] + sets,
                       capture_output=True, text=True)
    if p.returncode != 0:
        print("FAIL: run exit %d: %s" % (p.returncode, p.stderr[-500:]))
        return 1
    used = 0
    longest = 0
    with h5py.File(out, "r") as f:
        nrec = f["time"].shape[0]
        dsets = []
        f.visititems(lambda n, o: dsets.append(o) if isinstance(o, h5py.Dataset) and
                     o.maxshape and o.maxshape[0] is None else None)
        for d in dsets:
            rowbytes = d.dtype.itemsize * int(np.prod(d.shape[1:], dtype=np.int64))
            want = min(4096, nrec, max(1, MIB // rowbytes))
            if d.chunks is None or d.chunks[0] != want or tuple(d.chunks[1:]) != d.shape[1:]:
                print("FAIL: %s row %d B: chunk %s, want (%d, %s)" % (d.name, rowbytes,
                      d.chunks, want, d.shape[1:]))
                bad += 1
            if d.compression != "gzip" or not d.shuffle:
                print("FAIL: %s not compressed with shuffle + deflate (compression %s, "
                      "shuffle %s)" % (d.name, d.compression, d.shuffle))
                bad += 1
            used += -(-nrec // want) * want * rowbytes
            longest = max(longest, rowbytes)
    size = os.path.getsize(out)
    print("%d records, %d growing datasets, longest row %d B, file %d B, chunk bound %d B + 2 MiB"
          % (nrec, len(dsets), longest, size, used))
    if nrec < 10 or longest < 9003 * 8:
        print("FAIL: the run is not the intended one (records %d, longest row %d B)"
              % (nrec, longest))
        bad += 1
    if size > used + 2 * MIB:
        print("FAIL: file larger than its chunks in use + 2 MiB")
        bad += 1
    print("ok" if not bad else "%d failures" % bad)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
