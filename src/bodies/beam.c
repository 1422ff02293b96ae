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
 * Inertia by virtual work, integrated with 4-point Gauss quadrature per element (exact
 * for the degree-6 products of the shape functions): at a Gauss point of mass w,
 * L = [I2, Itil p, N], P = dp/dq = [I2, 0, N], a = A^T g, and
 *   f   = a - 2 thd Itil pd + thd^2 p             (body force per unit mass)
 *   M  += w L^T L
 *   Q  += w L^T f
 *   dQ/dq  += w [ e_t (Itil^T f)^T P + L^T (Itil^T a e_t^T + thd^2 P) ]
 *   dQ/dqd += w L^T [ -2 thd Itil P + (-2 Itil pd + 2 thd p) e_t^T ]
 *   d(M qdd)/dq += w [ e_t (Itil^T (L qdd))^T P + thdd L^T Itil P ]
 * The mass matrix and M v come in closed form from per-element shape integrals over the
 * same mass points, computed once at build (beam_inertia.c, beam_internal.h).
 * Rotary inertia (optional) adds the same with the section's second moment: a point at
 * distance y across the section, integrated, gives rho I times the terms of the points
 * (x, +-y) minus the centre line; we include it as lumped Gauss points at y0 = +-sqrt(I/A)
 * carrying half the mass each, which reproduces rho I exactly for these quadratic terms.
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
 * Storage is linear in the element count: k_e and m_e per element, and the assembled K
 * and Muu as nonzero lists (for the modes).
 * Files: beam.c (this: the body class: mass, forces, iteration-matrix blocks, potential),
 * beam_shape.c (mesh and shape functions), beam_build.c (element matrices, dof map,
 * modes), beam_init.c (initial state), beam_corot.c (co-rotational element).
 */
#include "bodies/beam_internal.h"
#include "bodies/beam_corot.h"

#include <cholmod.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct gpoint {
    double u[2]; /* undeformed body-frame position */
    double w;    /* mass */
    fmb_shape_t N;
} gpoint_t;

static void beam_shape(const fmb_body_t *b, const double u[2], fmb_shape_t *N)
{
    const fmb_beam_t *bm = b->data;
    fmb_beam_element_shape(bm, fmb_beam_element_at(bm, u[0]), u[0], u[1], N);
}

static int beam_ndof(const fmb_body_t *b)
{
    return ((const fmb_beam_t *)b->data)->ndof;
}

/* Visit every mass point (Gauss points, and the rotary-inertia pairs). */
typedef void (*gp_visit)(const fmb_beam_t *bm, const gpoint_t *g, void *ctx);

/* Visit the mass points of element e. */
static void for_each_point_of(const fmb_beam_t *bm, int e, gp_visit fn, void *ctx)
{
    const double ry = bm->rotary ? sqrt(bm->I / bm->A) : 0.0;
    const double x1 = bm->x[e], l = bm->x[e + 1] - x1;
    for (int k = 0; k < 4; k++) {
        gpoint_t g;
        const double x = x1 + 0.5 * l * (1 + fmb_beam_gauss_x[k]);
        const double w = bm->rho * bm->A * 0.5 * l * fmb_beam_gauss_w[k];
        if (!bm->rotary) {
            g.u[0] = x, g.u[1] = 0.0, g.w = w;
            fmb_beam_element_shape(bm, e, x, 0.0, &g.N);
            fn(bm, &g, ctx);
        } else {
            for (int sgn = -1; sgn <= 1; sgn += 2) {
                g.u[0] = x, g.u[1] = sgn * ry, g.w = 0.5 * w;
                fmb_beam_element_shape(bm, e, x, g.u[1], &g.N);
                fn(bm, &g, ctx);
            }
        }
    }
}

static void for_each_point(const fmb_beam_t *bm, gp_visit fn, void *ctx)
{
    for (int e = 0; e + 1 < bm->nnodes; e++)
        for_each_point_of(bm, e, fn, ctx);
}

/* Local columns of a mass point: 0, 1, 2 then the shape columns. */
typedef struct local {
    int n, col[3 + FMB_SHAPE_MAX];
    double L[2][3 + FMB_SHAPE_MAX], P[2][3 + FMB_SHAPE_MAX];
    double p[2], pd[2];
} local_t;

