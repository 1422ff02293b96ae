# Switching elements (seed 004; docs/switching.md, docs/validation.md "Switching
# elements"). Included by tests/CMakeLists.txt. One binary, one ctest entry per sub-test.
fmb_c_test(test_switching)
foreach(t brake ratchet gap screw)
  add_test(NAME switching_${t} COMMAND test_switching ${t})
endforeach()
# the seed's system (cases/switching.yaml), 8 s: properties independent of its parameters
add_test(NAME switching_seed COMMAND test_switching seed ${FMB_SRC}/cases/switching.yaml)
