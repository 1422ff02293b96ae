# Shared conformance test of every body, joint and force class (function tables
# against finite differences), one ctest per family.
fmb_c_test(test_conformance)
foreach(family joints forces bodies slider friction)
  add_test(NAME conformance_${family} COMMAND test_conformance ${family})
endforeach()
# The revolute joint's fast path (revolute_fast.c) on rigid bodies and ground against
# its reference evaluation (revolute.c), to rounding (tests/test_pin_rigid.c).
fmb_c_test(test_pin_rigid)
add_test(NAME conformance_pin_rigid COMMAND test_pin_rigid)
# The revolute joint's fast path on beams (kept places of the shape columns, first
# writes) against its reference evaluation to rounding, on default views and on views
# with an extra column (tests/test_pin_beam.c).
fmb_c_test(test_pin_beam)
add_test(NAME conformance_pin_beam COMMAND test_pin_beam)
# The weld joint's fast path (weld_fast.c: kept shape functions, the pins' Hessian) against
# its reference evaluation (weld.c), to rounding, on every pairing (tests/test_weld_fast.c).
fmb_c_test(test_weld_fast)
add_test(NAME conformance_weld_fast COMMAND test_weld_fast)
# Public API: self-contained headers without third-party includes; the CLI uses only them.
add_test(NAME public_api COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_public_api.sh ${FMB_SRC})
# KKT systems (large n = 408, small n = 48): value-independent order (dense carrier rows and
# their multipliers last), fill and manufactured solution (tests/test_kkt_order.c).
fmb_c_test(test_kkt_order)
add_test(NAME kkt_order_arrow COMMAND test_kkt_order)
# Block adds into the KKT matrix and their 1 x 1 form against a dense sum to rounding, mapped,
# first and off-pattern assemblies (tests/test_kkt_block.c).
fmb_c_test(test_kkt_block)
add_test(NAME kkt_block_adds COMMAND test_kkt_block)
# Searched KKT entries one by one (fmb_kkt_addx) and their kept places against a dense sum.
fmb_c_test(test_kkt_addx)
add_test(NAME kkt_addx_places COMMAND test_kkt_addx)
# Fixed lists of KKT entries (a body's one-list tangent) against a dense sum: recorded,
# served straight from the matrix, another list of the same shape, a moved offset, an
# assembly off its pattern before the list (tests/test_kkt_fixed.c).
fmb_c_test(test_kkt_fixed)
add_test(NAME kkt_fixed_lists COMMAND test_kkt_fixed)
# The body rotation cache (model.h fmb_body_rot, fmb_view_rot) against libm cos/sin bit for
# bit: hits, misses, -0 / +0 and NaN angles (tests/test_rot_cache.c).
fmb_c_test(test_rot_cache)
add_test(NAME rot_cache_bits COMMAND test_rot_cache)
# Blocks of searched KKT entries (fmb_kkt_addx_block) and their kept places against a dense
# sum to rounding and the per-entry searched adds' pattern (tests/test_kkt_addx_block.c).
fmb_c_test(test_kkt_addx_block)
add_test(NAME kkt_addx_block_places COMMAND test_kkt_addx_block)
# A joint's J, J^T and points' Hessian in one KKT call (fmb_kkt_add_joint) against a dense sum
# to rounding and the pattern of the same entries through the block calls
# (tests/test_kkt_add_joint.c).
fmb_c_test(test_kkt_add_joint)
add_test(NAME kkt_add_joint COMMAND test_kkt_add_joint)
