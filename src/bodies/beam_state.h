/* The fast path's element inertia state, part by part (beam_inertia.c's header gives the
 * equations and its plain reference form; fmb_beam_istate_t in beam_internal.h), inline so
 * that the element loops of beam_fast.c and beam_tangent.c compute a state in the same pass
 * as its consumers use it, with the decoupled kernels (beam_kernels.h). */
#ifndef FMB_BODIES_BEAM_STATE_H
#define FMB_BODIES_BEAM_STATE_H

#include "bodies/beam_internal.h"
#include "bodies/beam_kernels.h"

/* FMB_BEAM_INLINE: always inlined, so that a caller's constant `dec` (bm->decoupled)
 * specializes the code; FMB_BEAM_UNROLL: the 6-slot loops unrolled, so that a slot's class
 * (fmb_beam_axial) is a constant and the decoupled kernels are straight-line code. Neither
 * changes an operation or its order (docs/performance.md "The residual's beam pass"). */
#if defined(__GNUC__)
#define FMB_BEAM_INLINE static inline __attribute__((always_inline))
#define FMB_BEAM_UNROLL _Pragma("GCC unroll 6")
#else
#define FMB_BEAM_INLINE static inline
#define FMB_BEAM_UNROLL
#endif

/* Element e's six local dofs (u1 v1 phi1 u2 v2 phi2) of a body vector x (removed dofs 0).
 * The dof map numbers the free dofs in node order, so d[5] - d[0] = 5 with d[0] free means
 * all six free and consecutive (an inner element): read them in a row. */
FMB_BEAM_INLINE void fmb_beam_gather6(const int *d, const double *x, double u[6])
{
    if (d[0] >= 0 && d[5] - d[0] == 5) {
        const double *xe = x + d[0];
        FMB_BEAM_UNROLL
        for (int i = 0; i < 6; i++)
            u[i] = xe[i];
        return;
    }
    FMB_BEAM_UNROLL
    for (int i = 0; i < 6; i++)
        u[i] = d[i] >= 0 ? x[d[i]] : 0.0;
}

/* The parts of an element's inertia state (fmb_beam_istate_t's groups), each from the
 * parts before it: position part (r, U, Pm, pU) from q; FMB_IS_MASS (g, J); rates (Vm, W,
 * hU) from qd; FMB_IS_TANGENT (Mff Ud). The _d forms take dec = bm->decoupled. */
FMB_BEAM_INLINE void fmb_beam_state_q_d(int dec, const fmb_beam_t *bm, int e, const double *q,
                                        fmb_beam_istate_t *s)
{
    const fmb_beam_elem_t *el = bm->el + e;
    const double *Mff = el->Mff;
    s->r[0] = q[0], s->r[1] = q[1];
    fmb_beam_gather6(bm->dof + 3 * e, q, s->U);
    const double *r = s->r, *U = s->U;
    const double SU[2] = {fmb_beam_srow_d(dec, el->Sx, 1, U), fmb_beam_srow_d(dec, el->Sy, 0, U)};
    s->Pm[0] = el->m * r[0] + el->s0[0] + SU[0];
    s->Pm[1] = el->m * r[1] + el->s0[1] + SU[1];
    FMB_BEAM_UNROLL
    for (int i = 0; i < 6; i++) {
        const double mu = fmb_beam_row_d(dec, Mff, i, 0, U);
        s->pU[i] = fmb_beam_sxy(dec, i, el->Sx[i], r[0], el->Sy[i], r[1]) + el->s1[i] + mu;
    }
}

FMB_BEAM_INLINE void fmb_beam_state_mass_d(int dec, const fmb_beam_t *bm, int e,
                                           fmb_beam_istate_t *s)
{
    const fmb_beam_elem_t *el = bm->el + e;
    const double *Sb = el->Sb, *r = s->r, *U = s->U;
    double J = s->Pm[0] * r[0] + s->Pm[1] * r[1] + r[0] * el->s0[0] + r[1] * el->s0[1] + el->J0;
    FMB_BEAM_UNROLL
    for (int i = 0; i < 6; i++) {
        const double sbu = fmb_beam_row_d(dec, Sb, i, 1, U);
        s->g[i] = fmb_beam_sxy(dec, i, -el->Sx[i], r[1], el->Sy[i], r[0]) + el->c1[i] + sbu;
        J += U[i] * (el->s1[i] + s->pU[i]);
    }
    s->J = J;
}

FMB_BEAM_INLINE void fmb_beam_state_rate_d(int dec, const fmb_beam_t *bm, int e, const double *qd,
                                           fmb_beam_istate_t *s)
{
    const fmb_beam_elem_t *el = bm->el + e;
    const double *Sb = el->Sb;
    s->rd[0] = qd[0], s->rd[1] = qd[1], s->thd = qd[2];
    fmb_beam_gather6(bm->dof + 3 * e, qd, s->Ud);
    const double *rd = s->rd, *Ud = s->Ud;
    const double SUd[2] = {fmb_beam_srow_d(dec, el->Sx, 1, Ud),
                           fmb_beam_srow_d(dec, el->Sy, 0, Ud)};
    s->Vm[0] = el->m * rd[0] + SUd[0], s->Vm[1] = el->m * rd[1] + SUd[1];
    double W = s->Pm[0] * rd[0] + s->Pm[1] * rd[1];
    FMB_BEAM_UNROLL
    for (int i = 0; i < 6; i++) {
        const double sbu = fmb_beam_row_d(dec, Sb, i, 1, Ud);
        s->hU[i] = fmb_beam_sxy(dec, i, -el->Sx[i], rd[1], el->Sy[i], rd[0]) + sbu;
        W += s->pU[i] * Ud[i];
    }
    s->W = W;
}

