#!/bin/sh
# Disk full (fuzz finding disk_full.sh): output on a small tmpfs. flexmb must exit 4 with
# the reason, never crash (it died with SIGSEGV inside HDF5's exit handler), leave an HDF5
# file that opens with whole records (every dataset as long as /time) and a sidecar that is
# valid XML. Needs root to mount a tmpfs; skipped (77) where that is not allowed.
# usage: test_disk_full.sh FLEXMB_CLI CASE
cli=$1 case=$2
tiny=$(mktemp -d "${TMPDIR:-/tmp}/fmb_full.XXXXXX") || exit 1
status=0
for size in 200k 6m; do
    if ! mount -t tmpfs -o size=$size tmpfs "$tiny" 2>/dev/null; then
        echo "cannot mount a tmpfs here: skipped"
        rmdir "$tiny"
        exit 77
    fi
    "$cli" run "$case" -o "$tiny/qr.h5" -q --no-room-check 2>"$tiny.err"
    rc=$?
    echo "size $size: exit $rc: $(cat "$tiny.err")"
    [ "$rc" -eq 4 ] || { echo "FAIL: expected exit 4"; status=1; }
    grep -q -e "disk almost full" -e "No space left" "$tiny.err" ||
        { echo "FAIL: no reason given"; status=1; }
    /usr/bin/python3 - "$tiny/qr.h5" "$tiny/qr.xmf" <<'PY' || status=1
import sys, h5py, xml.dom.minidom
with h5py.File(sys.argv[1], "r") as f:
    nt = len(f["time"])
    lens = set()
    f.visititems(lambda n, o: lens.add(o.shape[0]) if isinstance(o, h5py.Dataset)
                 and not n.endswith(("point_names", "x0")) and not n.startswith("viz/")
                 else None)
    nf = len(f["viz/time"])  # visualization frames: no more than the records
    assert nf <= nt and all(f["viz/" + g + "/points"].shape[0] == nf
                            for g in f["viz"] if g not in ("time", "record", "guides")), nf
    assert lens == {nt}, (nt, lens)
    print("h5 readable: %d records, complete = %d" % (nt, f.attrs["complete"]))
    # the run stopped (exit 4): the file must not claim to be complete
    assert f.attrs["complete"] == 0, "stopped run marked complete"
xml.dom.minidom.parse(sys.argv[2])
print("xmf is valid XML")
PY
    # Without --no-room-check the run is refused before writing anything: the quick-return
    # writes 630 records of 3.3 kB, 631 /viz frames of 5 kB and a 3 MB sidecar (rewritten
    # whole: 6 MB at the end), 9.2 MB in the end and more on the way; the estimate the
    # message gives counts all of it, so 6 MB is refused too. Exit 2, no file left behind.
    rm -f "$tiny/qr.h5" "$tiny/qr.xmf"
    "$cli" run "$case" -o "$tiny/qr.h5" -q 2>"$tiny.err"
    rc=$?
    echo "size $size, room check: exit $rc: $(cat "$tiny.err")"
    [ "$rc" -eq 2 ] || { echo "FAIL: expected exit 2"; status=1; }
    grep -q "the run would write [0-9]* records of .* visualization frames" "$tiny.err" ||
        { echo "FAIL: no size estimate"; status=1; }
    [ ! -e "$tiny/qr.h5" ] && [ ! -e "$tiny/qr.xmf" ] ||
        { echo "FAIL: files left behind"; status=1; }
    umount "$tiny"
done
rmdir "$tiny"
rm -f "$tiny.err"
[ $status -eq 0 ] && echo passed
exit $status
