# flexmb sweep: parameter studies (tests/test_sweep.py says what each checks against)
foreach(t grid counts failing resume badinput yaml variants metrics stress events plot userfiles)
  add_test(NAME sweep_${t}
    COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_sweep.py $<TARGET_FILE:flexmb_cli>
            ${CMAKE_SOURCE_DIR}/cases ${t})
endforeach()
find_program(FMB_MPIRUN mpirun)
if(FMB_HAVE_MPI AND FMB_MPIRUN)
  add_test(NAME sweep_mpi
    COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_sweep.py $<TARGET_FILE:flexmb_cli>
            ${CMAKE_SOURCE_DIR}/cases mpi)
  # ASan builds: OpenMPI's runtime (PMIx, hwloc, its dlopen'ed plugins) leaves allocations
  # after MPI_Finalize that LeakSanitizer cannot even symbolize, so no suppression list
  # catches them; leaks are not checked here (the sweep code this test shares with the
  # local sweep is leak-checked by the other sweep_* tests). Memory errors still are.
  set_tests_properties(sweep_mpi PROPERTIES ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
endif()
# Validity in every summary: edge peaks, warnings, error ratio, energy drift ratio in
# run, run -q, /solver/statistics and summary.csv / summary.h5; plot_sweep.py's flagged
# points (tests/test_validity.py says what each checks against).
foreach(t edge warnings error energy)
  add_test(NAME validity_${t}
    COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_validity.py
            $<TARGET_FILE:flexmb_cli> ${FMB_SRC} ${t})
endforeach()