FMB_BEAM_INLINE void fmb_beam_state_tangent_d(int dec, const fmb_beam_t *bm, int e,
                                              fmb_beam_istate_t *s)
{
    const double *Mff = bm->el[e].Mff;
    FMB_BEAM_UNROLL
    for (int i = 0; i < 6; i++)
        s->MUd[i] = fmb_beam_row_d(dec, Mff, i, 0, s->Ud);
}

/* Element e's missing parts in their order (the same operations as part by part over all
 * elements: bitwise equal). */
FMB_BEAM_INLINE void fmb_beam_state_d(int dec, const fmb_beam_t *bm, int e, const double *q,
                                      const double *qd, const fmb_beam_plan_t *p,
                                      fmb_beam_istate_t *st)
{
    if (!p->doq && !p->need) return;
    if (p->doq) fmb_beam_state_q_d(dec, bm, e, q, st);
    if (p->need & FMB_IS_MASS) fmb_beam_state_mass_d(dec, bm, e, st);
    if (p->need & FMB_IS_FORCE) fmb_beam_state_rate_d(dec, bm, e, qd, st);
    if (p->need & FMB_IS_TANGENT) fmb_beam_state_tangent_d(dec, bm, e, st);
}
static inline void fmb_beam_state(const fmb_beam_t *bm, int e, const double *q, const double *qd,
                                  const fmb_beam_plan_t *p, fmb_beam_istate_t *st)
{
    fmb_beam_state_d(bm->decoupled, bm, e, q, qd, p, st);
}

/* out (9) = M_e v and the inertia force Q_e (9) with a = A^T g (beam_inertia.c's header;
 * fmb_beam_inertia_mv / fmb_beam_inertia_q there are the plain reference forms). */
FMB_BEAM_INLINE void fmb_beam_inertia_mv_d(int dec, const fmb_beam_t *bm, int e,
                                           const fmb_beam_istate_t *s, const double v[9],
                                           double out[9])
{
    const fmb_beam_elem_t *el = bm->el + e;
    const double *Mff = el->Mff, *vU = v + 3;
    const double itp[2] = {-s->Pm[1], s->Pm[0]}; /* Itil Pm */
    out[0] = el->m * v[0] + itp[0] * v[2];
    out[1] = el->m * v[1] + itp[1] * v[2];
    out[2] = itp[0] * v[0] + itp[1] * v[1] + s->J * v[2];
    if (dec) { /* the same sums without S's exact zeros (beam_kernels.h) */
        out[0] += el->Sx[0] * vU[0], out[0] += el->Sx[3] * vU[3];
        out[1] += el->Sy[1] * vU[1], out[1] += el->Sy[2] * vU[2];
        out[1] += el->Sy[4] * vU[4], out[1] += el->Sy[5] * vU[5];
    } else {
        for (int i = 0; i < 6; i++)
            out[0] += el->Sx[i] * vU[i], out[1] += el->Sy[i] * vU[i];
    }
    FMB_BEAM_UNROLL
    for (int i = 0; i < 6; i++) {
        out[2] += s->g[i] * vU[i];
        double mv = fmb_beam_sxy(dec, i, el->Sx[i], v[0], el->Sy[i], v[1]) + s->g[i] * v[2];
        if (dec) {
            const int ax = fmb_beam_axial(i);
            if (ax) {
                mv += Mff[i] * vU[0];
                mv += Mff[i + 18] * vU[3];
            } else {
                mv += Mff[i + 6] * vU[1];
                mv += Mff[i + 12] * vU[2];
                mv += Mff[i + 24] * vU[4];
                mv += Mff[i + 30] * vU[5];
            }
        } else {
            for (int j = 0; j < 6; j++)
                mv += Mff[i + 6 * j] * vU[j];
        }
        out[3 + i] = mv;
    }
}

FMB_BEAM_INLINE void fmb_beam_inertia_q_d(int dec, const fmb_beam_t *bm, int e,
                                          const fmb_beam_istate_t *s, const double a[2],
                                          double Q[9])
{
    const fmb_beam_elem_t *el = bm->el + e;
    const double th = s->thd, t2 = th * th;
    /* -2 thd Itil Vm = 2 thd (Vm_y, -Vm_x) */
    Q[0] = el->m * a[0] + 2 * th * s->Vm[1] + t2 * s->Pm[0];
    Q[1] = el->m * a[1] - 2 * th * s->Vm[0] + t2 * s->Pm[1];
    Q[2] = -s->Pm[1] * a[0] + s->Pm[0] * a[1] - 2 * th * s->W;
    FMB_BEAM_UNROLL
    for (int i = 0; i < 6; i++)
        Q[3 + i] = fmb_beam_sxy(dec, i, el->Sx[i], a[0], el->Sy[i], a[1]) - 2 * th * s->hU[i] +
                   t2 * s->pU[i];
}

#endif
