# Regressions of the fuzzing and fault-injection findings (../shared/fuzz-findings; inputs
# copied to tests/fuzz_cases): each gives a clear message and a clean exit, no crash, no
# sanitizer report, no file contents echoed.
# fmb_fuzz_case(NAME WANT PHRASE ARGS...): `flexmb ARGS...` exits WANT with PHRASE (fixed
# text) in its output.
set(FMB_FUZZ_CASES ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_cases)
function(fmb_fuzz_case name want phrase)
  fmb_output_test(NAME fuzz_${name} EXPECT_EXIT ${want} PASS_TEXT "${phrase}"
    WORKING_DIRECTORY ${FMB_FUZZ_CASES} COMMAND flexmb_cli ${ARGN})
endfunction()
fmb_fuzz_case(no_bodies_run 3 "no moving body" run crash_no_bodies_check.yaml -o ${CMAKE_CURRENT_BINARY_DIR}/fuzz_none.h5)
fmb_fuzz_case(no_bodies_modes 3 "no moving body" modes crash_no_bodies_check.yaml)
fmb_fuzz_case(kkt_smallest_run 3 "no moving body" run fuzz_case_crash_kkt89_smallest.yaml -o ${CMAKE_CURRENT_BINARY_DIR}/fuzz_none.h5)
fmb_fuzz_case(mesh_unclosed_section 2 "section $Foo is not closed by $EndFoo"
  check case_asan_mesh_uaf_unclosed_section.yaml)
fmb_fuzz_case(mesh_tag_count 2 "invalid tag count 2147483647"
  check case_ubsan_mesh_numtags_int_overflow.yaml)
fmb_fuzz_case(mesh_no_nodes 2 "the mesh has no nodes" check case_ubsan_mesh_zero_nodes_qsort_null.yaml)
fmb_fuzz_case(mesh_dev_zero 2 "/dev/zero: not a regular file" check oom_mesh_dev_zero.yaml)
# the message must not quote the file it read (its first line is a comment)
fmb_output_test(NAME fuzz_mesh_not_gmsh EXPECT_EXIT 2
  PASS_TEXT "expected a section header ($Name): not a Gmsh mesh file"
  FAIL_TEXT "Fuzz finding"
  WORKING_DIRECTORY ${FMB_FUZZ_CASES} COMMAND flexmb_cli check mesh_not_gmsh.yaml)
# A beam too large: memory now grows linearly with the elements (about
# FMB_BEAM_BYTES_PER_ELEMENT each), so the loader's element cap (100,000, 1.2 GB)
# comes before the memory refusal (more than half the machine's memory); the case asks for
# one element more than the cap.
fmb_fuzz_case(beam_too_large 2 "'elements' 100001 is too many (at most 100000)" check uninit_msg_beam_nomem.yaml)
fmb_fuzz_case(deep_brackets 2 "deep_brackets.yaml:3:73: brackets nested deeper than 64 levels"
  check deep_brackets.yaml)
# Non-finite values name their source, its case line, the time and the expression.
fmb_fuzz_case(nonfinite_force 4
  "runtime_div_zero.yaml:12: error: force 'f' (line 12, point) is not finite at t = 0.1: expression '1/(t-0.1)'"
  run runtime_div_zero.yaml -o ${CMAKE_CURRENT_BINARY_DIR}/fuzz_none.h5)
fmb_fuzz_case(nonfinite_at_start 3 "force 'f' (line 10, point) is not finite at t = 0: expression '0/0'"
  run nonfinite_at_start.yaml -o ${CMAKE_CURRENT_BINARY_DIR}/fuzz_none.h5)
# Deep expressions: refused beyond 100 levels (the checker recursed per level: stack overflow).
fmb_fuzz_case(expr_deep_parens 2 "nested deeper than 100 levels" check crash_stack_overflow_parens.yaml)
fmb_fuzz_case(expr_deep_minus 2 "nested deeper than 100 levels" check crash_stack_overflow_unary_minus.yaml)
fmb_fuzz_case(expr_too_many_ops 2 "more than 200 operators" check oom_symbolic_derivative_product.yaml)
# 8000 bodies: check no longer runs a dense rank analysis when the KKT factorization
# shows full rank (it took > 6 GB and > 300 s); hand count 3 x 8000 - 2 x 8000 = 8000 dof.
# The chain is written by a setup test (fixture fuzz_chain8000), so that the check's own
# exit status is the one tested.
add_test(NAME fuzz_many_bodies_generate
  COMMAND sh -c "/usr/bin/python3 ${FMB_FUZZ_CASES}/gen_many_bodies.py 8000 > ${CMAKE_CURRENT_BINARY_DIR}/chain8000.yaml")
