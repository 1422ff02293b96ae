/*
 * Elastic beam body in carrier-frame coordinates (seed 001; docs/theory.md section 7).
 *
 * q = [rbar (2), theta, U]: U are the free nodal displacements (u, v, phi) in the body
 * frame, after the reference conditions removed some (simply supported: v at both ends
 * and u at the first node; cantilever: u, v, phi at the first node).
 * Element e on [x1, x2], l = x2 - x1, xi = (x - x1) / l:
 *   axial       u(x) = (1 - xi) u1 + xi u2
 *   transverse  v(x) = H1 v1 + H2 phi1 + H3 v2 + H4 phi2   (cubic Hermite, phi = dv/dx)
 *   H1 = 1 - 3xi^2 + 2xi^3, H2 = l (xi - 2xi^2 + xi^3), H3 = 3xi^2 - 2xi^3,
 *   H4 = l (xi^3 - xi^2)
 * A point (x, y0) of the undeformed body moves by (u - y0 phi, v) (plane sections), so
 * p = rbar + (x, y0) + N U with N from the functions above.
 *
 * Inertia by virtual work over mass points: 4 Gauss points per element (exact for the
 * degree-6 products of the shape functions), at a point of mass w,
 * L = [I2, Itil p, N], P = dp/dq = [I2, 0, N], a = A^T g, and
 *   f   = a - 2 thd Itil pd + thd^2 p             (body force per unit mass)
 *   M  = sum w L^T L
 *   Q  = sum w L^T f
 *   dQ/dq  = sum w [ e_t (Itil^T f)^T P + L^T (Itil^T a e_t^T + thd^2 P) ]
 *   dQ/dqd = sum w L^T [ -2 thd Itil P + (-2 Itil pd + 2 thd p) e_t^T ]
 *   d(M qdd)/dq = sum w [ e_t (Itil^T (L qdd))^T P + thdd L^T Itil P ]
 * Rotary inertia (optional) adds the same with the section's second moment: a point at
 * distance y across the section, integrated, gives rho I times the terms of the points
 * (x, +-y) minus the centre line; we include it as lumped Gauss points at y0 = +-sqrt(I/A)
 * carrying half the mass each, which reproduces rho I exactly for these quadratic terms.
 * These sums are not evaluated point by point at run time: every term is a polynomial of
 * degree <= 2 in (rbar, U_e), linear in the rates, so per element they are closed forms
 * in eight shape integrals over the same mass points, computed once at build
 * (m = sum w, s0 = sum w u, J0 = sum w u.u, S = sum w N, s1 = sum w N^T u,
 * c1 = sum w N^T Itil u, Mff = sum w N^T N = m_e, Sbar = sum w N^T Itil N). With
 * Pm = m rbar + s0 + S U, pU = S^T rbar + s1 + Mff U, g = S^T Itil rbar + c1 + Sbar U,
 * J = sum w p.p, Vm = m rbard + S Ud, W = Pm.rbard + pU.Ud, hU = S^T Itil rbard + Sbar Ud:
 *   M = [m I2, Itil Pm, S; (Itil Pm)^T, J, g^T; S^T, g, Mff]
 *   Q = [m a - 2 thd Itil Vm + thd^2 Pm; (Itil Pm).a - 2 thd W; S^T a - 2 thd hU + thd^2 pU]
 * and the three tangents are their exact derivatives (written out in beam_inertia.c).
 * Gravity's potential is -g . (A sum_e Pm_e).
 * Elastic forces, element by element (element_elastic): with u_e the element's six
 * local dofs (u1 v1 phi1 u2 v2 phi2, body frame, removed dofs zero), Q_U -= f_e(u_e) and
 * dQ/dU -= K_e(u_e) = df_e/du_e. Linear beams: f_e = k_e u_e with the constant
 *   k_e = EA/l [1 -1; -1 1] (axial) and EI/l^3 [12 6l -12 6l; 6l 4l^2 -6l 2l^2; ...].
 * Nonlinear beams (geometry: nonlinear): f_e, K_e and the strain energy of the
 * co-rotational element (beam_corot.c); the mass and the shape functions stay those of
 * the linear beam; Rayleigh damping is alpha m_e ud_e plus beta times the element's local
 * stiffness on its local deformation rates (fmb_corot_damping: rigid rotations of an
 * element are not damped, as they would be by beta k_e ud_e).
 * Rayleigh damping: Q_U -= (alpha m_e + beta k_e) ud_e, m_e = int rho N^T N (constant).
 * Potential: sum_e 1/2 u_e^T k_e u_e - sum_w w g . (A p).
 * Storage is linear in the element count: the shape integrals and the column maps per
 * element, k_e, m_e and Sbar once per bitwise-distinct set (beam.h), and the assembled K
 * and Muu as nonzero lists (for the modes).
 * This file is the reference evaluation of the body class, the form a new body class
 * copies: every call evaluates each element from scratch (beam_inertia.c: the state, M_e v,
 * Q_e and the 9 x 9 matrix in plain loops; fmb_beam_element_elastic and _damping below),
 * in an inertia pass and then an elastic pass. Its table, fmb_beam_reference_class, is not
 * used by runs: the class of runs, fmb_beam_body_class, is the fast path in beam_fast.c
 * (element-state cache, decoupled kernels, the residual's one pass, the iteration matrix
 * as one list: beam_tangent.c, beam_tangent_simd.c). Tests compare the two to rounding
 * and check both against finite differences (tests/test_conformance.c).
 * Files: beam.c (this: the reference class: mass, forces, iteration-matrix blocks,
 * potential, power), beam_inertia.c (the reference element inertia in closed form),
 * beam_fast.c (the class of runs), beam_state.h and beam_kernels.h (its inline element
 * states and decoupled sums), beam_tangent.c and beam_tangent_simd.c (the iteration matrix
 * as one list of constant coefficients and state terms, and its two-lane form),
 * beam_shape.c (mesh and shape functions), beam_build.c (element matrices and shape
 * integrals, dof map, modes), beam_init.c (initial state), beam_corot.c (co-rotational
 * element).
 */
