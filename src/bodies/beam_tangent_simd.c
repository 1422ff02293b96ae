/*
 * The two-lane form of the beam's tangent list's constant part (beam_tangent.c
 * fmb_beam_tangent_constants is the scalar form; core/simd.h the vectors). The list's
 * constants are stored in pairs (beam_tangent.c pack_run: the terms of entries 2k and
 * 2k + 1 interleaved), so that each term of a pair is one two-lane vector: a pair's values
 * are one vector operation per term, with the scalar form's operations per lane in its
 * order. The places of a run ascend, so first and last one apart by n - 1 means
 * consecutive (the rows of U when the column's other entries, joints and multipliers, lie
 * outside the body's rows): then a pair is added to the matrix as one vector too.
 * Without FMB_SIMD (a compiler without vector types, or FMB_SIMD_SCALAR) the scalar form
 * takes its place: this file is the one place where the form is chosen. tests/
 * test_beam_simd.c compares the two forms to rounding.
 */
#include "bodies/beam_internal.h"
#include "bodies/beam_state.h"
#include "core/simd.h"

#ifdef FMB_SIMD
/* The values of a pair of entries (pack_run's layout). */
FMB_BEAM_INLINE fmb_v2d pair(int nt, const double *X, const double k[4])
{
    fmb_v2d v = k[0] * fmb_v2_ld(X) + k[1] * fmb_v2_ld(X + 2);
    if (nt > 2) v += k[2] * fmb_v2_ld(X + 4);
    if (nt > 3) v += k[3] * fmb_v2_ld(X + 6);
    return v;
}

/* One entry's value k[0] XA + k[1] XB (+ k[2] XK (+ k[3] XC)), its nt terms at stride 1
 * (an odd run's last entry). */
FMB_BEAM_INLINE double entry1(int nt, const double *X, const double k[4])
{
    double v = k[0] * X[0] + k[1] * X[1];
    if (nt > 2) v += k[2] * X[2];
    if (nt > 3) v += k[3] * X[3];
    return v;
}

/* A[pc[i]] += the value of entry i, for a run of n entries (pack_run's pairs, nt terms
 * each); returns the run's end in X. */
FMB_BEAM_INLINE const double *add_run(int nt, int n, const double *X, const double k[4],
                                      const int *pc, double *A)
{
    int i = 0;
    const int seq = pc[n - 1] - pc[0] == n - 1;
    double *Ac = A + pc[0];
    if (seq)
        for (; i + 2 <= n; i += 2, X += 2 * nt)
            fmb_v2_st(Ac + i, fmb_v2_ld(Ac + i) + pair(nt, X, k));
    else
        for (; i + 2 <= n; i += 2, X += 2 * nt) {
            const fmb_v2d v = pair(nt, X, k);
            A[pc[i]] += v[0], A[pc[i + 1]] += v[1];
        }
    if (i < n) A[pc[i]] += entry1(nt, X, k), X += nt;
    return X;
}

void fmb_beam_tangent_constants_v2(const fmb_beam_t *bm, const double kc[4], const int *pos,
                                   double *A)
{
    const int *Jp = bm->tJp, nv = bm->tnv;
    const double *X = bm->tX;
    /* the coefficients in a local copy: the adds into A cannot change them, so they stay
     * in registers (through kc, every store into A would reload them) */
    const double k[4] = {kc[0], kc[1], kc[2], kc[3]};
    for (int c = 0; c < bm->ndof; c++) {
        if (c == 2) continue;
        const int e0 = Jp[c], n = Jp[c + 1] - e0 - 3;
        X = add_run(2, 2, X, k, pos + e0, A); /* (rbar, rbar) and (rbar, U) */
        if (n <= 0) continue;
        if (c < 3) /* (U, rbar): alpha S + beta S */
            X = add_run(2, n, X, k, pos + e0 + 3, A);
        else if (nv == 3)
            X = add_run(3, n, X, k, pos + e0 + 3, A);
        else
            X = add_run(4, n, X, k, pos + e0 + 3, A);
    }
}
#else
/* Without vectors: the scalar form. */
void fmb_beam_tangent_constants_v2(const fmb_beam_t *bm, const double k[4], const int *pos,
                                   double *A)
{
    fmb_beam_tangent_constants(bm, k, pos, A);
}
#endif
