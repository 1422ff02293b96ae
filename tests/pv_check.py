"""Open a flexmb XDMF sidecar in ParaView and check what it shows against the HDF5 file.

usage: xvfb-run -a -s -noreset pvbatch tests/pv_check.py FILE.xmf FILE.h5 [OUT.png] [--all-frames]
                                           [--max-seconds=S]

With ParaView's XDMF (2) reader (docs/output.md, "Visualization"):
- the time steps are the frames: records 0, every, 2 every, ... and the last record of
  /time, with `every` as the documented rule gives it from /solver@viz_frames and the
  record count; at most viz_frames of them;
- at the first, a middle and the last frame, every grid is recomputed by hand from the
  HDF5 file, never from /viz:
  links     the bodies' named points from their coordinates q by planar kinematics
            (R = A(theta) rbar, p = R + A(theta) u, u from the first record's points);
  blocks    the corners R + A(theta) (com +- (L/2, W/2)) of bodies with a block; a
            frictional slider's block: centred at the joint position, sides 2a x 2b;
  beams     points of the deformed axis at the element stations: (x + u(x), v(x)) in the
            body frame, u linear between nodes (from /beams/points), v the cubic
            Hermite interpolation of /beams/deflection and slope; curvature v'' from the
            same cubics, moment E I v'', axial force E A u', stress |N|/A + |M| c/I (linear
            beams with a known c: the element's local forces are E A u' and E I v'');
  joints    /joints/*/position, the force and moment on the second body (the first when
            the second is the ground) from /joints/*/reaction;
  contacts  corners at the slider point +- a e +- b n, forces whose components along
            n and -e are the corner's normal and friction forces in /contacts;
  guides    through the guide's ground point, covering the slider's travel;
  forces    one vertex per force with a "position" output (clearance journals) at that
            output, with its normal_force, friction_force, penetration and contact outputs
            (the group found by its force_index attribute);
- the Glyph filter draws arrows from the joints' force vectors.
--all-frames: also step through every frame (timing printed): every frame has the grids;
--max-seconds=S: opening the file plus stepping through the frames takes < S seconds of
CPU time (process time: on a shared, oversubscribed machine the wall time measures the
load, not ParaView; both are printed).
Renders the last frame to a PNG. Exit 0 on success, 1 on a mismatch.
"""
import math
import os
import sys
import time

import h5py
import numpy as np
from paraview import servermanager
from paraview.simple import (ExtractBlock, GetActiveViewOrCreate, Glyph, Render, ResetCamera,
                             SaveScreenshot, Show, XDMFReader)
from vtk.util.numpy_support import vtk_to_numpy

TOL = 1e-9  # m, N: the sidecar's data are doubles computed with the same formulas


def finish(code):
    # os._exit: pvbatch under xvfb-run can die with a GLX error while tearing down the
    # render window, which would turn a passed check into a failure.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def fail(msg):
    print("pv_check: FAIL: " + msg)
    finish(1)


def close(a, b, tol, what):
    a, b = np.asarray(a, float), np.asarray(b, float)
    if a.shape != b.shape:
        fail("%s: shape %s, expected %s" % (what, a.shape, b.shape))
    scale = max(1.0, float(np.max(np.abs(b))) if b.size else 1.0)
    err = float(np.max(np.abs(a - b))) if a.size else 0.0
    if not err <= tol * scale:
        fail("%s: differs by %.3g (tolerance %.3g)" % (what, err, tol * scale))
    return err


def rot(th):
    c, s = math.cos(th), math.sin(th)
    return np.array([[c, -s], [s, c]])


def hermite(l, xi, d):
    """Cubic Hermite functions (v1, phi1, v2, phi2) of an element of length l, d-th x-derivative."""
    if d == 0:
        return np.array([1 - 3 * xi**2 + 2 * xi**3, l * (xi - 2 * xi**2 + xi**3),
                         3 * xi**2 - 2 * xi**3, l * (xi**3 - xi**2)])
    return np.array([(-6 + 12 * xi) / l**2, (-4 + 6 * xi) / l, (6 - 12 * xi) / l**2,
                     (-2 + 6 * xi) / l])