#include "bodies/beam_internal.h"
#include "bodies/beam_corot.h"

#include <stdlib.h>
#include <string.h>

void fmb_beam_class_shape(const fmb_body_t *b, const double u[2], fmb_shape_t *N)
{
    const fmb_beam_t *bm = b->data;
    fmb_beam_element_shape(bm, fmb_beam_element_at(bm, u[0]), u[0], u[1], N);
}

int fmb_beam_class_ndof(const fmb_body_t *b)
{
    return ((const fmb_beam_t *)b->data)->ndof;
}

/* Element e's elastic force f_e (6) at its local dofs u_e, its strain energy, and when kt
 * is non-NULL the tangent df_e/du_e: returns the tangent (the constant k_e for linear
 * beams, else kt). This is the one place a geometrically nonlinear element
 * (bm->nonconstant_stiffness) plugs in. Linear beams: f_e = k_e ud_e on the deformation
 * part ud_e of u_e (fmb_beam_deformation), energy 1/2 ud_e . f_e. */
const double *fmb_beam_element_elastic(const fmb_beam_t *bm, int e, const double ul[6],
                                       double fe[6], double *kt, double *energy)
{
    if (bm->nonconstant_stiffness) { /* co-rotational element (beam_corot.c) */
        fmb_corot_element(bm->x[e + 1] - bm->x[e], bm->E * bm->A, bm->E * bm->I, ul, fe, kt,
                          energy);
        return kt;
    }
    const double *k = fmb_beam_ke(bm, e);
    double ud[6], w = 0.0;
    fmb_beam_deformation(bm, e, ul, ud);
    for (int i = 0; i < 6; i++) {
        double v = 0.0;
        for (int j = 0; j < 6; j++)
            v += k[i + 6 * j] * ud[j];
        fe[i] = v;
        w += 0.5 * ud[i] * v;
    }
    if (energy) *energy = w;
    return k;
}

