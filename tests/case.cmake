# Case-file tests (src/io/case.c). Included by tests/CMakeLists.txt.

# The loader on the shipped cases and its computed values (parameters, --set,
# bar shortcut, point lookups).
fmb_c_test(test_case_load)
add_test(NAME case_load COMMAND test_case_load ${FMB_SRC}/cases)

# The shipped cases load and assemble, with the counts derived by hand (3 carrier
# coordinates per body plus a beam's free nodal ones; 2 rows per revolute, prismatic and
# slider_beam joint, 1 per driver; Gruebler: dof = coordinates - rank):
# fmb_check_counts(TEST CASE COORDS ROWS DOF [ARGS...]): `flexmb check CASE ARGS` exits 0
# with the lines "coordinates: COORDS", "constraints: ROWS", "Jacobian rank: ROWS",
# "degrees of freedom: DOF" and "redundant constraints: 0";
# fmb_case_check(NAME COORDS ROWS DOF [ARGS...]) registers case_check_NAME on
# cases/NAME.yaml.
function(fmb_check_counts test file n m dof)
  set(lines)
  foreach(want "coordinates: ${n}" "constraints: ${m}" "Jacobian rank: ${m}"
      "degrees of freedom: ${dof}" "redundant constraints: 0")
    list(APPEND lines "(^|\n)${want}(\n|$)")
  endforeach()
  fmb_output_test(NAME ${test} PASS_REGEX ${lines} COMMAND flexmb_cli check ${file} ${ARGN})
endfunction()
function(fmb_case_check name n m dof)
  fmb_check_counts(case_check_${name} ${FMB_SRC}/cases/${name}.yaml ${n} ${m} ${dof} ${ARGN})
endfunction()
fmb_case_check(pendulum 3 2 1)         # 1 bar, 1 revolute
fmb_case_check(four_bar 9 9 0)         # 3 bodies, 4 revolutes + 1 driver: 9 - 9
fmb_case_check(demo 9 9 0)             # the same four-bar layout
fmb_case_check(slider_crank 9 9 0)     # 3 bodies, 3 revolutes + 1 prismatic + 1 driver
# quick-return with friction: 4 rigid bodies (12) + the rocker, 11 nodes x 3 minus v at
# both ends and u at the first (30 elastic) + 3 carrier = 33: 45 coordinates; 5 revolutes,
# 1 prismatic, 1 slider_beam (2 rows each) + 1 driver = 15 rows; the rigid linkage has no
# freedom left, so the 30 degrees of freedom are the rocker's elastic coordinates
fmb_case_check(quick_return_friction 45 15 30)
# ... and RUN at 5 rad/s past both reversals of D (1.05 revolutions, ~4 s): work-energy
# balance and the frictionless limit mu -> 0 against cases/quick_return.yaml
# (docs/quick_return.md "Rigid against flexible rocker, and friction at D")
add_test(NAME quick_return_friction_run
  COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_quick_return_friction.py
          $<TARGET_FILE:flexmb_cli> ${FMB_SRC}/cases/quick_return_friction.yaml
          ${FMB_SRC}/cases/quick_return.yaml ${CMAKE_CURRENT_BINARY_DIR}/quick_return_friction_run)
# ... and at 10 rad/s undamped (the LuGre reversal that stopped Newton at t = 0.626 s, ~15 s):
# completes, converges to the damped runs as zeta -> 0 at first order, T + V - W (1e-4),
# dt refinement through the reversal at zeta = 0.02 (order 2)
add_test(NAME quick_return_friction_10
  COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_quick_return_friction_10.py
          $<TARGET_FILE:flexmb_cli> ${FMB_SRC}/cases/quick_return_friction.yaml
          ${CMAKE_CURRENT_BINARY_DIR}/quick_return_friction_10)
# ... and at 20 rad/s with constant bristle damping (vd_D = 0): the corner LCP that jammed at
# t = 0.6221 s (the LuGre root search started inside a jam); completes, T + V - W never rises;
# at h = 1e-5 the law's spike wedges the block: the stop names it (~10 s)
add_test(NAME quick_return_friction_vd0
  COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_quick_return_friction_vd0.py
          $<TARGET_FILE:flexmb_cli> ${FMB_SRC}/cases/quick_return_friction.yaml
          ${CMAKE_CURRENT_BINARY_DIR}/quick_return_friction_vd0)