set_tests_properties(fuzz_many_bodies_generate PROPERTIES FIXTURES_SETUP fuzz_chain8000)
fmb_output_test(NAME fuzz_many_bodies
  COMMAND flexmb_cli check ${CMAKE_CURRENT_BINARY_DIR}/chain8000.yaml
  PASS_REGEX "degrees of freedom: 8000\nredundant constraints: 0")
set_tests_properties(fuzz_many_bodies PROPERTIES TIMEOUT 120 FIXTURES_REQUIRED fuzz_chain8000)
# Disk full: exit 4 with the reason, a readable file and a valid sidecar (needs root).
add_test(NAME fuzz_disk_full
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_disk_full.sh $<TARGET_FILE:flexmb_cli>
          ${FMB_SRC}/cases/quick_return.yaml)
set_tests_properties(fuzz_disk_full PROPERTIES SKIP_RETURN_CODE 77 RUN_SERIAL TRUE)
fmb_fuzz_case(expr_deep_sin 2 "nested deeper than 100 levels" check oom_symbolic_derivative_nested_sin.yaml)
fmb_fuzz_case(mesh_uaf_smallest 2 "section $NodAes is not closed by $EndNodAes" check mesh_uaf_smallest.yaml)
# 300,000 levels of parentheses and of unary minus (written by a setup test, fixture
# fuzz_deep_expr): each refused with exit 2 and the depth message.
add_test(NAME fuzz_expr_deep_generate
  COMMAND /usr/bin/python3 ${FMB_FUZZ_CASES}/gen_deep_expr.py 300000)
set_tests_properties(fuzz_expr_deep_generate PROPERTIES FIXTURES_SETUP fuzz_deep_expr
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
foreach(k parens minus)
  fmb_output_test(NAME fuzz_expr_deep_generated_${k} EXPECT_EXIT 2
    PASS_TEXT "deep_${k}.yaml" PASS_TEXT "nested deeper than 100 levels"
    COMMAND flexmb_cli check ${CMAKE_CURRENT_BINARY_DIR}/deep_${k}.yaml)
  set_tests_properties(fuzz_expr_deep_generated_${k} PROPERTIES FIXTURES_REQUIRED fuzz_deep_expr)
endforeach()

# Fuzz smoke runs: each libFuzzer harness (tests/fuzz/, built with clang in build-fuzz/
# by scripts/fuzz.sh) runs its seed corpus and 2000 mutations with a fixed random seed;
# any crash, sanitizer report, leak or time-out fails the test. Longer runs:
# scripts/fuzz.sh --time SECONDS (docs/validation.md). The fuzz tree is built by its own
# test (fixture fuzz_tree, 1 h), so the smoke runs' 600 s are theirs alone; all four carry
# the label fuzz_tree, which scripts/test.sh leaves out unless asked (`scripts/test.sh
# -L fuzz_tree`; .ci/run runs them).
add_test(NAME fuzz_tree_build COMMAND ${FMB_SRC}/scripts/fuzz.sh --build)
set_tests_properties(fuzz_tree_build PROPERTIES TIMEOUT 3600 RESOURCE_LOCK fuzz_build
  FIXTURES_SETUP fuzz_tree LABELS fuzz_tree)
foreach(h case mesh expr)
  add_test(NAME fuzz_smoke_${h} COMMAND ${FMB_SRC}/scripts/fuzz.sh --smoke ${h})
  set_tests_properties(fuzz_smoke_${h} PROPERTIES TIMEOUT 600 RESOURCE_LOCK fuzz_build
    FIXTURES_REQUIRED fuzz_tree LABELS fuzz_tree)
endforeach()
# A case path that is a device or a directory: refused at once (read until memory ran out).
fmb_fuzz_case(case_dev_zero 2 "/dev/zero: cannot open: not a regular file" check /dev/zero)
fmb_fuzz_case(case_directory 2 "cannot open: a directory, not a file" check .)