def blocks_at(reader, t):
    """{grid name: (points [n x 3], {array: values})} at time t."""
    reader.UpdatePipeline(t)
    data = servermanager.Fetch(reader)
    out = {}
    it = data.NewIterator()
    it.InitTraversal()
    while not it.IsDoneWithTraversal():
        block = it.GetCurrentDataObject()
        name = it.GetCurrentMetaData().Get(data.NAME()).split("[")[0]
        pts = np.array(vtk_to_numpy(block.GetPoints().GetData()))
        arrays = {}
        for dd in (block.GetPointData(), block.GetCellData()):
            for k in range(dd.GetNumberOfArrays()):
                arrays[dd.GetArrayName(k)] = np.array(vtk_to_numpy(dd.GetArray(k)))
        arrays["_ncells"] = block.GetNumberOfCells()
        out[name] = (pts, arrays)
        it.GoToNextItem()
    return out


class Model:
    def __init__(self, f):
        self.f = f
        self.bodies = {int(g.attrs["index"]): (n, g) for n, g in f["bodies"].items()}
        # (a clearance joint is a force: its /joints/<name> group has no joint index)
        self.joints = {int(g.attrs["index"]): (n, g) for n, g in f["joints"].items()
                       if "index" in g.attrs}
        self.beams = f["beams"] if "beams" in f else {}
        self.contacts = {int(g.attrs["joint_index"]): g for g in f["contacts"].values()} \
            if "contacts" in f else {}
        self.force_groups = {}  # force index -> group of its outputs

        def visit(name, obj):
            if isinstance(obj, h5py.Group) and "force_index" in obj.attrs:
                self.force_groups[int(obj.attrs["force_index"])] = obj
        f.visititems(visit)

    def frame(self, b, r):
        q = self.bodies[b][1]["q"][r]
        A = rot(q[2])
        return A @ q[0:2], A, q[2]

    def body_point_u(self, b, k):
        """Body-frame coordinates of named point k (from the first record)."""
        R, A, _ = self.frame(b, 0)
        return A.T @ (self.bodies[b][1]["points"][0, k] - R)


def check_links(m, r, pts, arr):
    want = []
    for b in arr["body"]:
        pass
    bodies = list(dict.fromkeys(arr["body"].tolist()))
    for b in bodies:
        R, A, _ = m.frame(b, r)
        npt = m.bodies[b][1]["points"].shape[1]
        for k in range(npt - 1):
            want += [R + A @ m.body_point_u(b, k), R + A @ m.body_point_u(b, k + 1)]
    if len(want) != len(pts):
        fail("links: %d points, expected %d" % (len(pts), len(want)))
    close(pts[:, :2], np.array(want), TOL, "links geometry at record %d" % r)


