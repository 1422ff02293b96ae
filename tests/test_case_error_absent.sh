#!/bin/sh
# A case-file error (tests/test_case_errors.sh: exit 2, FILE:LINE:, the phrase) whose message
# must not contain a given text: the contents of a file that is not the case's to show, or
# a long value that would push the cause out of the message.
# usage: test_case_error_absent.sh FLEXMB_CLI CASE LINE PHRASE ABSENT [ARGS...]
if [ $# -lt 5 ]; then
    echo "usage: $0 FLEXMB_CLI CASE LINE PHRASE ABSENT [ARGS...]" >&2
    exit 64
fi
cli=$1 file=$2 line=$3 phrase=$4 absent=$5
shift 5
sh "$(dirname "$0")/test_case_errors.sh" "$cli" "$file" "$line" "$phrase" "$@" || exit 1
out=$("$cli" check "$file" "$@" 2>&1 >/dev/null)
case $out in
*"$absent"*)
    echo "FAIL: the message contains '$absent'"
    exit 1
    ;;
esac
echo "ok: the message does not contain '$absent'"
