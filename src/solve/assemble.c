/* Assembly of the KKT iteration matrix from the body, force, joint and contact classes
 * (taking the joints' views and Jacobians from the residual of the same iterate when
 * handed over: residual.c, sim.h fmb_joint_memo_t); factor + solve with messages that
 * name dependent constraint rows. */
#include "solve/sim_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The memo of the last residual, if the assembly at (q, qd, t) may take it (sim.h). */
static int joint_memo_valid(const fmb_sim_t *s, const double *q, const double *qd, double t)
{
    const fmb_joint_memo_t *jm = s->as.jm;
    return jm->handoff && jm->ok && jm->qp == q && jm->qdp == qd && !memcmp(&jm->t, &t, sizeof t) &&
           !memcmp(jm->q, q, (size_t)s->n * sizeof *q);
}

typedef struct body_emit {
    fmb_kkt_t *k;
    int offset;
    double ee; /* factor on elastic-elastic entries (0: none) */
    int rows;  /* 0: all rows; 1: elastic rows only (carrier rows 0) */
} body_emit_t;

static void body_emit(void *ctx, int n, const int *cols, const double *B)
{
    const body_emit_t *be = ctx;
    fmb_kkt_t *k = be->k;
    int g[FMB_ELEM_COLS];
    if (n > FMB_ELEM_COLS) { /* no such block today: the plain loop */
        for (int x = 0; x < n; x++)
            for (int y = 0; y < n; y++)
                fmb_kkt_add(k, be->offset + cols[y], be->offset + cols[x], B[y + n * x]);
        return;
    }
    for (int x = 0; x < n; x++)
        g[x] = be->offset + cols[x];
    if (be->ee == 0.0 && be->rows == 0) { /* every dynamic assembly */
        fmb_kkt_add_block(k, n, g, n, g, B, 1, n, 1.0);
        return;
    }
    for (int x = 0; x < n; x++)
        for (int y = 0; y < n; y++) {
            double v = B[y + n * x];
            if (be->ee != 0.0 && cols[x] >= 3 && cols[y] >= 3) v *= be->ee;
            if (be->rows == 1 && cols[y] < 3) v = 0.0;
            fmb_kkt_add(k, g[y], g[x], v);
        }
}

/* Global index of every local column of an element (-1 on ground) into g; with
 * carrier non-NULL, whether each is a carrier (rigid) coordinate of its body. Returns
 * nl = v[0].nc + v[1].nc; *all (if non-NULL): no column is on ground. */
static int elem_map(const fmb_bodyview_t v[2], int *g, unsigned char *carrier, int *all)
{
    int nl = 0, neg = 0;
    for (int b = 0; b < 2; b++) {
        const int off = v[b].body ? v[b].body->offset : -1;
        neg |= off < 0 && v[b].nc > 0;
        for (int k = 0; k < v[b].nc; k++, nl++) {
            g[nl] = off < 0 ? -1 : off + v[b].cols[k];
            if (carrier) carrier[nl] = v[b].cols[k] < 3;
        }
    }
    if (all) *all = !neg;
    return nl;
}

/* Assemble the KKT matrix
 *   [ cM M + cKm Kmq + cK (Kc(lam) - Kq) - cC Cq    cA Phi_q^T ]
 *   [ Phi_q                                         c22 I      ]
 * always emitting the same triplets in the same order (fixed pattern, also with the
 * modifiers ee and elastic_rows of the quasi-static start, sim_internal.h). */

/* Element blocks go in through fmb_kkt_add (the fixed recorded sequence) when the
 * element's columns never change, else (search = 1) through fmb_kkt_addx (placed by
 * search; the pattern grows). */
static inline void add_entry(fmb_kkt_t *k, int search, int i, int j, double x)
{
    if (search)
        fmb_kkt_addx(k, i, j, x);
    else
        fmb_kkt_add(k, i, j, x);
}

/* Reserve (as explicit zeros, once per pattern) the entries a joint with a reach() can
 * have near its present state (every state with s->as.reach_all): its Jacobian rows on every
 * reachable column (and the transpose) and the Hessian between the reachable and the
 * rigid columns. Beyond the reach the joint's searched entries grow the pattern, which is
 * rebuilt with this reservation made anew (model.h reach()). */