fmb_case_check(slider_coulomb_1 3 2 1)         # a block on a prismatic guide
fmb_case_check(slider_coulomb_2 3 2 1)
fmb_case_check(slider_pendulum_coulomb 6 4 2)  # block on a guide + a pendulum on it

# Bad case files: `flexmb check` exits 2 with "FILE:LINE:COL: message".
# fmb_check_error(TEST CASE LINE PHRASE [ABSENT TEXT] [ARGS...]): `flexmb check CASE ARGS`
# exits 2 (a case file error) with "CASE:LINE:" (LINE "-": "CASE: ", a message without a
# position, e.g. a file that cannot be opened) and PHRASE in its output, and not TEXT (the
# contents of a file that is not the case's to show, or a long value that would push the
# cause out of the message).
# fmb_case_error(NAME LINE PHRASE [ARGS...]) registers case_error_NAME on
# tests/bad_cases/NAME.yaml.
set(FMB_CASE_BAD ${CMAKE_CURRENT_SOURCE_DIR}/bad_cases)
function(fmb_check_error test file line phrase)
  cmake_parse_arguments(PARSE_ARGV 4 E "" "ABSENT" "")
  get_filename_component(base ${file} NAME)
  if(line STREQUAL "-")
    set(where "${base}: ")
  else()
    set(where "${base}:${line}:")
  endif()
  set(absent)
  if(DEFINED E_ABSENT)
    set(absent FAIL_TEXT "${E_ABSENT}")
  endif()
  fmb_output_test(NAME ${test} EXPECT_EXIT 2 PASS_TEXT "${where}" PASS_TEXT "${phrase}"
    ${absent} COMMAND flexmb_cli check ${file} ${E_UNPARSED_ARGUMENTS})
endfunction()
function(fmb_case_error name line phrase)
  fmb_check_error(case_error_${name} ${FMB_CASE_BAD}/${name}.yaml ${line} "${phrase}" ${ARGN})
endfunction()

fmb_case_error(unknown_key 4 "unknown key 'mas' in body (allowed: name, mass,")
fmb_case_error(unknown_top_key 3 "unknown key 'bodys' in the case file")
# an unquoted expression with commas inside a {...} map: the loader names the cut value
fmb_case_error(if_comma_flow_map 9 "the value of 'tz' was cut at a comma ('if(t < 1': inside a {...} map a comma ends the value unless it is quoted): quote it, tz: \"if(t < 1, ...)\"")
fmb_case_error(unknown_body 7 "unknown body 'crnak'")
fmb_case_error(unknown_point 8 "unknown point 'middle' on body 'crank'")
fmb_case_error(missing_mass 3 "missing required key 'mass'")
fmb_case_error(missing_inertia 3 "missing required key 'inertia'")
fmb_case_error(negative_mass 6 "mass must be positive, got -1")
# solver start mode (docs/case-format.md, "Start modes")
fmb_case_error(start_unknown 4 "start must be rigid, static or an expression giving 0 (rigid) or 1 (static)")
fmb_case_error(start_expr 5 "start '1*s' = 2; an expression must give 0 (rigid) or 1 (static)")
fmb_case_error(zero_mass 4 "mass must be positive, got 0")
fmb_case_error(zero_inertia 5 "inertia must be positive, got 0")
# a very long value is shortened in the message, so that its cause is not cut off
fmb_check_error(case_error_long_name_cause ${FMB_CASE_BAD}/long_name_cause.yaml 3
  "' longer than 63 characters" ABSENT
  "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx")
