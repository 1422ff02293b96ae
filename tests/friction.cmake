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
