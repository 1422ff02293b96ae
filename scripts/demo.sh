#!/usr/bin/env bash
# scripts/demo.sh: install what is missing, build, and run the demo case.
#
#   scripts/demo.sh [--set name=value]...
#
# Writes out/demo.h5 (HDF5 results) and out/demo.xmf (XDMF file for ParaView).
# Extra arguments are passed to `flexmb run`. See scripts/deps.sh for the
# environment variables (FMB_BUILD_DIR, FMB_SANITIZE, ...).
set -euo pipefail

# shellcheck source=scripts/deps.sh
source "$(dirname "${BASH_SOURCE[0]}")/deps.sh"
cd "$FMB_ROOT"

fmb_install_deps
fmb_build

mkdir -p out
fmb_log "running cases/demo.yaml"
"$FMB_BUILD/flexmb" run cases/demo.yaml -o out/demo.h5 "$@"

xmf=out/demo.xmf
if [[ ! -f "$xmf" && -f out/demo.h5.xmf ]]; then
    xmf=out/demo.h5.xmf
fi
cat <<MSG

Results:       $FMB_ROOT/out/demo.h5   (inspect: h5ls -r out/demo.h5, or h5py with /usr/bin/python3)
ParaView file: $FMB_ROOT/$xmf
  open it with: paraview $xmf   (File > Open, choose the XDMF reader, Apply, then Play)
MSG
for f in out/demo.h5 "$xmf"; do
    [[ -f "$f" ]] || fmb_log "warning: $f was not written"
done
