# Step-size control: local error estimate, adaptive steps, fixed-step warning
# (docs/theory.md "Local error estimate and step control"; tests/test_step.c).
fmb_c_test(test_step)
add_test(NAME step_adaptive_pendulum COMMAND test_step pendulum ${CMAKE_CURRENT_SOURCE_DIR}/step)
add_test(NAME step_fixed_warning_four_bar
  COMMAND test_step four_bar ${CMAKE_CURRENT_SOURCE_DIR}/step)
add_test(NAME step_quick_return_seed_step
  COMMAND test_step quick_return ${CMAKE_CURRENT_SOURCE_DIR}/step)
add_test(NAME step_cli
  COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_step_cli.py
          $<TARGET_FILE:flexmb_cli> ${FMB_SRC})
# steps accepted under the jump rule: counted apart, accurate against fixed h = 5e-7 (~5 s)
add_test(NAME step_jump_rule
  COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_step_jump.py
          $<TARGET_FILE:flexmb_cli> ${FMB_SRC})
add_test(NAME step_adaptive_lugre COMMAND test_step lugre ${CMAKE_CURRENT_SOURCE_DIR}/step)
add_test(NAME step_adaptive_crossing COMMAND test_step crossing ${CMAKE_CURRENT_SOURCE_DIR}/step)
add_test(NAME step_fastest_mode COMMAND test_step fastest_mode ${CMAKE_CURRENT_SOURCE_DIR}/step)
add_test(NAME step_adaptive_ring_advice COMMAND test_step ring_advice ${CMAKE_CURRENT_SOURCE_DIR}/step)
# LuGre reversal on an elastic guide: adaptive and fixed steps through the presliding against
# an RK4 integration of the continuous law (tests/test_lugre_reversal.c, ~3 s)
fmb_c_test(test_lugre_reversal)
add_test(NAME step_lugre_reversal COMMAND test_lugre_reversal ${CMAKE_CURRENT_SOURCE_DIR}/step)
# The joints' evaluation handed from a residual to the assembly of the same iterate: the
# matrix bitwise the one assembled from scratch, the memo refused on any other state
# (tests/test_joint_memo.c; docs/performance.md "Joints once per iterate").
fmb_c_test(test_joint_memo)
target_compile_definitions(test_joint_memo PRIVATE FMB_SOURCE_DIR="${FMB_SRC}")
add_test(NAME step_joint_memo COMMAND test_joint_memo)
# The slider on a beam's kept places (the last two, keyed on every input they read):
# every class function bitwise its evaluation on an empty cache, in and out of the step
# loop's order (tests/test_slider_cache.c).
fmb_c_test(test_slider_cache)
target_compile_definitions(test_slider_cache PRIVATE FMB_SOURCE_DIR="${FMB_SRC}")
add_test(NAME step_slider_cache COMMAND test_slider_cache nonlinear=0)
add_test(NAME step_slider_cache_nonlinear COMMAND test_slider_cache nonlinear=1)
# Phi through the residual's memo views lent for the call: bitwise Phi from fresh views,
# the memo left as the residual left it (tests/test_phi_views.c).
fmb_c_test(test_phi_views)
target_compile_definitions(test_phi_views PRIVATE FMB_SOURCE_DIR="${FMB_SRC}")
add_test(NAME step_phi_views COMMAND test_phi_views)
# The slider's reach reserved as a window near it, the pattern rebuilt when it leaves
# (tests/test_slider_reach.c).
fmb_c_test(test_slider_reach)
target_compile_definitions(test_slider_reach PRIVATE FMB_SOURCE_DIR="${FMB_SRC}")
add_test(NAME step_slider_reach_window COMMAND test_slider_reach)
