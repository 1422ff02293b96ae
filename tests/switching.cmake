# Switching elements (docs/switching.md, docs/validation.md "Switching
# elements"). Included by tests/CMakeLists.txt. One binary, one ctest entry per sub-test.
fmb_c_test(test_switching)
foreach(t brake ratchet gap screw gap_error_control)
  add_test(NAME switching_${t} COMMAND test_switching ${t})
endforeach()
# the seed's system (cases/switching.yaml), 8 s: properties independent of its parameters
add_test(NAME switching_seed COMMAND test_switching seed ${FMB_SRC}/cases/switching.yaml)
# a one-way lock (ratchet) with a frictionless thread (mu = 0): event counts of an
# independent event-driven model, the lock within statics, no positive work of the passive
# elements (tests/test_switching.c lock_mu0)
add_test(NAME switching_lock_mu0 COMMAND test_switching lock_mu0
  ${CMAKE_CURRENT_SOURCE_DIR}/cases_misc/switching_lock_mu0.yaml)
# a flywheel started from rest above its brake's static level: kinetic level from t = 0,
# omega(1 s) against the closed form (tests/test_switching.c startup)
add_test(NAME switching_startup COMMAND test_switching startup
  ${CMAKE_CURRENT_SOURCE_DIR}/cases_misc/flywheel_breakaway.yaml)
# a damped gap contact that starts exactly on a step end, against the closed form; the
# event tolerance 1e-12 m completes (tests/test_switching.c gap_step_end)
add_test(NAME switching_gap_step_end COMMAND test_switching gap_step_end
  ${CMAKE_CURRENT_SOURCE_DIR}/cases_misc/gap_step_end.yaml)
# records at a time interval independent of the step (solver output_dt), fixed and
# adaptive, against an exactly integrated motion (tests/test_switching.c output_dt)
add_test(NAME switching_output_dt COMMAND test_switching output_dt
  ${CMAKE_CURRENT_SOURCE_DIR}/cases_misc/flywheel_breakaway.yaml)
# a frictionless irreversible screw as one element (one_way) against the ratchet + screw
# build and the event-driven counts (tests/test_switching.c oneway_screw)
add_test(NAME switching_oneway_screw COMMAND test_switching oneway_screw
  ${CMAKE_CURRENT_SOURCE_DIR}/cases_misc/switching_oneway_screw.yaml
  ${CMAKE_CURRENT_SOURCE_DIR}/cases_misc/switching_lock_mu0.yaml)
fmb_case_error(sw_screw_one_way_mu 6 "one_way needs mu: 0")
# bad switching elements: `flexmb check` names file, line and problem (case.cmake)
fmb_case_error(sw_static_below_kinetic 9 "static level 1 is below the kinetic level 2")
fmb_case_error(sw_gap_limits 8 "must bracket the initial position")
fmb_case_error(sw_screw_no_lead 6 "missing required key 'lead'")
fmb_case_error(sw_ratchet_sense 9 "sense must be 1 or -1, got 2")
fmb_case_error(sw_axis_rotation 9 "'axis' needs coordinate: direction")
fmb_case_error(sw_lugre_key_coulomb 9 "'sigma0' applies to model: lugre only")
fmb_case_error(sw_lugre_no_sigma0 5 "missing required key 'sigma0'")
fmb_case_error(sw_lugre_model 9 "unknown model 'stribeck' (allowed: coulomb, lugre)")
fmb_case_error(sw_lugre_kinetic_zero 8 "model: lugre needs kinetic > 0 (got 0)")
# `flexmb check` lists every switching element with its initial mode (by hand: at rest,
# no input at t = 0; the thread alone holds the wheel, its force at rest -W cos^2(lambda)
# = -799.797 N (test_switching.c seed), so the ratchets carry no torque: zero to round-off,
# where free and engaged are the same state and the LCP may return either; the screw and
# D's friction stick, the 1 mm gap is open)
fmb_output_test(NAME switching_check
  COMMAND flexmb_cli check ${FMB_SRC}/cases/switching.yaml
  PASS_REGEX "backstop +ratchet +(free|engaged) +-?(0|[0-9.]+e-(1[3-9]|[2-9][0-9])) +0\n +ratchet +ratchet +(free|engaged) +-?(0|[0-9.]+e-(1[3-9]|[2-9][0-9])) +0\n +screw +screw +stick +-799\\.797 [^\n]*\n +contact +gap +open[^\n]*\n +friction +dry_friction +stick")
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
# switch events located inside the step (tests/test_switching_located.c)
fmb_c_test(test_switching_located)
foreach(t stop reversal catchup breakaway creep)
  add_test(NAME switching_located_${t} COMMAND test_switching_located ${t})
endforeach()
