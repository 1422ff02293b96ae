"""Small helpers to read flexmb result files (docs/output.md): the records a reader may
use (records, series), the parameters a run was made with (/parameters, written by
`flexmb run`) and legend labels built from the parameters that differ between files.

    from flexmb_results import records, series, parameters, legend_labels
    with h5py.File("run.h5", "r") as f:
        n = records(f)                      # committed records
        t = series(f, "time", n)            # f["time"][:n]
    labels = legend_labels(["qr5.h5", "qr10.h5"])   # ["omega = 5", "omega = 10"]
"""
import os

import h5py


def _time_series(f):
    """The time series of an open file: datasets with an unlimited first dimension,
    outside /viz (whose rows are frames). Walks the links group by group (h5py's
    visititems also reads every chunk index, which fails on a killed run's file whose
    index names blocks written after the last commit)."""
    out, todo = [], [f]
    while todo:
        g = todo.pop()
        for name in g:
            if g.name == "/" and name == "viz":
                continue
            obj = g[name]
            if isinstance(obj, h5py.Group):
                todo.append(obj)
            elif obj.maxshape and obj.maxshape[0] is None:
                out.append(obj)
    return out


def records(f):
    """Number of records of an open result file that a reader may use: the root attribute
    committed_records (the records the writer completed and flushed; docs/output.md,
    "Records and crash safety"), never more than the rows of any time series; for files
    without the attribute (older versions) the fewest rows of the time series. A file of a
    killed run may have datasets longer than that: the rows beyond are not results."""
    n = min((d.shape[0] for d in _time_series(f)), default=f["time"].shape[0])
    if "committed_records" in f.attrs:
        n = min(n, int(f.attrs["committed_records"]))
    return n


def frames(f):
    """Number of /viz frames a reader may use: committed_frames, bounded by the frames
    whose record is below records(f) (0 without /viz)."""
    if "viz" not in f:
        return 0
    rec = f["viz/record"][:]
    nf = int(f.attrs.get("committed_frames", len(rec)))
    n = records(f)
    k = 0
    while k < min(nf, len(rec)) and 0 <= rec[k] < n:
        k += 1
    return k


def series(f, path, n=None):
    """Rows [0, n) of the dataset at path (n: records(f) by default); static datasets
    (x0, point_names, ...) whole."""
    d = f[path]
    if not (d.maxshape and d.maxshape[0] is None):
        return d[()]
    return d[:records(f) if n is None else n]


def parameters(f):
    """Evaluated parameters of an open result file as a dict (empty for files written
    before provenance was recorded)."""
    if "parameters" not in f:
        return {}
    a = f["parameters"].attrs
    return {k: float(v) for k, v in a.items() if not k.startswith("_")}


def overrides(f):
    """The run's --set overrides as a list of "NAME=VALUE" strings."""
    if "parameters" not in f or "_overrides" not in f["parameters"].attrs:
        return []
    return [x.decode() if isinstance(x, bytes) else str(x)
            for x in f["parameters"].attrs["_overrides"]]


def _fmt(v):
    return "%.6g" % v


def legend_labels(paths):
    """One label per file from the parameters whose values differ between the files
    ("omega = 5, n_el = 20"); overridden parameters first, derived ones left out when an
    overridden one already distinguishes the runs. Falls back to the file name when no
    parameter differs or a file has no /parameters."""
    params, sets = [], []
    for p in paths:
        with h5py.File(p, "r") as f:
            params.append(parameters(f))
            sets.append([s.split("=", 1)[0] for s in overrides(f)])
    names = []
    if all(params) and len(paths) > 1:
        keys = [k for k in params[0] if all(k in q for q in params[1:])]
        differ = [k for k in keys if len({_fmt(q[k]) for q in params}) > 1]
        given = [k for k in differ if any(k in s for s in sets)]
        names = given if given else differ
    if not names:
        return [os.path.splitext(os.path.basename(p))[0] for p in paths]
    return [", ".join("%s = %s" % (k, _fmt(q[k])) for k in names) for q in params]