static void reserve_reach(fmb_sim_t *s, const fmb_joint_t *j, const fmb_bodyview_t v[2])
{
    fmb_kkt_t *k = &s->as.kkt;
    const int nr = j->klass->nrows;
    for (int b = 0; b < 2; b++) {
        const int off = v[b].body ? v[b].body->offset : -1;
        if (off < 0) continue;
        int *cols = malloc((size_t)v[b].ndof * sizeof *cols + 1);
        if (!cols) return; /* only a reservation: the entries then grow the pattern */
        /* UMFPACK (linear_solver: umfpack) analyses each new pattern from scratch, at a
         * cost that a window's rebuilds do not pay back (1,000 elements: 14.4 ms per step
         * against 4.4 ms with the whole guide reserved; docs/performance.md "The slider's
         * reach: a window") */
        const int all = s->as.reach_all || k->solver == FMB_KKT_UMFPACK;
        const int nc = j->klass->reach(j, v, b, all, cols);
        for (int x = 0; x < nc; x++) {
            const int g = off + cols[x];
            for (int r = 0; r < nr; r++) {
                fmb_kkt_addx(k, s->n + j->row + r, g, 0.0);
                fmb_kkt_addx(k, g, s->n + j->row + r, 0.0);
            }
            for (int bb = 0; bb < 2; bb++) {
                const int o2 = v[bb].body ? v[bb].body->offset : -1;
                if (o2 < 0) continue;
                for (int rc = 0; rc < 3; rc++) {
                    fmb_kkt_addx(k, o2 + rc, g, 0.0);
                    fmb_kkt_addx(k, g, o2 + rc, 0.0);
                }
            }
        }
        free(cols);
    }
}

/* An element's nl x nl block B (local columns of the views) times a into the matrix;
 * elastic_rows: the carrier rows get zeros (quasi-static start). */
static void add_block_g(fmb_kkt_t *k, int search, int nl, const int *g,
                        const unsigned char *carrier, int all, const double *B, double a,
                        int elastic_rows)
{
    if (all && !elastic_rows) { /* one block: the fixed sequence, or searched */
        if (search)
            fmb_kkt_addx_block(k, nl, g, nl, g, B, 1, nl, a);
        else
            fmb_kkt_add_block(k, nl, g, nl, g, B, 1, nl, a);
        return;
    }
    for (int cc = 0; cc < nl; cc++) {
        const int gc = g[cc];
        if (gc < 0) continue;
        const double *Bc = B + (size_t)nl * cc;
        if (elastic_rows) {
            for (int r = 0; r < nl; r++)
                if (g[r] >= 0) add_entry(k, search, g[r], gc, carrier[r] ? 0.0 : a * Bc[r]);
        } else if (search) {
            for (int r = 0; r < nl; r++)
                if (g[r] >= 0) fmb_kkt_addx(k, g[r], gc, a * Bc[r]);
        } else {
            for (int r = 0; r < nl; r++)
                if (g[r] >= 0) fmb_kkt_add(k, g[r], gc, a * Bc[r]);
        }
    }
}

/* The same with the element's index map computed here (elem_map). */
static void add_block(fmb_kkt_t *k, int search, const fmb_bodyview_t v[2], const double *B,
                      double a, int elastic_rows)
{
    int g[FMB_ELEM_COLS], all;
    unsigned char carrier[FMB_ELEM_COLS];
    const int nl = elem_map(v, g, carrier, &all);
    add_block_g(k, search, nl, g, carrier, all, B, a, elastic_rows);
}

/* A joint Hessian stated FMB_HESS_POINTS (model.h): only each body's theta row and
 * column, on that body's own columns (a value-independent subset of the nl x nl block). */
static void add_points_hess(fmb_kkt_t *k, const fmb_bodyview_t v[2], int nl, const int *g,
                            const unsigned char *carrier, const double *H, double a,
                            int elastic_rows)
{
    for (int b = 0, o = 0; b < 2; o += v[b].nc, b++) {
        if (v[b].nc < 3 || g[o] < 0) continue; /* ground: nothing */
        const int th = o + 2;                  /* the body's theta column */
        for (int cc = o; cc < o + v[b].nc; cc++) {
            const double *Bc = H + (size_t)nl * cc;
            if (cc == th) { /* the whole theta column */
                for (int r = o; r < o + v[b].nc; r++)
                    fmb_kkt_add(k, g[r], g[cc], elastic_rows && carrier[r] ? 0.0 : a * Bc[r]);
            } else { /* the theta row only */
                fmb_kkt_add(k, g[th], g[cc], elastic_rows ? 0.0 : a * Bc[th]);
            }
        }
    }
}

_Static_assert(FMB_ELEM_COLS < 256, "fmb_kkt_add_joint's mark holds nr, nl and n0 below 256");

