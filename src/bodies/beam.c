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
 * Files: beam.c (this: the body class: mass, forces, iteration-matrix blocks, potential),
 * beam_inertia.c (closed-form element inertia), beam_tangent.c (the iteration matrix as
 * one list of constant coefficients and state terms), beam_shape.c (mesh and shape functions),
 * beam_state.h (an element's inertia state, inline for the element loops),
 * beam_build.c (element matrices and shape integrals, dof map, modes), beam_init.c
 * (initial state), beam_corot.c (co-rotational element).
 */
#include "bodies/beam_internal.h"
#include "bodies/beam_corot.h"
#include "bodies/beam_kernels.h"
#include "bodies/beam_state.h"

#include <cholmod.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void beam_shape(const fmb_body_t *b, const double u[2], fmb_shape_t *N)
{
    const fmb_beam_t *bm = b->data;
    fmb_beam_element_shape(bm, fmb_beam_element_at(bm, u[0]), u[0], u[1], N);
}

static int beam_ndof(const fmb_body_t *b)
{
    return ((const fmb_beam_t *)b->data)->ndof;
}

/* Gather element e's local dofs from the body's q (removed dofs zero). */
static void element_dofs(const fmb_beam_t *bm, int e, const double *q, double ul[6])
{
    const int *d = bm->dof + 3 * e;
    for (int i = 0; i < 6; i++)
        ul[i] = d[i] >= 0 ? q[d[i]] : 0.0;
}

/* Element e's 9 local slots (rbar, theta, u1 .. phi2) of a body vector (removed dofs 0). */
static void element_slots(const fmb_beam_t *bm, int e, const double *v, double z[9])
{
    z[0] = v[0], z[1] = v[1], z[2] = v[2];
    element_dofs(bm, e, v, z + 3);
}

/* Add a 9 x 9 local block B to the dense nd x nd matrix A. */
static void scatter_block(const fmb_beam_elem_t *el, const double B[81], double *A, size_t nd)
{
    for (int j = 0; j < 9; j++) {
        if (el->pos[j] < 0) continue;
        const size_t cj = nd * (size_t)el->cols[el->pos[j]];
        for (int i = 0; i < 9; i++)
            if (el->pos[i] >= 0) A[el->cols[el->pos[i]] + cj] += B[i + 9 * j];
    }
}

/* Add a local 9-vector to the body vector. */
static void scatter_vec(const fmb_beam_elem_t *el, const double z[9], double *v)
{
    for (int i = 0; i < 9; i++)
        if (el->bcol[i] >= 0) v[el->bcol[i]] += z[i];
}

static void beam_mass(const fmb_body_t *b, const double *q, double *M)
{
    const fmb_beam_t *bm = b->data;
    memset(M, 0, (size_t)bm->ndof * bm->ndof * sizeof *M);
    static const double cf[4] = {1, 0, 0, 0}, z9[9] = {0};
    const fmb_beam_istate_t *st = fmb_beam_states(bm, q, NULL, FMB_IS_MASS);
    for (int e = 0; e + 1 < bm->nnodes; e++) {
        double B[81] = {0};
        fmb_beam_inertia_matrix(bm, e, st + e, z9, z9, cf, B);
        scatter_block(bm->el + e, B, M, (size_t)bm->ndof);
    }
}

/* M v element by element, without forming M: O(elements) instead of ndof^2. */
static void beam_mass_times(const fmb_body_t *b, const double *q, const double *v, double *out)
{
    const fmb_beam_t *bm = b->data;
    memset(out, 0, (size_t)bm->ndof * sizeof *out);
    fmb_beam_plan_t p;
    fmb_beam_istate_t *st = fmb_beam_states_begin(bm, q, NULL, FMB_IS_MASS, &p);
    for (int e = 0; e + 1 < bm->nnodes; e++) {
        double vl[9], ol[9];
        fmb_beam_state(bm, e, q, NULL, &p, st + e); /* in the same pass (beam_state.h) */
        element_slots(bm, e, v, vl);
        fmb_beam_inertia_mv(bm, e, st + e, vl, ol);
        scatter_vec(bm->el + e, ol, out);
    }
}

/* The deformation part of element e's local dofs ul = (u1, v1, phi1, u2, v2, phi2): ul
 * minus the rigid-body motion of the element (translation u1, v1 and the chord rotation
 * psi = (v2 - v1) / l), which k_e maps to zero. k_e ud equals k_e ul in exact arithmetic,
 * but its rounding scales with the deformation instead of the displacements: on a fine
 * mesh the products 12 EI / l^3 v cancel to ~EI v'''' l, and at 10,000 elements their
 * rounding put the Newton increments above the tolerance (docs/performance.md; tests/
 * test_beam_floor.c). */
FMB_BEAM_INLINE void deformation(const fmb_beam_t *bm, int e, const double ul[6], double ud[6])
{
    const double psi = (ul[4] - ul[1]) / (bm->x[e + 1] - bm->x[e]);
    ud[0] = 0.0, ud[1] = 0.0, ud[2] = ul[2] - psi;
    ud[3] = ul[3] - ul[0], ud[4] = 0.0, ud[5] = ul[5] - psi;
}

/* Element e's elastic force f_e (6) at its local dofs u_e, its strain energy, and when kt
 * is non-NULL the tangent df_e/du_e: returns the tangent (the constant k_e for linear
 * beams, else kt). This is the one place a geometrically nonlinear element
 * (bm->nonconstant_stiffness) plugs in. */
static const double *element_elastic(const fmb_beam_t *bm, int e, const double ul[6], double fe[6],
                                     double *kt, double *energy)
{
    if (bm->nonconstant_stiffness) { /* co-rotational element (beam_corot.c) */
        fmb_corot_element(bm->x[e + 1] - bm->x[e], bm->E * bm->A, bm->E * bm->I, ul, fe, kt,
                          energy);
        return kt;
    }
    const double *k = fmb_beam_ke(bm, e);
    double ud[6], w = 0.0;
    deformation(bm, e, ul, ud);
    /* k_e ud: ud's slots 0, 1, 4 are exact zeros, and a decoupled beam's axial rows have
     * only column 3, its bending rows columns 2 and 5 (the dense sum without its zero
     * products, beam_kernels.h) */
    for (int i = 0; i < 6; i++) {
        double v = 0.0;
        if (!bm->decoupled || !fmb_beam_axial(i)) v += k[i + 12] * ud[2];
        if (!bm->decoupled || fmb_beam_axial(i)) v += k[i + 18] * ud[3];
        if (!bm->decoupled || !fmb_beam_axial(i)) v += k[i + 30] * ud[5];
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
static const double *element_damping(const fmb_beam_t *bm, int e, const double ul[6],
                                     const double vl[6], double fe[6], const double *k,
                                     double *kbuf, double ct[36])
{
    const double *k0 = fmb_beam_ke(bm, e), *m0 = fmb_beam_me(bm, e);
    const double bl = bm->nonconstant_stiffness ? 0.0 : bm->beta;
    for (int z = 0; z < 36; z++)
        ct[z] = bm->alpha * m0[z] + bl * k0[z];
    double vd[6]; /* beta k_e on the deformation rates (as element_elastic) */
    deformation(bm, e, vl, vd);
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

static void beam_forces(const fmb_body_t *b, const double *q, const double *qd, const double *qdd,
                        const double g[2], double *Q, double *Kq, double *Cq, double *Kmq)
{
    const fmb_beam_t *bm = b->data;
    const size_t nd = (size_t)bm->ndof;
    double a[2];
    fmb_beam_gravity(q[2], g, a);
    double *out[3] = {Kq, Cq, Kmq};
    static const double sel[3][4] = {{0, 0, -1, 0}, {0, 0, 0, -1}, {0, 1, 0, 0}};
    fmb_beam_plan_t p;
    fmb_beam_istate_t *sts =
        fmb_beam_states_begin(bm, q, qd, Kq || Cq || Kmq ? FMB_IS_ALL : FMB_IS_FORCE, &p);
    /* One pass: element e's state, its inertia force and tangents, then element e - 1's
     * elastic force. The lag keeps every entry's sum in the order of an inertia pass
     * followed by an elastic pass (bitwise): an elastic entry (node k's dofs) gets the
     * inertia of elements k - 1 and k before the elastic terms of k - 1 and k; the rigid
     * entries 0-2 get no elastic terms. */
    const int ne = bm->nnodes - 1, damped = bm->alpha != 0.0 || bm->beta != 0.0;
    for (int e = 0; e <= ne; e++) {
        if (e < ne) { /* element e's inertia */
            const fmb_beam_elem_t *el = bm->el + e;
            fmb_beam_istate_t *st = sts + e;
            double Ql[9], qddl[9];
            fmb_beam_state(bm, e, q, qd, &p, st);
            fmb_beam_inertia_q(bm, e, st, a, Ql);
            scatter_vec(el, Ql, Q);
            if (Kmq) element_slots(bm, e, qdd, qddl);
            for (int k = 0; k < 3; k++) {
                if (!out[k]) continue;
                double B[81] = {0};
                fmb_beam_inertia_matrix(bm, e, st, a, qddl, sel[k], B);
                scatter_block(el, B, out[k], nd);
            }
        }
        if (e == 0) continue;
        /* element e - 1's elastic and Rayleigh damping forces: Q -= f_e + (alpha m_e +
         * beta k_e) ud_e, Kq -= K_e, Cq -= alpha m_e + beta k_e (U_e, Ud_e from its state) */
        const int el = e - 1, *d = bm->dof + 3 * el;
        const double *ul = sts[el].U, *vl = sts[el].Ud;
        double fe[6], kt[36], ct[36], kd[36];
        const double *k = element_elastic(bm, el, ul, fe, Kq ? kt : NULL, NULL);
        if (damped) k = element_damping(bm, el, ul, vl, fe, k, Kq ? kd : NULL, ct);
        for (int i = 0; i < 6; i++) {
            if (d[i] < 0) continue;
            Q[d[i]] -= fe[i];
            if (!Kq && !Cq) continue; /* the residual: forces only */
            for (int j = 0; j < 6; j++) {
                if (d[j] < 0) continue;
                if (Kq) Kq[d[i] + nd * d[j]] -= k[i + 6 * j];
                if (Cq && damped) Cq[d[i] + nd * d[j]] -= ct[i + 6 * j];
            }
        }
    }
}

/* Add element e's local 9-vector z to the body vector v: an inner element (its six dofs
 * free and consecutive, beam_state.h fmb_beam_gather6) without the column map. The same
 * additions as scatter_vec. */
FMB_BEAM_INLINE void scatter_vec9(const fmb_beam_elem_t *el, const int *d, const double z[9],
                                  double *v)
{
    if (d[0] >= 0 && d[5] - d[0] == 5) {
        v[0] += z[0], v[1] += z[1], v[2] += z[2];
        double *ve = v + d[0];
        FMB_BEAM_UNROLL
        for (int i = 0; i < 6; i++)
            ve[i] += z[3 + i];
        return;
    }
    scatter_vec(el, z, v);
}

/* The residual's pass (mass_forces): M(q) v into Mv and Q(q, qd) into Q, element by
 * element, each element's state computed once in the pass. Each output gets exactly the
 * additions of beam_mass_times and beam_forces (no tangents) in their order: Mv element
 * by element from zero; Q element e's inertia, then element e - 1's elastic and damping
 * forces (beam_forces's lag). dec = bm->decoupled, a constant in each call below. */
FMB_BEAM_INLINE void mass_forces_pass(int dec, const fmb_beam_t *bm, const double *q,
                                      const double *qd, const double *v, const double a[2],
                                      double *Mv, double *Q)
{
    fmb_beam_plan_t p;
    fmb_beam_istate_t *sts = fmb_beam_states_begin(bm, q, qd, FMB_IS_MASS | FMB_IS_FORCE, &p);
    const int ne = bm->nnodes - 1, damped = bm->alpha != 0.0 || bm->beta != 0.0;
    for (int e = 0; e <= ne; e++) {
        if (e < ne) { /* element e's state, M_e v and inertia force */
            const fmb_beam_elem_t *el = bm->el + e;
            const int *d = bm->dof + 3 * e;
            fmb_beam_istate_t *st = sts + e;
            double vl[9], ol[9], Ql[9];
            fmb_beam_state_d(dec, bm, e, q, qd, &p, st);
            vl[0] = v[0], vl[1] = v[1], vl[2] = v[2];
            fmb_beam_gather6(d, v, vl + 3);
            fmb_beam_inertia_mv_d(dec, bm, e, st, vl, ol);
            scatter_vec9(el, d, ol, Mv);
            fmb_beam_inertia_q_d(dec, bm, e, st, a, Ql);
            scatter_vec9(el, d, Ql, Q);
        }
        if (e == 0) continue;
        /* element e - 1's elastic and Rayleigh damping forces (as beam_forces) */
        const int el = e - 1, *d = bm->dof + 3 * el;
        const double *ul = sts[el].U, *vl = sts[el].Ud;
        double fe[6], ct[36];
        if (bm->nonconstant_stiffness) {
            element_elastic(bm, el, ul, fe, NULL, NULL);
        } else { /* element_elastic's k_e ud, the energy left out */
            const double *k = fmb_beam_ke(bm, el);
            double ud[6];
            deformation(bm, el, ul, ud);
            FMB_BEAM_UNROLL
            for (int i = 0; i < 6; i++) {
                double x = 0.0;
                if (!dec || !fmb_beam_axial(i)) x += k[i + 12] * ud[2];
                if (!dec || fmb_beam_axial(i)) x += k[i + 18] * ud[3];
                if (!dec || !fmb_beam_axial(i)) x += k[i + 30] * ud[5];
                fe[i] = x;
            }
        }
        if (damped) element_damping(bm, el, ul, vl, fe, NULL, NULL, ct);
        if (d[0] >= 0 && d[5] - d[0] == 5) {
            double *Qe = Q + d[0];
            FMB_BEAM_UNROLL
            for (int i = 0; i < 6; i++)
                Qe[i] -= fe[i];
            continue;
        }
        for (int i = 0; i < 6; i++)
            if (d[i] >= 0) Q[d[i]] -= fe[i];
    }
}

static void beam_mass_forces(const fmb_body_t *b, const double *q, const double *qd,
                             const double *v, const double g[2], double *Mv, double *Q)
{
    const fmb_beam_t *bm = b->data;
    double a[2];
    fmb_beam_gravity(q[2], g, a);
    memset(Mv, 0, (size_t)bm->ndof * sizeof *Mv);
    if (bm->decoupled)
        mass_forces_pass(1, bm, q, qd, v, a, Mv, Q);
    else
        mass_forces_pass(0, bm, q, qd, v, a, Mv, Q);
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
    fmb_beam_plan_t p;
    fmb_beam_istate_t *sts = fmb_beam_states_begin(bm, q, qd, FMB_IS_ALL, &p);
    for (int e = 0; e + 1 < bm->nnodes; e++) {
        const fmb_beam_elem_t *el = bm->el + e;
        fmb_beam_istate_t *st = sts + e;
        const int nl = el->nl, *pos = el->pos;
        fmb_beam_state(bm, e, q, qd, &p, st); /* in the same pass (beam_state.h) */
        double qddl[9], B[81] = {0}, Bc[81];
        element_slots(bm, e, qdd, qddl);
        fmb_beam_inertia_matrix(bm, e, st, a, qddl, cf, B);
        /* elastic and damping: -cK (-K_e) - cC (-C_e) on the elastic slots (the linear
         * beam's tangent is the constant k_e: no force needed) */
        double fe[6], kt[36], kd[36], ct[36];
        const double *k = bm->nonconstant_stiffness ? element_elastic(bm, e, st->U, fe, kt, NULL)
                                                    : fmb_beam_ke(bm, e);
        if (damped) k = element_damping(bm, e, st->U, st->Ud, fe, k, kd, ct);
        for (int j = 0; j < 6; j++)
            for (int i = 0; i < 6; i++) {
                double v = cf[2] * k[i + 6 * j];
                if (damped) v += cf[3] * ct[i + 6 * j];
                B[3 + i + 9 * (3 + j)] += v;
            }
        if (nl == 9) { /* no removed dof: pos is the identity */
            emit(ctx, nl, el->cols, B);
            continue;
        }
        for (int j = 0; j < 9; j++) {
            if (pos[j] < 0) continue;
            for (int i = 0; i < 9; i++)
                if (pos[i] >= 0) Bc[pos[i] + nl * pos[j]] = B[i + 9 * j];
        }
        emit(ctx, nl, el->cols, Bc);
    }
}

static double beam_potential(const fmb_body_t *b, const double *q, const double g[2])
{
    const fmb_beam_t *bm = b->data;
    double A[4], Pm[2] = {0, 0}, V = 0.0;
    fmb_rot(q[2], A);
    const fmb_beam_istate_t *st = fmb_beam_states(bm, q, NULL, 0);
    for (int e = 0; e + 1 < bm->nnodes; e++) {
        double fe[6], w;
        Pm[0] += st[e].Pm[0], Pm[1] += st[e].Pm[1];
        element_elastic(bm, e, st[e].U, fe, NULL, &w);
        V += w;
    }
    /* gravity: -g . (A sum w p) */
    return V - (g[0] * (A[0] * Pm[0] + A[2] * Pm[1]) + g[1] * (A[1] * Pm[0] + A[3] * Pm[1]));
}

/* Power of the Rayleigh damping forces, P = -sum_e f_d,e . ud_e (the damping part of the
 * element force that element_damping adds, on the element's local rates). */
static double beam_power(const fmb_body_t *b, const double *q, const double *qd)
{
    const fmb_beam_t *bm = b->data;
    if (bm->alpha == 0.0 && bm->beta == 0.0) return 0.0;
    double P = 0.0;
    for (int e = 0; e + 1 < bm->nnodes; e++) {
        double ul[6], vl[6], fd[6] = {0}, ct[36];
        element_dofs(bm, e, q, ul);
        element_dofs(bm, e, qd, vl);
        element_damping(bm, e, ul, vl, fd, NULL, NULL, ct);
        for (int i = 0; i < 6; i++)
            P -= fd[i] * vl[i];
    }
    return P;
}

static void beam_destroy(fmb_body_t *b)
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

const fmb_body_class_t fmb_beam_body_class = {
    .name = "beam",
    .ndof = beam_ndof,
    .mass = beam_mass,
    .mass_times = beam_mass_times,
    .forces = beam_forces,
    .potential = beam_potential,
    .power = beam_power,
    .shape = beam_shape,
    .destroy = beam_destroy,
    .blocks = beam_blocks,
    .initial_state = fmb_beam_initial_state,
    .tangent_pattern = fmb_beam_tangent_pattern,
    .tangent_add = fmb_beam_tangent_add,
    .mass_forces = beam_mass_forces,
};