static void make_local(const gpoint_t *g, const double *q, const double *qd, local_t *lc)
{
    const fmb_shape_t *N = &g->N;
    lc->n = 3 + N->n;
    lc->p[0] = q[0] + g->u[0], lc->p[1] = q[1] + g->u[1];
    lc->pd[0] = qd ? qd[0] : 0.0, lc->pd[1] = qd ? qd[1] : 0.0;
    for (int k = 0; k < N->n; k++) {
        lc->p[0] += N->Nx[k] * q[N->col[k]];
        lc->p[1] += N->Ny[k] * q[N->col[k]];
        if (qd) {
            lc->pd[0] += N->Nx[k] * qd[N->col[k]];
            lc->pd[1] += N->Ny[k] * qd[N->col[k]];
        }
    }
    for (int c = 0; c < 3; c++)
        lc->col[c] = c;
    lc->L[0][0] = 1, lc->L[1][0] = 0, lc->L[0][1] = 0, lc->L[1][1] = 1;
    lc->L[0][2] = -lc->p[1], lc->L[1][2] = lc->p[0];
    lc->P[0][0] = 1, lc->P[1][0] = 0, lc->P[0][1] = 0, lc->P[1][1] = 1;
    lc->P[0][2] = 0, lc->P[1][2] = 0;
    for (int k = 0; k < N->n; k++) {
        lc->col[3 + k] = N->col[k];
        lc->L[0][3 + k] = lc->P[0][3 + k] = N->Nx[k];
        lc->L[1][3 + k] = lc->P[1][3 + k] = N->Ny[k];
    }
}

typedef struct mass_ctx {
    const double *q;
    double *M;
    int nd;
} mass_ctx_t;

static void mass_visit(const fmb_beam_t *bm, const gpoint_t *g, void *vctx)
{
    (void)bm;
    mass_ctx_t *c = vctx;
    local_t lc;
    make_local(g, c->q, NULL, &lc);
    for (int a = 0; a < lc.n; a++)
        for (int b = 0; b < lc.n; b++)
            c->M[lc.col[a] + (size_t)c->nd * lc.col[b]] +=
                g->w * (lc.L[0][a] * lc.L[0][b] + lc.L[1][a] * lc.L[1][b]);
}

/* Element e's 9 local slots (rbar, theta, u1 .. phi2) of a body vector (removed dofs 0). */
static void element_slots(const fmb_beam_t *bm, int e, const double *v, double z[9])
{
    const int *d = bm->dof + 3 * e;
    z[0] = v[0], z[1] = v[1], z[2] = v[2];
    for (int i = 0; i < 6; i++)
        z[3 + i] = d[i] >= 0 ? v[d[i]] : 0.0;
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
        if (el->pos[i] >= 0) v[el->cols[el->pos[i]]] += z[i];
}

static void beam_mass(const fmb_body_t *b, const double *q, double *M)
{
    const fmb_beam_t *bm = b->data;
    memset(M, 0, (size_t)bm->ndof * bm->ndof * sizeof *M);
    static const double cf[4] = {1, 0, 0, 0}, z9[9] = {0};
    for (int e = 0; e + 1 < bm->nnodes; e++) {
        fmb_beam_istate_t st;
        double B[81] = {0};
        fmb_beam_istate(bm, e, q, NULL, &st);
        fmb_beam_inertia_matrix(bm, e, &st, z9, z9, cf, B);
        scatter_block(bm->el + e, B, M, (size_t)bm->ndof);
    }
}

/* M v element by element, without forming M: O(elements) instead of ndof^2. */
static void beam_mass_times(const fmb_body_t *b, const double *q, const double *v, double *out)
{
    const fmb_beam_t *bm = b->data;
    memset(out, 0, (size_t)bm->ndof * sizeof *out);
    for (int e = 0; e + 1 < bm->nnodes; e++) {
        fmb_beam_istate_t st;
        double vl[9], ol[9];
        fmb_beam_istate(bm, e, q, NULL, &st);
        element_slots(bm, e, v, vl);
        fmb_beam_inertia_mv(bm, e, &st, vl, ol);
        scatter_vec(bm->el + e, ol, out);
    }
}

typedef struct force_ctx {
    const double *q, *qd, *qdd, *g;
    double *Q, *Kq, *Cq, *Kmq;
    int nd;
    double a[2]; /* A^T g */
} force_ctx_t;

