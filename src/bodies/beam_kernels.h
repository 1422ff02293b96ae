/* Small sums of the beam's fast path (beam_state.h, beam_fast.c, beam_tangent.c) that skip
 * the exact zeros of a decoupled beam (beam.h `decoupled`). Each returns
 * sum_j X[i + step j] x[j] accumulated exactly as the dense loop
 * `mu = 0; for j = 0..5: mu += X[i + step j] x[j]` does, minus the terms whose X entry is
 * an exact zero: such a product is +-0 and adds nothing to a sum that starts at +0
 * (x + (+-0) = x for x != 0, +0 + (-0) = +0), so the result is the dense one for finite x
 * (a non-finite x still makes the kernels' results non-finite through its nonzero terms).
 * Tests compare the fast path with the plain reference (beam.c, beam_inertia.c) to
 * rounding (tests/test_beam_cache.c, test_beam_resid.c). */
#ifndef FMB_BODIES_BEAM_KERNELS_H
#define FMB_BODIES_BEAM_KERNELS_H

#include "bodies/beam.h"

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

#endif
