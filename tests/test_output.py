"""Run a case with `flexmb run` and check the HDF5 output layout (docs/output.md).

usage: /usr/bin/python3 tests/test_output.py FLEXMB CASE.yaml [--set k=v ...]

Checks that every documented dataset exists with a consistent number of records, that
/time starts at 0 and increases by h * output_every, that /bodies/*/pose agrees with the
carrier coordinates q (R = A(theta) rbar, computed here independently), that the points
are R + A(theta) u for the body-frame points, that the XDMF sidecar (frames) references only
records that exist, and the root and column attributes.
Beam bodies (/beams/<body>): node points [nt x nn x 3] equal the body's drawn points
n0.. with z = 0; the deflection equals the nodes' transverse coordinate in the body
frame, computed here from pose and points; slopes and deflections honour the reference
conditions; q columns "rbar_x,rbar_y,theta,e1,...". Joint outputs (/sliders/<joint>/s,
element): s on the guide, inside its element, and equal to the slider point's axial
coordinate in the guide's frame.
Frictional sliding joints (/contacts/<joint>): normal and friction [nt x 4] with
columns "F1+,F2+,F1-,F2-", friction_total their sum, mode (int, in 0..3 and agreeing
with which corners carry force), stick (int, |v| < v_stick), z, v; normal forces >= 0
and complementary (F_l+ F_l- = 0); v equals the slider's velocity along the guide (to
1e-6 m/s: v is taken at the last friction update of the Newton loop); for
a lone block on a guide perpendicular to gravity without vertical loads, the normal
resultant F1+ + F2+ - F1- - F2- equals m g, with m and g read from the case text here.
"""
import math
import os
import re
import xml.etree.ElementTree as ET
import subprocess
import sys
import tempfile

import h5py
import numpy as np

FAILURES = []


def check(cond, msg):
    if not cond:
        FAILURES.append(msg)
        print("FAIL: " + msg)


def rot(theta):
    c, s = np.cos(theta), np.sin(theta)
    return np.array([[c, -s], [s, c]]) if np.ndim(theta) == 0 else \
        np.stack([np.stack([c, -s], -1), np.stack([s, c], -1)], -2)


def main(argv):
    flexmb, case = argv[1], argv[2]
    extra = argv[3:]
    with tempfile.TemporaryDirectory(prefix="fmb_output_") as tmp:
        out = os.path.join(tmp, "result.h5")
        cmd = [flexmb, "run", case, "-o", out] + extra
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        print(p.stdout, p.stderr, sep="")
        check(p.returncode == 0, "exit status %d" % p.returncode)
        check("result.xmf" in p.stdout, "summary names the .xmf file")
        for word in ("steps", "Newton", "factorizations", "violation", "wall time"):
            check(word in p.stdout, "summary mentions '%s'" % word)
        if p.returncode != 0:
            return 1
        check_file(out, case, extra)
        check_xmf(os.path.join(tmp, "result.xmf"), out)
    print("%d failure(s)" % len(FAILURES))
    return 1 if FAILURES else 0


