"""Open a flexmb XDMF sidecar in ParaView and compare it with the HDF5 file.

usage: xvfb-run -a pvbatch tests/pv_check.py FILE.xmf FILE.h5 [OUT.png]
       xvfb-run -a pvbatch tests/pv_check.py FILE.xmf --expect NTIMES NPOINTS [OUT.png]
       (the second form for a pvbatch whose python has no h5py)

With ParaView's XDMF (2) reader, checks that the number of time steps equals len(/time)
and the times match, that every time step has one block per body and per drawn joint
with the expected number of points, and that the geometry at the first, a middle and the
last time step equals the HDF5 data (body points, else body origin; beam nodes from
/beams/<body>/points; joint positions). For beams, also the "deflection" point data:
its values (hence its range) at those time steps equal /beams/<body>/deflection.
Renders the last frame to a PNG. Exit 0 on success, 1 on a mismatch.
"""
import os
import sys

import numpy as np
from paraview import servermanager
from paraview.simple import GetActiveViewOrCreate, Render, ResetCamera, SaveScreenshot, Show
from paraview.simple import XDMFReader
from vtk.util.numpy_support import vtk_to_numpy


def finish(code):
    # os._exit: pvbatch under xvfb-run can die with a GLX error while tearing down the
    # render window, which would turn a passed check into a failure.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def fail(msg):
    print("pv_check: FAIL: " + msg)
    finish(1)


def expected_from_h5(h5path):
    """Times, and per drawn item (sidecar order) its name, [nt x np x 2] points and
    [nt x np] deflection (beams) or None."""
    import h5py
    with h5py.File(h5path, "r") as f:
        t = f["time"][:]
        items = []
        beams = f["beams"] if "beams" in f else {}
        bodies = sorted(f["bodies"].items(), key=lambda kv: int(kv[1].attrs["index"]))
        for name, g in bodies:
            if name in beams:
                b = beams[name]
                items.append((name, b["points"][:][:, :, 0:2], b["deflection"][:]))
            elif "points" in g:
                items.append((name, g["points"][:], None))
            else:
                items.append((name, g["pose"][:][:, None, 0:2], None))
        joints = sorted(f["joints"].items(), key=lambda kv: int(kv[1].attrs["index"]))
        for name, g in joints:
            if g.attrs["type"] != "driver_angle":
                items.append((name, g["position"][:][:, None, :], None))
        return t, items


def blocks_at(reader, t):
    """(name, points [n x 3], number of cells) of every leaf block at time t."""
    reader.UpdatePipeline(t)
    data = servermanager.Fetch(reader)
    out = []
    it = data.NewIterator()
    it.InitTraversal()
    while not it.IsDoneWithTraversal():
        block = it.GetCurrentDataObject()
        name = it.GetCurrentMetaData().Get(data.NAME())
        pts = block.GetPoints()
        xyz = vtk_to_numpy(pts.GetData()) if pts is not None else np.zeros((0, 3))
        arr = block.GetPointData().GetArray("deflection")
        defl = np.array(vtk_to_numpy(arr)) if arr is not None else None
        out.append((name, np.array(xyz), block.GetNumberOfCells(), defl))
        it.GoToNextItem()
    return out


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        finish(2)
    xmf = argv[1]
    times = items = None
    if argv[2] == "--expect":
        ntimes, npoints = int(argv[3]), int(argv[4])
        png = argv[5] if len(argv) > 5 else None
    else:
        times, items = expected_from_h5(argv[2])
        ntimes = len(times)
        npoints = sum(it[1].shape[1] for it in items)
        png = argv[3] if len(argv) > 3 else None
    if png is None:
        png = os.path.splitext(xmf)[0] + ".png"

    reader = XDMFReader(FileNames=[xmf])
    reader.UpdatePipelineInformation()
    tsteps = reader.TimestepValues
    tsteps = [tsteps] if isinstance(tsteps, float) else list(tsteps or [])
    print("pv_check: %d time steps in ParaView, %d in the HDF5 file" % (len(tsteps), ntimes))
    if len(tsteps) != ntimes:
        fail("number of time steps")
    if times is not None and not np.allclose(tsteps, times, rtol=0, atol=1e-12):
        fail("time values differ from /time")

    for k in sorted({0, ntimes // 2, ntimes - 1}):
        blocks = blocks_at(reader, tsteps[k])
        n = sum(len(b[1]) for b in blocks)
        print("pv_check: t = %g: %d blocks, %d points (%d expected)"
              % (tsteps[k], len(blocks), n, npoints))
        if n != npoints:
            fail("number of points at t = %g" % tsteps[k])
        if any(b[2] != 1 for b in blocks):
            fail("every block should be one cell (polyline or vertex)")
        if items is None:
            continue
        if [b[0] for b in blocks] != [it[0] for it in items]:
            fail("block names %s, expected %s" % ([b[0] for b in blocks],
                                                  [it[0] for it in items]))
        for (name, xyz, _, defl), (_, want, wdefl) in zip(blocks, items):
            if np.any(xyz[:, 2] != 0) or not np.allclose(xyz[:, :2], want[k], atol=1e-12):
                fail("geometry of %s at t = %g differs from the HDF5 file" % (name, tsteps[k]))
            if wdefl is None:
                continue
            if defl is None or defl.shape != wdefl[k].shape:
                fail("beam %s has no deflection point data of %d values at t = %g"
                     % (name, len(wdefl[k]), tsteps[k]))
            if not np.allclose(defl, wdefl[k], rtol=0, atol=1e-15):
                fail("deflection of %s at t = %g differs from the HDF5 file" % (name, tsteps[k]))
            print("pv_check: t = %g: %s deflection range [%.6g, %.6g] (HDF5 [%.6g, %.6g])"
                  % (tsteps[k], name, defl.min(), defl.max(), wdefl[k].min(), wdefl[k].max()))

    # everything ParaView read matched the HDF5 file; the render comes next
    print("pv_check: data checks passed")
    sys.stdout.flush()
    view = GetActiveViewOrCreate("RenderView")
    view.ViewSize = [640, 480]
    view.ViewTime = tsteps[-1]
    view.OrientationAxesVisibility = 0
    disp = Show(reader, view)
    disp.LineWidth = 4.0
    disp.PointSize = 10.0
    disp.RenderPointsAsSpheres = 1
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
