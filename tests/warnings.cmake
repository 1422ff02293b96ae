# Warnings that are true and actionable (tests/test_warnings.py says what each checks):
# every shipped case runs with exactly the warnings its comments announce; a case built to
# need each warning gets it, and following its advice removes it.
foreach(c demo four_bar gear_train motor_profile pendulum quick_return quick_return_friction
          quick_return_valid
          slider_coulomb_1 slider_coulomb_2 slider_crank slider_crank_clearance slider_lugre_1
          slider_lugre_2 slider_pendulum slider_pendulum_coulomb switching)
  add_test(NAME warnings_case_${c}
    COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_warnings.py
            $<TARGET_FILE:flexmb_cli> ${FMB_SRC} case ${c})
endforeach()
add_test(NAME warnings_step_advice
  COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_warnings.py
          $<TARGET_FILE:flexmb_cli> ${FMB_SRC} step)
add_test(NAME warnings_energy_advice
  COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_warnings.py
          $<TARGET_FILE:flexmb_cli> ${FMB_SRC} energy)