def check_file(path, case, extra=()):
    with h5py.File(path, "r") as f:
        a = f.attrs
        check(a.get("creator") == "flexmb", "root attribute creator")
        check(a.get("units") == "SI", "root attribute units")
        check(isinstance(a.get("version"), str) and a["version"].count(".") == 2,
              "root attribute version")
        with open(case, encoding="utf-8") as c:
            check(a.get("case") == c.read(), "root attribute case holds the case text")

        t = f["time"][:]
        nt = len(t)
        check(nt >= 2, "at least two records")
        opts = f["solver"].attrs
        h, every = float(opts["h"]), int(opts["output_every"])
        check(t[0] == 0.0, "first record at t = 0")
        check(np.all(np.diff(t) > 0), "time strictly increasing")
        # every output_every-th step, and the last step (t_end) even if not a multiple
        dt = np.diff(t)
        check(np.allclose(dt[:-1], h * every, rtol=1e-9, atol=1e-12) and
              0 < dt[-1] <= h * every * (1 + 1e-9) + 1e-12,
              "time step h * output_every = %g" % (h * every))
        check(abs(t[-1] - float(opts["t_end"])) <= 0.5 * h * every + 1e-9,
              "last record at t_end")

        lengths = {}
        static = ("point_names", "x0")  # the only datasets without a time dimension
        # (/viz holds the visualization frames, a subset of the records: check_xmf)
        f.visititems(lambda n, o: lengths.__setitem__(n, o.shape[0])
                     if isinstance(o, h5py.Dataset) and not n.endswith(static)
                     and not n.startswith("viz/") else None)
        bad = {n: k for n, k in lengths.items() if k != nt}
        check(not bad, "every dataset has len(/time) = %d records: %s" % (nt, bad))

        e = f["energy"]
        check(e.shape == (nt, 4), "/energy shape")
        check(e.attrs.get("columns") == "kinetic,potential,work,total", "/energy columns")
        E = e[:]
        check(np.allclose(E[:, 3], E[:, 0] + E[:, 1] - E[:, 2], rtol=1e-9, atol=1e-9),
              "total = kinetic + potential - work")
        # kinetic (and, without springs, potential) energy recomputed independently from
        # the rigid bodies' masses, inertias, centres of mass and recorded motion:
        # T = sum 1/2 m |v_c|^2 + 1/2 I_c w^2, V = -sum m g . r_c (beams: not recomputed)
        if all(int(g.attrs["ndof"]) == 3 for g in f["bodies"].values()):
            gx, gy = float(f.attrs["gravity_x"]), float(f.attrs["gravity_y"])
            T = np.zeros(nt)
            V = np.zeros(nt)
            for g in f["bodies"].values():
                q, qd = g["q"][:], g["qd"][:]
                m_, I_ = float(g.attrs["mass"]), float(g.attrs["inertia"])
                cx, cy = float(g.attrs["com_x"]), float(g.attrs["com_y"])
                th, w = q[:, 2], qd[:, 2]
                c, s = np.cos(th), np.sin(th)
                # carrier point p = rbar + c_body; inertial velocity A (pd + w Itil p)
                px, py = q[:, 0] + cx, q[:, 1] + cy
                ux, uy = qd[:, 0] - w * py, qd[:, 1] + w * px
                vx, vy = c * ux - s * uy, s * ux + c * uy
                T += 0.5 * m_ * (vx * vx + vy * vy) + 0.5 * I_ * w * w
                V -= m_ * (gx * (c * px - s * py) + gy * (s * px + c * py))
            scale = max(np.max(np.abs(T)), 1e-12)
            check(np.max(np.abs(E[:, 0] - T)) <= 1e-9 * scale,
                  "kinetic energy = independent sum of 1/2 m v_c^2 + 1/2 I w^2 (%.3g)"
                  % (np.max(np.abs(E[:, 0] - T)) / scale))
            text = f.attrs.get("case", "")
            if "spring" not in text and "torsion" not in text:
                vs = max(np.max(np.abs(V)), 1e-12)
                check(np.max(np.abs(E[:, 1] - V)) <= 1e-9 * vs + 1e-12,
                      "potential energy = independent -sum m g . r_c")
        it = f["solver/newton_iterations"]
        check(it.shape == (nt,) and it.dtype.kind == "i", "/solver/newton_iterations")
        check(np.all(it[1:] >= 1), "every step took at least one Newton iteration")

        check("ground" not in f["bodies"], "ground is not a body in the output")
        check(len(f["bodies"]) >= 1, "at least one body")
        ncoords = int(opts["num_coords"])
        seen = 0
        for name, g in f["bodies"].items():
            ndof = int(g.attrs["ndof"])
            seen += ndof
            for ds in ("q", "qd", "qdd"):
                check(g[ds].shape == (nt, ndof), "/bodies/%s/%s shape" % (name, ds))
            want = ",".join(["rbar_x", "rbar_y", "theta"] +
                            ["e%d" % k for k in range(1, ndof - 2)])
            check(g["q"].attrs.get("columns") == want, "/bodies/%s/q columns" % name)
            q = g["q"][:]
            pose = g["pose"][:]
            check(pose.shape == (nt, 3), "/bodies/%s/pose shape" % name)
            th = q[:, 2]
            # R = A(theta) rbar, written out (independent of the solver's code).
            x = np.cos(th) * q[:, 0] - np.sin(th) * q[:, 1]
            y = np.sin(th) * q[:, 0] + np.cos(th) * q[:, 1]
            err = max(np.max(np.abs(pose[:, 0] - x)), np.max(np.abs(pose[:, 1] - y)),
                      np.max(np.abs(pose[:, 2] - th)))
            check(err < 1e-12, "/bodies/%s/pose = (A(theta) rbar, theta): error %g"
                  % (name, err))
            if "points" in g:
                names = g["point_names"].asstr()[:]
                P = g["points"][:]
                check(P.shape == (nt, len(names), 2), "/bodies/%s/points shape" % name)
                check(len(set(names)) == len(names), "/bodies/%s/point_names unique" % name)
                if "beams" in f and name in f["beams"]:
                    pass  # elastic: points move relative to the frame (checked below)
                elif len(names) >= 2 and name == "bar":
                    # Bodies built with `bar: L` keep their length.
                    d = np.linalg.norm(P[:, -1] - P[:, 0], axis=1)
                    check(np.ptp(d) < 1e-9, "/bodies/%s: rigid distance between points" % name)
                # Point k = R + A(theta) u_k, u_k taken from the first record.
                A0 = rot(th[0])
                u = (P[0] - pose[0, :2]) @ A0  # A0^T (P - R), row vectors
                pred = pose[:, None, :2] + np.einsum("tij,kj->tki", rot(th), u)
                perr = np.max(np.abs(pred - P))
                if not ("beams" in f and name in f["beams"]):
                    check(perr < 1e-9, "/bodies/%s/points = R + A u: error %g" % (name, perr))
        check(seen == ncoords, "body coordinates add up to num_coords")

        for name, g in f["joints"].items():
            r = g["reaction"]
            check(r.shape == (nt, 6), "/joints/%s/reaction shape" % name)
            check(r.attrs.get("columns") == "Fx1,Fy1,Mz1,Fx2,Fy2,Mz2",
                  "/joints/%s/reaction columns" % name)
            v = g["violation"][:]
            check(v.shape == (nt,), "/joints/%s/violation shape" % name)
            check(np.all(np.isfinite(v)) and np.all(v >= 0), "/joints/%s/violation >= 0" % name)
            check(g["position"].shape == (nt, 2), "/joints/%s/position shape" % name)
            check(all(k in g.attrs for k in ("type", "body1", "body2", "rows")),
                  "/joints/%s attributes" % name)
        check_beams(f, nt)
        check_sliders(f, nt)
        check_contacts(f, nt, extra)