def check_blocks(m, r, pts, arr):
    for c, b in enumerate(arr["body"].tolist()):
        quad = pts[4 * c:4 * c + 4, :2]
        name, g = m.bodies[b]
        if "block_length" in g.attrs:
            R, A, _ = m.frame(b, r)
            L, W = g.attrs["block_length"], g.attrs["block_width"]
            com = np.array([g.attrs["com_x"], g.attrs["com_y"]])
            want = [R + A @ (com + [sx * L / 2, sy * W / 2])
                    for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
            close(quad, np.array(want), TOL, "block of %s at record %d" % (name, r))
        else:  # a frictional slider's block
            js = [j for j, cg in m.contacts.items()
                  if m.joints[j][1].attrs["body1"] == name]
            if not js:
                fail("block of %s: no block size and no frictional joint" % name)
            cg = m.contacts[js[0]]
            a, bb = cg.attrs["a"], cg.attrs["b"]
            pos = m.joints[js[0]][1]["position"][r]
            close(quad.mean(axis=0), pos, TOL, "block centre of %s" % name)
            close([np.linalg.norm(quad[1] - quad[0]), np.linalg.norm(quad[3] - quad[0])],
                  [2 * a, 2 * bb], TOL, "block sides of %s" % name)


def check_beams(m, r, pts, arr):
    p = 0
    bodies = list(dict.fromkeys(arr["body"].tolist()))
    for b in bodies:
        name, _ = m.bodies[b]
        bg = m.beams[name]
        x0 = bg["x0"][:]
        nel = len(x0) - 1
        ncell = int(np.sum(arr["body"] == b))
        sub = ncell // nel
        R, A, _ = m.frame(b, r)
        local = (A.T @ (bg["points"][r][:, :2] - R).T).T  # [nn x 2]: x0 + u, v
        u = local[:, 0] - x0
        v, phi = bg["deflection"][r], bg["slope"][r]
        close(local[:, 1], v, TOL, "beam %s: node deflection vs node points" % name)
        E, Ar, I = bg.attrs["E"], bg.attrs["A"], bg.attrs["I"]
        want_p, want = [], {"deflection": [], "curvature": [], "moment": [], "axial_force": []}
        for e in range(nel):
            le = x0[e + 1] - x0[e]
            dofs = np.array([v[e], phi[e], v[e + 1], phi[e + 1]])
            for s in range(sub):
                for end in (0, 1):
                    xi = (s + end) / sub
                    ve = hermite(le, xi, 0) @ dofs
                    kap = hermite(le, xi, 2) @ dofs
                    ue = u[e] + xi * (u[e + 1] - u[e])
                    want_p.append(R + A @ np.array([x0[e] + le * xi + ue, ve]))
                    want["deflection"].append(ve)
                    want["curvature"].append(kap)
                    want["moment"].append(E * I * kap)
                    want["axial_force"].append(E * Ar * (u[e + 1] - u[e]) / le)
        n = len(want_p)
        close(pts[p:p + n, :2], np.array(want_p), TOL, "beam %s geometry at record %d" % (name, r))
        for k, w in want.items():
            # curvature: second differences of nodal values, scale 1/le^2 (relative 1e-7)
            close(arr[k][p:p + n], np.array(w), 1e-7, "beam %s %s at record %d" % (name, k, r))
        c = bg.attrs.get("c", 0.0)
        if "stress" in arr and c > 0 and bg.attrs["geometry"] == "linear":
            # the element's local forces equal E A u' and E I v'' for the linear beam
            ws = (np.abs(want["axial_force"]) / Ar + np.abs(want["moment"]) * c / I)
            close(arr["stress"][p:p + n], ws, 1e-7, "beam %s stress at record %d" % (name, r))
        print("pv_check: record %d: beam %s: %d segments; |curvature| <= %.4g 1/m, "
              "|moment| <= %.4g N m, axial force in [%.4g, %.4g] N"
              % (r, name, n // 2, np.max(np.abs(want["curvature"])),
                 np.max(np.abs(want["moment"])), min(want["axial_force"]),
                 max(want["axial_force"])))
        p += n


def check_joints(m, r, pts, arr):
    js = arr["joint"].tolist()
    want_p, want_f, want_m = [], [], []
    for j in js:
        name, g = m.joints[j]
        re = g["reaction"][r]
        side = 0 if g.attrs["body2"] == "ground" else 1
        want_p.append(g["position"][r])
        want_f.append([re[3 * side], re[3 * side + 1], 0.0])
        want_m.append(re[3 * side + 2])
    close(pts[:, :2], np.array(want_p), TOL, "joint positions at record %d" % r)
    close(arr["force"], np.array(want_f), TOL, "joint forces at record %d" % r)
    close(arr["moment"], np.array(want_m), TOL, "joint moments at record %d" % r)


def check_contacts(m, r, pts, arr):
    for c in range(len(pts) // 4):
        j = int(arr["joint"][4 * c])
        cg = m.contacts[j]
        a, b = cg.attrs["a"], cg.attrs["b"]
        P = pts[4 * c:4 * c + 4, :2]
        F = arr["force"][4 * c:4 * c + 4, :2]
        centre = m.joints[j][1]["position"][r]
        e = (P[1] - P[0]) / (2 * a)
        n = np.array([-e[1], e[0]])
        close(np.linalg.norm(e), 1.0, 1e-9, "contact corners along the guide")
        want = [centre + sa * a * e + sb * b * n for sa, sb in ((-1, -1), (1, -1), (-1, 1), (1, 1))]
        close(P, np.array(want), TOL, "contact corners at record %d" % r)
        N, fr = cg["normal"][r], cg["friction"][r]
        close(F @ n, N * np.array([1, 1, -1, -1]), 1e-9, "corner normal forces at record %d" % r)
        close(F @ e, -fr, 1e-9, "corner friction forces at record %d" % r)


def check_forces(m, r, pts, arr):
    idx = arr["force"].tolist()
    if len(idx) != len(m.force_groups):
        fail("forces: %d vertices for %d forces with outputs" % (len(idx), len(m.force_groups)))
    for k, i in enumerate(idx):
        g = m.force_groups[i]
        close(pts[k, :2], g["position"][r], TOL, "force %d position at record %d" % (i, r))
        for name in ("normal_force", "friction_force", "penetration", "contact"):
            want = g[name][r] if name in g else 0.0
            close(arr[name][k], want, TOL, "force %d %s at record %d" % (i, name, r))


def check_guides(m, pts):
    # each guide: through its ground point, along the slider's travel (whole run)
    for s in range(len(pts) // 2):
        p0, p1 = pts[2 * s, :2], pts[2 * s + 1, :2]
        e = (p1 - p0) / np.linalg.norm(p1 - p0)
        ok = False
        for j, (name, g) in m.joints.items():
            if "ground" not in (g.attrs["body1"], g.attrs["body2"]) or \
                    g.attrs["type"] not in ("prismatic",):
                continue
            d = g["position"][:] - p0
            off = np.abs(d[:, 0] * e[1] - d[:, 1] * e[0])  # distance from the guide line
            s_ = d @ e
            if off.max() < 1e-6 and s_.min() >= 0 and s_.max() <= np.linalg.norm(p1 - p0):
                ok = True
        if not ok:
            fail("guide %d does not carry any ground slider over its whole travel" % s)


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    all_frames = "--all-frames" in argv
    max_s = [float(a.split("=", 1)[1]) for a in argv if a.startswith("--max-seconds=")]
    if len(args) < 2:
        print(__doc__)
        finish(2)
    xmf, h5 = args[0], args[1]
    png = args[2] if len(args) > 2 else os.path.splitext(xmf)[0] + ".png"
    f = h5py.File(h5, "r")
    m = Model(f)
    t = f["time"][:]
    nt = len(t)
    vf = int(f["solver"].attrs["viz_frames"])
    every = int(f["viz"].attrs["every"])
    # the documented rule (docs/output.md): 1 if the records fit, else ceil(nt / (vf - 1))
    rule = 1 if nt <= vf else -(-nt // (vf - 1))
    if every != rule:
        fail("frame spacing %d, the rule gives %d for %d records and viz_frames %d"
             % (every, rule, nt, vf))
    recs = list(range(0, nt, every))
    if recs[-1] != nt - 1:
        recs.append(nt - 1)
    if len(recs) > vf:
        fail("%d frames > viz_frames %d" % (len(recs), vf))

    t0, c0 = time.time(), time.process_time()
    reader = XDMFReader(FileNames=[xmf])
    reader.UpdatePipelineInformation()
    ts = reader.TimestepValues
    ts = [ts] if isinstance(ts, float) else list(ts or [])
    opened, opened_cpu = time.time() - t0, time.process_time() - c0
    print("pv_check: %d records, spacing %d: %d frames expected, %d time steps in ParaView "
          "(%.2f s to open, %.2f s CPU)" % (nt, every, len(recs), len(ts), opened, opened_cpu))
    if len(ts) != len(recs):
        fail("number of time steps")
    close(ts, t[recs], 0, "frame times vs /time")

    for k in sorted({0, len(recs) // 2, len(recs) - 1}):
        r = recs[k]
        grids = blocks_at(reader, ts[k])
        print("pv_check: t = %.6g (record %d): grids %s" % (ts[k], r, sorted(grids)))
        for name, (pts, arr) in grids.items():
            if np.any(pts[:, 2] != 0):
                fail("%s: z != 0" % name)
            {"links": check_links, "blocks": check_blocks, "beams": check_beams,
             "joints": check_joints, "contacts": check_contacts, "forces": check_forces,
             "markers": lambda *a: None, "guides": lambda *a: None}[name](m, r, pts, arr)
        if "guides" in grids:
            check_guides(m, grids["guides"][0])
        nlinks = sum(max(0, g["points"].shape[1] - 1) for n, g in f["bodies"].items()
                     if "points" in g and n not in m.beams)
        if nlinks and grids["links"][1]["_ncells"] != nlinks:
            fail("links: %d segments, expected %d" % (grids["links"][1]["_ncells"], nlinks))
    if all_frames:
        t0, c0 = time.time(), time.process_time()
        want = sorted(grids)
        for k, tk in enumerate(ts):
            reader.UpdatePipeline(tk)
            info = reader.GetDataInformation()
            if k % 97 == 0 or k == len(ts) - 1:  # fetching costs: a sample of the frames
                names = sorted(blocks_at(reader, tk))
                if names != want:
                    fail("frame %d has grids %s, expected %s" % (k, names, want))
            if info.GetNumberOfPoints() == 0:
                fail("frame %d has no points" % k)
        stepped, stepped_cpu = time.time() - t0, time.process_time() - c0
        print("pv_check: stepped through %d frames in %.2f s wall, %.2f s CPU (open + steps: "
              "%.2f s wall, %.2f s CPU)" % (len(ts), stepped, stepped_cpu, opened + stepped,
                                             opened_cpu + stepped_cpu))
        if max_s and not opened_cpu + stepped_cpu < max_s[0]:
            fail("open + stepping took %.1f s CPU >= %g s" % (opened_cpu + stepped_cpu, max_s[0]))

    # arrows for the joint forces (Glyph on the joints block)
    joints = ExtractBlock(Input=reader, Selectors=["/Root/joints"])
    arrows = Glyph(Input=joints, GlyphType="Arrow", OrientationArray=["POINTS", "force"],
                   ScaleArray=["POINTS", "force"], ScaleFactor=1e-3)
    arrows.UpdatePipeline(ts[-1])
    npts = servermanager.Fetch(arrows).GetNumberOfPoints()
    print("pv_check: Glyph draws the joint forces with %d points" % npts)
    if npts == 0:
        fail("Glyph drew nothing from the joint forces")
    print("pv_check: data checks passed")
    sys.stdout.flush()
    view = GetActiveViewOrCreate("RenderView")
    view.ViewSize = [640, 480]
    view.ViewTime = ts[-1]
    view.OrientationAxesVisibility = 0
    disp = Show(reader, view)
    disp.LineWidth = 4.0
    disp.PointSize = 10.0
    disp.RenderPointsAsSpheres = 1
    Show(arrows, view)
    view.CameraPosition = [0, 0, 10]
    view.CameraFocalPoint = [0, 0, 0]
    view.CameraViewUp = [0, 1, 0]
    ResetCamera(view)
    Render(view)
    SaveScreenshot(png, view, ImageResolution=[640, 480])
    if not os.path.exists(png) or os.path.getsize(png) == 0:
        fail("no screenshot written")
    print("pv_check: rendered %s" % png)
    print("pv_check: OK")
    finish(0)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
