"""Render a flexmb run with ParaView: animation frames (PNG), a movie (.ogv) and a plot of
the beams' deflection over time.

usage: xvfb-run -a /usr/bin/python3 scripts/paraview_animate.py RESULT.h5 [-o PREFIX]
           [--frames N] [--color FIELD] [--size WxH] [--forces] [--no-movie]
       (or under pvpython / pvbatch)

The frames are rendered by a pvpython child process (FMB_PVPYTHON, default `pvpython`).
ParaView 5.11 opens the X display, closes it (its OpenGL probe) and opens it again for
its render window; an X server resets when its last client disconnects and refuses
connections while it does (Xvfb: 25 of 300 back-to-back xdpyinfo connections refused
on the loaded 2-core machine, 0 of 300 with -noreset), so on a loaded machine the second
open failed now and then ("bad X server connection", abort) and with matplotlib loaded
in the rendering process always. The parent therefore holds a connection to the display
open while the child renders (the server cannot reset under it; `xvfb-run -s -noreset`
does the same from outside) and still starts the child again, up to 3 times, when it
cannot open the display.

RESULT.h5 is a `flexmb run` result with its sidecar RESULT.xmf beside it (not written with
--no-viz). Writes
  PREFIX_0000.png ...  N frames (default: every frame of the sidecar, at most 300) spread
                       evenly over the run, first and last included;
  PREFIX.ogv           the frames as a Theora movie at 25 frames/s (--no-movie: not);
  PREFIX_deflection.png, PREFIX_deflection.csv
                       per beam: the deflection at mid-span and the largest |deflection|
                       along the beam against time, from every record of the results
                       (the full time series, not the frames): v(L/2) by the element's
                       cubic Hermite interpolation of the nodal deflections and slopes
                       (docs/output.md); nothing when the model has no beam.
PREFIX defaults to RESULT without .h5. The camera looks at the x-y plane and holds the
box that the mechanism sweeps over the whole run (it does not jump between frames); the
beams are coloured by FIELD (deflection, curvature, moment (default), axial_force or
stress, the combined normal stress) on a
diverging map centred on 0 over the run's range; --forces adds the joint forces as
arrows (the largest one 15 % of the mechanism's size).
"""
import argparse
import csv
import math
import os
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from flexmb_results import frames, records, series  # noqa: E402  (committed rows only)


UNITS = {"deflection": "m", "curvature": "1/m", "moment": "N m", "axial_force": "N",
         "stress": "Pa"}


