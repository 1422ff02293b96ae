#!/bin/sh
# The public API is include/flexmb/ alone (house style, CONTRIBUTING.md):
#  1. each public header compiles on its own with only include/ on the path (C17, pedantic);
#  2. no public header includes a SuiteSparse, HDF5, libyaml or Siconos header;
#  3. the command-line program includes no private library header (no "../" or src/ path):
#     it is written against the public API as any user program would be.
# usage: test_public_api.sh SOURCE_DIR
src=$1 status=0
for h in "$src"/include/flexmb/*.h; do
    name=${h#"$src"/include/}
    printf '#include "%s"\nint main(void) { return 0; }\n' "$name" |
        cc -std=c17 -pedantic -Wall -Wextra -Werror -fsyntax-only -I"$src/include" -x c - ||
        { echo "FAIL: $name does not compile on its own"; status=1; }
    if grep -nE '#include *[<"](cholmod|umfpack|klu|SuiteSparse|hdf5|H5|yaml|siconos|numerics|mpi)' "$h"; then
        echo "FAIL: $name includes a third-party header"; status=1
    fi
done
for c in "$src"/src/cli/*.c "$src"/src/cli/*.h; do
    [ -e "$c" ] || continue
    if grep -nE '#include *"(\.\./|io/|model/|solve/|bodies/|joints/|forces/|contact/|core/)' "$c"; then
        echo "FAIL: ${c#"$src"/} includes a private library header"; status=1
    fi
done
[ $status -eq 0 ] && echo "public API: headers self-contained, CLI on public headers only"
exit $status