static void force_visit(const fmb_beam_t *bm, const gpoint_t *gp, void *vctx)
{
    (void)bm;
    force_ctx_t *c = vctx;
    local_t lc;
    make_local(gp, c->q, c->qd, &lc);
    const double w = gp->w, th = c->qd[2];
    const double *p = lc.p, *pd = lc.pd, *a = c->a;
    /* f = a - 2 thd Itil pd + thd^2 p, Itil v = (-v_y, v_x) */
    const double f[2] = {a[0] + 2 * th * pd[1] + th * th * p[0],
                         a[1] - 2 * th * pd[0] + th * th * p[1]};
    const size_t nd = (size_t)c->nd;
    for (int k = 0; k < lc.n; k++)
        c->Q[lc.col[k]] += w * (lc.L[0][k] * f[0] + lc.L[1][k] * f[1]);
    if (c->Kq) {
        const double itf[2] = {f[1], -f[0]}; /* Itil^T f */
        const double ita[2] = {a[1], -a[0]}; /* Itil^T a */
        for (int cc = 0; cc < lc.n; cc++) {
            /* e_t (Itil^T f)^T P */
            c->Kq[2 + nd * lc.col[cc]] += w * (itf[0] * lc.P[0][cc] + itf[1] * lc.P[1][cc]);
            for (int r = 0; r < lc.n; r++) {
                /* L^T thd^2 P */
                double v = th * th * (lc.L[0][r] * lc.P[0][cc] + lc.L[1][r] * lc.P[1][cc]);
                c->Kq[lc.col[r] + nd * lc.col[cc]] += w * v;
            }
        }
        for (int r = 0; r < lc.n; r++) /* L^T Itil^T a e_t^T */
            c->Kq[lc.col[r] + nd * 2] += w * (lc.L[0][r] * ita[0] + lc.L[1][r] * ita[1]);
    }
    if (c->Cq) {
        /* L^T [-2 thd Itil P] ; -2 thd Itil P column: (2 thd P_y, -2 thd P_x) */
        for (int cc = 0; cc < lc.n; cc++)
            for (int r = 0; r < lc.n; r++) {
                double v =
                    lc.L[0][r] * (2 * th * lc.P[1][cc]) + lc.L[1][r] * (-2 * th * lc.P[0][cc]);
                c->Cq[lc.col[r] + nd * lc.col[cc]] += w * v;
            }
        /* L^T (-2 Itil pd + 2 thd p) e_t^T */
        const double z[2] = {2 * pd[1] + 2 * th * p[0], -2 * pd[0] + 2 * th * p[1]};
        for (int r = 0; r < lc.n; r++)
            c->Cq[lc.col[r] + nd * 2] += w * (lc.L[0][r] * z[0] + lc.L[1][r] * z[1]);
    }
    if (c->Kmq) {
        double La[2] = {0, 0}; /* L qdd */
        for (int k = 0; k < lc.n; k++) {
            La[0] += lc.L[0][k] * c->qdd[lc.col[k]];
            La[1] += lc.L[1][k] * c->qdd[lc.col[k]];
        }
        const double itl[2] = {La[1], -La[0]};
        const double tdd = c->qdd[2];
        for (int cc = 0; cc < lc.n; cc++) {
            c->Kmq[2 + nd * lc.col[cc]] += w * (itl[0] * lc.P[0][cc] + itl[1] * lc.P[1][cc]);
            /* thdd L^T Itil P: Itil P column = (-P_y, P_x) */
            for (int r = 0; r < lc.n; r++) {
                double v = lc.L[0][r] * (-lc.P[1][cc]) + lc.L[1][r] * lc.P[0][cc];
                c->Kmq[lc.col[r] + nd * lc.col[cc]] += w * tdd * v;
            }
        }
    }
}

/* Element e's elastic force f_e (6) at its local dofs u_e, its strain energy, and when kt
 * is non-NULL the tangent df_e/du_e: returns the tangent (the constant k_e for linear
 * beams, else kt). This is the one place a geometrically nonlinear element (issue 7,
 * bm->nonconstant_stiffness) plugs in. */