def check_beams(f, nt):
    if "beams" not in f:
        return
    for name, b in f["beams"].items():
        body = f["bodies"][name]
        x0 = b["x0"][:]
        nn = len(x0)
        check(b.attrs.get("nnodes") == nn and nn >= 2, "/beams/%s nnodes" % name)
        check(int(b.attrs["index"]) == int(body.attrs["index"]), "/beams/%s index" % name)
        check(np.all(np.diff(x0) > 0), "/beams/%s/x0 increasing" % name)
        P = b["points"][:]
        v = b["deflection"][:]
        phi = b["slope"][:]
        check(P.shape == (nt, nn, 3), "/beams/%s/points shape %s" % (name, P.shape))
        check(v.shape == (nt, nn) and phi.shape == (nt, nn), "/beams/%s deflection, slope shape"
              % name)
        check(np.all(P[:, :, 2] == 0), "/beams/%s/points z = 0" % name)
        names = list(body["point_names"].asstr()[:])
        idx = [names.index("n%d" % k) for k in range(nn) if "n%d" % k in names]
        check(len(idx) == nn, "/bodies/%s has the node points n0..n%d" % (name, nn - 1))
        err = np.max(np.abs(P[:, :len(idx), :2] - body["points"][:][:, idx, :]))
        check(err < 1e-13, "/beams/%s/points = /bodies/%s/points (nodes n0..): error %g"
              % (name, name, err))
        pose = body["pose"][:]
        d = P[:, :, :2] - pose[:, None, :2]
        c, s_ = np.cos(pose[:, 2])[:, None], np.sin(pose[:, 2])[:, None]
        yb = -s_ * d[:, :, 0] + c * d[:, :, 1]  # transverse coordinate in the body frame
        err = np.max(np.abs(yb - v))
        check(err < 1e-12, "/beams/%s/deflection = transverse body-frame coordinate of the "
              "nodes: error %g" % (name, err))
        ref = b.attrs.get("reference")
        if ref == "simply_supported":
            check(np.all(v[:, 0] == 0) and np.all(v[:, -1] == 0),
                  "/beams/%s simply supported: v = 0 at both ends" % name)
        elif ref == "cantilever":
            check(np.all(v[:, 0] == 0) and np.all(phi[:, 0] == 0),
                  "/beams/%s cantilever: v = phi = 0 at the first node" % name)
        else:
            check(False, "/beams/%s reference attribute %r" % (name, ref))
        print("beam %s: %d nodes, max |deflection| %.4g m, max |slope| %.4g"
              % (name, nn, np.max(np.abs(v)), np.max(np.abs(phi))))


