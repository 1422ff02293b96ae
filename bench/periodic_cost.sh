#!/usr/bin/env bash
# bench/periodic_cost.sh: cost of `flexmb periodic` against the rocker's mesh (10, 80 and
# 320 elements): the valid quick-return (cases/quick_return_valid.yaml, 2 % damping,
# 10 rad/s, h = 1e-4 s) solved from its quasi-static start, with each method, next to a
# one-revolution run of the same case. CPU seconds (user + sys, /usr/bin/time), so that
# a loaded machine changes the numbers less than wall time would. A measurement, not a
# test; prints a Markdown table (docs/performance.md "Periodic steady state").
#
#   bench/periodic_cost.sh [element counts...]        (default: 10 80 320)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="${FMB_BIN:-$ROOT/${FMB_BUILD_DIR:-build}/flexmb}"
CASE="$ROOT/cases/quick_return_valid.yaml"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
ELS=("$@")
[ ${#ELS[@]} -eq 0 ] && ELS=(10 80 320)
cpu() { # command...: CPU seconds; the command's output in $TMP/out
    /usr/bin/time -f "%U %S" -o "$TMP/t" "$@" >"$TMP/out" 2>&1 || true
    awk '{printf "%.2f", $1 + $2}' "$TMP/t"
}
echo "| elements | coordinates | one revolution, s | method | Floquet | iterations | passes (with directions) | CPU s | x one revolution | largest abs(mu) |"
echo "| ---: | ---: | ---: | --- | --- | ---: | --- | ---: | ---: | ---: |"
for n in "${ELS[@]}"; do
    nc=$("$BIN" check "$CASE" --set n_el="$n" --set omega=10 | awk '/^coordinates:/ {print $2}')
    run=$(cpu "$BIN" run "$CASE" --set n_el="$n" --set omega=10 --set revolutions=1 \
        -o "$TMP/r.h5" -q --no-viz)
    for combo in "subspace none" "subspace dominant" "dense none"; do
        set -- $combo
        if [ "$1" = dense ] && [ $((3 * nc)) -gt 600 ]; then continue; fi
        t=$(cpu "$BIN" periodic "$CASE" --set n_el="$n" --set omega=10 --method "$1" \
            --floquet "$2" -o "$TMP/p.h5" --no-viz)
        it=$(awk '/converged in/ {print $4}' "$TMP/out")
        ps=$(awk '/converged in/ {for (i = 1; i <= NF; i++) {
                if ($i == "passes") a = $(i-1); if ($i == "propagating") b = $(i-3) }
            print a " (" b ")" }' "$TMP/out")
        mu=$(awk '/Floquet multiplier +1:/ {print $NF}' "$TMP/out")
        [ -z "$it" ] && it="failed"
        awk -v n="$n" -v nc="$nc" -v r="$run" -v m="$1" -v f="$2" -v it="$it" -v ps="$ps" \
            -v t="$t" -v mu="${mu:--}" 'BEGIN { printf "| %d | %d | %.2f | %s | %s | %s | %s | %.2f | %.1f | %s |\n",
            n, nc, r, m, f, it, ps, t, t / r, mu }'
    done
done
