# Restarts of adaptive runs at constraint kinks with frictional slider contacts
# (docs/theory.md "Element crossings and restarts"; tests/test_restart.c).
fmb_c_test(test_restart)
add_test(NAME restart_friction_crossings
  COMMAND test_restart friction ${CMAKE_SOURCE_DIR}/cases/quick_return_friction.yaml)
add_test(NAME restart_coulomb_state
  COMMAND test_restart coulomb ${CMAKE_SOURCE_DIR}/cases/quick_return_friction.yaml)
