# Frictional sliding joints (seed 000; docs/validation.md, "Friction"). Included by
# tests/CMakeLists.txt. One binary, one ctest entry per sub-test.
fmb_c_test(test_friction)
foreach(t case1_normal case1_slip_start lugre_vs_coulomb case2_modes slider_pendulum
          step_convergence energy)
  add_test(NAME friction_${t} COMMAND test_friction ${t})
endforeach()
