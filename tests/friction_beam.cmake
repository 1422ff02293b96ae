# Friction on a slider running along an elastic guide (docs/validation.md, Friction).
fmb_c_test(test_friction_beam)
add_test(NAME friction_beam_stick COMMAND test_friction_beam stick)
add_test(NAME friction_beam_slip COMMAND test_friction_beam slip)
# Zero work of the friction pair under rigid motions of a guide deflected by 6 %.
add_test(NAME friction_beam_rigid_work COMMAND test_friction_beam rigid_work)
