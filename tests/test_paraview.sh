#!/bin/sh
# Open a run's XDMF sidecar in ParaView (pvbatch, XDMF reader) and compare it with the
# HDF5 file (tests/pv_check.py); renders one frame to a PNG. Exit 77 (skipped) when
# pvbatch is not installed.
# usage: sh tests/test_paraview.sh FLEXMB CASE.yaml PV_CHECK.py [RUN OPTIONS (--set k=v)...]
FLEXMB=$1
CASE=$2
CHECK=$3
shift 3
if ! command -v pvbatch >/dev/null 2>&1; then
    echo "pvbatch not installed (apt-get install paraview python3-paraview): skipped"
    exit 77
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/fmb_pv.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
"$FLEXMB" run "$CASE" -q -o "$TMP/run.h5" "$@" || { echo "flexmb run failed"; exit 1; }
if command -v xvfb-run >/dev/null 2>&1; then
    xvfb-run -a pvbatch "$CHECK" "$TMP/run.xmf" "$TMP/run.h5" "$TMP/frame.png"
else
    pvbatch --force-offscreen-rendering "$CHECK" "$TMP/run.xmf" "$TMP/run.h5" "$TMP/frame.png"
fi
rc=$?
if [ "$rc" -eq 0 ] && [ -s "$TMP/frame.png" ]; then
    echo "1 passed, 0 failed"
    exit 0
fi
echo "pv_check failed (exit $rc)"
exit 1
