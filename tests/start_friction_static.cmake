# Quasi-static start with friction at a slider on an elastic guide: the friction of the
# start state is part of the equilibrium (docs/theory.md "Consistent start" step 4;
# tests/test_static_friction.c).
fmb_c_test(test_static_friction)
add_test(NAME start_static_friction COMMAND test_static_friction)
