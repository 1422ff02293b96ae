# Beam validation tests (docs/validation.md, "Beams"). Included by tests/CMakeLists.txt.
# Natural frequencies, static deflection under a point load, a slow slider on an elastic
# guide, energy order of a free spinning beam, slider crossing element ends.
fmb_c_test(test_beam)
foreach(t modes_pinned modes_cantilever static_point_load moving_slider spin_energy
          damped_energy slider_crossing)
  add_test(NAME beam_${t} COMMAND test_beam ${t})
endforeach()

# Large beams: CHOLMOD subspace iteration against dense LAPACK and theory.
fmb_c_test(test_modes_sparse)
add_test(NAME beam_modes_sparse COMMAND test_modes_sparse)

# Geometrically nonlinear (co-rotational) beams: element kernel vs finite differences,
# the elastica, the frequency of an axially loaded bar, a slider on the elastica
# (tests/test_beam_nonlinear.c).
fmb_c_test(test_beam_nonlinear)
foreach(t corot_fd elastica axial_frequency slider_elastica)
  add_test(NAME beam_nl_${t} COMMAND test_beam_nonlinear ${t})
endforeach()

# Initial elastic states and nonlinear beams in dynamic runs (tests/test_beam_nl_dynamics.c).
fmb_c_test(test_beam_nl_dynamics)
foreach(t initial_mode spin_energy spin_up)
  add_test(NAME beam_nl_${t} COMMAND test_beam_nl_dynamics ${t})
endforeach()

# Beam inertia from per-element shape integrals against a direct Gauss quadrature of the
# formulas in src/bodies/beam.c's header (tests/test_beam_inertia.c).
fmb_c_test(test_beam_inertia)
foreach(t linear rotary corot)
  add_test(NAME beam_inertia_${t} COMMAND test_beam_inertia ${t})
endforeach()
# Rounding floor of a fine mesh's elastic force: exact cubic deflection, interior nodal forces
# exactly zero (tests/test_beam_floor.c).
fmb_c_test(test_beam_floor)
add_test(NAME beam_force_floor COMMAND test_beam_floor)
# The beam's element-state cache and decoupled kernels: equal to cold, dense evaluations
# (tests/test_beam_cache.c).
fmb_c_test(test_beam_cache)
add_test(NAME beam_state_cache COMMAND test_beam_cache)
# The beam's iteration matrix as one list (beam_tangent.c) against the element blocks it
# replaced, through the KKT assembly over an adaptive run with changing coefficients and
# pattern rebuilds (tests/test_beam_tangent.c).
fmb_c_test(test_beam_tangent)
target_compile_definitions(test_beam_tangent PRIVATE FMB_SOURCE_DIR="${FMB_SRC}")
add_test(NAME beam_tangent_list COMMAND test_beam_tangent)
# The beam's list at consecutive and at spread places (bit for bit the same), undamped and
# damped, against the element blocks (tests/test_beam_tangent_pos.c).
fmb_c_test(test_beam_tangent_pos)
target_compile_definitions(test_beam_tangent_pos PRIVATE FMB_SOURCE_DIR="${FMB_SRC}")
add_test(NAME beam_tangent_places COMMAND test_beam_tangent_pos)

# The residual's body products in one call (model.h mass_forces: beam_fast.c, rigid.c) against
# the reference class's mass_times + forces and against the residual without it, to
# rounding (tests/test_beam_resid.c; docs/performance.md "The residual's beam pass").
fmb_c_test(test_beam_resid)
target_compile_definitions(test_beam_resid PRIVATE FMB_SOURCE_DIR="${FMB_SRC}")
add_test(NAME beam_resid_mass_forces COMMAND test_beam_resid)
# The beam tangent list's two-lane code (beam_tangent_simd.c: its constant part) to
# rounding against its scalar form (beam_tangent.c; tests/test_beam_simd.c).
fmb_c_test(test_beam_simd)
target_compile_definitions(test_beam_simd PRIVATE FMB_SOURCE_DIR="${FMB_SRC}")
add_test(NAME beam_simd_reference COMMAND test_beam_simd)
# Section forces and stresses at the nodes (/beams/<b>/forces, stress; /viz stress) against
# hand values: cantilever with a tip load (M = -P (L - x)) and an axially loaded bar, for
# circle, rectangle, tube and a given c; the co-rotational beam's local forces against its
# deflected equilibrium; the yield warning; section errors (tests/test_stress.py).
foreach(t bent_circle bent_rectangle bent_tube bent_given_c axial_circle axial_rectangle
          combined nonlinear yield errors)
  add_test(NAME beam_stress_${t}
    COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_stress.py
            $<TARGET_FILE:flexmb_cli> ${t})
endforeach()

# A slider running freely along a spinning, bending guide: T + V conserved to the
# integrator's O(h^2) (tests/test_slider_energy.c).
fmb_c_test(test_slider_energy)
add_test(NAME beam_slider_energy COMMAND test_slider_energy)