# absurd magnitudes (docs/case-format.md, "Limits"): refused at their line with the value
fmb_case_error(mag_inertia_huge 6 "body 'crank': 'inertia' = 1e+308 is out of range")
fmb_case_error(mag_inertia_tiny 6 "body 'crank': 'inertia' = 1e-300 is out of range")
fmb_case_error(mag_mass_huge 3 "body 'crank': 'mass' = 1e+308 is out of range")
fmb_case_error(mag_spring_stiffness 9 "force 'k': 'stiffness' = 1e+300 is out of range")
fmb_case_error(mag_gap_damping 10 "force 'stop': 'damping' = 1e-300 is out of range")
fmb_case_error(mag_beam_E 4 "beam 'b': 'E' = 1e+308 is out of range")
fmb_case_error(mag_beam_damping 10 "beam 'b': damping: 'beta' = 1e+40 is out of range")
fmb_case_error(zero_length_bar 7 "zero-length link")
fmb_case_error(zero_length_joint 5 "zero-length link")
fmb_case_error(zero_length_spring 5 "zero-length link")
fmb_case_error(bad_expression 7 "cannot parse expression 'L*'")
fmb_case_error(unknown_name 7 "unknown name 'L3' in expression 'L3'")
fmb_case_error(unknown_name_time 12 "unknown name 'omgea' in expression 'omgea*t'")
fmb_case_error(wrong_type 4 "'mass' must be a number or expression, not a sequence")
fmb_case_error(yaml_syntax 3 "YAML syntax error")
fmb_case_error(duplicate_body 4 "duplicate body name 'link'")
fmb_case_error(duplicate_joint 7 "duplicate joint name 'J'")
fmb_case_error(duplicate_key 6 "duplicate key 'mass' in body")
fmb_case_error(duplicate_point 7 "duplicate point 'end'")
fmb_case_error(duplicate_parameter 4 "duplicate parameter 'L'")
fmb_case_error(unknown_joint_type 6 "unknown joint type 'hinge'")
fmb_case_error(driver_no_coordinate 5 "missing required key 'coordinate'")
fmb_case_error(bad_integrator 4 "unknown integrator 'euler'")
fmb_case_error(reserved_parameter 3 "parameter name 'e' is reserved")
fmb_case_error(empty 1 "empty case file")
fmb_case_error(multiple_documents 5 "one YAML document")
fmb_case_error(long_name 3 "longer than")
fmb_case_error(override_target 3 "unknown parameter 'nope'" --set nope=3)
# a file that does not exist: "PATH: cannot open: strerror"
fmb_check_error(case_error_not_found ${FMB_CASE_BAD}/no_such_case.yaml -
  "cannot open: No such file or directory")

# Beams (docs/case-format.md, 'beam'): the quick-return linkage with the
# elastic rocker and with its rigid equivalent (slider_beam -> prismatic).
fmb_case_check(quick_return 45 15 30)                   # as quick_return_friction
fmb_check_counts(case_check_quick_return_rigid             # rocker rigid: 5 bodies, 15 rows
  ${FMB_SRC}/cases/quick_return.yaml 15 15 0 --set rigid_rocker=1)
fmb_case_error(beam_bad_section 7 "beam section: give exactly one of")
fmb_case_error(beam_mesh_and_elements 9 "give either 'mesh' or 'elements'")
fmb_case_error(beam_no_nodes 5 "give the nodes")
fmb_case_error(beam_mesh_error 8 "mesh: ${FMB_CASE_BAD}/../bad_meshes/duplicate_node.msh:11: duplicate node 6 (same position as node 3)")
fmb_case_error(beam_unknown_reference 9
  "unknown reference 'clamped' (allowed: simply_supported, cantilever)")
fmb_case_error(beam_unknown_geometry 9
  "unknown name 'large' in expression 'large' (known: no parameters); geometry must be linear, nonlinear or an expression giving 0")
fmb_case_error(beam_geometry_value 11 "geometry 'nl' = 2; an expression must give 0 (linear) or 1")
fmb_case_error(beam_mixed_mass 4 "'mass' cannot be mixed with 'beam'")
fmb_case_error(slider_beam_not_beam 8 "second body 'bar' of a slider_beam joint is not a beam")

