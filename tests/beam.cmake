# Beam validation tests (docs/validation.md, "Beams"). Included by tests/CMakeLists.txt.
# Natural frequencies, static deflection under a point load, a slow slider on an elastic
# guide, energy order of a free spinning beam, slider crossing element ends.
fmb_c_test(test_beam)
foreach(t modes_pinned modes_cantilever static_point_load moving_slider spin_energy
          slider_crossing)
  add_test(NAME beam_${t} COMMAND test_beam ${t})
endforeach()

# Large beams: CHOLMOD subspace iteration against dense LAPACK and theory.
fmb_c_test(test_modes_sparse)
add_test(NAME beam_modes_sparse COMMAND test_modes_sparse)
