#!/bin/sh
# Run `flexmb ARGS...` and require exit status WANT and PHRASE (fixed string) on stderr;
# a crash or a sanitizer report fails the test (fuzz-finding regressions, tests/fuzz.cmake).
# usage: test_expect.sh FLEXMB_CLI WANT PHRASE ARGS...
cli=$1 want=$2 phrase=$3
shift 3
err=$("$cli" "$@" 2>&1 >/dev/null)
rc=$?
echo "flexmb $*: exit $rc"
echo "stderr: $err"
status=0
[ "$rc" -eq "$want" ] || { echo "FAIL: expected exit $want"; status=1; }
case "$err" in *"$phrase"*) ;; *) echo "FAIL: stderr lacks '$phrase'"; status=1 ;; esac
case "$err" in *"runtime error"* | *"AddressSanitizer"* | *"LeakSanitizer"*)
    echo "FAIL: sanitizer report"; status=1 ;; esac
[ $status -eq 0 ] && echo passed
exit $status
