# Expressions (src/model/expr_*.c, docs/case-format.md "Expressions"). Included by
# tests/CMakeLists.txt. Hand values on both sides of every switch, derivatives against
# analytic ones and central differences, compile errors, libmatheval compatibility.
fmb_c_test(test_expr)
foreach(t values derivs errors compat)
  add_test(NAME expr_${t} COMMAND test_expr ${t})
endforeach()
