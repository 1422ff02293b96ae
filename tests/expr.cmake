# Expressions (src/model/expr_*.c, docs/case-format.md "Expressions"). Included by
# tests/CMakeLists.txt. Hand values on both sides of every switch, derivatives against
# analytic ones and central differences, compile errors, libmatheval compatibility.
fmb_c_test(test_expr)
foreach(t values derivs errors compat tables)
  add_test(NAME expr_${t} COMMAND test_expr ${t})
endforeach()

# Expression and table errors in case files: FILE:LINE:COL (the column of the problem in
# a one-line value), the function or the table file and its row (tests/bad_cases/).
fmb_case_error(expr_unknown_function 12 ":12:25: joint 'motor': 'function': cannot parse expression 'omega*t + foo(t)': unknown function 'foo'")
fmb_case_error(expr_arg_count 12 ":12:15: joint 'motor': 'function': cannot parse expression 'atan2(omega*t)': atan2() takes 2 arguments, not 1")
fmb_case_error(table_missing 12 "tables/none.csv): No such file or directory")
fmb_case_error(table_unreadable 12 "cannot read table 'tables' (${FMB_CASE_BAD}/tables): a directory, not a file")
fmb_case_error(table_non_numeric 12 "table 'tables/non_numeric.csv': row 4, column 2 (y): not a finite number")
# a table's cells are named by row and column, never quoted: any readable file can be named
fmb_check_error(case_error_table_foreign ${FMB_CASE_BAD}/table_foreign.yaml 12
  "table 'tables/foreign.csv': row 2, column 1 (x): not a finite number" ABSENT "AKIA")
fmb_case_error(table_one_row 12 "table 'tables/one_row.csv': fewer than two data rows (found 1)")
fmb_case_error(table_not_increasing 12 "table 'tables/not_increasing.csv': row 5, column 1 (x): not greater than the x of the row before")
fmb_case_error(table_columns 12 "table 'tables/columns.csv': row 3: expected two columns")

# Drivers through the integrator: step/step5/if ramps against hand formulas, table and
# spline drivers (interpolation bound), /solver attributes of the three integrators and
# the table checksums, a NaN driver named with its expression and time, the example
# cases/motor_profile.yaml against its closed form.
add_test(NAME expr_drivers COMMAND ${FMB_TEST_PY} ${CMAKE_CURRENT_SOURCE_DIR}/test_expr_drivers.py
         $<TARGET_FILE:flexmb_cli> ${FMB_SRC})
fmb_case_check(motor_profile 9 9 0)   # slider-crank: 3 bodies, 3 revolutes + prismatic + driver
