#!/bin/sh
# Install rules and script lookup (fuzz finding compare_exec):
#  - `cmake --install` puts flexmb in PREFIX/bin and the plot scripts in
#    PREFIX/share/flexmb/scripts, and the installed `flexmb compare` finds them there
#    (the PNG is drawn);
#  - a flexmb without scripts beside it never runs ./scripts/plot_compare.py from the
#    current directory (a planted script there must not run).
# usage: test_install.sh BUILD_DIR SRC_DIR
build=$1 src=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fmb_install.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
status=0
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null || { echo "FAIL: install"; exit 1; }
for f in bin/flexmb share/flexmb/scripts/plot_compare.py share/doc/flexmb/README.md; do
    [ -e "$tmp/prefix/$f" ] || { echo "FAIL: $f not installed"; status=1; }
done
cd "$tmp" || exit 1
"$tmp/prefix/bin/flexmb" run "$src/cases/pendulum.yaml" -o a.h5 -q --set theta0=0.2 &&
    "$tmp/prefix/bin/flexmb" run "$src/cases/pendulum.yaml" -o b.h5 -q --set theta0=0.3 ||
    { echo "FAIL: runs"; exit 1; }
"$tmp/prefix/bin/flexmb" compare a.h5 b.h5 -o ab -q
[ -f ab.png ] && echo "ok: installed compare drew its plot" ||
    { echo "FAIL: installed compare found no script"; status=1; }
# a bare binary elsewhere, and a planted script in the current directory
mkdir -p bare/bin work/scripts
cp "$tmp/prefix/bin/flexmb" bare/bin/
cat >work/scripts/plot_compare.py <<'PY'
open("PLANTED_RAN", "w").write("x")
PY
cd work || exit 1
env -u FMB_SCRIPTS "$tmp/bare/bin/flexmb" compare ../a.h5 ../b.h5 -o cd -q 2>err.txt
[ ! -e PLANTED_RAN ] && echo "ok: ./scripts/plot_compare.py was not run" ||
    { echo "FAIL: ran a script from the current directory"; status=1; }
grep -q "not found" err.txt && echo "ok: a note says the script was not found" ||
    { echo "FAIL: no note"; cat err.txt; status=1; }
[ $status -eq 0 ] && echo passed
exit $status
