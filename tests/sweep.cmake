# flexmb sweep: parameter studies (tests/test_sweep.py says what each checks against)
foreach(t grid counts failing resume badinput yaml metrics plot)
  add_test(NAME sweep_${t}
    COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_sweep.py $<TARGET_FILE:flexmb_cli>
            ${CMAKE_SOURCE_DIR}/cases ${t})
endforeach()
find_program(FMB_MPIRUN mpirun)
if(FMB_HAVE_MPI AND FMB_MPIRUN)
  add_test(NAME sweep_mpi
    COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_sweep.py $<TARGET_FILE:flexmb_cli>
            ${CMAKE_SOURCE_DIR}/cases mpi)
  # OpenMPI's own allocations outlive MPI_Finalize: not ours to report under ASan
  set_tests_properties(sweep_mpi PROPERTIES ENVIRONMENT
    "LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_SOURCE_DIR}/lsan_mpi.supp")

endif()