# Frictional sliding joints (docs/case-format.md, 'friction'): the shipped
# slider cases load and assemble; friction errors at their keys.
fmb_case_check(slider_lugre_1 3 2 1)
fmb_case_check(slider_lugre_2 3 2 1)
fmb_case_check(slider_pendulum 6 4 2)
fmb_case_error(friction_unknown_key 9 "unknown key 'mu_s' in joint 'guide': friction (allowed:")
fmb_case_error(friction_bad_value 11 "friction: 'a' must be > 0, got 0")
fmb_case_error(friction_missing_a 8 "friction: missing required key 'a'")
fmb_case_error(friction_unknown_model 8
  "unknown friction model 'stribeck' (allowed: lugre, coulomb, none)")
fmb_case_error(friction_not_sliding 9
  "joint 'pin': 'friction' applies to type prismatic, slider_beam only (revolute accepts: name, type, bodies, points)")
fmb_case_error(friction_mu0 12 "static coefficient mu0 (0.5) must be >= the kinetic mu (0.56)")
fmb_case_error(friction_lugre_mu_zero 12 "LuGre needs mu0 > 0 (got 0)")
fmb_case_error(friction_lugre_mu_kinetic_zero 12 "LuGre needs mu > 0 (got 0)")
fmb_case_error(friction_lugre_key 11 "'sigma0' applies to model lugre only")
fmb_case_error(beam_damping_both 9 "give either alpha/beta or ratio/at, not both")
fmb_case_error(beam_damping_no_at 9 "`ratio` and `at` (rad/s) go together")
fmb_case_error(beam_damping_at_order 9 "`at` must be a frequency > 0 or two increasing frequencies")
# --set of solver choices by name: an unknown one is a case error naming the override.
fmb_check_error(case_error_set_integrator ${FMB_SRC}/cases/pendulum.yaml 17
  "override integrator: unknown integrator 'rk4'" --set integrator=rk4)
# rotary_inertia as an expression, --set integrator/ordering.
add_test(NAME case_choices
  COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_case_choices.py
          $<TARGET_FILE:flexmb_cli> ${FMB_SRC})
# check lists every force with its class's type name and, for two-body forces, both bodies
fmb_output_test(NAME case_check_force_listing
  COMMAND flexmb_cli check ${FMB_SRC}/cases/slider_pendulum.yaml
  PASS_REGEX "pin_damper +torsion +rod +slider"
  FAIL_REGEX "[?]")
# Names become HDF5 group names: '/' is refused where the name is given (fuzz finding:
# 'a/b' and 'a_b' collided in the results file).
fmb_case_error(name_slash 7 "body name 'a/b' contains '/'")
# A force class accepted under joints: (the clearance joint): 3 bodies (9 coordinates),
# revolutes O and A (2 rows each), the slider's prismatic guide (2) and the motor (1): 7
# rows, 2 degrees of freedom (the journal's free play in the bearing); listed as a force.
fmb_check_counts(case_check_clearance_in_joints
  ${CMAKE_CURRENT_SOURCE_DIR}/cases_misc/clearance_in_joints.yaml 9 7 2)
fmb_output_test(NAME case_clearance_in_joints_listing
  COMMAND flexmb_cli check ${CMAKE_CURRENT_SOURCE_DIR}/cases_misc/clearance_in_joints.yaml
  PASS_REGEX "forces \\(1\\):[^\n]*\n[^\n]*\n +B +clearance +rod +slider")
# The clearance joint gives the same results under joints: (the shipped case) and forces:,
# bit for bit, with non-default keys that change the run.
add_test(NAME case_clearance_placement
  COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_clearance_placement.py
          $<TARGET_FILE:flexmb_cli> ${FMB_SRC})
# Unit plausibility and beam frequencies in `flexmb check`: unit slips named (E in GPa
# written as Pa, ...), no warning on the shipped cases, resonance of a beam with a
# constant-speed drive against the hand cantilever frequency (tests/test_check_units.py).
foreach(t slips shipped resonance)
  add_test(NAME check_units_${t}
    COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_check_units.py
            $<TARGET_FILE:flexmb_cli> ${FMB_SRC}/cases ${t})
endforeach()

# At most 10,000 parameters (their lookups are linear): refused at the first one over,
# at once; 10,000 load.
add_test(NAME case_param_limit
  COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_param_limit.py $<TARGET_FILE:flexmb_cli>)
