/*
 * Beam inertia in closed form from per-element shape integrals (floating-frame inertia
 * invariants, Shabana; the quadrature they replace and the notation: beam.c's header).
 *
 * At a mass point g of element e: p = r + u_g + N_g U (r = rbar, U = U_e the element's six
 * local dofs, removed ones 0), pd = rd + N_g Ud, L = [I2, Itil p, N_g], Itil = [0 -1; 1 0].
 * Every inertia term of beam.c's header is a sum over g of a polynomial of degree <= 2
 * in (r, U), linear in the rates, so it is a closed form in the integrals built once per
 * element (fmb_beam_elem_t): m, s0 = sum w u, J0 = sum w u.u, S = sum w N,
 * s1 = sum w N^T u, c1 = sum w N^T Itil u, Mff = sum w N^T N (= bm->me),
 * Sbar = sum w N^T Itil N (skew). With them (Itil^T x = (x_y, -x_x)):
 *   Pm  = sum w p      = m r + s0 + S U
 *   pU  = sum w N^T p  = S^T r + s1 + Mff U
 *   g   = sum w N^T Itil p = S^T Itil r + c1 + Sbar U
 *   J   = sum w p.p    = Pm.r + r.s0 + J0 + U.s1 + U.pU
 *   Vm  = sum w pd     = m rd + S Ud,    W = sum w p.pd = Pm.rd + pU.Ud
 *   hU  = sum w N^T Itil pd = S^T Itil rd + Sbar Ud
 * Mass (rows/columns r, theta, U):
 *   M = [ m I2      Itil Pm   S   ]
 *       [ (Itil Pm)^T  J      g^T ]
 *       [ S^T        g       Mff ]
 * Force (f = a - 2 thd Itil pd + thd^2 p per unit mass, a = A^T g):
 *   Q_r = m a - 2 thd Itil Vm + thd^2 Pm
 *   Q_theta = (Itil Pm).a - 2 thd W
 *   Q_U = S^T a - 2 thd hU + thd^2 pU
 * dQ/dq (with t = S^T Itil^T a, b = S^T rd + Mff Ud):
 *   [ thd^2 m I2              m Itil^T a   thd^2 S ]
 *   [ (m Itil^T a - 2 thd Vm)^T   -Pm.a    (t - 2 thd b)^T ]
 *   [ thd^2 S^T               t            thd^2 Mff ]
 * dQ/dqd:
 *   [ -2 thd m Itil       -2 Itil Vm + 2 thd Pm    -2 thd Itil S ]
 *   [ -2 thd Pm^T          -2 W                    -2 thd pU^T ]
 *   [ -2 thd S^T Itil      -2 hU + 2 thd pU         -2 thd Sbar ]
 * d(M qdd)/dq (qdd = [rdd, thdd, Udd]; its theta column is 0: M does not depend on theta),
 * with k = m Itil^T rdd + 2 thdd Pm + Itil^T S Udd, h = S^T Itil^T rdd + 2 thdd pU - Sbar Udd:
 *   [ thdd m Itil     0   thdd Itil S ]
 *   [ k^T             0   h^T         ]
 *   [ thdd S^T Itil   0   thdd Sbar   ]
 * These are the exact derivatives of M qdd and Q above (tests/test_conformance.c checks
 * them against finite differences) and equal the quadrature over the same mass points
 * to rounding (tests/test_beam_inertia.c checks that against a direct quadrature).
 *
 * This file is the reference evaluation of an element's inertia: the state from scratch,
 * M_e v, Q_e and the matrix, in plain loops over all six local slots. The class of runs
 * evaluates the same terms through its element-state cache and the decoupled kernels
 * (beam_fast.c, beam_state.h, beam_kernels.h); tests compare the two to rounding.
 */
#include "bodies/beam_internal.h"

#include <string.h>

