/* One element's state (all parts), M_e v and Q_e through beam_state.h's kernels, for
 * tests/test_beam_simd.c: included by test_beam_simd.c (the vector forms) and by
 * test_beam_simd_ref.c (compiled with FMB_SIMD_SCALAR: the scalar forms) with
 * FMB_BEAM_SIMD_KERNELS naming the function. */
#include "bodies/beam_state.h"

void FMB_BEAM_SIMD_KERNELS(int dec, const fmb_beam_t *bm, int e, const double *q, const double *qd,
                           const double v[9], const double a[2], fmb_beam_istate_t *st,
                           double mv[9], double Q[9]);
void FMB_BEAM_SIMD_KERNELS(int dec, const fmb_beam_t *bm, int e, const double *q, const double *qd,
                           const double v[9], const double a[2], fmb_beam_istate_t *st,
                           double mv[9], double Q[9])
{
    const fmb_beam_plan_t p = {1, FMB_IS_ALL};
    if (dec) {
        fmb_beam_state_d(1, bm, e, q, qd, &p, st);
        fmb_beam_inertia_mv_d(1, bm, e, st, v, mv);
        fmb_beam_inertia_q_d(1, bm, e, st, a, Q);
    } else {
        fmb_beam_state_d(0, bm, e, q, qd, &p, st);
        fmb_beam_inertia_mv_d(0, bm, e, st, v, mv);
        fmb_beam_inertia_q_d(0, bm, e, st, a, Q);
    }
}
