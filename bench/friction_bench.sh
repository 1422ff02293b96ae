#!/usr/bin/env bash
# bench/friction_bench.sh: slider case 1 of seed 000 (LuGre, 10 s) at the seed's step
# h = 1e-6 and at coarser steps; velocity error of each against the h = 1e-6 run and wall
# times, as a Markdown table on stdout (the headline: wall time at 1e-6 over wall time at the
# coarsest step whose velocity error stays below 1 %). A measurement, not a test.
#
#   bench/friction_bench.sh [H ...]        (default coarse steps: 1e-4 5e-4 1e-3 2e-3 5e-3 1e-2)
#
# Environment:
#   FMB_BUILD_DIR  build directory holding tests/test_friction (default: build)
#   REF_H          reference step (default 1e-6; 1e7 steps, about 1.5 min)
#   T_END          simulated time (default 10)
#
# The runs go through tests/test_friction's `trace` mode: the C API, no file output inside
# the timed loop; wall time is that of the step loop (CLOCK_MONOTONIC). Velocity error:
# max over the 10 ms grid of |v - v_ref| / max |v_ref|.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${FMB_BUILD_DIR:-build}"
[[ "$build" == /* ]] || build="$ROOT/$build"
bin="$build/tests/test_friction"
[[ -x "$bin" ]] || { echo "error: $bin not found; build the tests first" >&2; exit 1; }
ref_h="${REF_H:-1e-6}"
t_end="${T_END:-10}"
hs=("$@")
((${#hs[@]})) || hs=(1e-4 5e-4 1e-3 2e-3 5e-3 1e-2)
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

run() { # h file -> wall seconds
    "$bin" trace "$1" "$t_end" "$2" | awk '/^wall/ {print $2}'
}
echo "running the reference h = $ref_h ..." >&2
ref_wall="$(run "$ref_h" "$tmp/ref.txt")"
echo "| h (s) | steps | wall (s) | us/step | max velocity error / max abs v | wall(h = $ref_h) / wall |"
echo "| --- | --- | --- | --- | --- | --- |"
steps_ref="$(awk -v h="$ref_h" -v T="$t_end" 'BEGIN {printf "%d", T / h + 0.5}')"
awk -v h="$ref_h" -v n="$steps_ref" -v w="$ref_wall" \
    'BEGIN {printf "| %s (reference) | %d | %.2f | %.2f | 0 | 1 |\n", h, n, w, 1e6 * w / n}'
best=""
for h in "${hs[@]}"; do
    wall="$(run "$h" "$tmp/h.txt")"
    err="$(awk 'NR == FNR {r[FNR] = $2; if ($2 > m) m = $2; if (-$2 > m) m = -$2; next}
                {d = $2 - r[FNR]; if (d < 0) d = -d; if (d > e) e = d}
                END {printf "%.3g", e / m}' "$tmp/ref.txt" "$tmp/h.txt")"
    n="$(awk -v h="$h" -v T="$t_end" 'BEGIN {printf "%d", T / h + 0.5}')"
    awk -v h="$h" -v n="$n" -v w="$wall" -v e="$err" -v rw="$ref_wall" \
        'BEGIN {printf "| %s | %d | %.3f | %.2f | %s | %.0f |\n", h, n, w, 1e6 * w / n, e, rw / w}'
    if awk -v e="$err" 'BEGIN {exit !(e < 0.01)}'; then best="$h $wall $err"; fi
done
if [[ -n "$best" ]]; then
    read -r bh bw be <<<"$best"
    awk -v h="$bh" -v w="$bw" -v e="$be" -v rw="$ref_wall" -v r="$ref_h" 'BEGIN {
        printf "\nCoarsest step with velocity error below 1 %%: h = %s (error %s); wall %.2f s at h = %s vs %.3f s: ratio %.0f\n", h, e, rw, r, w, rw / w}'
fi
