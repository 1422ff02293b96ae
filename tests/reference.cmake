# Independent reference of the quick-return linkage (tests/reference/README.md): its own
# executable, sharing no code with the library (libc, libm, LAPACK only).
add_executable(qr_reference ${CMAKE_CURRENT_SOURCE_DIR}/reference/qr_reference.c)
target_compile_options(qr_reference PRIVATE ${FMB_WARNINGS})
target_link_libraries(qr_reference PRIVATE ${LAPACK_LIBRARIES} m)