/* Element e's state from scratch (the equations above). */
void fmb_beam_element_state(const fmb_beam_t *bm, int e, const double *q, const double *qd,
                            fmb_beam_istate_t *s)
{
    const fmb_beam_elem_t *el = bm->el + e;
    const double *Mff = el->Mff, *Sb = el->Sb, *Sx = el->Sx, *Sy = el->Sy;
    const double *r = s->r, *U = s->U;
    memset(s, 0, sizeof *s);
    s->r[0] = q[0], s->r[1] = q[1];
    fmb_beam_element_dofs(bm, e, q, s->U);
    /* Pm = m r + s0 + S U */
    double SU[2] = {0, 0};
    for (int j = 0; j < 6; j++)
        SU[0] += Sx[j] * U[j], SU[1] += Sy[j] * U[j];
    s->Pm[0] = el->m * r[0] + el->s0[0] + SU[0];
    s->Pm[1] = el->m * r[1] + el->s0[1] + SU[1];
    /* pU = S^T r + s1 + Mff U, g = S^T Itil r + c1 + Sbar U */
    for (int i = 0; i < 6; i++) {
        double mu = 0.0, sbu = 0.0;
        for (int j = 0; j < 6; j++)
            mu += Mff[i + 6 * j] * U[j], sbu += Sb[i + 6 * j] * U[j];
        s->pU[i] = Sx[i] * r[0] + Sy[i] * r[1] + el->s1[i] + mu;
        s->g[i] = -Sx[i] * r[1] + Sy[i] * r[0] + el->c1[i] + sbu;
    }
    /* J = Pm.r + r.s0 + J0 + U.s1 + U.pU */
    double J = s->Pm[0] * r[0] + s->Pm[1] * r[1] + r[0] * el->s0[0] + r[1] * el->s0[1] + el->J0;
    for (int i = 0; i < 6; i++)
        J += U[i] * (el->s1[i] + s->pU[i]);
    s->J = J;
    if (!qd) return;
    /* the rates: Vm = m rd + S Ud, W = Pm.rd + pU.Ud, hU = S^T Itil rd + Sbar Ud, Mff Ud */
    const double *rd = s->rd, *Ud = s->Ud;
    s->rd[0] = qd[0], s->rd[1] = qd[1], s->thd = qd[2];
    fmb_beam_element_dofs(bm, e, qd, s->Ud);
    double SUd[2] = {0, 0};
    for (int j = 0; j < 6; j++)
        SUd[0] += Sx[j] * Ud[j], SUd[1] += Sy[j] * Ud[j];
    s->Vm[0] = el->m * rd[0] + SUd[0], s->Vm[1] = el->m * rd[1] + SUd[1];
    double W = s->Pm[0] * rd[0] + s->Pm[1] * rd[1];
    for (int i = 0; i < 6; i++) {
        double mud = 0.0, sbud = 0.0;
        for (int j = 0; j < 6; j++)
            mud += Mff[i + 6 * j] * Ud[j], sbud += Sb[i + 6 * j] * Ud[j];
        s->hU[i] = -Sx[i] * rd[1] + Sy[i] * rd[0] + sbud;
        s->MUd[i] = mud;
        W += s->pU[i] * Ud[i];
    }
    s->W = W;
}

/* out = M_e v: M = [m I2, Itil Pm, S; (Itil Pm)^T, J, g^T; S^T, g, Mff] */
void fmb_beam_inertia_mv(const fmb_beam_t *bm, int e, const fmb_beam_istate_t *s, const double v[9],
                         double out[9])
{
    const fmb_beam_elem_t *el = bm->el + e;
    const double *Mff = el->Mff, *vU = v + 3;
    const double itp[2] = {-s->Pm[1], s->Pm[0]}; /* Itil Pm */
    out[0] = el->m * v[0] + itp[0] * v[2];
    out[1] = el->m * v[1] + itp[1] * v[2];
    out[2] = itp[0] * v[0] + itp[1] * v[1] + s->J * v[2];
    for (int i = 0; i < 6; i++) {
        out[0] += el->Sx[i] * vU[i], out[1] += el->Sy[i] * vU[i];
        out[2] += s->g[i] * vU[i];
        double mv = el->Sx[i] * v[0] + el->Sy[i] * v[1] + s->g[i] * v[2];
        for (int j = 0; j < 6; j++)
            mv += Mff[i + 6 * j] * vU[j];
        out[3 + i] = mv;
    }
}

/* Q_e = [m a - 2 thd Itil Vm + thd^2 Pm; (Itil Pm).a - 2 thd W; S^T a - 2 thd hU + thd^2 pU] */
void fmb_beam_inertia_q(const fmb_beam_t *bm, int e, const fmb_beam_istate_t *s, const double a[2],
                        double Q[9])
{
    const fmb_beam_elem_t *el = bm->el + e;
    const double th = s->thd, t2 = th * th;
    /* -2 thd Itil Vm = 2 thd (Vm_y, -Vm_x) */
    Q[0] = el->m * a[0] + 2 * th * s->Vm[1] + t2 * s->Pm[0];
    Q[1] = el->m * a[1] - 2 * th * s->Vm[0] + t2 * s->Pm[1];
    Q[2] = -s->Pm[1] * a[0] + s->Pm[0] * a[1] - 2 * th * s->W;
    for (int i = 0; i < 6; i++)
        Q[3 + i] = el->Sx[i] * a[0] + el->Sy[i] * a[1] - 2 * th * s->hU[i] + t2 * s->pU[i];
}

#define B_(i, j) B[(i) + 9 * (j)]

