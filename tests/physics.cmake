# Physics validation tests (docs/validation.md). Included by tests/CMakeLists.txt.

# Pendulum: period against linear theory and the exact elliptic-integral period,
# energy drift order of HHT / trapezoidal Newmark.
fmb_c_test(test_pendulum)
add_test(NAME pendulum_small_period COMMAND test_pendulum small)
add_test(NAME pendulum_large_period COMMAND test_pendulum large)
add_test(NAME pendulum_energy_order COMMAND test_pendulum energy)

# Driven four-bar: joint reactions and drive torque against Newton-Euler.
fmb_c_test(test_four_bar)
add_test(NAME four_bar_reactions COMMAND test_four_bar)
# Second-order convergence of the reactions with HHT alpha = -0.05.
add_test(NAME four_bar_reaction_order COMMAND test_four_bar order)

# Constraint violation at every step and energy conservation for small mechanisms,
# with the default HHT alpha = -0.05 and with alpha = 0 (trapezoidal rule).
fmb_c_test(test_constraints)
foreach(c pendulum four_bar four_bar_driven slider_crank weld spring spring_damper)
  add_test(NAME constraints_${c} COMMAND test_constraints ${c} -0.05)
  add_test(NAME constraints_${c}_trapezoidal COMMAND test_constraints ${c} 0)
endforeach()

# Rigid-motion start: elastic velocities start at zero, carrier velocities from the
# joints (against the quick-return's hand kinematics), given velocities reported.
add_test(NAME start_rigid_motion
  COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_start.py
          $<TARGET_FILE:flexmb_cli> ${FMB_SRC})

# Modified Newton across steps and KLU vs full Newton and UMFPACK (quick-return, 300 steps).
fmb_c_test(test_reuse)
target_compile_definitions(test_reuse PRIVATE FMB_SOURCE_DIR="${FMB_SRC}")
add_test(NAME newton_reuse_vs_full COMMAND test_reuse)

# Initial elastic state of a beam from the case file (modes and nodes), t = 0 state
# against the analytic pinned-pinned modes, errors named with file and line.
add_test(NAME start_beam_initial
  COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_beam_initial.py
          $<TARGET_FILE:flexmb_cli> ${FMB_SRC})

# Revolute joint with clearance (seed 002): static penetration against the force law solved
# by hand, LN impact restitution against a hand-integrated single-DOF impact, the linear
# viscoelastic law's rebound (clamped, unclamped) against its closed form, energy
# conservation through impacts without damping (docs/validation.md).
fmb_c_test(test_clearance)
foreach(c static impact impact_seed impact_linear impact_onset error_control energy adaptive)
  add_test(NAME clearance_${c} COMMAND test_clearance ${c})
endforeach()
# Journal on a beam: the friction moment acts on the section's material rotation (power
# balance against a rotation rate measured from point positions).
fmb_c_test(test_clearance_beam)
add_test(NAME clearance_beam_friction COMMAND test_clearance_beam)
# Zero-clearance limit: with a damping that acts at um penetrations the slider
# acceleration approaches the hand-derived ideal-joint curve as c -> 0 (bench/clearance_limit.py
# holds the full study).
add_test(NAME clearance_limit
  COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_clearance_limit.py
          $<TARGET_FILE:flexmb_cli> ${FMB_SRC})

# Quasi-static start (solver: start: static): a cantilever under gravity, a spinning rod
# and a beam on an accelerated slider start in equilibrium (beam and bar theory, hand
# derivation) and stay there; the rigid start swings.
fmb_c_test(test_static_start)
foreach(t gravity spin slider ramp pinned)
  add_test(NAME start_static_${t} COMMAND test_static_start ${t})
endforeach()
# Quasi-static start on the quick-return: start-up deviation from the periodic steady state.
add_test(NAME start_static_quick_return
  COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_static_quick_return.py
          $<TARGET_FILE:flexmb_cli> ${FMB_SRC})
fmb_c_test(test_newton_once)
target_compile_definitions(test_newton_once PRIVATE FMB_SOURCE_DIR="${FMB_SRC}")
add_test(NAME newton_once_vs_exact_step COMMAND test_newton_once)

# periodic steady state and Floquet multipliers (docs/theory.md section 13)
fmb_c_test(test_periodic)
add_test(NAME periodic_harmonic COMMAND test_periodic harmonic)
add_test(NAME periodic_monodromy_fd COMMAND test_periodic fd)
add_test(NAME periodic_mathieu COMMAND test_periodic mathieu)
add_test(NAME periodic_monodromy_fd_beam COMMAND test_periodic fd_beam
         ${FMB_SRC}/cases/quick_return_valid.yaml)
add_test(NAME periodic_quick_return COMMAND test_periodic quick_return
         ${FMB_SRC}/cases/quick_return_valid.yaml)
foreach(part continuation unstable errors)
  add_test(NAME periodic_cli_${part}
           COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_periodic_cli.py
                   $<TARGET_FILE:flexmb_cli> ${FMB_SRC} ${part})
endforeach()