def check_sliders(f, nt):
    for group in [k for k in f if k not in ("time", "energy", "solver", "bodies", "joints",
                                            "beams", "contacts", "viz")]:
        for jname, g in f[group].items():
            check(jname in f["joints"], "/%s/%s names a joint" % (group, jname))
            for ds in g.values():
                check(ds.shape == (nt,), "%s shape (nt,)" % ds.name)
            if group != "sliders":
                continue
            s, e, x = g["s"][:], g["element"][:], g["x"][:]
            guide = f["joints"][jname].attrs["body2"]
            x0 = f["beams"][guide]["x0"][:]
            check(np.all(e == np.round(e)) and np.all((e >= 0) & (e <= len(x0) - 2)),
                  "/sliders/%s/element: element indices" % jname)
            ei = e.astype(int)
            check(np.all((x0[ei] <= s + 1e-12) & (s <= x0[ei + 1] + 1e-12)),
                  "/sliders/%s: s inside its element" % jname)
            # x = axial coordinate of the slider's joint point in the guide frame
            pose = f["bodies"][guide]["pose"][:]
            c, sn = np.cos(pose[:, 2]), np.sin(pose[:, 2])
            d = f["joints"][jname]["position"][:] - pose[:, :2]
            sx = c * d[:, 0] + sn * d[:, 1]
            err = np.max(np.abs(sx - x))
            check(err < 1e-9, "/sliders/%s/x = axial coordinate of the slider point in the "
                  "guide frame: error %g" % (jname, err))
            # s = the material coordinate under it: s + u(s) = x, u linear in the element,
            # the nodes' u from their deformed positions (/beams/<b>/points)
            pts = f["beams"][guide]["points"][:]
            dn = pts[:, :, :2] - pose[:, None, :2]
            u = c[:, None] * dn[:, :, 0] + sn[:, None] * dn[:, :, 1] - x0[None, :]
            rows = np.arange(len(s))
            z = (s - x0[ei]) / (x0[ei + 1] - x0[ei])
            us = (1 - z) * u[rows, ei] + z * u[rows, ei + 1]
            err = np.max(np.abs(s + us - x))
            check(err < 1e-9, "/sliders/%s/s + u(s) = x (material coordinate): error %g"
                  % (jname, err))
            print("slider %s on %s: s in [%.4g, %.4g] m, elements %d..%d"
                  % (jname, guide, s.min(), s.max(), ei.min(), ei.max()))


