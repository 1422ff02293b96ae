# Quick-return deflection study: convergence in mesh and time step, flexmb against
# itself (no independent reference: the deflection is validated by reference_flexmb_*,
# tests/reference.cmake). About 30 s; docs/validation.md has the numbers.
add_test(NAME quick_return_convergence
  COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_quick_return_convergence.py
          $<TARGET_FILE:flexmb_cli> ${CMAKE_SOURCE_DIR}/cases/quick_return.yaml
          ${CMAKE_CURRENT_BINARY_DIR}/quick_return_convergence)

# The cutting and return strokes' crank angles (scripts/quick_return_strokes.py) against
# the hand values for r = 0.15, h1 = 0.3 (330 -> 210 deg: 240 and 120 deg) and against
# the ram's turning points in rigid runs (r = 0.15 and 0.1).
add_test(NAME quick_return_strokes
  COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_quick_return_strokes.py
          $<TARGET_FILE:flexmb_cli> ${CMAKE_SOURCE_DIR}/cases/quick_return.yaml
          ${CMAKE_SOURCE_DIR}/scripts)
