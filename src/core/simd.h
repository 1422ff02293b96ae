/*
 * Two-lane double vectors for loops that must give the scalar loop's bits (private).
 *
 * With GCC's vector types (GCC, Clang) and without FMB_SIMD_SCALAR, FMB_SIMD is defined
 * and fmb_v2d holds two doubles; +, -, * and / on it round each lane as the scalar
 * instruction does (IEEE, no contraction into FMA: the build has no -march, and the
 * callers never reassociate), so a vector form that does the scalar form's operations
 * lane by lane, in the same order, gives the same bits. fabs and the selections are bit
 * operations. Without FMB_SIMD the callers keep their scalar loops (the fallback, and the
 * reference of the tests: tests/test_step_loops.c, tests/test_beam_simd.c).
 */
#ifndef FMB_CORE_SIMD_H
#define FMB_CORE_SIMD_H

#include <string.h>

#if defined(__GNUC__) && !defined(FMB_SIMD_SCALAR)
#define FMB_SIMD 1
#ifdef __SSE2__
#include <emmintrin.h>
#endif
typedef double fmb_v2d __attribute__((vector_size(16)));
typedef long long fmb_v2i __attribute__((vector_size(16)));

static inline fmb_v2d fmb_v2_ld(const double *p) /* unaligned */
{
    fmb_v2d x;
    memcpy(&x, p, sizeof x);
    return x;
}
static inline void fmb_v2_st(double *p, fmb_v2d x)
{
    memcpy(p, &x, sizeof x);
}
static inline fmb_v2d fmb_v2_set(double a, double b) /* lanes (a, b) */
{
    const fmb_v2d x = {a, b};
    return x;
}
static inline fmb_v2d fmb_v2_splat(double a)
{
    return fmb_v2_set(a, a);
}
static inline fmb_v2d fmb_v2_abs(fmb_v2d x) /* fabs: the sign bit cleared */
{
    const fmb_v2i m = {0x7fffffffffffffffLL, 0x7fffffffffffffffLL};
    return (fmb_v2d)((fmb_v2i)x & m);
}
/* Selections: m ? a : b per lane (m all ones or zero). With SSE2 the comparisons and the
 * selection are written as their instructions: GCC turns the generic form of an or of two
 * comparisons into scalar moves, lane by lane. */
#ifdef __SSE2__
typedef __m128d fmb_v2m;
static inline fmb_v2d fmb_v2_sel(fmb_v2m m, fmb_v2d a, fmb_v2d b)
{
    return (fmb_v2d)_mm_or_pd(_mm_and_pd(m, (__m128d)a), _mm_andnot_pd(m, (__m128d)b));
}
static inline fmb_v2m fmb_v2_gt(fmb_v2d a, fmb_v2d b) /* a > b */
{
    return _mm_cmpgt_pd((__m128d)a, (__m128d)b);
}
/* a > b || b != b ? a : b per lane (step.c's fmax_inline) */
static inline fmb_v2d fmb_v2_max(fmb_v2d a, fmb_v2d b)
{
    return fmb_v2_sel(_mm_or_pd(fmb_v2_gt(a, b), _mm_cmpunord_pd((__m128d)b, (__m128d)b)), a, b);
}
#else
typedef fmb_v2i fmb_v2m;
static inline fmb_v2d fmb_v2_sel(fmb_v2m m, fmb_v2d a, fmb_v2d b)
{
    return (fmb_v2d)(((fmb_v2i)a & m) | ((fmb_v2i)b & ~m));
}
static inline fmb_v2m fmb_v2_gt(fmb_v2d a, fmb_v2d b)
{
    return a > b;
}
static inline fmb_v2d fmb_v2_max(fmb_v2d a, fmb_v2d b)
{
    return fmb_v2_sel((a > b) | (b != b), a, b);
}
#endif
#endif

#endif
