/* An element's inertia state, part by part (beam_inertia.c's header gives the equations;
 * fmb_beam_istate_t in beam_internal.h), inline so that the element loops of beam.c and
 * beam_inertia.c compute a state in the same pass as its consumers use it. */
#ifndef FMB_BODIES_BEAM_STATE_H
#define FMB_BODIES_BEAM_STATE_H

#include "bodies/beam_internal.h"
#include "bodies/beam_kernels.h"

/* The parts of an element's inertia state (fmb_beam_istate_t's groups), each from the
 * parts before it: position part (r, U, Pm, pU) from q; FMB_IS_MASS (g, J); rates (Vm, W,
 * hU) from qd; FMB_IS_TANGENT (Mff Ud). */
static inline void fmb_beam_state_q(const fmb_beam_t *bm, int e, const double *q,
                                    fmb_beam_istate_t *s)
{
    const fmb_beam_elem_t *el = bm->el + e;
    const double *Mff = fmb_beam_me(bm, e);
    const int *d = bm->dof + 3 * e;
    s->r[0] = q[0], s->r[1] = q[1];
    for (int i = 0; i < 6; i++)
        s->U[i] = d[i] >= 0 ? q[d[i]] : 0.0;
    const double *r = s->r, *U = s->U;
    const double SU[2] = {fmb_beam_srow(bm, el->Sx, 1, U), fmb_beam_srow(bm, el->Sy, 0, U)};
    s->Pm[0] = el->m * r[0] + el->s0[0] + SU[0];
    s->Pm[1] = el->m * r[1] + el->s0[1] + SU[1];
    for (int i = 0; i < 6; i++) {
        const double mu = fmb_beam_row(bm, Mff, i, 0, U);
        s->pU[i] = el->Sx[i] * r[0] + el->Sy[i] * r[1] + el->s1[i] + mu;
    }
}

static inline void fmb_beam_state_mass(const fmb_beam_t *bm, int e, fmb_beam_istate_t *s)
{
    const fmb_beam_elem_t *el = bm->el + e;
    const double *Sb = fmb_beam_sb(bm, e), *r = s->r, *U = s->U;
    double J = s->Pm[0] * r[0] + s->Pm[1] * r[1] + r[0] * el->s0[0] + r[1] * el->s0[1] + el->J0;
    for (int i = 0; i < 6; i++) {
        const double sbu = fmb_beam_row(bm, Sb, i, 1, U);
        s->g[i] = -el->Sx[i] * r[1] + el->Sy[i] * r[0] + el->c1[i] + sbu;
        J += U[i] * (el->s1[i] + s->pU[i]);
    }
    s->J = J;
}

static inline void fmb_beam_state_rate(const fmb_beam_t *bm, int e, const double *qd,
                                       fmb_beam_istate_t *s)
{
    const fmb_beam_elem_t *el = bm->el + e;
    const double *Sb = fmb_beam_sb(bm, e);
    const int *d = bm->dof + 3 * e;
    s->rd[0] = qd[0], s->rd[1] = qd[1], s->thd = qd[2];
    for (int i = 0; i < 6; i++)
        s->Ud[i] = d[i] >= 0 ? qd[d[i]] : 0.0;
    const double *rd = s->rd, *Ud = s->Ud;
    const double SUd[2] = {fmb_beam_srow(bm, el->Sx, 1, Ud), fmb_beam_srow(bm, el->Sy, 0, Ud)};
    s->Vm[0] = el->m * rd[0] + SUd[0], s->Vm[1] = el->m * rd[1] + SUd[1];
    double W = s->Pm[0] * rd[0] + s->Pm[1] * rd[1];
    for (int i = 0; i < 6; i++) {
        const double sbu = fmb_beam_row(bm, Sb, i, 1, Ud);
        s->hU[i] = -el->Sx[i] * rd[1] + el->Sy[i] * rd[0] + sbu;
        W += s->pU[i] * Ud[i];
    }
    s->W = W;
}

static inline void fmb_beam_state_tangent(const fmb_beam_t *bm, int e, fmb_beam_istate_t *s)
{
    const double *Mff = fmb_beam_me(bm, e);
    for (int i = 0; i < 6; i++)
        s->MUd[i] = fmb_beam_row(bm, Mff, i, 0, s->Ud);
}

/* Element e's missing parts in their order (the same operations as part by part over all
 * elements: bitwise equal). */
static inline void fmb_beam_state(const fmb_beam_t *bm, int e, const double *q, const double *qd,
                                  const fmb_beam_plan_t *p, fmb_beam_istate_t *st)
{
    if (!p->doq && !p->need) return;
    if (p->doq) fmb_beam_state_q(bm, e, q, st);
    if (p->need & FMB_IS_MASS) fmb_beam_state_mass(bm, e, st);
    if (p->need & FMB_IS_FORCE) fmb_beam_state_rate(bm, e, qd, st);
    if (p->need & FMB_IS_TANGENT) fmb_beam_state_tangent(bm, e, st);
}

#endif