/* Rayleigh damping of element e at local dofs ul, rates vl: adds the damping force to fe
 * and writes the damping matrix ct = df/dud (36). Linear beams: alpha m_e + beta k_e.
 * Nonlinear beams: alpha m_e, and beta on the element's local deformation rates
 * (fmb_corot_damping: rigid rotations undamped), whose dependence on ul adds to the
 * stiffness: returns k + df_d/dul in kbuf when kbuf is non-NULL, else k. */
const double *fmb_beam_element_damping(const fmb_beam_t *bm, int e, const double ul[6],
                                       const double vl[6], double fe[6], const double *k,
                                       double *kbuf, double ct[36])
{
    const double *k0 = fmb_beam_ke(bm, e), *m0 = fmb_beam_me(bm, e);
    const double bl = bm->nonconstant_stiffness ? 0.0 : bm->beta;
    for (int z = 0; z < 36; z++)
        ct[z] = bm->alpha * m0[z] + bl * k0[z];
    double vd[6]; /* beta k_e on the deformation rates (as fmb_beam_element_elastic) */
    fmb_beam_deformation(bm, e, vl, vd);
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++)
            fe[i] += bm->alpha * m0[i + 6 * j] * vl[j] + bl * k0[i + 6 * j] * vd[j];
    if (!bm->nonconstant_stiffness || bm->beta == 0.0) return k;
    double fd[6], cd[36];
    fmb_corot_damping(bm->x[e + 1] - bm->x[e], bm->E * bm->A, bm->E * bm->I, bm->beta, ul, vl, fd,
                      kbuf, cd);
    for (int i = 0; i < 6; i++)
        fe[i] += fd[i];
    for (int z = 0; z < 36; z++)
        ct[z] += cd[z];
    if (!kbuf) return k;
    for (int z = 0; z < 36; z++)
        kbuf[z] += k[z];
    return kbuf;
}

/* M = sum_e L_e^T M_e L_e (L_e: the element's slots among the body's coordinates). */
static void beam_mass(const fmb_body_t *b, const double *q, double *M)
{
    const fmb_beam_t *bm = b->data;
    static const double cf[4] = {1, 0, 0, 0}, z9[9] = {0};
    memset(M, 0, (size_t)bm->ndof * bm->ndof * sizeof *M);
    for (int e = 0; e + 1 < bm->nnodes; e++) {
        fmb_beam_istate_t st;
        double B[81] = {0};
        fmb_beam_element_state(bm, e, q, NULL, &st);
        fmb_beam_inertia_matrix(bm, e, &st, z9, z9, cf, B);
        fmb_beam_scatter_block(bm->el + e, B, M, (size_t)bm->ndof);
    }
}

/* M v element by element, without forming M. */
static void beam_mass_times(const fmb_body_t *b, const double *q, const double *v, double *out)
{
    const fmb_beam_t *bm = b->data;
    memset(out, 0, (size_t)bm->ndof * sizeof *out);
    for (int e = 0; e + 1 < bm->nnodes; e++) {
        fmb_beam_istate_t st;
        double vl[9], ol[9];
        fmb_beam_element_state(bm, e, q, NULL, &st);
        fmb_beam_element_slots(bm, e, v, vl);
        fmb_beam_inertia_mv(bm, e, &st, vl, ol);
        fmb_beam_scatter_vec(bm->el + e, ol, out);
    }
}

/* Q += the inertia forces, then -= the elastic and damping forces, and when asked the
 * tangents Kq = dQ/dq, Cq = dQ/dqd, Kmq = d(M qdd)/dq (dense, added to). */
