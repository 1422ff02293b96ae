# Mechanism modes of the constrained, linearized system (docs/validation.md,
# "Mechanism modes"): analytic frequencies of a spring pendulum and of a pinned-pinned
# bar with a mid-span mass; Rayleigh damping set by a target ratio (free decay).
fmb_c_test(test_mech_modes)
foreach(t spring_pendulum beam_mass beam_nomass rayleigh_ratio rayleigh_two_point)
  add_test(NAME mech_modes_${t} COMMAND test_mech_modes ${CMAKE_CURRENT_SOURCE_DIR}/modes ${t})
endforeach()
# Mode files: record k = mode k, shapes against the analytic mode shape.
add_test(NAME mech_modes_file
  COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_mode_file.py
          $<TARGET_FILE:flexmb_cli> ${FMB_SRC})
# Range-checked joint accessors (invalid index: NaN, 0 outputs, NULL names).
add_test(NAME api_joint_accessors_range COMMAND test_mech_modes ${CMAKE_CURRENT_SOURCE_DIR}/modes accessors)
