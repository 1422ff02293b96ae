#!/bin/sh
# An element's step control that asks for a step below h_min names itself in the error:
# the clearance slider-crank (cases/slider_crank_clearance.yaml) with h_min = 5e-5 s
# fails at the first contact onset, whose step control asks for less (rtol_step 1e-2: at
# the default 1e-3 the joint's own error measure, the eccentricity's error over c, already
# rejects the free flight's 5e-5 s steps before the onset). The reason text is
# built only on that failure path (stepctl.c events(): no string work per step), so this
# checks that the failure still reports it: exit 4 (run failure), the force's name and its
# line in the case file (found here with grep, not taken from flexmb), "contact onset" with
# a penetration going from negative (gap) to positive, and an asked h below h_min.
# usage: test_stepctl_message.sh FLEXMB_CLI CASE OUTDIR
cli=$1
case=$2
dir=$3
mkdir -p "$dir" || exit 1
tmp="$dir/clearance_hmin.yaml"
sed 's/output_every: every}/output_every: every, h_min: 5e-5, rtol_step: 1e-2}/' "$case" > "$tmp" || exit 1
grep -q "h_min: 5e-5" "$tmp" || { echo "FAIL: could not set h_min in the case copy"; exit 1; }
line=$(grep -n "name: B$" "$tmp" | head -1 | cut -d: -f1)
out=$("$cli" run "$tmp" -o "$dir/clearance_hmin.h5" --quiet --no-viz 2>&1 >/dev/null)
rc=$?
echo "exit $rc; force B at line $line"
echo "stderr: $out"
status=0
[ "$rc" -eq 4 ] || { echo "FAIL: expected exit status 4 (run failure), got $rc"; status=1; }
pat="step control of force 'B' (line $line): contact onset (penetration -[0-9.e+-]* m -> [0-9][0-9.e+-]* m in one step) asks for h = "
echo "$out" | grep -q -- "$pat" || { echo "FAIL: message does not match: $pat"; status=1; }
asked=$(echo "$out" | sed -n 's/.* asks for h = \([0-9.e+-]*\);.*/\1/p')
awk -v a="$asked" 'BEGIN { exit !(a > 0 && a < 5e-5) }' ||
    { echo "FAIL: asked h '$asked' not in (0, h_min = 5e-5)"; status=1; }
exit $status
