# Quick-return deflection study: convergence in mesh and time step (issue: elastic
# guide bars). About 30 s; docs/validation.md has the numbers.
add_test(NAME quick_return_convergence
  COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_quick_return_convergence.py
          $<TARGET_FILE:flexmb_cli> ${CMAKE_SOURCE_DIR}/cases/quick_return.yaml
          ${CMAKE_CURRENT_BINARY_DIR}/quick_return_convergence)
