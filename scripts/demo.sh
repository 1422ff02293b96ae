#!/usr/bin/env bash
# scripts/demo.sh: install what is missing, build, and run the demo: the quick-return
# (shaper) linkage of seed 001 with an elastic 12 mm steel rocker at 5 rad/s, a speed the
# rod survives (cases/quick_return_valid.yaml: 29 % of yield, damped, quasi-static start;
# the run ends without a warning).
#
#   scripts/demo.sh [--set name=value]...
#
# Writes out/quick_return_valid.h5 (HDF5 results), out/quick_return_valid.xmf (XDMF file
# for ParaView) and out/quick_return_valid_deflection.png (rocker deflection against crank
# angle). Extra arguments are passed to `flexmb run`, e.g. --set omega=20 (the seed's speed:
# a study beyond the rod's strength, which warns); each --set goes into the file names
# (out/quick_return_valid_omega=20.h5, ...), so runs with different
# parameters do not overwrite each other. See scripts/deps.sh for the environment
# variables (FMB_BUILD_DIR, FMB_SANITIZE, ...).
set -euo pipefail

# shellcheck source=scripts/deps.sh
source "$(dirname "${BASH_SOURCE[0]}")/deps.sh"
cd "$FMB_ROOT"

fmb_install_deps
fmb_build

# file name suffix from the overrides: --set omega=30 -> _omega=30
suffix=""
prev=""
for arg in "$@"; do
    case "$prev:$arg" in
    --set:* | -s:*) suffix="${suffix}_${arg//[^A-Za-z0-9_.=+-]/_}" ;;
    *:--set=*) v="${arg#--set=}" && suffix="${suffix}_${v//[^A-Za-z0-9_.=+-]/_}" ;;
    esac
    prev="$arg"
done
stem="out/quick_return_valid${suffix}"

mkdir -p out
fmb_log "running cases/quick_return_valid.yaml"
"$FMB_BUILD/flexmb" run cases/quick_return_valid.yaml -o "$stem.h5" "$@"

png="${stem}_deflection.png"
if /usr/bin/python3 scripts/plot_quick_return.py --help >/dev/null 2>&1; then
    /usr/bin/python3 scripts/plot_quick_return.py "$stem.h5" -o "$png" ||
        fmb_log "warning: the deflection plot failed"
fi
cat <<MSG

Results:       $FMB_ROOT/$stem.h5   (inspect: h5ls -r $stem.h5, or h5py with /usr/bin/python3)
ParaView file: $FMB_ROOT/$stem.xmf
  open it with: paraview $stem.xmf   (File > Open, choose the XDMF reader, Apply, then Play)
Plot:          $FMB_ROOT/$png   (rocker deflection at the slider and along the bar against crank angle)
MSG
for f in "$stem.h5" "$stem.xmf"; do
    [[ -f "$f" ]] || fmb_log "warning: $f was not written"
done
