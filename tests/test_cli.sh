#!/bin/sh
# Command-line behaviour of `flexmb`: help, version, usage errors and every exit status
# (0 ok, 1 usage, 2 case error, 3 model/assembly error, 4 run failure), default output
# names, and that a failed run keeps a readable file with the completed steps.
# usage: sh tests/test_cli.sh FLEXMB CASES_DIR PYTHON
FLEXMB=$1
CASES=$2
PY=${3:-/usr/bin/python3}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/fmb_cli.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
fails=0
passes=0

# expect STATUS DESCRIPTION -- COMMAND...: run COMMAND (output in $TMP/out, $TMP/err)
expect() {
    want=$1
    what=$2
    shift 3
    "$@" >"$TMP/out" 2>"$TMP/err"
    got=$?
    if [ "$got" -eq "$want" ]; then
        passes=$((passes + 1))
    else
        fails=$((fails + 1))
        echo "FAIL: $what: exit $got, expected $want"
        sed 's/^/  stdout: /' "$TMP/out" | head -20
        sed 's/^/  stderr: /' "$TMP/err" | head -20
    fi
}

# grep_in FILE PATTERN DESCRIPTION
grep_in() {
    if grep -q -- "$2" "$TMP/$1"; then
        passes=$((passes + 1))
    else
        fails=$((fails + 1))
        echo "FAIL: $3: '$2' not in $1"
        sed 's/^/  /' "$TMP/$1" | head -20
    fi
}

# --help, --version, usage errors
expect 0 "--help" -- "$FLEXMB" --help
grep_in out "flexmb run CASE" "help shows run"
grep_in out "flexmb check CASE" "help shows check"
for code in "0 " "1 " "2 " "3 " "4 " "130"; do
    grep_in out "^  $code" "help documents exit status $code"
done
expect 0 "--version" -- "$FLEXMB" --version
grep_in out "^flexmb [0-9]*\.[0-9]*\.[0-9]*$" "version string"
expect 1 "no arguments" -- "$FLEXMB"
grep_in err "usage:" "usage on stderr"
expect 1 "unknown command" -- "$FLEXMB" frobnicate "$CASES/pendulum.yaml"
expect 1 "unknown option" -- "$FLEXMB" run "$CASES/pendulum.yaml" --bogus
expect 1 "missing case" -- "$FLEXMB" run
expect 1 "-o without file" -- "$FLEXMB" run "$CASES/pendulum.yaml" -o
expect 1 "--set without =" -- "$FLEXMB" check "$CASES/pendulum.yaml" --set L
expect 1 "-o with check" -- "$FLEXMB" check "$CASES/pendulum.yaml" -o x.h5

# case errors: exit 2, the loader's message as is
expect 2 "missing case file" -- "$FLEXMB" run "$TMP/no_such.yaml"
grep_in err "no_such.yaml" "case error names the file"
expect 2 "missing case file (check)" -- "$FLEXMB" check "$TMP/no_such.yaml"
expect 2 "unknown parameter in --set" -- "$FLEXMB" run "$CASES/pendulum.yaml" --set nope=1

# check: model listing
expect 0 "check slider_crank" -- "$FLEXMB" check "$CASES/slider_crank.yaml"
for word in crank rod slider revolute prismatic "coordinates: 9" "constraints: 9" \
    "Jacobian rank: 9" "degrees of freedom: 0" "redundant constraints: 0" "max violation"; do
    grep_in out "$word" "check output"
done
expect 0 "check with --set" -- "$FLEXMB" check "$CASES/pendulum.yaml" --set L=2

# model errors: exit 3
cat >"$TMP/unassemblable.yaml" <<'EOF'
title: a 1 m bar pinned to two ground points 3 m apart
bodies:
  - name: bar
    mass: 1
    bar: 1
    pose: [0, 0, 0]
