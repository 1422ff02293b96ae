# Class tables (docs/extending.md): a joint class defined in one test file and
# registered with one line is loaded from a case with its own keys, run and written; its
# reaction and motion are checked against the hand solution of a body on a rod.
fmb_c_test(test_joint_class)
target_include_directories(test_joint_class PRIVATE ${HDF5_INCLUDE_DIRS})
target_link_libraries(test_joint_class PRIVATE ${HDF5_C_LIBRARIES})
add_test(NAME joint_class_dummy COMMAND test_joint_class ${CMAKE_CURRENT_BINARY_DIR})
# The documented case keys (docs/case-format.md) are the class tables' keys and defaults.
fmb_c_test(test_class_docs)
add_test(NAME class_keys_documented COMMAND test_class_docs ${FMB_SRC}/docs/case-format.md)
# `flexmb keys`: the keys printed from the tables against the values the docs state.
add_test(NAME cli_keys COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_keys.py
         $<TARGET_FILE:flexmb_cli> ${FMB_SRC}/docs/case-format.md)

# Library descriptions against the class tables (docs/extending.md, "Library users").
fmb_c_test(test_model_params)
foreach(t forces friction)
  add_test(NAME model_params_${t} COMMAND test_model_params ${t})
endforeach()
# Gear pair against the hand solution of two geared wheels (start accelerations and tooth
# force, motion under a cosine torque with its order, energy balance, case keys).
fmb_c_test(test_gear)
foreach(p start run case)
  add_test(NAME gear_${p} COMMAND test_gear ${p})
endforeach()