static const double *element_elastic(const fmb_beam_t *bm, int e, const double ul[6], double fe[6],
                                     double *kt, double *energy)
{
    if (bm->nonconstant_stiffness) { /* co-rotational element (beam_corot.c) */
        fmb_corot_element(bm->x[e + 1] - bm->x[e], bm->E * bm->A, bm->E * bm->I, ul, fe, kt,
                          energy);
        return kt;
    }
    const double *k = bm->ke + 36 * (size_t)e;
    double w = 0.0;
    for (int i = 0; i < 6; i++) {
        double v = 0.0;
        for (int j = 0; j < 6; j++)
            v += k[i + 6 * j] * ul[j];
        fe[i] = v;
        w += 0.5 * ul[i] * v;
    }
    if (energy) *energy = w;
    return k;
}

/* Gather element e's local dofs from the body's q (removed dofs zero). */
static void element_dofs(const fmb_beam_t *bm, int e, const double *q, double ul[6])
{
    const int *d = bm->dof + 3 * e;
    for (int i = 0; i < 6; i++)
        ul[i] = d[i] >= 0 ? q[d[i]] : 0.0;
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
    const double *k0 = bm->ke + 36 * (size_t)e, *m0 = bm->me + 36 * (size_t)e;
    const double bl = bm->nonconstant_stiffness ? 0.0 : bm->beta;
    for (int z = 0; z < 36; z++)
        ct[z] = bm->alpha * m0[z] + bl * k0[z];
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++)
            fe[i] += ct[i + 6 * j] * vl[j];
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

/* Elastic and Rayleigh damping forces, element by element: Q -= f_e + (alpha m_e +
 * beta k_e) ud_e, Kq -= K_e, Cq -= alpha m_e + beta k_e (dense nd x nd blocks). */
