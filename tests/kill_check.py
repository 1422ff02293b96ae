"""The crash-safety contract of a flexmb results file (docs/output.md, "Records and crash
safety"), checked independently of the writer: used by tests/test_sigint.py and by the
stress script bench/kill_stress.py.

    problems(path, h, marker=True) -> list of strings (empty: the file keeps the contract)

For a run with a fixed step h and output_every = 1, record k is at t = k h exactly (to
rounding). With marker=True (the contract since the commit marker): the file opens, its
root attribute committed_records = n, every time series (unlimited first dimension,
outside /viz) has at least n rows, /time[:n] = k h, no committed value is the fill value
(NaN for floats, INT32_MIN for integers: a row never written), the committed frames
(committed_frames) are records 0, k, 2k, ... below n with their times, and the XDMF
sidecar beside the file names no more frames than that. With marker=False (the contract
of files without the marker): every time series has as many rows as /time, and those
rows are checked the same way.
"""
import os
import re

import h5py
import numpy as np

INT_FILL = np.iinfo(np.int32).min


def series(f):
    """{name: dataset} of the time series (unlimited first dimension) outside /viz, found
    link by link (h5py's visititems reads every chunk index too)."""
    out, todo = {}, [f]
    while todo:
        g = todo.pop()
        for name in g:
            if g.name == "/" and name == "viz":
                continue
            obj = g[name]
            if isinstance(obj, h5py.Group):
                todo.append(obj)
            elif obj.maxshape and obj.maxshape[0] is None:
                out[obj.name[1:]] = obj
    return out


def sidecar_frames(xmf):
    """Frames the .xmf names (one temporal collection per block), or None if absent."""
    if not os.path.exists(xmf):
        return None
    text = open(xmf, encoding="utf-8").read()
    return len(re.findall(r"<Time Value=", text)) // max(1, text.count('"Temporal"'))


def problems(path, h, marker=True, xmf=None):
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        return ["does not open: %s" % e]
    with f:
        try:
            return _problems(f, path, h, marker, xmf)
        except (OSError, KeyError, ValueError) as e:
            return ["cannot read the committed records: %s" % e]


def _problems(f, path, h, marker, xmf):
    out = []
    ts = series(f)
    if "time" not in ts:
        return ["no /time"]
    lengths = {k: d.shape[0] for k, d in ts.items()}
    if marker:
        if "committed_records" not in f.attrs:
            return ["no committed_records attribute"]
        n = int(f.attrs["committed_records"])
        short = {k: m for k, m in lengths.items() if m < n}
        if short:
            out.append("datasets shorter than committed_records = %d: %s" % (n, short))
            n = min(lengths.values())
    else:
        n = lengths["time"]
        unequal = {k: m for k, m in lengths.items() if m != n}
        if unequal:
            out.append("unequal lengths (/time: %d): %s" % (n, unequal))
            n = min(lengths.values())
    t = ts["time"][:n]
    k = np.arange(n)
    if not np.allclose(t, k * h, rtol=1e-9, atol=1e-12):
        bad = int(np.argmax(~np.isclose(t, k * h, rtol=1e-9, atol=1e-12)))
        out.append("time[%d] = %r, expected %r" % (bad, t[bad], bad * h))
    for name, d in ts.items():
        v = d[:n]
        if v.dtype.kind == "f":
            if not np.all(np.isfinite(v)):
                out.append("%s: a committed row is not finite (never written)" % name)
        elif np.any(v == INT_FILL):
            out.append("%s: a committed row holds the fill value" % name)
    if marker and "viz" in f:
        nf = int(f.attrs.get("committed_frames", 0))
        every = int(f["viz"].attrs["every"])
        rec = f["viz/record"][:nf]
        if len(rec) < nf or not np.array_equal(rec, np.arange(nf) * every):
            out.append("committed frames are not records 0, %d, ...: %s" % (every, rec[-5:]))
        elif nf and rec[-1] >= n:
            out.append("committed frame of record %d beyond %d records" % (rec[-1], n))
        elif not np.array_equal(f["viz/time"][:nf], t[rec]):
            out.append("committed frames' times differ from /time")
        xmf = xmf or path + ".xmf"
        ns = sidecar_frames(xmf)
        if ns is not None and ns > nf:
            out.append("the sidecar names %d frames, %d committed" % (ns, nf))
    return out


def committed(path):
    """committed_records (or the /time length without the marker) of a file that opens."""
    with h5py.File(path, "r") as f:
        return int(f.attrs.get("committed_records", f["time"].shape[0]))
