#!/usr/bin/env bash
# scripts/test.sh: install what is missing, build, and run the test suite.
#
#   scripts/test.sh [ctest arguments]...     e.g. scripts/test.sh -R joint
#
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

log="$FMB_BUILD/ctest.log"
fmb_log "running ctest in ${FMB_BUILD}"
set +e
ctest --test-dir "$FMB_BUILD" --output-on-failure --no-tests=error \
    -j "${FMB_JOBS:-2}" "$@" 2>&1 | tee "$log"
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
