#!/bin/sh
# One case-file error test: run `flexmb check CASE [ARGS...]` and require
#   - exit status 2 (case file error; a crash or a sanitizer report fails the test),
#   - a message on stderr naming the file and the line: "CASE:LINE:" (LINE "-": the
#     message is "CASE: ..." without a position, e.g. a file that cannot be opened),
#   - the expected phrase (fixed string) in that message.
# usage: test_case_errors.sh FLEXMB_CLI CASE LINE PHRASE [ARGS...]
if [ $# -lt 4 ]; then
    echo "usage: $0 FLEXMB_CLI CASE LINE PHRASE [ARGS...]" >&2
    exit 64
fi
cli=$1
file=$2
line=$3
phrase=$4
shift 4
base=$(basename "$file")
out=$("$cli" check "$file" "$@" 2>&1 >/dev/null)
rc=$?
echo "flexmb check $base $*: exit $rc"
echo "stderr: $out"
status=0
if [ "$rc" -ne 2 ]; then
    echo "FAIL: expected exit status 2 (case file error), got $rc"
    status=1
fi
if [ "$line" = "-" ]; then
    where="$base: "
else
    where="$base:$line:"
fi
case "$out" in
*"$where"*) ;;
*)
    echo "FAIL: message does not contain '$where'"
    status=1
    ;;
esac
case "$out" in
*"$phrase"*) ;;
*)
    echo "FAIL: message does not contain '$phrase'"
    status=1
    ;;
esac
[ $status -eq 0 ] && echo PASS
exit $status