static int has_shape(const fmb_body_t *b)
{
    return b && b->klass && b->klass->shape;
}

static void assemble_pass(fmb_sim_t *s, const double *q, const double *qd, const double *qdd,
                          const double *lam, double t, const fmb_coeffs_t *c)
{
    const fmb_model_t *md = s->model;
    fmb_kkt_t *k = &s->as.kkt;
    const int n = s->n;
    fmb_kkt_begin(k);
    for (int b = 1; b < md->nbodies; b++) {
        const fmb_body_t *bd = &md->bodies[b];
        const int o = bd->offset, nd = bd->ndof;
        const int *Jp, *Ii;
        if (c->ee == 0.0 && !c->elastic_rows && bd->klass->tangent_add &&
            bd->klass->tangent_pattern(bd, &Jp, &Ii) > 0) {
            /* the body's entries as one fixed list (model.h): straight into the matrix
             * while the assembly follows its recorded pattern */
            const double cf[4] = {c->cM, c->cKm, c->cK, c->cC};
            const int *pos;
            double *A = fmb_kkt_fixed_begin(k, nd, Jp, Ii, o, &pos);
            if (A) bd->klass->tangent_add(bd, q + o, qd + o, qdd + o, md->g, cf, pos, A);
            fmb_kkt_fixed_end(k);
            continue;
        }
        if (bd->klass->blocks) {
            const double cf[4] = {c->elastic_rows ? 0.0 : c->cM, c->cKm, c->cK, c->cC};
            body_emit_t be = {k, o, c->ee, c->elastic_rows ? 1 : 0};
            bd->klass->blocks(bd, q + o, qd + o, qdd + o, md->g, cf, body_emit, &be);
            /* with elastic_rows (quasi-static start) the carrier block once more: the
             * carrier rows' mass term cM M_rr. Its entries are among the body blocks'
             * (the carrier columns of every block): placed by search, so that the
             * recorded entry sequence is that of the dynamic assemblies, which do not
             * emit it. */
            if (!c->elastic_rows) continue;
            double *e = s->as.sQ[0], *Me = s->as.sQ[1];
            for (int cc = 0; cc < 3; cc++) {
                if (bd->klass->mass_times) {
                    memset(e, 0, (size_t)nd * sizeof *e);
                    e[cc] = 1.0;
                    bd->klass->mass_times(bd, q + o, e, Me);
                }
                for (int r = 0; r < 3; r++)
                    fmb_kkt_addx(k, o + r, o + cc, bd->klass->mass_times ? c->cM * Me[r] : 0.0);
            }
            continue;
        }
        /* dense path: small bodies only (rigid, s->as.maxd), and the quasi-static start's
         * modified assemblies */
        const size_t nd2 = (size_t)nd * nd;
        double *M = s->as.sM, *Q = fmb_zeroed(s->as.sQ[0], (size_t)nd),
               *Kq = fmb_zeroed(s->as.dK, nd2), *Cq = fmb_zeroed(s->as.dC, nd2),
               *Km = fmb_zeroed(s->as.dH, nd2);
        bd->klass->mass(bd, q + o, M);
        bd->klass->forces(bd, q + o, qd + o, qdd + o, md->g, Q, Kq, Cq, Km);
        for (int cc = 0; cc < nd; cc++)
            for (int r = 0; r < nd; r++) {
                int e = r + nd * cc;
                double val = c->cM * M[e] + c->cKm * Km[e] - c->cK * Kq[e] - c->cC * Cq[e];
                if (c->elastic_rows) /* carrier rows: mass alone; elastic rows: no mass */
                    val = r < 3 ? c->cM * M[e] : c->cKm * Km[e] - c->cK * Kq[e] - c->cC * Cq[e];
                if (c->ee != 0.0 && r >= 3 && cc >= 3) val *= c->ee;
                Kq[e] = val; /* Kq[e] is read for this entry only: reused for the block */
            }
        int gi[FMB_ELEM_COLS];
        if (nd <= FMB_ELEM_COLS) {
            for (int r = 0; r < nd; r++)
                gi[r] = o + r;
            fmb_kkt_add_block(k, nd, gi, nd, gi, Kq, 1, nd, 1.0);
        } else {
            for (int cc = 0; cc < nd; cc++)
                for (int r = 0; r < nd; r++)
                    fmb_kkt_add(k, o + r, o + cc, Kq[r + nd * cc]);
        }
    }
    for (int i = 0; i < md->nforces; i++) {
        const fmb_force_t *f = &md->forces[i];
        fmb_bodyview_t v[2];
        fmb_force_views(md, f, q, qd, v);
        const int nl = v[0].nc + v[1].nc;
        const size_t nl2 = (size_t)nl * nl;
        double *Q[2] = {fmb_zeroed(s->as.sQ[0], FMB_VIEW_COLS),
                        fmb_zeroed(s->as.sQ[1], FMB_VIEW_COLS)};
        double *K = fmb_zeroed(s->as.sK, nl2), *C = fmb_zeroed(s->as.sC, nl2);
        f->klass->eval(f, v, t, Q[0], Q[1], K, C);
        for (size_t e = 0; e < nl2; e++)
            K[e] = -c->cK * K[e] - c->cC * C[e];
        add_block(k, f->klass->cols != NULL, v, K, 1.0, c->elastic_rows);
    }
    /* the joints' views and Jacobians from the residual of this iterate when try_step hands
     * them over (sim.h fmb_joint_memo_t), else evaluated here */
    const int memo = joint_memo_valid(s, q, qd, t);
    if (memo) s->as.jm->used++;
    for (int i = 0; i < md->njoints; i++) {
        const fmb_joint_t *j = &md->joints[i];
        fmb_bodyview_t vl[2];
        const fmb_bodyview_t *v = memo ? s->as.jm->v + 2 * i : vl;
        if (!memo) fmb_sim_joint_views(s, j, q, qd, vl);
        const int search = j->klass->cols != NULL;
        if (!k->mapped && j->klass->cols && j->klass->reach && k->n > FMB_KKT_LARGE)
            reserve_reach(s, j, v); /* large systems (small ones keep their pattern) */
        const int nr = j->klass->nrows, n0 = v[0].nc, nl = n0 + v[1].nc;
        /* J_1 right after J_0 (sJ[0] and sJ[1] are adjacent, maxr x FMB_VIEW_COLS each:
         * sim.c; the memo likewise): the element's Jacobian is one nr x nl block */
        const double *J0;
        if (memo) {
            J0 = s->as.jm->J + s->as.jm->joff[i];
        } else {
            double *Jz = fmb_zeroed(s->as.sJ[0], (size_t)(nr * nl));
            j->klass->eval(j, v, t, s->as.sphi, Jz, Jz + (size_t)nr * n0);
            J0 = Jz;
        }
        double *H = fmb_zeroed(s->as.sH, (size_t)nl * nl);
        j->klass->hess(j, v, t, lam + j->row, H);
        int g[FMB_ELEM_COLS], all; /* the element's index map, for J and H */
        unsigned char carrier[FMB_ELEM_COLS];
        elem_map(v, g, carrier, &all);
        const int row0 = n + j->row;
        int R[FMB_ELEM_COLS];
        if (!search && all && nr <= FMB_ELEM_COLS && j->klass->hess_kind == FMB_HESS_POINTS &&
            !c->elastic_rows) { /* J, J^T and the points' Hessian in one call */
            for (int r = 0; r < nr; r++)
                R[r] = row0 + r;
            const int h0 = n0 >= 3, h1 = nl - n0 >= 3; /* on ground: no columns */
            fmb_kkt_add_joint(k, nr, R, nl, g, J0, c->cA, n0, h0, h1, H, c->cK);
            continue;
        }
        if (all && nr <= FMB_ELEM_COLS) { /* J (nr x nl), then J^T as blocks */
            for (int r = 0; r < nr; r++)
                R[r] = row0 + r;
            if (search) {
                fmb_kkt_addx_block(k, nr, R, nl, g, J0, 1, nr, 1.0);
                fmb_kkt_addx_block(k, nl, g, nr, R, J0, nr, 1, c->cA);
            } else {
                fmb_kkt_add_block(k, nr, R, nl, g, J0, 1, nr, 1.0);
                fmb_kkt_add_block(k, nl, g, nr, R, J0, nr, 1, c->cA);
            }
        } else {
            for (int x = 0; x < nl; x++) {
                const int gc = g[x];
                if (gc < 0) continue;
                const double *Jx = J0 + nr * x; /* J_1 follows J_0 */
                for (int r = 0; r < nr; r++) {
                    add_entry(k, search, row0 + r, gc, Jx[r]);
                    add_entry(k, search, gc, row0 + r, c->cA * Jx[r]);
                }
            }
        }
        if (!search && j->klass->hess_kind == FMB_HESS_POINTS)
            add_points_hess(k, v, nl, g, carrier, H, c->cK, c->elastic_rows);
        else
            add_block_g(k, search, nl, g, carrier, all, H, c->cK, c->elastic_rows);
    }
    for (int ic = 0; ic < s->ct.ncontacts; ic++) {
        const fmb_contact_t *ct = &s->ct.contacts[ic];
        const fmb_joint_t *j = &md->joints[ct->joint];
        fmb_bodyview_t v[2];
        fmb_sim_contact_views(s, ct, q, qd, v);
        const int nl = v[0].nc + v[1].nc;
        double *C = fmb_zeroed(s->as.sC, (size_t)nl * nl);
        fmb_contact_tangent(ct, j, v, ct->F, C);
        /* the contact points move along the guide: placed by search, unless no body has
         * shape columns and the joint's columns are fixed (then always the rigid ones) */
        const int search = j->klass->cols || has_shape(v[0].body) || has_shape(v[1].body);
        add_block(k, search, v, C, -c->cC, c->elastic_rows);
    }
    for (int r = 0; r < s->m; r++)
        fmb_kkt_add(k, n + r, n + r, c->c22);
}

