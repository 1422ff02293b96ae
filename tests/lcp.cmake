# Dense LCP solver tests (src/contact/lcp.c, docs/lcp.md). Included by tests/CMakeLists.txt.
# Siconos lexicographic Lemke against the brute-force enumeration of complementary bases:
# random P-matrices, degenerate problems, LCPs without solution, and the slider's 2x2
# corner-force LCP solved by hand.
fmb_c_test(test_lcp)
foreach(t random_pmatrix degenerate no_solution slider_2x2)
  add_test(NAME lcp_${t} COMMAND test_lcp lcp_${t})
endforeach()