joints:
  - name: left
    type: revolute
    bodies: [ground, bar]
    points: [[0, 0], start]
  - name: right
    type: revolute
    bodies: [ground, bar]
    points: [[3, 0], end]
EOF
expect 3 "run: assembly fails" -- "$FLEXMB" run "$TMP/unassemblable.yaml" -o "$TMP/u.h5"
# the joint that cannot be closed is named with its line in the case file (line 12)
grep_in err "unassemblable.yaml:12: error: cannot assemble" "assembly error names the joint's line"
expect 3 "check: assembly fails" -- "$FLEXMB" check "$TMP/unassemblable.yaml"
sed 's/\[\[3, 0\], end\]/[[0, 0], start]/; s/name: right/name: twin/' \
    "$TMP/unassemblable.yaml" >"$TMP/redundant.yaml"
expect 3 "check: redundant constraints" -- "$FLEXMB" check "$TMP/redundant.yaml"
grep_in out "redundant constraints: 2" "redundant count"
grep_in out "joint 'twin'" "redundant rows name the joint"

# run failures: exit 4
expect 4 "output directory missing" -- "$FLEXMB" run "$CASES/pendulum.yaml" -q \
    -o "$TMP/no/such/dir/out.h5"
grep_in err "cannot create HDF5 file" "output error message"
# one Newton iteration allowed: the first step (predictor qdd_{n+1} = qdd_n, no history to
# extrapolate) cannot converge in it at h = 0.05 (with 2 allowed, the extrapolating
# predictor converges every step of this pendulum)
sed 's/^solver:.*/solver: {integrator: hht, h: 0.05, t_end: 5, max_newton: 1, halving: 0}/;
     s/^output:.*//' "$CASES/pendulum.yaml" >"$TMP/diverge.yaml"
expect 4 "step failure" -- "$FLEXMB" run "$TMP/diverge.yaml" -o "$TMP/diverge.h5"
# the joint with the largest violation is named with its line when the violation is not
# exactly zero (round-off of the linear solver decides): both forms are the format
grep_in err "diverge.yaml\(:[0-9]*\)\{0,1\}: error: Newton iteration did not converge" "step failure message"
expect 0 "failed run keeps a consistent file" -- "$PY" -c '
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    n = len(f["time"])
    lens = set()
    f.visititems(lambda k, o: lens.add(o.shape[0]) if isinstance(o, h5py.Dataset)
                 and not k.endswith("point_names") and not k.startswith("viz/") else None)
    assert n >= 1 and lens == {n}, (n, lens)
    assert f["time"][-1] < 5
    assert f["viz/record"][-1] == n - 1, "the last record is a frame"
' "$TMP/diverge.h5"

# default output names: the case's `output`, else CASE basename .h5, in the cwd
mkdir "$TMP/cwd"
expect 0 "default output from the case" -- sh -c "cd '$TMP/cwd' && '$FLEXMB' run -q \
    '$CASES/pendulum.yaml' --set theta0=0.1 && test -f pendulum.h5 && test -f pendulum.xmf"
sed 's/^output:.*//' "$CASES/pendulum.yaml" >"$TMP/my.case.yaml"
expect 0 "default output from the case name" -- sh -c "cd '$TMP/cwd' && '$FLEXMB' run -q \
    '$TMP/my.case.yaml' && test -f my.case.h5 && test -f my.case.xmf"
expect 0 "--quiet prints the validity line only" -- "$FLEXMB" run "$CASES/pendulum.yaml" \
    --quiet -o "$TMP/q.h5"
if [ -s "$TMP/err" ] || [ "$(wc -l <"$TMP/out")" -ne 1 ] ||
    ! grep -q "^$CASES/pendulum.yaml: complete; error ratio .*; 0 warnings$" "$TMP/out"; then
    fails=$((fails + 1))
    echo "FAIL: --quiet printed more or other than one validity line:"
    cat "$TMP/out" "$TMP/err"
fi

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
