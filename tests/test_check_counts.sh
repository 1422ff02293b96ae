#!/bin/sh
# `flexmb check CASE [ARGS...]` exits 0 and reports the coordinates, constraint rows,
# Jacobian rank and degrees of freedom counted by hand (tests/case.cmake derives each:
# 3 carrier coordinates per body plus a beam's free nodal ones; 2 rows per revolute,
# prismatic and slider_beam joint, 1 per driver; Gruebler: dof = coordinates - rank).
# usage: test_check_counts.sh FLEXMB_CLI CASE COORDS ROWS DOF [ARGS...]
cli=$1 file=$2 n=$3 m=$4 dof=$5
shift 5
out=$("$cli" check "$file" "$@" 2>&1)
rc=$?
echo "$out" | tail -n 8
status=0
[ "$rc" -eq 0 ] || { echo "FAIL: exit status $rc"; status=1; }
for want in "coordinates: $n" "constraints: $m" "Jacobian rank: $m" "degrees of freedom: $dof" \
    "redundant constraints: 0"; do
    printf '%s\n' "$out" | grep -qx "$want" || { echo "FAIL: expected line '$want'"; status=1; }
done
[ $status -eq 0 ] && echo "passed"
exit $status
