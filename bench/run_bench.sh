#!/usr/bin/env bash
# bench/run_bench.sh: time every case in cases/*.yaml with the built flexmb and
# print a Markdown table (steps per second, Newton iterations per step) on stdout.
# It is a measurement, not a test: no pass/fail thresholds. See bench/README.md.
#
#   bench/run_bench.sh [-n RUNS] [CASE.yaml ...]      (default: 3 runs of cases/*.yaml)
#
# Environment:
#   FMB_BIN        flexmb executable (default: $FMB_BUILD_DIR/flexmb, i.e. build/flexmb)
#   BENCH_RUNS     runs per case when -n is not given (default 3)
#   BENCH_TIMEOUT  seconds allowed for one run (default 900)
#
# The numbers come from the summary that `flexmb run` prints at the end of a run
# (see parse_summary below for the lines it reads).
#
# When no wall time is printed, the process time measured here is used instead
# (it includes start-up, case parsing and HDF5 output). Outputs go to a
# temporary directory that is removed at the end.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

runs="${BENCH_RUNS:-3}"
while getopts ':n:h' opt; do
    case "$opt" in
    n) runs="$OPTARG" ;;
    h)
        sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
        exit 0
        ;;
    *)
        echo "usage: $0 [-n RUNS] [CASE.yaml ...]" >&2
        exit 1
        ;;
    esac
done
shift $((OPTIND - 1))
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || {
    echo "error: RUNS must be a positive integer, got '$runs'" >&2
    exit 1
}

build="${FMB_BUILD_DIR:-build}"
[[ "$build" == /* ]] || build="$ROOT/$build"
bin="${FMB_BIN:-$build/flexmb}"
if [[ ! -x "$bin" ]]; then
    echo "error: $bin not found; build first (scripts/deps.sh) or set FMB_BIN" >&2
    exit 1
fi

cases=("$@")
if ((${#cases[@]} == 0)); then
    shopt -s nullglob
    cases=(cases/*.yaml)
    shopt -u nullglob
fi
if ((${#cases[@]} == 0)); then
    echo "error: no case files (cases/*.yaml)" >&2
    exit 1
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

now() { date +%s.%N; }

# Parse one run's output; prints "steps mean max wall" (- for unknown).
# flexmb run ends with a summary in this form (src/cli/run.c):
#   steps               800 (t = 0.08 s, 801 records)
#   Newton iterations   2.00 per step (mean), 2 max, 1600 total
#   wall time           0.035 s (0:00, 22550 steps/s)
parse_summary() {
    awk '
    $1 == "steps" && $2 ~ /^[0-9]+$/ { steps = $2 }
    $1 == "Newton" && $2 == "iterations" && $4 == "per" { mean = $3; max = $7 }
    $1 == "wall" && $2 == "time" { wall = $3 }
    END {
        printf "%s %s %s %s\n", (steps == "" ? "-" : steps), (mean == "" ? "-" : mean),
            (max == "" ? "-" : max), (wall == "" ? "-" : wall)
    }' "$1"
}

# Summarise "steps mean max wall proc rc" lines of one case into a table row.
summarise() {
    awk -v name="$1" -v runs="$2" '
    function median(a, n,    i, j, t) {
        for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
        return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    {
        if ($6 != 0) { fail++; lastrc = $6; next }
        ok++
        if ($1 != "-") steps = $1
        if ($2 != "-") { msum += $2; mn++ }
        if ($3 != "-" && ($3 + 0 > mx || mx == "")) mx = $3 + 0
        t = ($4 != "-" && $4 + 0 > 0) ? $4 : $5
        if ($4 == "-") proc_only = 1
        w[ok] = t; p[ok] = $5
        if (steps != "" && t > 0) { r = steps / t; rate[++nr] = r; if (nr == 1 || r < rmin) rmin = r; if (r > rmax) rmax = r }
    }
    END {
        if (ok == 0) {
            printf "| %s | FAILED (exit %s) | | | | | | | 0/%d |\n", name, lastrc, runs
            exit
        }
        wm = median(w, ok); pm = median(p, ok)
        printf "| %s | %s | %s | %s | %.3f%s | %.3f | ", name, (steps == "" ? "?" : steps),
            (mn ? sprintf("%.2f", msum / mn) : "?"), (mx == "" ? "?" : mx), wm,
            (proc_only ? "*" : ""), pm
        if (nr) printf "%.0f | %.0f-%.0f | ", median(rate, nr), rmin, rmax
        else printf "? | ? | "
        printf "%d/%d |\n", ok, runs
    }'
}

cpu="$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)"
btype="$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$(dirname "$bin")/CMakeCache.txt" 2>/dev/null || true)"
rev="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
if ! git -C "$ROOT" diff --quiet HEAD 2>/dev/null; then rev="$rev (modified)"; fi

cat <<EOF
## flexmb benchmark

- date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit: $rev; build type: ${btype:-unknown}
- machine: ${cpu:-unknown CPU}, $(nproc) cores; runs per case: $runs

| case | steps | Newton it/step (mean) | Newton it/step (max) | wall s (median) | process s (median) | steps/s (median) | steps/s (min-max) | runs ok |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
EOF

any_fail=0
for c in "${cases[@]}"; do
    name="$(basename "$c" .yaml)"
    results="$tmp/$name.results"
    : >"$results"
    for ((i = 1; i <= runs; i++)); do
        log="$tmp/$name.$i.log"
        t0="$(now)"
        set +e
        timeout "${BENCH_TIMEOUT:-900}" "$bin" run "$c" -o "$tmp/$name.h5" >"$log" 2>&1 </dev/null
        rc=$?
        set -e
        t1="$(now)"
        proc="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')"
        if ((rc != 0)); then
            any_fail=1
            echo "warning: $c run $i exited with $rc; last lines:" >&2
            tail -n 5 "$log" >&2
        fi
        printf '%s %s %s\n' "$(parse_summary "$log")" "$proc" "$rc" >>"$results"
        rm -f "$tmp/$name.h5" "$tmp/$name.xmf" "$tmp/$name.h5.xmf"
    done
    summarise "$name" "$runs" <"$results"
done

cat <<'EOF'

steps/s = accepted steps / wall time reported by flexmb (* = no wall time printed,
process time used). Newton it/step: mean over runs of the reported mean; max over runs.
EOF
exit "$any_fail"
