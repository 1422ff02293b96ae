#!/usr/bin/env bash
# bench/quick_return_elements.sh: the quick-return linkage (cases/quick_return.yaml,
# 20 rad/s, one crank revolution, h = 1e-4) with 10, 20, 40 and 80 rocker elements:
# steps per second, Newton iterations per step, factorizations. A measurement, not a
# test; prints a Markdown table.
#
#   bench/quick_return_elements.sh [extra flexmb --set options...]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="${FMB_BIN:-$ROOT/${FMB_BUILD_DIR:-build}/flexmb}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
echo "| elements | coordinates | steps | steps/s | Newton it/step | numeric factorizations | wall s |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for n in 10 20 40 80; do
    ncoord=$("$BIN" check "$ROOT/cases/quick_return.yaml" --set n_el=$n "$@" |
        awk '/^coordinates:/ {print $2}')
    "$BIN" run "$ROOT/cases/quick_return.yaml" -o "$TMP/qr.h5" --set n_el=$n \
        --set revolutions=1 "$@" >"$TMP/log" 2>/dev/null
    awk -v n="$n" -v nc="$ncoord" '
        $1 == "steps" && $2 ~ /^[0-9]+$/ { steps = $2 }
        $1 == "Newton" && $2 == "iterations" { it = $3 }
        $1 == "factorizations" { fac = $2 }
        $1 == "wall" && $2 == "time" { wall = $3 }
        END { printf "| %d | %s | %d | %.0f | %.2f | %d | %.2f |\n", n, nc, steps,
              steps / wall, it, fac, wall }' "$TMP/log"
done
