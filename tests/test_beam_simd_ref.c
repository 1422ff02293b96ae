/* The reference of tests/test_beam_simd.c: the beam's class (beam.c, which the tangent
 * list calls) and its tangent list (beam_tangent.c) compiled with FMB_SIMD_SCALAR
 * (tests/beam.cmake), i.e. the scalar forms, under ref_ names next to the library's
 * vector forms. */
#ifndef FMB_SIMD_SCALAR
#error "compile with FMB_SIMD_SCALAR"
#endif
#define fmb_beam_body_class ref_beam_body_class
#define fmb_beam_tangent_pattern ref_beam_tangent_pattern
#define fmb_beam_tangent_build ref_beam_tangent_build
#define fmb_beam_tangent_add ref_beam_tangent_add
#include "bodies/beam.c"
#include "bodies/beam_tangent.c"
