# Switching elements (seed 004; docs/switching.md, docs/validation.md "Switching
# elements"). Included by tests/CMakeLists.txt. One binary, one ctest entry per sub-test.
fmb_c_test(test_switching)
foreach(t brake ratchet gap screw)
  add_test(NAME switching_${t} COMMAND test_switching ${t})
endforeach()
# the seed's system (cases/switching.yaml), 8 s: properties independent of its parameters
add_test(NAME switching_seed COMMAND test_switching seed ${FMB_SRC}/cases/switching.yaml)
# bad switching elements: `flexmb check` names file, line and problem (case.cmake)
fmb_case_error(sw_static_below_kinetic 9 "static level 1 is below the kinetic level 2")
fmb_case_error(sw_gap_limits 8 "must bracket the initial position")
fmb_case_error(sw_screw_no_lead 6 "missing required key 'lead'")
fmb_case_error(sw_ratchet_sense 9 "sense must be 1 or -1, got 2")
fmb_case_error(sw_axis_rotation 9 "'axis' needs coordinate: direction")
fmb_case_error(sw_lugre_key_coulomb 9 "'sigma0' applies to model: lugre only")
fmb_case_error(sw_lugre_no_sigma0 5 "missing required key 'sigma0'")
fmb_case_error(sw_lugre_model 9 "unknown model 'stribeck' (allowed: coulomb, lugre)")
# `flexmb check` lists every switching element with its initial mode (by hand: at rest,
# no input at t = 0, the ratchets are free, the screw and D's friction stick, the 1 mm gap
# is open)
add_test(NAME switching_check COMMAND flexmb_cli check ${FMB_SRC}/cases/switching.yaml)
set_tests_properties(switching_check PROPERTIES PASS_REGULAR_EXPRESSION
  "backstop +ratchet +free[^\n]*\n +ratchet +ratchet +free[^\n]*\n +screw +screw +stick[^\n]*\n +contact +gap +open[^\n]*\n +friction +dry_friction +stick")
# LuGre dry friction element against hand solutions (tests/test_switching_lugre.c)
fmb_c_test(test_switching_lugre)
foreach(t stop hold stribeck)
  add_test(NAME switching_lugre_${t} COMMAND test_switching_lugre ${t})
endforeach()
# events inside a step and the energy of switches (tests/test_switching_events.c)
fmb_c_test(test_switching_events)
foreach(t gap ratchet_impact ratchet_energy coupled)
  add_test(NAME switching_events_${t} COMMAND test_switching_events ${t})
endforeach()