static void beam_forces(const fmb_body_t *b, const double *q, const double *qd, const double *qdd,
                        const double g[2], double *Q, double *Kq, double *Cq, double *Kmq)
{
    const fmb_beam_t *bm = b->data;
    const size_t nd = (size_t)bm->ndof;
    const int ne = bm->nnodes - 1, damped = bm->alpha != 0.0 || bm->beta != 0.0;
    double a[2];
    fmb_beam_gravity(q[2], g, a);
    /* inertia: Q_e and the blocks -dQ/dq (Kq), -dQ/dqd (Cq), d(M qdd)/dq (Kmq) */
    double *out[3] = {Kq, Cq, Kmq};
    static const double sel[3][4] = {{0, 0, -1, 0}, {0, 0, 0, -1}, {0, 1, 0, 0}};
    for (int e = 0; e < ne; e++) {
        const fmb_beam_elem_t *el = bm->el + e;
        fmb_beam_istate_t st;
        double Ql[9], qddl[9];
        fmb_beam_element_state(bm, e, q, qd, &st);
        fmb_beam_inertia_q(bm, e, &st, a, Ql);
        fmb_beam_scatter_vec(el, Ql, Q);
        if (Kmq) fmb_beam_element_slots(bm, e, qdd, qddl);
        for (int k = 0; k < 3; k++) {
            if (!out[k]) continue;
            double B[81] = {0};
            fmb_beam_inertia_matrix(bm, e, &st, a, qddl, sel[k], B);
            fmb_beam_scatter_block(el, B, out[k], nd);
        }
    }
    /* elastic and Rayleigh damping: Q -= f_e + (alpha m_e + beta k_e) ud_e, Kq -= K_e,
     * Cq -= alpha m_e + beta k_e */
    for (int e = 0; e < ne; e++) {
        const int *d = bm->dof + 3 * e;
        double ul[6], vl[6], fe[6], kt[36], ct[36], kd[36];
        fmb_beam_element_dofs(bm, e, q, ul);
        fmb_beam_element_dofs(bm, e, qd, vl);
        const double *k = fmb_beam_element_elastic(bm, e, ul, fe, Kq ? kt : NULL, NULL);
        if (damped) k = fmb_beam_element_damping(bm, e, ul, vl, fe, k, Kq ? kd : NULL, ct);
        for (int i = 0; i < 6; i++) {
            if (d[i] < 0) continue;
            Q[d[i]] -= fe[i];
            for (int j = 0; j < 6; j++) {
                if (d[j] < 0) continue;
                if (Kq) Kq[d[i] + nd * d[j]] -= k[i + 6 * j];
                if (Cq && damped) Cq[d[i] + nd * d[j]] -= ct[i + 6 * j];
            }
        }
    }
}

/* ---- iteration-matrix blocks, element by element --------------------------
 * Element e touches the rigid columns 0, 1, 2 and its own free dofs (nl <= 9 local
 * columns, el->cols): its block cM M + cKm Kmq - cK Kq - cC Cq (inertia in closed form,
 * then the elastic and damping terms) is emitted once. */
static void beam_blocks(const fmb_body_t *b, const double *q, const double *qd, const double *qdd,
                        const double g[2], const double cf[4], fmb_block_emit emit, void *ctx)
{
    const fmb_beam_t *bm = b->data;
    double a[2];
    fmb_beam_gravity(q[2], g, a);
    const int damped = bm->alpha != 0.0 || bm->beta != 0.0;
    for (int e = 0; e + 1 < bm->nnodes; e++) {
        const fmb_beam_elem_t *el = bm->el + e;
        const int nl = el->nl, *pos = el->pos;
        fmb_beam_istate_t st;
        double qddl[9], B[81] = {0}, Bc[81];
        fmb_beam_element_state(bm, e, q, qd, &st);
        fmb_beam_element_slots(bm, e, qdd, qddl);
        fmb_beam_inertia_matrix(bm, e, &st, a, qddl, cf, B);
        /* elastic and damping: -cK (-K_e) - cC (-C_e) on the elastic slots */
        double fe[6], kt[36], kd[36], ct[36];
        const double *k = fmb_beam_element_elastic(bm, e, st.U, fe, kt, NULL);
        if (damped) k = fmb_beam_element_damping(bm, e, st.U, st.Ud, fe, k, kd, ct);
        for (int j = 0; j < 6; j++)
            for (int i = 0; i < 6; i++) {
                double v = cf[2] * k[i + 6 * j];
                if (damped) v += cf[3] * ct[i + 6 * j];
                B[3 + i + 9 * (3 + j)] += v;
            }
        for (int j = 0; j < 9; j++) {
            if (pos[j] < 0) continue;
            for (int i = 0; i < 9; i++)
                if (pos[i] >= 0) Bc[pos[i] + nl * pos[j]] = B[i + 9 * j];
        }
        emit(ctx, nl, el->cols, Bc);
    }
}

