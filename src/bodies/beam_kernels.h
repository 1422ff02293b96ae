/* Small sums of the beam kernels (beam_inertia.c, beam.c) that skip the exact zeros of a
 * decoupled beam (beam.h `decoupled`). Each returns sum_j X[i + step j] x[j] accumulated
 * exactly as the dense loop `mu = 0; for j = 0..5: mu += X[i + step j] x[j]` does, minus
 * the terms whose X entry is an exact zero: such a product is +-0 and adds nothing to a
 * sum that starts at +0 (x + (+-0) = x for x != 0, +0 + (-0) = +0), so the result is
 * bitwise the dense one for finite x (a non-finite x still makes the kernels' results
 * non-finite through its nonzero terms). */
#ifndef FMB_BODIES_BEAM_KERNELS_H
#define FMB_BODIES_BEAM_KERNELS_H

#include "bodies/beam.h"
#include "core/simd.h"

/* Slot classes: axial u1, u2 (slots 0, 3); bending v1, phi1, v2, phi2 (1, 2, 4, 5). */
static inline int fmb_beam_axial(int i)
{
    return i == 0 || i == 3;
}

/* The sum over the columns j of class `axial` (1: 0, 3; 0: 1, 2, 4, 5). */
static inline double fmb_beam_dot_class(const double *X, int i, int step, int axial,
                                        const double *x)
{
    double mu = 0.0;
    if (axial) {
        mu += X[i] * x[0];
        mu += X[i + 3 * step] * x[3];
    } else {
        mu += X[i + step] * x[1];
        mu += X[i + 2 * step] * x[2];
        mu += X[i + 4 * step] * x[4];
        mu += X[i + 5 * step] * x[5];
    }
    return mu;
}

/* sx x + sy y with S's entries (sx, sy) = (Sx[i], Sy[i]) of slot i: a decoupled beam's
 * S has its x row on the axial slots and its y row on the bending ones (exact zeros
 * elsewhere), so only one product is nonzero. Dropping the other, +-0, leaves the sum as it
 * is, except that an exact zero sum may change its sign (its use in further sums, all of
 * them beginning with this one, is the same). */
static inline double fmb_beam_sxy(int dec, int i, double sx, double x, double sy, double y)
{
    if (!dec) return sx * x + sy * y;
    return fmb_beam_axial(i) ? sx * x : sy * y;
}

/* The dense sum over j = 0..5. */
static inline double fmb_beam_dot_dense(const double *X, int i, int step, const double *x)
{
    double mu = 0.0;
    for (int j = 0; j < 6; j++)
        mu += X[i + step * j] * x[j];
    return mu;
}

/* Row i of a 6 x 6 column-major element matrix times x: Mff or k_e (cross 0: a decoupled
 * beam's row couples its own class) or Sbar (cross 1: the other class). The _d forms take
 * `dec` (bm->decoupled) as an argument, so that a loop specialized on a constant dec and
 * unrolled over i is straight-line code (beam_state.h FMB_BEAM_DEC). */
static inline double fmb_beam_row_d(int dec, const double *X, int i, int cross, const double *x)
{
    if (!dec) return fmb_beam_dot_dense(X, i, 6, x);
    return fmb_beam_dot_class(X, i, 6, fmb_beam_axial(i) != cross, x);
}
static inline double fmb_beam_row(const fmb_beam_t *bm, const double *X, int i, int cross,
                                  const double *x)
{
    return fmb_beam_row_d(bm->decoupled, X, i, cross, x);
}

/* S's x row (axial = 1) or y row (axial = 0) times x. */
static inline double fmb_beam_srow_d(int dec, const double *S, int axial, const double *x)
{
    if (!dec) return fmb_beam_dot_dense(S, 0, 1, x);
    return fmb_beam_dot_class(S, 0, 1, axial, x);
}
static inline double fmb_beam_srow(const fmb_beam_t *bm, const double *S, int axial,
                                   const double *x)
{
    return fmb_beam_srow_d(bm->decoupled, S, axial, x);
}

#ifdef FMB_SIMD
/* Two slots per vector (core/simd.h), the lanes (i, i + s) of one class when dec: pair k
 * = 0, 1, 2 of a decoupled beam is (0, 3), (1, 2), (4, 5) (axial, bending, bending: each
 * lane takes its slot's terms, the same in both), of a coupled beam (0, 1), (2, 3), (4, 5).
 * The pair forms below do the scalar forms' operations above lane by lane, in their order
 * (the same bits: tests/test_beam_simd.c). */
static inline int fmb_beam_pair_i(int dec, int k)
{
    return dec ? (k == 0 ? 0 : 3 * k - 2) : 2 * k;
}
static inline int fmb_beam_pair_s(int dec, int k)
{
    return dec && k == 0 ? 3 : 1;
}

/* fmb_beam_dot_class / fmb_beam_dot_dense on lanes (i, i + s), from mu (0.0 there). */
static inline fmb_v2d fmb_beam_dot2(fmb_v2d mu, int dec, const double *X, int i, int s, int step,
                                    int axial, const double *x)
{
    if (!dec) {
        for (int j = 0; j < 6; j++)
            mu += fmb_v2_ld2(X + i + step * j, s) * x[j];
    } else if (axial) {
        mu += fmb_v2_ld2(X + i, s) * x[0];
        mu += fmb_v2_ld2(X + i + 3 * step, s) * x[3];
    } else {
        mu += fmb_v2_ld2(X + i + step, s) * x[1];
        mu += fmb_v2_ld2(X + i + 2 * step, s) * x[2];
        mu += fmb_v2_ld2(X + i + 4 * step, s) * x[4];
        mu += fmb_v2_ld2(X + i + 5 * step, s) * x[5];
    }
    return mu;
}

/* fmb_beam_row_d on lanes (i, i + s), from mu. */
static inline fmb_v2d fmb_beam_row2_d(fmb_v2d mu, int dec, const double *X, int i, int s, int cross,
                                      const double *x)
{
    return fmb_beam_dot2(mu, dec, X, i, s, 6, fmb_beam_axial(i) != cross, x);
}

/* fmb_beam_sxy on lanes (i, i + s): sx, sy the lanes' S entries. */
static inline fmb_v2d fmb_beam_sxy2(int dec, int i, fmb_v2d sx, double x, fmb_v2d sy, double y)
{
    if (!dec) return sx * x + sy * y;
    return fmb_beam_axial(i) ? sx * x : sy * y;
}
#endif

#endif
