#!/usr/bin/env bash
# scripts/fuzz.sh: build the libFuzzer harnesses and run them.
#
#   scripts/fuzz.sh [--time SECONDS] [HARNESS...]   run each for SECONDS (default 60)
#   scripts/fuzz.sh --smoke [HARNESS...]            seeds + 2000 mutations each (the test suite)
#   scripts/fuzz.sh --build                         only build
#
# Harnesses (tests/fuzz/): case (YAML case loader from a memory buffer, then the model
# check), expr (time expressions and their two derivatives), mesh (Gmsh bar-mesh reader).
# Built with clang -fsanitize=fuzzer,address,undefined in build-fuzz/ (FMB_FUZZ_DIR).
# Timed runs keep their corpus in build-fuzz/corpus/<harness>/ (seeded from cases/,
# tests/bad_cases/, tests/fuzz_cases/, meshes/, tests/bad_meshes/ and
# tests/fuzz/expr_seeds.txt) and write findings to build-fuzz/findings/. The smoke run
# mutates a fresh copy of the seeds with a fixed random seed, so it is repeatable.
# Exit status: 0 when no harness found anything, 1 on a finding, 2 on a usage or build error.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bdir="${FMB_FUZZ_DIR:-$root/build-fuzz}"
mode=time secs=60 harnesses=()
while (($#)); do
    case "$1" in
    --smoke) mode=smoke ;;
    --build) mode=build ;;
    --time) secs="${2:?--time needs seconds}"; shift ;;
    -h | --help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    case | expr | mesh) harnesses+=("$1") ;;
    *) echo "fuzz.sh: unknown argument '$1' (harnesses: case expr mesh)" >&2; exit 2 ;;
    esac
    shift
done
((${#harnesses[@]})) || harnesses=(case expr mesh)
command -v clang >/dev/null || { echo "fuzz.sh: clang not found (scripts/deps.sh installs it)" >&2; exit 2; }

# One build at a time per build directory (ctest may start the smoke tests together).
mkdir -p "$bdir"
exec 8>"$bdir/.lock"
flock 8
if [[ ! -f "$bdir/CMakeCache.txt" ]]; then
    CC=clang cmake -S "$root" -B "$bdir" -DFMB_FUZZ=ON -DBUILD_TESTING=OFF \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$bdir/configure.log" 2>&1 ||
        { cat "$bdir/configure.log" >&2; exit 2; }
fi
cmake --build "$bdir" -j "${FMB_JOBS:-2}" --target fuzz_case fuzz_expr fuzz_mesh >"$bdir/build.log" 2>&1 ||
    { tail -n 40 "$bdir/build.log" >&2; exit 2; }
flock -u 8
[[ "$mode" == build ]] && exit 0

seed_files() { # harness -> seed files, one per line
    case "$1" in
    case) ls "$root"/cases/*.yaml "$root"/tests/bad_cases/*.yaml "$root"/tests/fuzz_cases/*.yaml ;;
    mesh) ls "$root"/meshes/*.msh "$root"/tests/bad_meshes/*.msh "$root"/tests/fuzz_cases/*.msh ;;
    esac
}
fill_seeds() { # harness dir
    mkdir -p "$2"
    if [[ "$1" == expr ]]; then
        local k=0 line
        while IFS= read -r line; do
            printf '%s' "$line" >"$2/seed_$k"; k=$((k + 1))
        done <"$root/tests/fuzz/expr_seeds.txt"
    else
        seed_files "$1" | while read -r f; do cp "$f" "$2/"; done
    fi
}

status=0
for h in "${harnesses[@]}"; do
    exe="$bdir/tests/fuzz/fuzz_$h"
    dict=()
    [[ -f "$root/tests/fuzz/$h.dict" ]] && dict=(-dict="$root/tests/fuzz/$h.dict")
    common=(-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 -print_final_stats=1)
    if [[ "$mode" == smoke ]]; then
        work="$(mktemp -d)"
        fill_seeds "$h" "$work/corpus"
        mkdir -p "$work/findings"
        # libFuzzer: 2000 mutations after the seeds; fixed seed (repeatable)
        (cd "$root/cases" && "$exe" "${common[@]}" "${dict[@]}" -seed=1 -runs=2000 \
            -artifact_prefix="$work/findings/" "$work/corpus") >"$work/log" 2>&1 || true
    else
        work="$bdir"
        mkdir -p "$bdir/corpus/$h" "$bdir/findings"
        [[ -n "$(ls -A "$bdir/corpus/$h")" ]] || fill_seeds "$h" "$bdir/corpus/$h"
        (cd "$root/cases" && "$exe" "${common[@]}" "${dict[@]}" -max_total_time="$secs" \
            -artifact_prefix="$bdir/findings/$h-" "$bdir/corpus/$h") >"$bdir/$h.log" 2>&1 || true
        cp "$bdir/$h.log" "$work/log" 2>/dev/null || true
    fi
    execs="$(grep -E 'stat::number_of_executed_units' "$work/log" | awk '{print $2}' | tail -n1)"
    if grep -qE '^==[0-9]+==ERROR|runtime error:|deadly signal|ALARM: working on the last Unit|out-of-memory|SUMMARY: (Address|UndefinedBehavior|Leak)Sanitizer' "$work/log"; then
        echo "fuzz $h: FINDING after ${execs:-?} executions; log: $work/log" >&2
        grep -E 'ERROR|runtime error|Test unit written|SUMMARY' "$work/log" | head -n 8 >&2
        status=1
    elif [[ -z "$execs" ]]; then
        echo "fuzz $h: the harness did not run; log: $work/log" >&2
        tail -n 20 "$work/log" >&2
        status=1
    else
        echo "fuzz $h: ${execs} executions, no finding"
    fi
    [[ "$mode" == smoke && $status == 0 ]] && rm -rf "$work"
done
exit $status