void fmb_sim_assemble(fmb_sim_t *s, const double *q, const double *qd, const double *qdd,
                      const double *lam, double t, const fmb_coeffs_t *c)
{
    assemble_pass(s, q, qd, qdd, lam, t, c);
    /* off the recorded pattern (a new searched entry, another sequence): once more, with
     * every entry recorded for the rebuild (kkt.h) */
    if (fmb_kkt_end(&s->as.kkt)) {
        assemble_pass(s, q, qd, qdd, lam, t, c);
        fmb_kkt_end(&s->as.kkt); /* unmapped: always 0 */
    }
}

/* Name of the joint owning constraint row `row`, for messages. */
const char *fmb_sim_row_name(const fmb_sim_t *s, int row, int *line)
{
    int j = fmb_model_row_joint(s->model, row, NULL);
    *line = j >= 0 ? s->model->joints[j].line : 0;
    return j >= 0 ? s->model->joints[j].name : "?";
}

/* Explain a singular KKT matrix by the dependent constraint rows. */
int fmb_sim_singular_error(fmb_sim_t *s, const double *q, double t, const char *when)
{
    /* naming the dependent rows takes a dense QR: only for Jacobians up to 5e7 entries */
    double *Jd = (double)s->m * (double)s->n <= 5e7
                     ? malloc((size_t)s->m * (size_t)s->n * sizeof *Jd + 1)
                     : NULL;
    int red[8], nred = 0;
    if (Jd) {
        fmb_sim_dense_jacobian(s, q, t, Jd);
        fmb_rank_rows(Jd, s->m, s->n, red, 8, &nred);
        free(Jd);
    }
    if (nred == 0)
        return fmb_sim_error(s, FMB_ERR_SINGULAR,
                             "singular system matrix %s at t = %.9g (the mechanism is at a "
                             "singular position or a body is unconstrained and massless)",
                             when, t);
    char list[512] = "";
    for (int i = 0; i < nred; i++) {
        int line, local;
        const char *nm = fmb_sim_row_name(s, red[i], &line);
        fmb_model_row_joint(s->model, red[i], &local);
        size_t len = strlen(list);
        snprintf(list + len, sizeof list - len, "%sjoint '%s' row %d (line %d)", i ? ", " : "", nm,
                 local, line);
    }
    int rc = fmb_sim_error(s, FMB_ERR_SINGULAR,
                           "redundant constraints make the system matrix singular %s: %d "
                           "dependent row(s): %s; remove them (flexmb check lists the rank)",
                           when, nred, list);
    fmb_sim_row_name(s, red[0], &s->errline);
    return rc;
}

int fmb_sim_solve_kkt(fmb_sim_t *s, const double *rhs, double *x, const double *q, double t,
                      const char *when)
{
    int rc = fmb_kkt_factor(&s->as.kkt);
    s->diag.stats.factorizations = s->as.kkt.nnumeric;
    s->diag.stats.symbolic = s->as.kkt.nsymbolic;
    if (rc == FMB_ERR_SINGULAR) return fmb_sim_singular_error(s, q, t, when);
    if (rc) return fmb_sim_error(s, rc, "linear solver failure %s at t = %.9g", when, t);
    rc = fmb_kkt_solve(&s->as.kkt, rhs, x);
    if (rc) return fmb_sim_error(s, rc, "linear solve failed %s at t = %.9g", when, t);
    return 0;
}
