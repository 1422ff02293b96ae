/*
 * The beam's fast path: the class of runs, fmb_beam_body_class (beam.h). beam.c is the
 * reference (the equations, every element evaluated from scratch in plain loops); this file
 * evaluates the same terms with
 *   - the element-state cache (fmb_beam_states: the states of the last (q, qd), only
 *     missing parts computed, within the consumer's element loop),
 *   - the decoupled kernels and the inline element states (beam_state.h, beam_kernels.h:
 *     the dense sums without a decoupled beam's exact-zero products),
 *   - the residual's one pass (mass_forces: M v and Q element by element, each state once),
 *   - the iteration matrix as one list (beam_tangent.c, with its two-lane form in
 *     beam_tangent_simd.c).
 * The class shares the reference's element elastic and damping forces, the inertia matrix
 * (beam_inertia.c), the shape functions, power and destroy. Tests compare the two classes
 * to rounding (tests/test_beam_resid.c, test_beam_cache.c, test_beam_tangent.c), and
 * tests/test_conformance.c checks both against finite differences.
 */
#include "bodies/beam_internal.h"
#include "bodies/beam_kernels.h"
#include "bodies/beam_state.h"

#include <string.h>

/* ---- the element-state cache ---- */

/* Cached states of all elements. The residual evaluates M qdd (mass_times) and then Q
 * (forces) at the same q, and the iteration matrix is assembled at the iterate of the
 * last residual, so the states are kept with the q (and qd) they were computed from and
 * only the missing parts are computed: same operations on the same numbers, so the
 * results are bitwise those of a computation from scratch. The key is the bit pattern of the body's
 * q and qd (memcmp over all ndof; the rate parts also need qd's): nothing about the
 * caller's state is assumed. It is complete: a state reads only the body's own q (carrier
 * rbar and theta included) and qd and the element constants fixed at build (shape
 * integrals, Mff, the dof map); neither h, t, gravity nor another body enter it
 * (gravity's a = A^T g is applied by the callers, fmb_beam_inertia_q).
 * fmb_beam_states_begin decides the parts and moves the key; the caller then brings every
 * element up to date with fmb_beam_state (inside its own element loop, so that a large
 * mesh's states, ~60 doubles per element, are used while in cache: one pass instead of
 * one for the states and one per consumer). */
fmb_beam_istate_t *fmb_beam_states_begin(const fmb_beam_t *bm, const double *q, const double *qd,
                                         int what, fmb_beam_plan_t *p)
{
    fmb_beam_cache_t *c = bm->cache;
    const size_t nb = (size_t)bm->ndof * sizeof *q;
    if (what & FMB_IS_TANGENT) what |= FMB_IS_FORCE;
    if (c->have & FMB_IS_Q && memcmp(c->q, q, nb) != 0) c->have = 0;
    if (c->have & FMB_IS_FORCE && what & FMB_IS_FORCE && memcmp(c->qd, qd, nb) != 0)
        c->have &= ~(FMB_IS_FORCE | FMB_IS_TANGENT);
    p->doq = !(c->have & FMB_IS_Q);
    if (p->doq) {
        memcpy(c->q, q, nb);
        c->have = FMB_IS_Q;
    }
    p->need = what & ~c->have;
    if (p->need & FMB_IS_FORCE) memcpy(c->qd, qd, nb);
    c->have |= p->need;
    return c->st;
}

const fmb_beam_istate_t *fmb_beam_states(const fmb_beam_t *bm, const double *q, const double *qd,
                                         int what)
{
    fmb_beam_plan_t p;
    fmb_beam_istate_t *st = fmb_beam_states_begin(bm, q, qd, what, &p);
    for (int e = 0; e + 1 < bm->nnodes; e++)
        fmb_beam_state(bm, e, q, qd, &p, st + e);
    return st;
}

/* ---- the class's evaluations ---- */

