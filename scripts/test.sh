#!/usr/bin/env bash
# scripts/test.sh: install what is missing, build, and run the test suite.
#
#   scripts/test.sh [ctest arguments]...     e.g. scripts/test.sh -R joint
#   scripts/test.sh -L fuzz_tree              the fuzz smoke tests (clang build in build-fuzz/)
#
# Without -L, -LE or -R arguments, the tests labelled fuzz_tree (the fuzz tree's build and its
# smoke runs, many minutes on a loaded machine) are left out: FMB_FUZZ_TESTS=1 keeps
# them; .ci/run runs them separately.
# Exits non-zero when the build or any test fails (or when no test ran).
# FMB_SANITIZE=1 builds and tests in build-asan/ with ASan + UBSan. See
# scripts/deps.sh for the other environment variables.
set -euo pipefail

# shellcheck source=scripts/deps.sh
source "$(dirname "${BASH_SOURCE[0]}")/deps.sh"
cd "$FMB_ROOT"

fmb_install_deps
fmb_build

if [[ "${FMB_SANITIZE:-0}" == 1 ]]; then
    # Make UBSan findings fail the test instead of only printing.
    export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
    export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
fi

select=()
if [[ "${FMB_FUZZ_TESTS:-0}" != 1 && " $* " != *" -L"* && " $* " != *" -LE"* &&
      " $* " != *" --label"* && " $* " != *" -R"* ]]; then
    select=(-LE fuzz_tree)
    fmb_log "fuzz smoke tests left out (scripts/test.sh -L fuzz_tree runs them)"
fi

log="$FMB_BUILD/ctest.log"
fmb_log "running ctest in ${FMB_BUILD}"
set +e
ctest --test-dir "$FMB_BUILD" --output-on-failure --no-tests=error \
    -j "${FMB_JOBS:-2}" "${select[@]}" "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e

# ctest's summary: "NN% tests passed, F tests failed out of N".
summary="$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -n 1 || true)"
echo
if [[ -n "$summary" ]]; then
    total="$(sed -E 's/.* out of ([0-9]+).*/\1/' <<<"$summary")"
    failed="$(sed -E 's/.*passed, ([0-9]+) tests? failed.*/\1/' <<<"$summary")"
    echo "ctest summary: $summary"
    echo "test.sh: $((total - failed)) passed, $failed failed"
else
    echo "ctest summary: none (ctest exit code $rc; log: $log)"
    ((rc != 0)) || rc=1
fi
exit "$rc"
