#!/usr/bin/env bash
# bench/reference_compare.sh: flexmb's rocker deflection on the quick-return linkage
# against the independent reference (tests/reference/README.md) at 20 and 30 rad/s,
# linear and nonlinear rocker: second-revolution peaks, peak difference and pointwise
# difference in % of the reference's peak (scripts/compare_reference.py). A
# measurement, not a test: a few minutes on a shared 2-core machine.
#
# 20 rad/s: the reference's default mesh and step (10 elements, dt 1e-4). 30 rad/s:
# the rocker deflects by up to ~150 mm and the script runs the reference at dt 1e-5 (at
# 1e-4 its Newton fails in the second revolution; README there, "30 rad/s").
#
#   bench/reference_compare.sh [extra compare_reference.py options for both speeds...]
#   bench/reference_compare.sh --dt 5e-5              # flexmb at half the case's step
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="$ROOT/${FMB_BUILD_DIR:-build}"
WORK="${TMPDIR:-/tmp}/reference_compare"
exec /usr/bin/python3 "$ROOT/scripts/compare_reference.py" --omega 20,30 \
    --flexmb "$BUILD/flexmb" --reference "$BUILD/tests/qr_reference" \
    --workdir "$WORK" "$@"
