# The step's per-coordinate loops (src/solve/step_loops.c, two coordinates per vector
# operation) against the plain scalar loops, to rounding (tests/test_step_loops.c;
# docs/performance.md "The step's own loops").
fmb_c_test(test_step_loops)
add_test(NAME step_loops_reference COMMAND test_step_loops)