static void beam_elastic(const fmb_beam_t *bm, const double *q, const double *qd, double *Q,
                         double *Kq, double *Cq)
{
    const size_t nd = (size_t)bm->ndof;
    const int damped = bm->alpha != 0.0 || bm->beta != 0.0;
    for (int e = 0; e + 1 < bm->nnodes; e++) {
        const int *d = bm->dof + 3 * e;
        double ul[6], vl[6], fe[6], kt[36];
        element_dofs(bm, e, q, ul);
        const double *k = element_elastic(bm, e, ul, fe, Kq ? kt : NULL, NULL);
        double ct[36], kd[36];
        if (damped) {
            element_dofs(bm, e, qd, vl);
            k = element_damping(bm, e, ul, vl, fe, k, Kq ? kd : NULL, ct);
        }
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

static void beam_forces(const fmb_body_t *b, const double *q, const double *qd, const double *qdd,
                        const double g[2], double *Q, double *Kq, double *Cq, double *Kmq)
{
    const fmb_beam_t *bm = b->data;
    const int nd = bm->ndof;
    double A[4];
    fmb_rot(q[2], A);
    force_ctx_t c = {q,  qd, qdd, g,  Q,
                     Kq, Cq, Kmq, nd, {A[0] * g[0] + A[1] * g[1], A[2] * g[0] + A[3] * g[1]}};
    for_each_point(bm, force_visit, &c);
    beam_elastic(bm, q, qd, Q, Kq, Cq);
}

/* ---- iteration-matrix blocks, element by element --------------------------
 * Element e touches the rigid columns 0, 1, 2 and its own free dofs (nl <= 9 local
 * columns): its block cM M + cKm Kmq - cK Kq - cC Cq is formed by the same Gauss-point
 * visitors as the dense matrices, on local copies of q, qd, qdd, and emitted once. */
typedef struct blk_ctx {
    int loc[6];   /* local column of the element's dofs (-1 removed) */
    const int *d; /* the element's body columns */
    mass_ctx_t mc;
    force_ctx_t fc;
} blk_ctx_t;

static void block_visit(const fmb_beam_t *bm, const gpoint_t *g, void *vctx)
{
    blk_ctx_t *c = vctx;
    gpoint_t gl = *g;
    for (int k = 0; k < gl.N.n; k++)
        for (int i = 0; i < 6; i++)
            if (c->d[i] == g->N.col[k]) {
                gl.N.col[k] = c->loc[i];
                break;
            }
    mass_visit(bm, &gl, &c->mc);
    force_visit(bm, &gl, &c->fc);
}

static void beam_blocks(const fmb_body_t *b, const double *q, const double *qd, const double *qdd,
                        const double g[2], const double cf[4], fmb_block_emit emit, void *ctx)
{
    const fmb_beam_t *bm = b->data;
    double A[4];
    fmb_rot(q[2], A);
    const double a[2] = {A[0] * g[0] + A[1] * g[1], A[2] * g[0] + A[3] * g[1]};
    const int damped = bm->alpha != 0.0 || bm->beta != 0.0;
    for (int e = 0; e + 1 < bm->nnodes; e++) {
        enum { NL = 9 };
        int cols[NL], nl = 3;
        double ql[NL], qdl[NL], qddl[NL], Ql[NL], M[NL * NL], K[NL * NL], C[NL * NL], Km[NL * NL];
        blk_ctx_t c;
        c.d = bm->dof + 3 * e;
        for (int i = 0; i < 3; i++)
            cols[i] = i, ql[i] = q[i], qdl[i] = qd[i], qddl[i] = qdd[i];
        for (int i = 0; i < 6; i++) {
            const int di = c.d[i];
            c.loc[i] = di < 0 ? -1 : nl;
            if (di < 0) continue;
            cols[nl] = di, ql[nl] = q[di], qdl[nl] = qd[di], qddl[nl] = qdd[di];
            nl++;
        }
        memset(M, 0, sizeof M), memset(K, 0, sizeof K), memset(C, 0, sizeof C);
        memset(Km, 0, sizeof Km), memset(Ql, 0, sizeof Ql);
        c.mc = (mass_ctx_t){ql, M, nl};
        c.fc = (force_ctx_t){ql, qdl, qddl, g, Ql, K, C, Km, nl, {a[0], a[1]}};
        for_each_point_of(bm, e, block_visit, &c);
        double ul[6], vl[6], fe[6], kt[36], kd[36], ct[36];
        element_dofs(bm, e, q, ul);
        const double *k = element_elastic(bm, e, ul, fe, kt, NULL);
        if (damped) {
            element_dofs(bm, e, qd, vl);
            k = element_damping(bm, e, ul, vl, fe, k, kd, ct);
        }
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 6; j++) {
                if (c.loc[i] < 0 || c.loc[j] < 0) continue;
                const int z = c.loc[i] + nl * c.loc[j];
                K[z] -= k[i + 6 * j];
                if (damped) C[z] -= ct[i + 6 * j];
            }
        for (int z = 0; z < nl * nl; z++)
            M[z] = cf[0] * M[z] + cf[1] * Km[z] - cf[2] * K[z] - cf[3] * C[z];
        emit(ctx, nl, cols, M);
    }
}

typedef struct pot_ctx {
    const double *q;
    double A[4], g[2], V;
} pot_ctx_t;

static void pot_visit(const fmb_beam_t *bm, const gpoint_t *gp, void *vctx)
{
    (void)bm;
    pot_ctx_t *c = vctx;
    local_t lc;
    make_local(gp, c->q, NULL, &lc);
    const double r[2] = {c->A[0] * lc.p[0] + c->A[2] * lc.p[1],
                         c->A[1] * lc.p[0] + c->A[3] * lc.p[1]};
    c->V -= gp->w * (c->g[0] * r[0] + c->g[1] * r[1]);
}

static double beam_potential(const fmb_body_t *b, const double *q, const double g[2])
{
    const fmb_beam_t *bm = b->data;
    pot_ctx_t c = {.q = q, .g = {g[0], g[1]}, .V = 0.0};
    fmb_rot(q[2], c.A);
    for_each_point(bm, pot_visit, &c);
    for (int e = 0; e + 1 < bm->nnodes; e++) {
        double ul[6], fe[6], w;
        element_dofs(bm, e, q, ul);
        element_elastic(bm, e, ul, fe, NULL, &w);
        c.V += w;
    }
    return c.V;
}

static void beam_destroy(fmb_body_t *b)
{
    fmb_beam_t *bm = b->data;
    if (!bm) return;
    free(bm->x), free(bm->dof), free(bm->ke), free(bm->me), free(bm->el);
    free(bm->nz_i), free(bm->nz_j), free(bm->Kz), free(bm->Mz), free(bm->U0);
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
    .shape = beam_shape,
    .destroy = beam_destroy,
    .blocks = beam_blocks,
    .initial_state = fmb_beam_initial_state,
};
