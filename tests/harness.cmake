# The output-test helper (fmb_output_test, tests/CMakeLists.txt) on commands with a known
# exit status and output: it passes only when both are right. The three failing cases are
# registered WILL_FAIL, so each passes only if the helper reports the failure.
fmb_output_test(NAME harness_output_ok EXPECT_EXIT 3 PASS_REGEX "^line one\nline two"
  PASS_TEXT "two" PASS_TEXT "a;b 5%3B" FAIL_TEXT "three"
  COMMAND sh -c "printf 'line one\\nline two a\\073b 5%%3B\\n' && exit 3")
fmb_output_test(NAME harness_wrong_exit PASS_REGEX "right output"
  COMMAND sh -c "echo right output && exit 3")
fmb_output_test(NAME harness_missing_output PASS_REGEX "right output"
  COMMAND sh -c "echo other output")
fmb_output_test(NAME harness_forbidden_output PASS_TEXT "right" FAIL_REGEX "[?]"
  COMMAND sh -c "echo right ?")
set_tests_properties(harness_wrong_exit harness_missing_output harness_forbidden_output
  PROPERTIES WILL_FAIL TRUE)
