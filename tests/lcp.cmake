# Dense LCP solver tests (src/contact/lcp.c, docs/lcp.md). Included by tests/CMakeLists.txt.
# Siconos lexicographic Lemke against the brute-force enumeration of complementary bases:
# random P-matrices, degenerate problems, LCPs without solution, the slider's 2x2
# corner-force LCP solved by hand.
fmb_c_test(test_lcp)
# Until src/contact/*.c is part of the flexmb library (with the Siconos numerics include
# directories and library), build the solver into the test itself.
get_target_property(FMB_LCP_LIB_SOURCES flexmb SOURCES)
if(NOT FMB_LCP_LIB_SOURCES MATCHES "src/contact/lcp\\.c")
  get_filename_component(FMB_LCP_SICONOS_ROOT ${SICONOS_NUMERICS_INCLUDE_DIR} DIRECTORY)
  target_sources(test_lcp PRIVATE ${CMAKE_SOURCE_DIR}/src/contact/lcp.c)
  target_include_directories(test_lcp PRIVATE ${CMAKE_SOURCE_DIR}/include
    ${SICONOS_NUMERICS_INCLUDE_DIR} ${FMB_LCP_SICONOS_ROOT})
  target_link_libraries(test_lcp PRIVATE ${SICONOS_NUMERICS_LIBRARY} m)
endif()
foreach(t random_pmatrix degenerate no_solution slider_2x2)
  add_test(NAME lcp_${t} COMMAND test_lcp lcp_${t})
endforeach()