/* sum_e 1/2 ud_e . k_e ud_e (or the co-rotational strain energy) - g . (A sum_e Pm_e) */
static double beam_potential(const fmb_body_t *b, const double *q, const double g[2])
{
    const fmb_beam_t *bm = b->data;
    double A[4], Pm[2] = {0, 0}, V = 0.0;
    fmb_rot(q[2], A);
    for (int e = 0; e + 1 < bm->nnodes; e++) {
        fmb_beam_istate_t st;
        double fe[6], w;
        fmb_beam_element_state(bm, e, q, NULL, &st);
        Pm[0] += st.Pm[0], Pm[1] += st.Pm[1];
        fmb_beam_element_elastic(bm, e, st.U, fe, NULL, &w);
        V += w;
    }
    return V - (g[0] * (A[0] * Pm[0] + A[2] * Pm[1]) + g[1] * (A[1] * Pm[0] + A[3] * Pm[1]));
}

/* Power of the Rayleigh damping forces, P = -sum_e f_d,e . ud_e (the damping part of the
 * element force that fmb_beam_element_damping adds, on the element's local rates). */
double fmb_beam_class_power(const fmb_body_t *b, const double *q, const double *qd)
{
    const fmb_beam_t *bm = b->data;
    if (bm->alpha == 0.0 && bm->beta == 0.0) return 0.0;
    double P = 0.0;
    for (int e = 0; e + 1 < bm->nnodes; e++) {
        double ul[6], vl[6], fd[6] = {0}, ct[36];
        fmb_beam_element_dofs(bm, e, q, ul);
        fmb_beam_element_dofs(bm, e, qd, vl);
        fmb_beam_element_damping(bm, e, ul, vl, fd, NULL, NULL, ct);
        for (int i = 0; i < 6; i++)
            P -= fd[i] * vl[i];
    }
    return P;
}

void fmb_beam_class_destroy(fmb_body_t *b)
{
    fmb_beam_t *bm = b->data;
    if (!bm) return;
    if (bm->cache) free(bm->cache->q), free(bm->cache->st), free(bm->cache);
    free(bm->x), free(bm->dof), free(bm->ke), free(bm->me), free(bm->sb);
    free(bm->el);
    free(bm->nz_i), free(bm->nz_j), free(bm->Kz), free(bm->Mz), free(bm->U0);
    free(bm->tJp), free(bm->tIi), free(bm->tX);
    free(bm);
    b->data = NULL;
}

/* Not used by runs: the class of runs is fmb_beam_body_class (beam_fast.c), this table's
 * evaluations with the element-state cache, the residual's one pass (mass_forces) and the
 * iteration matrix as one list (tangent_pattern, tangent_add). */
const fmb_body_class_t fmb_beam_reference_class = {
    .name = "beam",
    .ndof = fmb_beam_class_ndof,
    .mass = beam_mass,
    .mass_times = beam_mass_times,
    .forces = beam_forces,
    .potential = beam_potential,
    .power = fmb_beam_class_power,
    .shape = fmb_beam_class_shape,
    .destroy = fmb_beam_class_destroy,
    .blocks = beam_blocks,
    .initial_state = fmb_beam_initial_state,
};