def parse(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("result")
    p.add_argument("-o", "--output", help="output prefix (default: RESULT without .h5)")
    p.add_argument("--frames", type=int, default=0, help="number of frames to render")
    p.add_argument("--color", default="moment",
                   choices=["deflection", "curvature", "moment", "axial_force", "stress"])
    p.add_argument("--size", default="800x600", help="image size WxH (even numbers)")
    p.add_argument("--forces", action="store_true", help="joint forces as arrows")
    p.add_argument("--no-movie", action="store_true", help="no .ogv")
    p.add_argument("--render-child", action="store_true", help=argparse.SUPPRESS)
    return p.parse_args(argv[1:])


def hermite_mid(v, phi, x0):
    """Deflection at mid-span from the nodal v, phi [nt x nn] (cubic Hermite)."""
    L = x0[-1] - x0[0]
    xm = x0[0] + L / 2
    e = min(max(int(np.searchsorted(x0, xm, side="right")) - 1, 0), len(x0) - 2)
    le = x0[e + 1] - x0[e]
    xi = (xm - x0[e]) / le
    H = [1 - 3 * xi**2 + 2 * xi**3, le * (xi - 2 * xi**2 + xi**3), 3 * xi**2 - 2 * xi**3,
         le * (xi**3 - xi**2)]
    return H[0] * v[:, e] + H[1] * phi[:, e] + H[2] * v[:, e + 1] + H[3] * phi[:, e + 1]


def deflection_plot(f, prefix):
    """PREFIX_deflection.{csv,png} from /beams; returns the number of beams."""
    if "beams" not in f or len(f["beams"]) == 0:
        print("paraview_animate: no beam: no deflection plot")
        return 0
    n = records(f)
    t = f["time"][:n]
    cols, columns = ["t"], [t]
    for name, g in f["beams"].items():
        v, phi, x0 = g["deflection"][:n], g["slope"][:n], g["x0"][:]
        cols += ["%s_mid" % name, "%s_max_abs" % name]
        columns += [hermite_mid(v, phi, x0), np.max(np.abs(v), axis=1)]
    with open(prefix + "_deflection.csv", "w", newline="") as out:
        w = csv.writer(out)
        w.writerow(cols)
        for row in zip(*columns):
            w.writerow(["%.17g" % x for x in row])
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for k in range(1, len(cols), 2):
        name = cols[k][:-4]
        ax.plot(t, 1e3 * columns[k], label="%s: v at mid-span" % name)
        ax.plot(t, 1e3 * columns[k + 1], "--", lw=0.8, label="%s: max |v| along the beam" % name)
    ax.set_xlabel("t (s)")
    ax.set_ylabel("deflection (mm, body frame)")
    ax.axhline(0, color="k", lw=0.5)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(os.path.basename(prefix))
    fig.tight_layout()
    fig.savefig(prefix + "_deflection.png", dpi=100)
    plt.close(fig)
    print("paraview_animate: wrote %s_deflection.png and .csv" % prefix)
    return (len(cols) - 1) // 2


def sweep_box(f):
    """[xmin, xmax, ymin, ymax] of every drawn point over every frame."""
    lo, hi = np.array([np.inf, np.inf]), np.array([-np.inf, -np.inf])
    for name, g in f["viz"].items():
        if isinstance(g, h5py.Group) and "points" in g:
            p = series(f, g["points"].name, frames(f))
            p = p.reshape(-1, 3)[:, :2]
            if len(p):
                lo, hi = np.minimum(lo, p.min(axis=0)), np.maximum(hi, p.max(axis=0))
    return lo, hi


def field_range(f, field):
    ds = f.get("viz/beams/%s" % field)
    if ds is None or ds.size == 0:
        return None
    v = series(f, ds.name, frames(f))
    if v.size == 0:
        return None
    m = float(np.nanmax(np.abs(v))) if np.any(np.isfinite(v)) else 0.0
    return m if m > 0 else 1.0


def max_force(f):
    ds = f.get("viz/joints/force")
    if ds is None or ds.size == 0:
        return 0.0
    v = series(f, ds.name, frames(f))
    return float(np.max(np.linalg.norm(v, axis=-1))) if v.size else 0.0


def main(argv):
    a = parse(argv)
    if not a.render_child:
        return parent(a, argv)
    return render(a)


def hold_display():
    """A connection to $DISPLAY held open while ParaView renders (module comment): the X
    server does not reset, and refuse connections, between ParaView's probe and its
    window. (libX11, handle) or None when there is no display or no libX11."""
    if not os.environ.get("DISPLAY"):
        return None
    try:
        import ctypes
        import ctypes.util
        x11 = ctypes.CDLL(ctypes.util.find_library("X11") or "libX11.so.6")
        x11.XOpenDisplay.restype = ctypes.c_void_p
        x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
        x11.XCloseDisplay.argtypes = [ctypes.c_void_p]
        d = x11.XOpenDisplay(None)
        return (x11, d) if d else None
    except OSError:
        return None


def release_display(hold):
    if hold:
        hold[0].XCloseDisplay(hold[1])


def parent(a, argv):
    """Render in a child process (retried on X display failures), then plot."""
    import subprocess
    xmf = os.path.splitext(a.result)[0] + ".xmf"
    if not os.path.exists(xmf):
        print("paraview_animate: %s not found (run without --no-viz)" % xmf)
        return 2
    pv = os.environ.get("FMB_PVPYTHON", "pvpython")
    cmd = [pv, os.path.abspath(__file__)] + argv[1:] + ["--render-child"]
    code = 1
    hold = hold_display()
    try:
        for attempt in range(3):
            p = subprocess.run(cmd, capture_output=True, text=True)
            out = p.stdout + p.stderr
            code = p.returncode
            if "bad X server connection" not in out and "cannot open display" not in out:
                sys.stdout.write(p.stdout)
                break
            print("paraview_animate: the X display failed to open (attempt %d), again"
                  % (attempt + 1))
    finally:
        release_display(hold)
    if code != 0:
        # the cause is in the first lines; a crash's stack trace follows them
        err = p.stderr if len(p.stderr) <= 4000 else p.stderr[:2000] + "\n...\n" + p.stderr[-2000:]
        sys.stdout.write(p.stdout + err)
        print("paraview_animate: rendering failed (exit %d)" % code)
        return 1
    prefix = a.output or os.path.splitext(a.result)[0]
    with h5py.File(a.result, "r") as f:
        deflection_plot(f, prefix)
    return 0


def render(a):
    h5 = a.result
    xmf = os.path.splitext(h5)[0] + ".xmf"
    prefix = a.output or os.path.splitext(h5)[0]
    W, H = (int(x) for x in a.size.lower().split("x"))
    W, H = W + W % 2, H + H % 2
    if os.path.dirname(prefix):
        os.makedirs(os.path.dirname(prefix), exist_ok=True)
    if not os.path.exists(xmf):
        print("paraview_animate: %s not found (run without --no-viz)" % xmf)
        return 2
    with h5py.File(h5, "r") as f:
        lo, hi = sweep_box(f)
        crange = field_range(f, a.color)
        fmax = max_force(f)
        t_frames = f["viz/time"][:frames(f)]

    from paraview.simple import (ColorBy, ExtractBlock, GetActiveViewOrCreate,
                                 GetColorTransferFunction, GetScalarBar, Glyph, Render,
                                 SaveScreenshot, Show, Text, XDMFReader)

    reader = XDMFReader(FileNames=[xmf])
    reader.UpdatePipelineInformation()
    ts = reader.TimestepValues
    ts = [ts] if isinstance(ts, float) else list(ts or [])
    n = a.frames if a.frames > 0 else min(len(ts), 300)
    n = min(n, len(ts))
    pick = sorted(set(np.round(np.linspace(0, len(ts) - 1, n)).astype(int).tolist()))

    view = GetActiveViewOrCreate("RenderView")
    view.ViewSize = [W, H]
    view.OrientationAxesVisibility = 0
    view.Background = [1, 1, 1]
    try:
        view.UseColorPaletteForBackground = 0
    except AttributeError:
        pass
    blocks = {}
    for name in ("links", "blocks", "beams", "guides", "joints", "contacts", "markers",
                 "forces"):
        blocks[name] = ExtractBlock(Input=reader, Selectors=["/Root/%s" % name])
    have = set()
    for k, b in blocks.items():
        b.UpdatePipeline(ts[0])
        if b.GetDataInformation().GetNumberOfPoints() > 0:
            have.add(k)
    grey = [0.25, 0.25, 0.3]
    if "guides" in have:
        d = Show(blocks["guides"], view)
        d.ColorArrayName = ["POINTS", ""]
        d.AmbientColor = d.DiffuseColor = [0, 0, 0]
        d.LineWidth = 2.0
    if "links" in have:
        d = Show(blocks["links"], view)
        d.ColorArrayName = ["POINTS", ""]
        d.AmbientColor = d.DiffuseColor = grey
        d.LineWidth = 6.0
        d.RenderLinesAsTubes = 1
    if "blocks" in have:
        d = Show(blocks["blocks"], view)
        d.ColorArrayName = ["POINTS", ""]
        d.AmbientColor = d.DiffuseColor = [0.55, 0.65, 0.8]
        d.Representation = "Surface With Edges"
        d.EdgeColor = [0.1, 0.1, 0.2]
    if "beams" in have:
        d = Show(blocks["beams"], view)
        ColorBy(d, ("POINTS", a.color))
        lut = GetColorTransferFunction(a.color)
        lut.ApplyPreset("Cool to Warm", True)
        if crange:
            lut.RescaleTransferFunction(-crange, crange)
            lut.AutomaticRescaleRangeMode = "Never"
        d.LineWidth = 7.0
        d.RenderLinesAsTubes = 1
        d.SetScalarBarVisibility(view, True)
        bar = GetScalarBar(lut, view)
        bar.Title = "%s (%s)" % (a.color, UNITS[a.color])
        bar.ComponentTitle = ""
        bar.TitleColor = bar.LabelColor = [0, 0, 0]
        bar.TitleFontSize = bar.LabelFontSize = 14
    for name in ("joints", "markers"):
        if name in have:
            d = Show(blocks[name], view)
            d.ColorArrayName = ["POINTS", ""]
            d.Representation = "Points"
            d.AmbientColor = d.DiffuseColor = [0.05, 0.05, 0.05]
            d.PointSize = 11.0
            d.RenderPointsAsSpheres = 1
    if "forces" in have:  # clearance journals: large spheres coloured by the contact force
        d = Show(blocks["forces"], view)
        ColorBy(d, ("POINTS", "normal_force"))
        lut = GetColorTransferFunction("normal_force")
        lut.ApplyPreset("Inferno (matplotlib)", True)
        d.Representation = "Points"
        d.PointSize = 18.0
        d.RenderPointsAsSpheres = 1
    size = float(np.hypot(*(hi - lo))) if np.all(np.isfinite(hi - lo)) else 1.0
    size = size if size > 0 else 1.0
    if a.forces and "joints" in have and fmax > 0:
        arrows = Glyph(Input=blocks["joints"], GlyphType="Arrow",
                       OrientationArray=["POINTS", "force"], ScaleArray=["POINTS", "force"],
                       ScaleFactor=0.15 * size / fmax, GlyphMode="All Points")
        d = Show(arrows, view)
        d.ColorArrayName = ["POINTS", ""]
        d.AmbientColor = d.DiffuseColor = [0.8, 0.1, 0.1]
        lo = np.minimum(lo, lo - 0.15 * size)
        hi = np.maximum(hi, hi + 0.15 * size)
    label = Text(Text="")
    ld = Show(label, view)
    ld.FontSize = 14
    ld.Color = [0, 0, 0]
    ld.WindowLocation = "Upper Left Corner"

    # camera: the x-y plane, the box swept over the whole run with a 8 % margin
    c = (lo + hi) / 2
    half = (hi - lo) / 2 * 1.08 + 1e-9
    view.CameraParallelProjection = 1
    view.CameraFocalPoint = [c[0], c[1], 0]
    view.CameraPosition = [c[0], c[1], 10 * size]
    view.CameraViewUp = [0, 1, 0]
    view.CameraParallelScale = float(max(half[1], half[0] * H / W))

    pngs = []
    for i, k in enumerate(pick):
        view.ViewTime = ts[k]
        label.Text = "t = %.4f s   (frame %d of %d)" % (ts[k], k + 1, len(ts))
        Render(view)
        png = "%s_%04d.png" % (prefix, i)
        SaveScreenshot(png, view, ImageResolution=[W, H])
        pngs.append(png)
    print("paraview_animate: wrote %d frames %s_0000.png ... (times %.4g to %.4g s)"
          % (len(pngs), prefix, ts[pick[0]], ts[pick[-1]]))
    if not a.no_movie and pngs:
        try:
            from vtkmodules.vtkIOImage import vtkPNGReader
            from vtkmodules.vtkIOOggTheora import vtkOggTheoraWriter
            rd = vtkPNGReader()
            wr = vtkOggTheoraWriter()
            wr.SetInputConnection(rd.GetOutputPort())
            wr.SetFileName(prefix + ".ogv")
            wr.SetRate(25)
            rd.SetFileName(pngs[0])
            rd.Update()
            wr.Start()
            for p in pngs:
                rd.SetFileName(p)
                rd.Modified()
                rd.Update()
                wr.Write()
            wr.End()
            print("paraview_animate: wrote %s.ogv (%d frames, 25 frames/s)" % (prefix, len(pngs)))
        except ImportError as e:
            print("paraview_animate: no Theora writer in this ParaView (%s): no .ogv" % e)
    sys.stdout.flush()
    return 0 if pngs and len(t_frames) == len(ts) else 1


if __name__ == "__main__":
    code = main(sys.argv)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)  # ParaView can crash tearing down an Xvfb render window
