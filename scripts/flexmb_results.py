"""Small helpers to read flexmb result files (docs/output.md): the parameters a run was
made with (/parameters, written by `flexmb run`) and legend labels built from the
parameters that differ between files.

    from flexmb_results import parameters, legend_labels
    labels = legend_labels(["qr5.h5", "qr10.h5"])   # ["omega = 5", "omega = 10"]
"""
import os

import h5py


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