def case_values(text, extra):
    """Parameters (with --set overrides), gravity and body masses of a case, evaluated
    here with Python's math (independent of the loader)."""
    import yaml
    doc = yaml.safe_load(text)
    ns = {k: getattr(math, k) for k in ("sin", "cos", "tan", "sqrt", "exp", "log", "pi",
                                        "e", "asin", "acos", "atan")}
    sets = dict(a.split("=", 1) for a in extra if "=" in a)

    def ev(x):
        return float(eval(str(x).replace("^", "**"), {"__builtins__": {}}, ns))
    for k, v in (doc.get("parameters") or {}).items():
        ns[k] = ev(sets.get(k, v))
    g = [ev(x) for x in doc.get("gravity", [0, 0])]
    masses = {b["name"]: ev(b["mass"]) for b in doc.get("bodies", []) if "mass" in b}
    return doc, g, masses


def check_contacts(f, nt, extra):
    if "contacts" not in f:
        return
    doc, grav, masses = case_values(f.attrs["case"], extra)
    corners = "F1+,F2+,F1-,F2-"
    for jname, g in f["contacts"].items():
        check(jname in f["joints"], "/contacts/%s names a joint" % jname)
        N, Ff = g["normal"][:], g["friction"][:]
        check(N.shape == (nt, 4) and Ff.shape == (nt, 4),
              "/contacts/%s/normal, friction shape (nt, 4)" % jname)
        check(g["normal"].attrs.get("columns") == corners and
              g["friction"].attrs.get("columns") == corners,
              "/contacts/%s normal, friction columns %s" % (jname, corners))
        for ds in ("friction_total", "mode", "stick", "z", "v"):
            check(g[ds].shape == (nt,), "/contacts/%s/%s shape (nt,)" % (jname, ds))
        mode, stick, v = g["mode"][:], g["stick"][:], g["v"][:]
        check(mode.dtype.kind == "i" and stick.dtype.kind == "i",
              "/contacts/%s mode and stick are integers" % jname)
        check(set(np.unique(mode)) <= {0, 1, 2, 3}, "/contacts/%s/mode in {0,1,2,3}: %s"
              % (jname, np.unique(mode)))
        check(np.allclose(g["friction_total"][:], Ff.sum(axis=1), rtol=1e-12, atol=1e-12),
              "/contacts/%s/friction_total = sum of the corner friction forces" % jname)
        scale = max(1.0, np.max(np.abs(N)))
        check(np.all(N >= -1e-9 * scale), "/contacts/%s: normal forces >= 0" % jname)
        comp = np.max(np.abs(N[:, :2] * N[:, 2:])) / scale ** 2
        check(comp < 1e-9, "/contacts/%s: F_l+ F_l- = 0 (%.3g)" % (jname, comp))
        # mode from which corners carry force (one face: F1+ F2+ or F1- F2-)
        on = N > 1e-6 * np.max(N, axis=1, keepdims=True)
        cnt = on.sum(axis=1)
        face = (on[:, 0] & on[:, 1]) | (on[:, 2] & on[:, 3])
        want = np.where(cnt == 0, 0, np.where(cnt == 1, 1, np.where(face, 2, 3)))
        check(np.all(want == mode), "/contacts/%s/mode agrees with the corner forces "
              "(%d records differ)" % (jname, np.sum(want != mode)))
        vst = float(g.attrs["v_stick"])
        check(np.all(stick == (np.abs(v) < vst)), "/contacts/%s/stick = |v| < v_stick" % jname)
        check(np.all(np.isfinite(g["z"][:])), "/contacts/%s/z finite" % jname)
        jg = f["joints"][jname]
        slider, guide = jg.attrs["body1"], jg.attrs["body2"]
        if guide == "ground" and slider in f["bodies"]:
            # v: the slider's velocity along the guide axis (joint point at the block
            # centre = body origin, theta fixed at 0)
            jd = [j for j in doc["joints"] if j["name"] == jname][0]
            ax = np.array([float(x) for x in jd.get("axis", [1, 0])])
            ax /= np.linalg.norm(ax)
            qd = f["bodies"][slider]["qd"][:]
            q = f["bodies"][slider]["q"][:]
            if np.max(np.abs(q[:, 2])) < 1e-12 and np.max(np.abs(
                    f["bodies"][slider]["pose"][:, :2] - jg["position"][:])) < 1e-12:
                # v is taken at the last friction update of the step's Newton loop, so
                # it may lag the converged velocity by the last increment
                err = np.max(np.abs(qd[:, :2] @ ax - v))
                check(err < 1e-6, "/contacts/%s/v = slider velocity along the guide: "
                      "error %g" % (jname, err))
            lone = len(doc["bodies"]) == 1 and abs(float(np.dot(grav, ax))) < 1e-12 and \
                not any("fy" in fc for fc in doc.get("forces") or [])
            if lone:
                R = N[:, 0] + N[:, 1] - N[:, 2] - N[:, 3]
                mg = masses[slider] * np.linalg.norm(grav)
                err = np.max(np.abs(R - mg))
                check(err < 1e-8 * mg, "/contacts/%s: F1+ + F2+ - F1- - F2- = m g = %.6g N: "
                      "error %g" % (jname, mg, err))
        print("contact %s: modes %s, stick %.0f %% of records, max |friction_total| %.4g N"
              % (jname, np.unique(mode).tolist(), 100.0 * stick.mean(),
                 np.max(np.abs(g["friction_total"][:]))))


