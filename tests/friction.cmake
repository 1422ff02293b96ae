# Frictional sliding joints (seed 000; docs/validation.md, "Friction"). Included by
# tests/CMakeLists.txt. One binary, one ctest entry per sub-test.
fmb_c_test(test_friction)
foreach(t case1_normal case1_slip_start lugre_vs_coulomb case2_modes slider_pendulum
          step_convergence energy)
  add_test(NAME friction_${t} COMMAND test_friction ${t})
endforeach()

# Friction in the consistent start (docs/validation.md, "Friction at the start").
fmb_c_test(test_friction_start)
foreach(t coulomb_up coulomb_down coulomb_stick coulomb_break lugre_up coulomb_rotating
          default_vstick)
  add_test(NAME friction_start_${t} COMMAND test_friction_start ${t})
endforeach()

# Static and kinetic levels of a Coulomb slider (docs/theory.md section 9).
fmb_c_test(test_friction_levels)
foreach(t breakaway creep reversal coupled)
  add_test(NAME friction_levels_${t} COMMAND test_friction_levels ${t})
endforeach()

# The LuGre stick-slip step cap's effective mass (docs/theory.md "Stick-slip").
fmb_c_test(test_contact_stepctl)
foreach(t cart guide)
  add_test(NAME contact_stepctl_${t} COMMAND test_contact_stepctl ${t})
endforeach()

# The LuGre jam stop (docs/theory.md section 9 "Jams", contact_step.c jam_error): a slider
# driven along an inclined guide jams after its reversal with vd = 0 (the step's law beyond
# a/b, hand calculation in tests/test_lugre_jam.c); the stop's status and message, the same
# model with vd > 0 running through, and `flexmb run`'s results file up to the last step.
fmb_c_test(test_lugre_jam)
target_include_directories(test_lugre_jam PRIVATE ${HDF5_INCLUDE_DIRS})
target_link_libraries(test_lugre_jam PRIVATE ${HDF5_C_LIBRARIES})
add_test(NAME friction_lugre_jam COMMAND test_lugre_jam jam ${CMAKE_CURRENT_BINARY_DIR})
add_test(NAME friction_lugre_jam_vd COMMAND test_lugre_jam vd ${CMAKE_CURRENT_BINARY_DIR})
add_test(NAME friction_lugre_jam_h5
  COMMAND test_lugre_jam h5 ${CMAKE_CURRENT_BINARY_DIR} $<TARGET_FILE:flexmb_cli>)