static void beam_mass(const fmb_body_t *b, const double *q, double *M)
{
    const fmb_beam_t *bm = b->data;
    memset(M, 0, (size_t)bm->ndof * bm->ndof * sizeof *M);
    static const double cf[4] = {1, 0, 0, 0}, z9[9] = {0};
    const fmb_beam_istate_t *st = fmb_beam_states(bm, q, NULL, FMB_IS_MASS);
    for (int e = 0; e + 1 < bm->nnodes; e++) {
        double B[81] = {0};
        fmb_beam_inertia_matrix(bm, e, st + e, z9, z9, cf, B);
        fmb_beam_scatter_block(bm->el + e, B, M, (size_t)bm->ndof);
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
        fmb_beam_element_slots(bm, e, v, vl);
        fmb_beam_inertia_mv_d(bm->decoupled, bm, e, st + e, vl, ol);
        fmb_beam_scatter_vec(bm->el + e, ol, out);
    }
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
     * followed by an elastic pass (the reference's): an elastic entry (node k's dofs) gets the
     * inertia of elements k - 1 and k before the elastic terms of k - 1 and k; the rigid
     * entries 0-2 get no elastic terms. */
    const int ne = bm->nnodes - 1, damped = bm->alpha != 0.0 || bm->beta != 0.0;
    for (int e = 0; e <= ne; e++) {
        if (e < ne) { /* element e's inertia */
            const fmb_beam_elem_t *el = bm->el + e;
            fmb_beam_istate_t *st = sts + e;
            double Ql[9], qddl[9];
            fmb_beam_state(bm, e, q, qd, &p, st);
            fmb_beam_inertia_q_d(bm->decoupled, bm, e, st, a, Ql);
            fmb_beam_scatter_vec(el, Ql, Q);
            if (Kmq) fmb_beam_element_slots(bm, e, qdd, qddl);
            for (int k = 0; k < 3; k++) {
                if (!out[k]) continue;
                double B[81] = {0};
                fmb_beam_inertia_matrix(bm, e, st, a, qddl, sel[k], B);
                fmb_beam_scatter_block(el, B, out[k], nd);
            }
        }
        if (e == 0) continue;
        /* element e - 1's elastic and Rayleigh damping forces: Q -= f_e + (alpha m_e +
         * beta k_e) ud_e, Kq -= K_e, Cq -= alpha m_e + beta k_e (U_e, Ud_e from its state) */
        const int el = e - 1, *d = bm->dof + 3 * el;
        const double *ul = sts[el].U, *vl = sts[el].Ud;
        double fe[6], kt[36], ct[36], kd[36];
        const double *k = fmb_beam_element_elastic(bm, el, ul, fe, Kq ? kt : NULL, NULL);
        if (damped) k = fmb_beam_element_damping(bm, el, ul, vl, fe, k, Kq ? kd : NULL, ct);
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
 * additions as fmb_beam_scatter_vec. */
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
    fmb_beam_scatter_vec(el, z, v);
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
            fmb_beam_element_elastic(bm, el, ul, fe, NULL, NULL);
        } else { /* fmb_beam_element_elastic's k_e ud, the energy left out */
            const double *k = fmb_beam_ke(bm, el);
            double ud[6];
            fmb_beam_deformation(bm, el, ul, ud);
            FMB_BEAM_UNROLL
            for (int i = 0; i < 6; i++) {
                double x = 0.0;
                if (!dec || !fmb_beam_axial(i)) x += k[i + 12] * ud[2];
                if (!dec || fmb_beam_axial(i)) x += k[i + 18] * ud[3];
                if (!dec || !fmb_beam_axial(i)) x += k[i + 30] * ud[5];
                fe[i] = x;
            }
        }
        if (damped) fmb_beam_element_damping(bm, el, ul, vl, fe, NULL, NULL, ct);
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
        fmb_beam_element_slots(bm, e, qdd, qddl);
        fmb_beam_inertia_matrix(bm, e, st, a, qddl, cf, B);
        /* elastic and damping: -cK (-K_e) - cC (-C_e) on the elastic slots (the linear
         * beam's tangent is the constant k_e: no force needed) */
        double fe[6], kt[36], kd[36], ct[36];
        const double *k = bm->nonconstant_stiffness
                              ? fmb_beam_element_elastic(bm, e, st->U, fe, kt, NULL)
                              : fmb_beam_ke(bm, e);
        if (damped) k = fmb_beam_element_damping(bm, e, st->U, st->Ud, fe, k, kd, ct);
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
        fmb_beam_element_elastic(bm, e, st[e].U, fe, NULL, &w);
        V += w;
    }
    /* gravity: -g . (A sum w p) */
    return V - (g[0] * (A[0] * Pm[0] + A[2] * Pm[1]) + g[1] * (A[1] * Pm[0] + A[3] * Pm[1]));
}

const fmb_body_class_t fmb_beam_body_class = {
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
    .tangent_pattern = fmb_beam_tangent_pattern,
    .tangent_add = fmb_beam_tangent_add,
    .mass_forces = beam_mass_forces,
};