def check_xmf(xmf, h5):
    """The sidecar describes the visualization frames (docs/output.md): records 0, every,
    2 every, ... and the last, with every = 1 if the records fit in viz_frames, else
    ceil(nt / (viz_frames - 1)); it only references datasets of the file."""
    check(os.path.exists(xmf), "sidecar .xmf written")
    if not os.path.exists(xmf):
        return
    text = open(xmf, encoding="utf-8").read()
    with h5py.File(h5, "r") as f:
        nt = len(f["time"])
        times = f["time"][:]
        vf = int(f["solver"].attrs["viz_frames"])
        every = 1 if nt <= vf else -(-nt // (vf - 1))
        recs = list(range(0, nt, every))
        if recs[-1] != nt - 1:
            recs.append(nt - 1)
        check(int(f["viz"].attrs["every"]) == every, "frame spacing %d by the rule" % every)
        check(len(recs) <= vf, "at most viz_frames = %d frames (%d)" % (vf, len(recs)))
        # one temporal collection per grid, all with the same frames
        colls = [[t.get("Value") for t in g.iter("Time")]
                 for g in ET.fromstring(text).find("Domain").findall("Grid")]
        check(len(colls) > 0 and all(c == colls[0] for c in colls),
              "sidecar: %d grids with the same time steps" % len(colls))
        grids = colls[0] if colls else []
        check(len(grids) == len(recs), "sidecar has one time step per frame (%d, %d)"
              % (len(grids), len(recs)))
        check(np.array_equal(f["viz/record"][:], recs), "/viz/record lists the frame records")
        check(np.allclose([float(x) for x in grids], times[recs], rtol=0, atol=0),
              "sidecar times equal /time at the frame records")
        for ref in set(re.findall(r'Format="HDF">([^<]+)</DataItem>', text)):
            fname, ds = ref.split(":", 1)
            check(fname == os.path.basename(h5), "sidecar references %s" % fname)
            check(ds in f, "sidecar dataset %s exists" % ds)
        starts = [int(s.split()[0]) for s in
                  re.findall(r'<DataItem Dimensions="3 [23]" Format="XML">([^<]+)<', text)]
        check(max(starts) == len(recs) - 1, "sidecar hyperslabs stop at the last frame")
        if "beams" in f:
            for k in ("points", "deflection", "curvature", "moment", "axial_force"):
                check(text.count("%s:/viz/beams/%s<" % (os.path.basename(h5), k)) == len(recs),
                      "sidecar draws the beams' %s in every frame" % k)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