void fmb_beam_inertia_matrix(const fmb_beam_t *bm, int e, const fmb_beam_istate_t *s,
                             const double a[2], const double qdd[9], const double cf[4],
                             double B[81])
{
    const fmb_beam_elem_t *el = bm->el + e;
    const double *Mff = el->Mff, *Sb = el->Sb, *Sx = el->Sx, *Sy = el->Sy;
    const double m = el->m, *Pm = s->Pm;
    /* the elastic-elastic block's coefficients of Mff, Sbar, Mff, Sbar (sections below) */
    double cu[4] = {0, 0, 0, 0};
    if (cf[0] != 0.0) { /* mass */
        const double c = cf[0];
        B_(0, 0) += c * m, B_(1, 1) += c * m;
        B_(0, 2) += -c * Pm[1], B_(1, 2) += c * Pm[0];
        B_(2, 0) += -c * Pm[1], B_(2, 1) += c * Pm[0];
        B_(2, 2) += c * s->J;
        for (int i = 0; i < 6; i++) {
            B_(0, 3 + i) += c * Sx[i], B_(1, 3 + i) += c * Sy[i];
            B_(3 + i, 0) += c * Sx[i], B_(3 + i, 1) += c * Sy[i];
            B_(2, 3 + i) += c * s->g[i], B_(3 + i, 2) += c * s->g[i];
        }
        cu[0] = c;
    }
    if (cf[1] != 0.0) { /* d(M qdd)/dq */
        const double c = cf[1], *rdd = qdd, tdd = qdd[2], *Udd = qdd + 3;
        cu[1] = c * tdd;
        double SUdd[2] = {0, 0};
        for (int i = 0; i < 6; i++)
            SUdd[0] += Sx[i] * Udd[i], SUdd[1] += Sy[i] * Udd[i];
        B_(0, 1) += -c * m * tdd, B_(1, 0) += c * m * tdd;
        B_(2, 0) += c * (m * rdd[1] + 2 * tdd * Pm[0] + SUdd[1]);
        B_(2, 1) += c * (-m * rdd[0] + 2 * tdd * Pm[1] - SUdd[0]);
        for (int i = 0; i < 6; i++) {
            B_(0, 3 + i) += -c * tdd * Sy[i], B_(1, 3 + i) += c * tdd * Sx[i];
            B_(3 + i, 0) += c * tdd * Sy[i], B_(3 + i, 1) += -c * tdd * Sx[i];
            double sbu = 0.0; /* (Sbar Udd)_i */
            for (int j = 0; j < 6; j++)
                sbu += Sb[i + 6 * j] * Udd[j];
            B_(2, 3 + i) += c * (Sx[i] * rdd[1] - Sy[i] * rdd[0] + 2 * tdd * s->pU[i] - sbu);
        }
    }
    if (cf[2] != 0.0) { /* -dQ/dq */
        const double c = -cf[2], th = s->thd, t2 = th * th;
        const double ita[2] = {a[1], -a[0]}; /* Itil^T a */
        B_(0, 0) += c * t2 * m, B_(1, 1) += c * t2 * m;
        B_(0, 2) += c * m * ita[0], B_(1, 2) += c * m * ita[1];
        B_(2, 0) += c * (m * ita[0] - 2 * th * s->Vm[0]);
        B_(2, 1) += c * (m * ita[1] - 2 * th * s->Vm[1]);
        B_(2, 2) += -c * (Pm[0] * a[0] + Pm[1] * a[1]);
        for (int i = 0; i < 6; i++) {
            const double t = Sx[i] * ita[0] + Sy[i] * ita[1];
            const double b = Sx[i] * s->rd[0] + Sy[i] * s->rd[1] + s->MUd[i];
            B_(0, 3 + i) += c * t2 * Sx[i], B_(1, 3 + i) += c * t2 * Sy[i];
            B_(3 + i, 0) += c * t2 * Sx[i], B_(3 + i, 1) += c * t2 * Sy[i];
            B_(2, 3 + i) += c * (t - 2 * th * b);
            B_(3 + i, 2) += c * t;
        }
        cu[2] = c * t2;
    }
    if (cf[3] != 0.0) { /* -dQ/dqd */
        const double c = -cf[3], th = s->thd, *Vm = s->Vm;
        B_(0, 1) += c * 2 * th * m, B_(1, 0) += -c * 2 * th * m;
        B_(0, 2) += c * (2 * Vm[1] + 2 * th * Pm[0]);
        B_(1, 2) += c * (-2 * Vm[0] + 2 * th * Pm[1]);
        B_(2, 0) += -c * 2 * th * Pm[0], B_(2, 1) += -c * 2 * th * Pm[1];
        B_(2, 2) += -c * 2 * s->W;
        for (int i = 0; i < 6; i++) {
            B_(0, 3 + i) += c * 2 * th * Sy[i], B_(1, 3 + i) += -c * 2 * th * Sx[i];
            B_(3 + i, 0) += -c * 2 * th * Sy[i], B_(3 + i, 1) += c * 2 * th * Sx[i];
            B_(2, 3 + i) += -c * 2 * th * s->pU[i];
            B_(3 + i, 2) += c * (-2 * s->hU[i] + 2 * th * s->pU[i]);
        }
        cu[3] = -c * 2 * th;
    }
    /* elastic-elastic block: each entry gets the four sections' terms in their order
     * (mass, d(M qdd)/dq, -dQ/dq, -dQ/dqd; a section not asked for, cu = 0, adds +-0, which
     * leaves the entry as it is) */
    for (int j = 0; j < 6; j++)
        for (int i = 0; i < 6; i++) {
            const int z = i + 6 * j;
            double v = B_(3 + i, 3 + j);
            v += cu[0] * Mff[z], v += cu[1] * Sb[z], v += cu[2] * Mff[z], v += cu[3] * Sb[z];
            B_(3 + i, 3 + j) = v;
        }
}
