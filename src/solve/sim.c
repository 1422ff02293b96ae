/*
 * Time integration: index-3 generalized-alpha family (HHT-alpha, Newmark, Chung-Hulbert)
 * on the sparse KKT system, in the form of Arnold and Bruls (2007) (docs/theory.md 4):
 *   M(q_{n+1}) qdd_{n+1} + F(q_{n+1}, qd_{n+1}, lambda_{n+1}, t_{n+1}) = 0,
 *   F = Phi_q^T lambda - Q,   Phi(q_{n+1}, t_{n+1}) = 0,
 *   q_{n+1}  = q_n + h qd_n + h^2 (1/2 - beta) a_n + h^2 beta a_{n+1}
 *   qd_{n+1} = qd_n + h (1 - gamma) a_n + h gamma a_{n+1}
 *   (1 - am) a_{n+1} + am a_n = (1 - af) qdd_{n+1} + af qdd_n
 * HHT: am = 0, af = -alpha, beta = (1 - alpha)^2 / 4, gamma = 1/2 - alpha. The true
 * accelerations and multipliers hold at t_{n+1}, which keeps the scheme second order
 * with the carrier frame's M(q) (the form M qdd + (1+alpha) F_{n+1} - alpha F_n = 0 of
 * Negrut et al. 2007 is only first order there).
 *
 * Newton iteration in dq = beta' h^2 dqdd (beta' = beta (1 - af)/(1 - am), likewise
 * gamma'), with the first block row multiplied by beta' h^2 and the multiplier scaled as
 * dlt = beta' h^2 dlambda (Bottasso, Bauchau, Cardona 2007):
 *   [ M + bh2 (Kmq + Kc - Kq) - gamma' h Cq   Phi_q^T ] [ dq  ]   [ -bh2 (M qdd + F) ]
 *   [ Phi_q                                   0       ] [ dlt ] = [ -Phi             ]
 * with Kmq = d(M qdd)/dq, Kq = dQ/dq, Cq = dQ/dqd and Kc = d(Phi_q^T lambda)/dq.
 * Converged when max_i |dq_i| / (atol + rtol |q_i|) <= 1 and max |Phi| <= phi_tol. The
 * friction state (sliding velocity, LuGre z, mu) is that of the last iterate: near
 * v = 0, where LuGre friction is steep, the reported friction can differ from the one in
 * the converged dynamics by the Newton tolerance times d(mu N)/dv (docs/validation.md).
 */
#include "solve/sim.h"

#include "contact/lcp.h"

static void contact_decompose(fmb_sim_t *s);

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fmb_sim_error(fmb_sim_t *s, int status, const char *fmt, ...)
{
    s->errline = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->errmsg, sizeof s->errmsg, fmt, ap);
    va_end(ap);
    return status;
}

void fmb_sim_options_default(fmb_sim_options_t *o)
{
    memset(o, 0, sizeof *o);
    o->integrator = FMB_HHT;
    o->alpha = -0.05;
    o->beta = 0.25;
    o->gamma = 0.5;
    o->rho_inf = 0.8;
    o->h = 1e-3;
    o->t_end = 1.0;
    o->output_every = 1;
    o->max_newton = 25;
    o->rtol = 1e-10;
    o->atol = 1e-12;
    o->phi_tol = 1e-11;
    o->halving = 4;
    o->reuse_jacobian = 0;
}

/* Generalized-alpha family (Chung and Hulbert 1993; Arnold and Bruels 2007):
 *   (1 - am) a_{n+1} + am a_n = (1 - af) qdd_{n+1} + af qdd_n
 * HHT-alpha is am = 0, af = -alpha, beta = (1 - alpha)^2 / 4, gamma = 1/2 - alpha;
 * Newmark is am = af = 0. */
static void coefficients(const fmb_sim_t *s, double *am, double *af, double *beta, double *gamma)
{
    const fmb_sim_options_t *o = &s->opts;
    if (o->integrator == FMB_HHT) {
        *am = 0.0;
        *af = -o->alpha;
        *beta = 0.25 * (1.0 - o->alpha) * (1.0 - o->alpha);
        *gamma = 0.5 - o->alpha;
    } else if (o->integrator == FMB_GENERALIZED_ALPHA) {
        const double rho = o->rho_inf;
        *am = (2.0 * rho - 1.0) / (rho + 1.0);
        *af = rho / (rho + 1.0);
        *gamma = 0.5 - *am + *af;
        *beta = 0.25 * (1.0 - *am + *af) * (1.0 - *am + *af);
    } else {
        *am = 0.0;
        *af = 0.0;
        *beta = o->beta;
        *gamma = o->gamma;
    }
}

fmb_sim_t *fmb_sim_create(fmb_model_t *model, const fmb_sim_options_t *opts)
{
    if (!model) return NULL;
    fmb_sim_t *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->model = model;
    if (opts)
        s->opts = *opts;
    else
        fmb_sim_options_default(&s->opts);
    s->n = model->ncoords;
    s->m = model->nrows;
    size_t n = (size_t)s->n, m = (size_t)s->m, N = n + m;
    s->q = calloc(n + 1, sizeof(double));
    s->qd = calloc(n + 1, sizeof(double));
    s->qdd = calloc(n + 1, sizeof(double));
    s->lam = calloc(m + 1, sizeof(double));
    s->acc = calloc(n + 1, sizeof(double));
    s->zero = calloc(m + 1, sizeof(double));
    s->save = calloc(4 * n + m + 1, sizeof(double));
    s->work = calloc(4 * N + 1, sizeof(double));
    if (!s->q || !s->qd || !s->qdd || !s->lam || !s->acc || !s->save || !s->work || !s->zero) {
        fmb_sim_destroy(&s);
        return NULL;
    }
    /* Scratch for element blocks: the largest two-body block and row count. */
    int maxn = 1, maxr = 1;
    for (int i = 0; i < model->njoints; i++) {
        const fmb_joint_t *j = &model->joints[i];
        int nn = model->bodies[j->body[0]].ndof + model->bodies[j->body[1]].ndof;
        /* reactions view the ground as a rigid body */
        nn = nn < 6 ? 6 : nn + 3;
        maxn = nn > maxn ? nn : maxn;
        maxr = j->klass->nrows > maxr ? j->klass->nrows : maxr;
    }
    for (int i = 0; i < model->nforces; i++) {
        const fmb_force_t *f = &model->forces[i];
        int nn = model->bodies[f->body[0]].ndof + model->bodies[f->body[1]].ndof;
        maxn = nn > maxn ? nn : maxn;
    }
    for (int b = 0; b < model->nbodies; b++)
        maxn = model->bodies[b].ndof > maxn ? model->bodies[b].ndof : maxn;
    s->maxn = maxn, s->maxr = maxr;
    const size_t mn = (size_t)maxn, mr = (size_t)maxr;
    s->scratch = calloc(2 * mr * mn + 4 * mn * mn + 4 * mn + 2 * mr + 8, sizeof(double));
    if (!s->scratch) {
        fmb_sim_destroy(&s);
        return NULL;
    }
    s->sJ[0] = s->scratch;
    s->sJ[1] = s->sJ[0] + mr * mn;
    s->sH = s->sJ[1] + mr * mn;
    s->sK = s->sH + mn * mn;
    s->sC = s->sK + mn * mn;
    s->sM = s->sC + mn * mn;
    s->sQ[0] = s->sM + mn * mn;
    s->sQ[1] = s->sQ[0] + mn;
    s->sv = s->sQ[1] + mn;
    s->sw = s->sv + mn;
    s->sphi = s->sw + mn;
    s->sphi2 = s->sphi + mr;
    for (int i = 0; i < model->njoints; i++)
        if (model->joints[i].friction.model != FMB_FRICTION_NONE) s->ncontacts++;
    if (s->ncontacts) {
        const size_t nc = (size_t)s->ncontacts;
        s->contacts = calloc(nc, sizeof *s->contacts);
        s->cX = calloc(N * 8 * nc, sizeof(double));
        /* D+, P, p0, M, q, z, w: sized for 8 unknowns per contact */
        s->clcp = calloc(8 * (8 * nc) * (8 * nc) + 16 * (8 * nc) + 16, sizeof(double));
        if (!s->contacts || !s->cX || !s->clcp) {
            fmb_sim_destroy(&s);
            return NULL;
        }
        int c = 0;
        for (int i = 0; i < model->njoints; i++)
            if (model->joints[i].friction.model != FMB_FRICTION_NONE) {
                s->contacts[c].joint = i;
                s->contacts[c].d = model->joints[i].friction;
                c++;
            }
    }
    fmb_kkt_init(&s->kkt, (int)N);
    s->kkt.ordering = (int)s->opts.ordering;
    return s;
}

void fmb_sim_destroy(fmb_sim_t **ps)
{
    if (!ps || !*ps) return;
    fmb_sim_t *s = *ps;
    fmb_kkt_free(&s->kkt);
    free(s->q), free(s->qd), free(s->qdd), free(s->lam), free(s->acc), free(s->save);
    free(s->zero);
    free(s->work);
    free(s->scratch);
    free(s->contacts), free(s->cX), free(s->clcp);
    free(s);
    *ps = NULL;
}

/* ------------------------------------------------------------ evaluation */

static double *zeroed(double *p, size_t n)
{
    memset(p, 0, n * sizeof *p);
    return p;
}

static void joint_views(const fmb_sim_t *s, const fmb_joint_t *j, const double *q, const double *qd,
                        fmb_bodyview_t v[2])
{
    v[0] = fmb_model_view(s->model, j->body[0], q, qd);
    v[1] = fmb_model_view(s->model, j->body[1], q, qd);
}

/* Global index of local coordinate k of a two-body block, or -1 (ground). */
static int gidx(const fmb_model_t *m, const int body[2], int n0, int k)
{
    const fmb_body_t *b = &m->bodies[k < n0 ? body[0] : body[1]];
    return b->offset < 0 ? -1 : b->offset + (k < n0 ? k : k - n0);
}

/* A joint's Jacobian blocks at (q, t) into the scratch (J[b] is nrows x ndof_b); returns
 * nrows and fills the views. */
static int joint_jacobian(const fmb_sim_t *s, const fmb_joint_t *j, const double *q, double t,
                          fmb_bodyview_t v[2], double *J[2])
{
    joint_views(s, j, q, NULL, v);
    const int nr = j->klass->nrows;
    J[0] = zeroed(s->sJ[0], (size_t)(nr * v[0].ndof));
    J[1] = zeroed(s->sJ[1], (size_t)(nr * v[1].ndof));
    j->klass->eval(j, v, t, s->sphi, J[0], J[1]);
    return nr;
}

void fmb_sim_eval_forces(const fmb_sim_t *s, const double *q, const double *qd, const double *qdd,
                         const double *lam, double t, double *Mqdd, double *F)
{
    const fmb_model_t *md = s->model;
    const int n = s->n;
    if (Mqdd) memset(Mqdd, 0, (size_t)n * sizeof *Mqdd);
    if (F) memset(F, 0, (size_t)n * sizeof *F);
    for (int b = 1; b < md->nbodies; b++) {
        const fmb_body_t *bd = &md->bodies[b];
        const int o = bd->offset, nd = bd->ndof;
        if (Mqdd && bd->klass->mass_times) {
            bd->klass->mass_times(bd, q + o, qdd + o, Mqdd + o);
        } else if (Mqdd) {
            double *M = s->sM;
            bd->klass->mass(bd, q + o, M);
            for (int c = 0; c < nd; c++)
                for (int r = 0; r < nd; r++)
                    Mqdd[o + r] += M[r + nd * c] * qdd[o + c];
        }
        if (F) {
            double *Q = zeroed(s->sQ[0], (size_t)nd);
            bd->klass->forces(bd, q + o, qd + o, qdd + o, md->g, Q, NULL, NULL, NULL);
            for (int r = 0; r < nd; r++)
                F[o + r] -= Q[r];
        }
    }
    if (!F) return;
    for (int i = 0; i < md->nforces; i++) {
        const fmb_force_t *f = &md->forces[i];
        fmb_bodyview_t v[2] = {fmb_model_view(md, f->body[0], q, qd),
                               fmb_model_view(md, f->body[1], q, qd)};
        double *Q[2] = {zeroed(s->sQ[0], (size_t)s->maxn), zeroed(s->sQ[1], (size_t)s->maxn)};
        f->klass->eval(f, v, t, Q[0], Q[1], NULL, NULL);
        for (int b = 0; b < 2; b++)
            for (int k = 0; k < v[b].ndof; k++)
                F[md->bodies[f->body[b]].offset + k] -= Q[b][k];
    }
    for (int i = 0; i < md->njoints; i++) {
        const fmb_joint_t *j = &md->joints[i];
        fmb_bodyview_t v[2];
        double *J[2];
        const int nr = joint_jacobian(s, j, q, t, v, J);
        for (int b = 0; b < 2; b++) {
            const int o = md->bodies[j->body[b]].offset;
            for (int k = 0; k < v[b].ndof; k++)
                for (int r = 0; r < nr; r++)
                    F[o + k] += J[b][r + nr * k] * lam[j->row + r];
        }
    }
}

double fmb_sim_eval_phi(const fmb_sim_t *s, const double *q, double t, double *phi, int *row)
{
    const fmb_model_t *md = s->model;
    double mx = 0.0;
    int at = -1;
    for (int i = 0; i < md->njoints; i++) {
        const fmb_joint_t *j = &md->joints[i];
        fmb_bodyview_t v[2];
        joint_views(s, j, q, NULL, v);
        j->klass->eval(j, v, t, phi + j->row, NULL, NULL);
        for (int r = 0; r < j->klass->nrows; r++) {
            double a = fabs(phi[j->row + r]);
            if (!(a <= mx)) mx = a, at = j->row + r; /* NaN propagates */
        }
    }
    if (row) *row = at;
    return mx;
}

void fmb_sim_dense_jacobian(const fmb_sim_t *s, const double *q, double t, double *Jd)
{
    const fmb_model_t *md = s->model;
    const int m = s->m;
    memset(Jd, 0, (size_t)m * (size_t)s->n * sizeof *Jd);
    for (int i = 0; i < md->njoints; i++) {
        const fmb_joint_t *j = &md->joints[i];
        fmb_bodyview_t v[2];
        double *J[2];
        const int nr = joint_jacobian(s, j, q, t, v, J);
        for (int b = 0; b < 2; b++) {
            const int o = md->bodies[j->body[b]].offset;
            for (int k = 0; k < v[b].ndof; k++)
                for (int r = 0; r < nr; r++)
                    Jd[(j->row + r) + (size_t)m * (o + k)] += J[b][r + nr * k];
        }
    }
}

/* Assemble the KKT matrix
 *   [ cM M + cKm Kmq + cK (Kc(lam) - Kq) - cC Cq    cA Phi_q^T ]
 *   [ Phi_q                                         c22 I      ]
 * always emitting the same triplets in the same order (fixed pattern). */
typedef struct coeffs {
    double cM, cKm, cK, cC, cA, c22;
} coeffs_t;

static void assemble(fmb_sim_t *s, const double *q, const double *qd, const double *qdd,
                     const double *lam, double t, const coeffs_t *c)
{
    const fmb_model_t *md = s->model;
    fmb_kkt_t *k = &s->kkt;
    const int n = s->n;
    fmb_kkt_begin(k);
    for (int b = 1; b < md->nbodies; b++) {
        const fmb_body_t *bd = &md->bodies[b];
        const int o = bd->offset, nd = bd->ndof;
        const size_t nd2 = (size_t)nd * nd;
        double *M = s->sM, *Q = zeroed(s->sQ[0], (size_t)nd), *Kq = zeroed(s->sK, nd2),
               *Cq = zeroed(s->sC, nd2), *Km = zeroed(s->sH, nd2);
        bd->klass->mass(bd, q + o, M);
        bd->klass->forces(bd, q + o, qd + o, qdd + o, md->g, Q, Kq, Cq, Km);
        const unsigned char *mask = bd->klass->mask ? bd->klass->mask(bd) : NULL;
        for (int cc = 0; cc < nd; cc++)
            for (int r = 0; r < nd; r++) {
                int e = r + nd * cc;
                if (mask && !mask[e]) continue;
                fmb_kkt_add(k, o + r, o + cc,
                            c->cM * M[e] + c->cKm * Km[e] - c->cK * Kq[e] - c->cC * Cq[e]);
            }
    }
    for (int i = 0; i < md->nforces; i++) {
        const fmb_force_t *f = &md->forces[i];
        fmb_bodyview_t v[2] = {fmb_model_view(md, f->body[0], q, qd),
                               fmb_model_view(md, f->body[1], q, qd)};
        const int n0 = v[0].ndof, nn = n0 + v[1].ndof;
        const size_t nn2 = (size_t)nn * nn;
        double *Q[2] = {zeroed(s->sQ[0], (size_t)s->maxn), zeroed(s->sQ[1], (size_t)s->maxn)};
        double *K = zeroed(s->sK, nn2), *C = zeroed(s->sC, nn2);
        f->klass->eval(f, v, t, Q[0], Q[1], K, C);
        for (int cc = 0; cc < nn; cc++) {
            int gc = gidx(md, f->body, n0, cc);
            for (int r = 0; r < nn; r++) {
                int gr = gidx(md, f->body, n0, r);
                if (gr >= 0 && gc >= 0)
                    fmb_kkt_add(k, gr, gc, -c->cK * K[r + nn * cc] - c->cC * C[r + nn * cc]);
            }
        }
    }
    for (int i = 0; i < md->njoints; i++) {
        const fmb_joint_t *j = &md->joints[i];
        fmb_bodyview_t v[2];
        joint_views(s, j, q, qd, v);
        const int nr = j->klass->nrows, n0 = v[0].ndof, nn = n0 + v[1].ndof;
        double *phi = s->sphi, *J[2] = {zeroed(s->sJ[0], (size_t)(nr * v[0].ndof)),
                                        zeroed(s->sJ[1], (size_t)(nr * v[1].ndof))};
        double *H = zeroed(s->sH, (size_t)nn * nn);
        j->klass->eval(j, v, t, phi, J[0], J[1]);
        j->klass->hess(j, v, t, lam + j->row, H);
        for (int cc = 0; cc < nn; cc++) {
            int gc = gidx(md, j->body, n0, cc);
            if (gc < 0) continue;
            const double *Jb = cc < n0 ? J[0] : J[1];
            int kc = cc < n0 ? cc : cc - n0;
            for (int r = 0; r < nr; r++) {
                fmb_kkt_add(k, n + j->row + r, gc, Jb[r + nr * kc]);
                fmb_kkt_add(k, gc, n + j->row + r, c->cA * Jb[r + nr * kc]);
            }
            for (int r = 0; r < nn; r++) {
                int gr = gidx(md, j->body, n0, r);
                if (gr < 0 || (j->klass->hess_pattern && !j->klass->hess_pattern(j, v, r, cc)))
                    continue;
                fmb_kkt_add(k, gr, gc, c->cK * H[r + nn * cc]);
            }
        }
    }
    for (int ic = 0; ic < s->ncontacts; ic++) {
        const fmb_contact_t *ct = &s->contacts[ic];
        const fmb_joint_t *j = &md->joints[ct->joint];
        fmb_bodyview_t v[2];
        joint_views(s, j, q, qd, v);
        const int n0 = v[0].ndof, nn = n0 + v[1].ndof;
        double *C = zeroed(s->sC, (size_t)nn * nn);
        fmb_contact_tangent(ct, j, v, ct->F, C);
        for (int cc = 0; cc < nn; cc++) {
            int gc = gidx(md, j->body, n0, cc);
            for (int r = 0; r < nn; r++) {
                int gr = gidx(md, j->body, n0, r);
                if (gr >= 0 && gc >= 0) fmb_kkt_add(k, gr, gc, -c->cC * C[r + nn * cc]);
            }
        }
    }
    for (int r = 0; r < s->m; r++)
        fmb_kkt_add(k, n + r, n + r, c->c22);
}

/* Name of the joint owning constraint row `row`, for messages. */
static const char *row_name(const fmb_sim_t *s, int row, int *line)
{
    int j = fmb_model_row_joint(s->model, row, NULL);
    *line = j >= 0 ? s->model->joints[j].line : 0;
    return j >= 0 ? s->model->joints[j].name : "?";
}

/* Explain a singular KKT matrix by the dependent constraint rows. */
static int singular_error(fmb_sim_t *s, const double *q, double t, const char *when)
{
    double *Jd = malloc((size_t)s->m * (size_t)s->n * sizeof *Jd + 1);
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
        const char *nm = row_name(s, red[i], &line);
        fmb_model_row_joint(s->model, red[i], &local);
        size_t len = strlen(list);
        snprintf(list + len, sizeof list - len, "%sjoint '%s' row %d (line %d)", i ? ", " : "", nm,
                 local, line);
    }
    int rc = fmb_sim_error(s, FMB_ERR_SINGULAR,
                           "redundant constraints make the system matrix singular %s: %d "
                           "dependent row(s): %s; remove them (flexmb check lists the rank)",
                           when, nred, list);
    row_name(s, red[0], &s->errline);
    return rc;
}

/* ------------------------------------------------------------ start */

static int solve_kkt(fmb_sim_t *s, const double *rhs, double *x, const double *q, double t,
                     const char *when)
{
    int rc = fmb_kkt_factor(&s->kkt);
    s->stats.factorizations = s->kkt.nnumeric;
    s->stats.symbolic = s->kkt.nsymbolic;
    if (rc == FMB_ERR_SINGULAR) return singular_error(s, q, t, when);
    if (rc) return fmb_sim_error(s, rc, "linear solver failure %s at t = %.9g", when, t);
    rc = fmb_kkt_solve(&s->kkt, rhs, x);
    if (rc) return fmb_sim_error(s, rc, "linear solve failed %s at t = %.9g", when, t);
    return 0;
}

static int check_options(fmb_sim_t *s)
{
    const fmb_sim_options_t *o = &s->opts;
    if (!(o->h > 0) || !isfinite(o->h))
        return fmb_sim_error(s, FMB_ERR_ARG, "time step h must be positive (got %g)", o->h);
    if (!(o->t_end >= 0) || !isfinite(o->t_end))
        return fmb_sim_error(s, FMB_ERR_ARG, "t_end must be >= 0 (got %g)", o->t_end);
    if (o->integrator == FMB_HHT && !(o->alpha >= -1.0 / 3.0 - 1e-15 && o->alpha <= 0))
        return fmb_sim_error(s, FMB_ERR_ARG, "HHT alpha must be in [-1/3, 0] (got %g)", o->alpha);
    if (o->integrator == FMB_NEWMARK && !(o->beta > 0 && o->gamma >= 0.5))
        return fmb_sim_error(s, FMB_ERR_ARG, "Newmark needs beta > 0 and gamma >= 1/2 (got %g, %g)",
                             o->beta, o->gamma);
    if (o->integrator == FMB_GENERALIZED_ALPHA && !(o->rho_inf >= 0 && o->rho_inf <= 1))
        return fmb_sim_error(s, FMB_ERR_ARG, "generalized-alpha rho_inf must be in [0, 1] (got %g)",
                             o->rho_inf);
    if ((int)o->integrator < 0 || o->integrator > FMB_GENERALIZED_ALPHA)
        return fmb_sim_error(s, FMB_ERR_ARG, "unknown integrator %d", (int)o->integrator);
    if (o->max_newton < 1 || o->output_every < 1 || o->halving < 0)
        return fmb_sim_error(s, FMB_ERR_ARG,
                             "max_newton and output_every must be >= 1, halving >= 0");
    if ((int)o->ordering < 0 || o->ordering > FMB_ORDERING_BEST)
        return fmb_sim_error(s, FMB_ERR_ARG, "unknown ordering %d", (int)o->ordering);
    if (!(o->rtol >= 0 && o->atol > 0 && o->phi_tol > 0))
        return fmb_sim_error(s, FMB_ERR_ARG, "tolerances must be positive");
    return 0;
}

static void initial_coordinates(fmb_sim_t *s)
{
    const fmb_model_t *md = s->model;
    for (int b = 1; b < md->nbodies; b++) {
        const fmb_body_t *bd = &md->bodies[b];
        double *q = s->q + bd->offset, *qd = s->qd + bd->offset, A[4];
        const double *R = bd->pose0, *V = bd->vel0;
        fmb_rot(R[2], A);
        /* rbar = A^T R;  rbard = A^T Rdot - thetad Itil rbar */
        q[0] = A[0] * R[0] + A[1] * R[1];
        q[1] = A[2] * R[0] + A[3] * R[1];
        q[2] = R[2];
        qd[0] = A[0] * V[0] + A[1] * V[1] + V[2] * q[1];
        qd[1] = A[2] * V[0] + A[3] * V[1] - V[2] * q[0];
        qd[2] = V[2];
    }
}

/* Newton on Phi(q, t) = 0 with the mass-weighted minimum-norm correction. With c22 < 0
 * (check mode) the system is regularized so redundant but consistent constraints pass. */
int fmb_sim_assemble_positions(fmb_sim_t *s, double c22)
{
    const int n = s->n, m = s->m, N = n + m;
    double *rhs = s->work, *x = s->work + N, *phi = s->work + 2 * N;
    const coeffs_t c = {1, 0, 0, 0, 1, c22};
    int row = -1;
    for (int it = 0; it < 100; it++) {
        double viol = fmb_sim_eval_phi(s, s->q, s->t, phi, &row);
        if (viol <= s->opts.phi_tol) return 0;
        if (!isfinite(viol)) break;
        assemble(s, s->q, s->qd, s->qdd, s->lam, s->t, &c);
        memset(rhs, 0, (size_t)n * sizeof *rhs);
        for (int r = 0; r < m; r++)
            rhs[n + r] = -phi[r];
        int rc = solve_kkt(s, rhs, x, s->q, s->t, "while assembling the initial configuration");
        if (rc == FMB_ERR_SINGULAR) {
            /* Dependent rows at a configuration that is still far from closing the
             * joints: the joints most likely cannot all be closed (lengths, points). */
            char dep[sizeof s->errmsg];
            const char *lst = strstr(s->errmsg, "row(s): ");
            snprintf(dep, sizeof dep, "%s", lst ? lst + 8 : "");
            char *end = strstr(dep, "; remove");
            if (end) *end = '\0';
            const int dline = s->errline;
            int vline = 0;
            const char *vname = row < 0 ? "?" : row_name(s, row, &vline);
            fmb_sim_error(s, FMB_ERR_ASSEMBLY,
                          "cannot assemble the initial configuration: constraint violation %.3g "
                          "remains in joint '%s' (line %d) where the constraints became "
                          "dependent (%s); the joints cannot all be closed with these lengths "
                          "and points, or they are redundant",
                          viol, vname, vline, dep);
            s->errline = vline ? vline : dline;
            return FMB_ERR_ASSEMBLY;
        }
        if (rc) return rc;
        /* Limit angle changes per iteration to keep Newton inside its basin. */
        double scale = 1.0;
        for (int i = 0; i < n; i++)
            if (fabs(x[i]) * scale > 0.5) scale = 0.5 / fabs(x[i]);
        for (int i = 0; i < n; i++)
            s->q[i] += scale * x[i];
    }
    int line;
    const char *nm = row < 0 ? "?" : row_name(s, row, &line);
    double viol = fmb_sim_eval_phi(s, s->q, s->t, phi, &row);
    nm = row < 0 ? "?" : row_name(s, row, &line);
    int rc = fmb_sim_error(s, FMB_ERR_ASSEMBLY,
                           "cannot assemble the initial configuration: constraint violation "
                           "%.3g remains in joint '%s' (line %d) after 100 Newton iterations; "
                           "check the joint points and the initial poses",
                           viol, nm, row < 0 ? 0 : line);
    s->errline = row < 0 ? 0 : line;
    return rc;
}

/* Power of non-conservative forces and drivers: sum P_f + lambda . Phi_t. */
static double power(const fmb_sim_t *s)
{
    const fmb_model_t *md = s->model;
    double P = 0.0;
    for (int i = 0; i < md->nforces; i++) {
        const fmb_force_t *f = &md->forces[i];
        fmb_bodyview_t v[2] = {fmb_model_view(md, f->body[0], s->q, s->qd),
                               fmb_model_view(md, f->body[1], s->q, s->qd)};
        if (f->klass->power) P += f->klass->power(f, v, s->t);
    }
    for (int i = 0; i < md->njoints; i++) {
        const fmb_joint_t *j = &md->joints[i];
        if (!j->klass->time) continue;
        double *pt = s->sphi, *ptt = s->sphi2;
        j->klass->time(j, s->t, pt, ptt);
        for (int r = 0; r < j->klass->nrows; r++)
            P += s->lam[j->row + r] * pt[r];
    }
    /* friction: -mu v sum F (both bodies together) */
    for (int ic = 0; ic < s->ncontacts; ic++) {
        const fmb_contact_t *c = &s->contacts[ic];
        P += fmb_contact_friction(c, NULL) * c->v;
    }
    return P;
}

/* Accelerations and multipliers consistent with (q, qd, t):
 *   [M Phi_q^T; Phi_q 0] [qdd; lam] = [Q; gamma],
 *   gamma_k = -qd^T (d2 Phi_k/dq2) qd - Phi_tt,k.
 * With factor = 0 the current factorization of that matrix is reused. */
static int accel_solve(fmb_sim_t *s, int factor, double *qdd, double *lam)
{
    const int n = s->n, m = s->m, N = n + m;
    const fmb_model_t *md = s->model;
    double *rhs = s->work, *x = s->work + N;
    int rc;
    if (factor) {
        const coeffs_t c = {1, 0, 0, 0, 1, 0};
        assemble(s, s->q, s->qd, s->qdd, s->lam, s->t, &c);
        rc = fmb_kkt_factor(&s->kkt);
        s->stats.factorizations = s->kkt.nnumeric;
        s->stats.symbolic = s->kkt.nsymbolic;
        if (rc == FMB_ERR_SINGULAR) return singular_error(s, s->q, s->t, "for the accelerations");
        if (rc) return fmb_sim_error(s, rc, "linear solver failure at t = %.9g", s->t);
    }
    fmb_sim_eval_forces(s, s->q, s->qd, s->qdd, s->zero, s->t, NULL, rhs); /* -Q */
    for (int i = 0; i < n; i++)
        rhs[i] = -rhs[i];
    for (int i = 0; i < md->njoints; i++) {
        const fmb_joint_t *j = &md->joints[i];
        fmb_bodyview_t v[2];
        joint_views(s, j, s->q, s->qd, v);
        const int nr = j->klass->nrows, n0 = v[0].ndof, nn = n0 + v[1].ndof;
        double *vloc = s->sv;
        for (int k = 0; k < nn; k++) {
            int g = gidx(md, j->body, n0, k);
            vloc[k] = g >= 0 ? s->qd[g] : 0.0;
        }
        double *pt = zeroed(s->sphi, (size_t)nr), *ptt = zeroed(s->sphi2, (size_t)nr);
        if (j->klass->time) j->klass->time(j, s->t, pt, ptt);
        for (int r = 0; r < nr; r++) {
            double *w = zeroed(s->sw, (size_t)nr), *H = zeroed(s->sH, (size_t)nn * nn);
            double quad = 0.0;
            w[r] = 1.0;
            j->klass->hess(j, v, s->t, w, H);
            for (int a = 0; a < nn; a++)
                for (int b = 0; b < nn; b++)
                    quad += vloc[a] * H[a + nn * b] * vloc[b];
            rhs[n + j->row + r] = -quad - ptt[r];
        }
    }
    if ((rc = fmb_kkt_solve(&s->kkt, rhs, x)))
        return fmb_sim_error(s, rc, "linear solve failed for the accelerations at t = %.9g", s->t);
    memcpy(qdd, x, (size_t)n * sizeof *x);
    memcpy(lam, x + n, (size_t)m * sizeof *x);
    return 0;
}

int fmb_sim_initialize(fmb_sim_t *s)
{
    int rc = check_options(s);
    if (rc) return rc;
    const int n = s->n, m = s->m, N = n + m;
    const fmb_model_t *md = s->model;
    s->t = 0.0;
    s->W = 0.0;
    memset(&s->stats, 0, sizeof s->stats);
    memset(s->qdd, 0, (size_t)n * sizeof *s->qdd);
    memset(s->lam, 0, (size_t)m * sizeof *s->lam);
    initial_coordinates(s);
    if ((rc = fmb_sim_assemble_positions(s, 0.0))) return rc;

    double *rhs = s->work, *x = s->work + N;
    const coeffs_t c = {1, 0, 0, 0, 1, 0};
    /* Velocities: [M Phi_q^T; Phi_q 0] [qd; mu] = [M qd0; -Phi_t] */
    assemble(s, s->q, s->qd, s->qdd, s->lam, s->t, &c);
    fmb_sim_eval_forces(s, s->q, s->qd, s->qd, s->lam, s->t, rhs, NULL); /* M qd0 */
    memset(rhs + n, 0, (size_t)m * sizeof *rhs);
    for (int i = 0; i < md->njoints; i++) {
        const fmb_joint_t *j = &md->joints[i];
        if (!j->klass->time) continue;
        double *pt = s->sphi, *ptt = s->sphi2;
        j->klass->time(j, s->t, pt, ptt);
        for (int r = 0; r < j->klass->nrows; r++)
            rhs[n + j->row + r] = -pt[r];
    }
    if ((rc = solve_kkt(s, rhs, x, s->q, s->t, "while projecting the initial velocities")))
        return rc;
    memcpy(s->qd, x, (size_t)n * sizeof *x);

    /* Accelerations and multipliers from the same matrix. */
    if ((rc = accel_solve(s, 0, s->qdd, s->lam))) return rc;
    memcpy(s->acc, s->qdd, (size_t)n * sizeof *s->qdd);
    /* Bristles at rest, or in their steady state z = g(v) sgn(v) / sigma0 when the slider
     * starts sliding (no start-up spike of the sigma1 zdot term). */
    for (int ic = 0; ic < s->ncontacts; ic++) {
        fmb_contact_t *c = &s->contacts[ic];
        const fmb_joint_t *j = &md->joints[c->joint];
        fmb_bodyview_t v[2];
        joint_views(s, j, s->q, s->qd, v);
        double e[2], vt, ug[2];
        fmb_contact_kinematics(j, v, e, &vt, ug);
        c->v = c->v_n = vt;
        c->z = c->z_n = 0.0;
        if (c->d.model == FMB_FRICTION_LUGRE && vt != 0.0)
            c->z = c->z_n = (vt > 0 ? 1.0 : -1.0) * fmb_lugre_g(&c->d, vt) / c->d.sigma0;
    }
    contact_decompose(s);
    s->P = power(s);
    double viol = fmb_sim_eval_phi(s, s->q, s->t, s->work + 2 * N, NULL);
    s->stats.max_violation = viol;
    s->initialized = 1;
    return 0;
}

/* ------------------------------------------------------------ stepping */

static void save_state(fmb_sim_t *s)
{
    const size_t n = (size_t)s->n, m = (size_t)s->m;
    memcpy(s->save, s->q, n * sizeof(double));
    memcpy(s->save + n, s->qd, n * sizeof(double));
    memcpy(s->save + 2 * n, s->qdd, n * sizeof(double));
    memcpy(s->save + 3 * n, s->acc, n * sizeof(double));
    memcpy(s->save + 4 * n, s->lam, m * sizeof(double));
}

static void restore_state(fmb_sim_t *s)
{
    const size_t n = (size_t)s->n, m = (size_t)s->m;
    memcpy(s->q, s->save, n * sizeof(double));
    memcpy(s->qd, s->save + n, n * sizeof(double));
    memcpy(s->qdd, s->save + 2 * n, n * sizeof(double));
    memcpy(s->acc, s->save + 3 * n, n * sizeof(double));
    memcpy(s->lam, s->save + 4 * n, m * sizeof(double));
}

/* ------------------------------------------------------------ friction contacts */

/* LuGre coefficients of every contact at the current iterate (velocity qd, step h). */
static void contact_update(fmb_sim_t *s, double h)
{
    for (int ic = 0; ic < s->ncontacts; ic++) {
        fmb_contact_t *c = &s->contacts[ic];
        const fmb_joint_t *j = &s->model->joints[c->joint];
        fmb_bodyview_t v[2];
        joint_views(s, j, s->q, s->qd, v);
        double e[2], vt, ug[2];
        fmb_contact_kinematics(j, v, e, &vt, ug);
        if (c->d.model == FMB_FRICTION_LUGRE) {
            fmb_lugre_update(c, vt, h);
        } else { /* Coulomb: friction through beta in the LCP, none through mu */
            c->v = vt;
            c->mu = c->dmu = 0.0;
        }
    }
}

/* Solve A X = B for a small dense system by Gaussian elimination with partial pivoting
 * (A n x n and B n x nb, column-major, both overwritten; X in B). */
static int small_solve(int n, double *A, int nb, double *B)
{
    for (int k = 0; k < n; k++) {
        int p = k;
        for (int i = k + 1; i < n; i++)
            if (fabs(A[i + n * k]) > fabs(A[p + n * k])) p = i;
        if (!(fabs(A[p + n * k]) > 0)) return FMB_ERR_SINGULAR;
        if (p != k) {
            for (int c = 0; c < n; c++) {
                double t = A[k + n * c];
                A[k + n * c] = A[p + n * c], A[p + n * c] = t;
            }
            for (int c = 0; c < nb; c++) {
                double t = B[k + n * c];
                B[k + n * c] = B[p + n * c], B[p + n * c] = t;
            }
        }
        for (int i = k + 1; i < n; i++) {
            const double f = A[i + n * k] / A[k + n * k];
            for (int c = k; c < n; c++)
                A[i + n * c] -= f * A[k + n * c];
            for (int c = 0; c < nb; c++)
                B[i + n * c] -= f * B[k + n * c];
        }
    }
    for (int c = 0; c < nb; c++)
        for (int k = n - 1; k >= 0; k--) {
            double t = B[k + n * c];
            for (int i = k + 1; i < n; i++)
                t -= A[k + n * i] * B[i + n * c];
            B[k + n * c] = t / A[k + n * k];
        }
    return 0;
}

/*
 * Contact forces inside a Newton iteration (docs/theory.md section 9). With the
 * factorized iteration matrix, the increment is x = x0 + sum_col X_col u_col, where X_col
 * is the response to the generalized force of unknown u_col (scaled like the residual):
 * corner forces F_k (LuGre: their friction mu F_k at the faces) and, for Coulomb, the
 * friction forces beta1 (+e), beta2 (-e). The net corner forces N = S lambda_new of every
 * contact are affine in the unknowns: N = c + D+ F+ + Du u, u = [F-, beta, sigma]. With
 * N = F+ - F-, F+ = P u + p0, P = (I - D+)^{-1}(Du + E), p0 = (I - D+)^{-1} c, and the LCP
 *   F- >= 0   _|_  F+ = P u + p0 >= 0                      (seed 000, eqs 20-21)
 * and, for Coulomb, per face f (lower: N_f = F1+ + F2+, upper: F1- + F2-), with the
 * friction force (beta_f1 - beta_f2) e at that face and v = v_{n+1}:
 *   beta_f1 >= 0 _|_ v + sigma_f >= 0,  beta_f2 >= 0 _|_ -v + sigma_f >= 0,
 *   sigma_f >= 0 _|_ mu_e N_f - beta_f1 - beta_f2 >= 0
 * is solved by lexicographic Lemke (Siconos numerics). x is updated in place.
 */
#define FMB_CONTACT_COLS 8 /* 4 corners + Coulomb friction +-e at each face */

static int contact_lcp(fmb_sim_t *s, double bh2, double gfac, double t, double *x)
{
    const fmb_model_t *md = s->model;
    const int n = s->n, N = n + s->m, nc = s->ncontacts, nf = 2 * nc;
    double *col = s->work + 3 * (size_t)N;
    int uoff[nc + 1];
    uoff[0] = 0;
    for (int ic = 0; ic < nc; ic++)
        uoff[ic + 1] = uoff[ic] + (s->contacts[ic].d.model == FMB_FRICTION_COULOMB ? 8 : 2);
    const int nu = uoff[nc];
    /* responses to the unit generalized forces */
    for (int ic = 0; ic < nc; ic++) {
        const fmb_contact_t *c = &s->contacts[ic];
        const fmb_joint_t *j = &md->joints[c->joint];
        fmb_bodyview_t v[2];
        joint_views(s, j, s->q, s->qd, v);
        const int n0 = v[0].ndof, nn = n0 + v[1].ndof;
        double *cols = zeroed(s->sK, (size_t)nn * FMB_CONTACT_COLS);
        fmb_contact_columns(c, j, v, cols);
        const int ncol = c->d.model == FMB_FRICTION_COULOMB ? 8 : 4;
        if (ncol == 8) fmb_contact_beta_columns(c, j, v, cols + (size_t)nn * 4);
        for (int k = 0; k < ncol; k++) {
            memset(col, 0, (size_t)N * sizeof *col);
            for (int r = 0; r < nn; r++) {
                int g = gidx(md, j->body, n0, r);
                if (g >= 0) col[g] += bh2 * cols[r + (size_t)nn * k];
            }
            double *X = s->cX + (size_t)N * (FMB_CONTACT_COLS * ic + k);
            int rc = fmb_kkt_solve(&s->kkt, col, X);
            if (rc) return fmb_sim_error(s, rc, "linear solve failed for the contact forces");
        }
    }
    /* workspace */
    double *Dp = s->clcp, *P = Dp + nf * nf, *p0 = P + (size_t)nf * (nu + 1);
    double *M = p0 + nf, *qv = M + (size_t)nu * nu, *zz = qv + nu, *ww = zz + nu;
    memset(s->clcp, 0, ((size_t)nf * nf + (size_t)nf * (nu + 1) + nf) * sizeof(double));
    /* column (jc, k) -> its unknown: F+ (eliminated) or u index */
    /* u per Coulomb contact: [F-1, F-2, bl1, bl2, sl, bu1, bu2, su] */
#define UIDX(jc, k) ((k) < 2 ? -1 : uoff[jc] + ((k) < 6 ? (k)-2 : (k)-1))
    for (int ic = 0; ic < nc; ic++) {
        const fmb_contact_t *c = &s->contacts[ic];
        const fmb_joint_t *j = &md->joints[c->joint];
        fmb_bodyview_t v[2];
        joint_views(s, j, s->q, s->qd, v);
        const int nr = j->klass->nrows;
        double S[2 * 8];
        fmb_contact_normal_map(c, j, v, S);
        for (int l = 0; l < 2; l++) {
            const int row = 2 * ic + l;
            double acc = 0.0;
            for (int r = 0; r < nr; r++)
                acc += S[l + 2 * r] * (s->lam[j->row + r] + x[n + j->row + r] / bh2);
            /* (I - D+) F+ = c + (Du + E) u: right-hand side columns in P, c in p0 */
            p0[row] = acc;
            P[row + (size_t)nf * (uoff[ic] + l)] += 1.0; /* E: F-_l of this contact */
            for (int jc = 0; jc < nc; jc++) {
                const int ncol = s->contacts[jc].d.model == FMB_FRICTION_COULOMB ? 8 : 4;
                for (int k = 0; k < ncol; k++) {
                    const double *X = s->cX + (size_t)N * (FMB_CONTACT_COLS * jc + k);
                    double d = 0.0;
                    for (int r = 0; r < nr; r++)
                        d += S[l + 2 * r] * X[n + j->row + r] / bh2;
                    if (k < 2)
                        Dp[row + nf * (2 * jc + k)] = d;
                    else
                        P[row + (size_t)nf * UIDX(jc, k)] += d;
                }
            }
        }
    }
    for (int cc = 0; cc < nf; cc++)
        for (int r = 0; r < nf; r++)
            Dp[r + nf * cc] = (r == cc) - Dp[r + nf * cc];
    for (int r = 0; r < nf; r++)
        P[r + (size_t)nf * nu] = p0[r];
    if (small_solve(nf, Dp, nu + 1, P))
        return fmb_sim_error(s, FMB_ERR_SINGULAR,
                             "contact problem singular at t = %.9g (friction too large for the "
                             "slider geometry?)",
                             t);
    for (int r = 0; r < nf; r++)
        p0[r] = P[r + (size_t)nf * nu];
    /* LCP rows */
    memset(M, 0, (size_t)nu * nu * sizeof *M);
    for (int ic = 0; ic < nc; ic++) {
        const fmb_contact_t *c = &s->contacts[ic];
        const int u0 = uoff[ic];
        for (int l = 0; l < 2; l++) { /* w = F+_l */
            for (int cc = 0; cc < nu; cc++)
                M[(u0 + l) + nu * cc] = P[(2 * ic + l) + nf * cc];
            qv[u0 + l] = p0[2 * ic + l];
        }
        if (c->d.model != FMB_FRICTION_COULOMB) continue;
        /* v_new = v0 + sum_col a_col value_col; a_col = gfac * Dv . X_col(q) */
        const fmb_joint_t *j = &md->joints[c->joint];
        fmb_bodyview_t v[2];
        joint_views(s, j, s->q, s->qd, v);
        const int n0 = v[0].ndof, nn = n0 + v[1].ndof;
        double Dv[nn];
        fmb_contact_velocity_row(j, v, Dv);
        double vrow[nu], v0 = 0.0;
        for (int cc = 0; cc < nu; cc++)
            vrow[cc] = 0.0;
        for (int r = 0; r < nn; r++) {
            int g = gidx(md, j->body, n0, r);
            if (g >= 0) v0 += Dv[r] * (s->qd[g] + gfac * x[g]);
        }
        for (int jc = 0; jc < nc; jc++) {
            const int ncol = s->contacts[jc].d.model == FMB_FRICTION_COULOMB ? 8 : 4;
            for (int k = 0; k < ncol; k++) {
                const double *X = s->cX + (size_t)N * (FMB_CONTACT_COLS * jc + k);
                double ak = 0.0;
                for (int r = 0; r < nn; r++) {
                    int g = gidx(md, j->body, n0, r);
                    if (g >= 0) ak += gfac * Dv[r] * X[g];
                }
                if (k < 2) { /* F+ = P u + p0 */
                    for (int cc = 0; cc < nu; cc++)
                        vrow[cc] += ak * P[(2 * jc + k) + nf * cc];
                    v0 += ak * p0[2 * jc + k];
                } else {
                    vrow[UIDX(jc, k)] += ak;
                }
            }
        }
        /* per face f (0 lower: normal forces F+, 1 upper: F-) */
        for (int face = 0; face < 2; face++) {
            const int b1 = u0 + 2 + 3 * face, b2 = b1 + 1, sg = b1 + 2;
            for (int cc = 0; cc < nu; cc++) {
                M[b1 + nu * cc] = vrow[cc];
                M[b2 + nu * cc] = -vrow[cc];
                /* mu_e N_face - beta_f1 - beta_f2; N_lower = F+_1 + F+_2 = P u + p0 */
                M[sg + nu * cc] =
                    face ? 0.0 : c->mu_e * (P[(2 * ic) + nf * cc] + P[(2 * ic + 1) + nf * cc]);
            }
            M[b1 + nu * sg] += 1.0, M[b2 + nu * sg] += 1.0;
            if (face) M[sg + nu * (u0 + 0)] += c->mu_e, M[sg + nu * (u0 + 1)] += c->mu_e;
            M[sg + nu * b1] -= 1.0, M[sg + nu * b2] -= 1.0;
            qv[b1] = v0, qv[b2] = -v0;
            qv[sg] = face ? 0.0 : c->mu_e * (p0[2 * ic] + p0[2 * ic + 1]);
        }
    }
    char msg[256];
    int rc = fmb_lcp_solve(nu, M, qv, zz, ww, msg, sizeof msg);
    if (rc) {
        const fmb_joint_t *j = &md->joints[s->contacts[0].joint];
        return fmb_sim_error(s, rc, "contact LCP failed at t = %.9g (joint '%s', line %d): %s", t,
                             j->name, j->line, msg);
    }
    for (int ic = 0; ic < nc; ic++) {
        fmb_contact_t *c = &s->contacts[ic];
        const int u0 = uoff[ic];
        double Fp[2];
        for (int l = 0; l < 2; l++) {
            double f = p0[2 * ic + l];
            for (int cc = 0; cc < nu; cc++)
                f += P[(2 * ic + l) + nf * cc] * zz[cc];
            Fp[l] = fmax(f, 0.0);
        }
        c->F[0] = Fp[0], c->F[1] = Fp[1];
        c->F[2] = zz[u0], c->F[3] = zz[u0 + 1];
        const int coul = c->d.model == FMB_FRICTION_COULOMB;
        for (int face = 0; face < 2; face++) {
            c->beta[2 * face] = coul ? zz[u0 + 2 + 3 * face] : 0.0;
            c->beta[2 * face + 1] = coul ? zz[u0 + 3 + 3 * face] : 0.0;
        }
        const double val[FMB_CONTACT_COLS] = {c->F[0],    c->F[1],    c->F[2],    c->F[3],
                                              c->beta[0], c->beta[1], c->beta[2], c->beta[3]};
        for (int k = 0; k < (coul ? 8 : 4); k++) {
            const double *X = s->cX + (size_t)N * (FMB_CONTACT_COLS * ic + k);
            for (int i = 0; i < N; i++)
                x[i] += X[i] * val[k];
        }
    }
#undef UIDX
    return 0;
}

/* LuGre friction is a steep sigmoid of the sliding velocity around v = 0 (slope
 * sigma0 h + sigma1, saturating within g / (sigma0 h)); a full Newton step across v = 0
 * overshoots to the other side and the iteration can cycle. When an increment would
 * reverse a LuGre contact's sliding velocity, the whole increment is shortened to land
 * that velocity on zero; the next iteration starts at the kink, where the tangent is
 * exact on both sides. (Coulomb contacts resolve the reversal in the LCP.) */
static void contact_damping(fmb_sim_t *s, double gfac, double *x)
{
    const fmb_model_t *md = s->model;
    double alpha = 1.0;
    for (int ic = 0; ic < s->ncontacts; ic++) {
        const fmb_contact_t *c = &s->contacts[ic];
        if (c->d.model != FMB_FRICTION_LUGRE || c->v == 0.0) continue;
        const fmb_joint_t *j = &md->joints[c->joint];
        fmb_bodyview_t v[2];
        joint_views(s, j, s->q, s->qd, v);
        const int n0 = v[0].ndof, nn = n0 + v[1].ndof;
        double D[nn], dv = 0.0;
        fmb_contact_velocity_row(j, v, D);
        for (int r = 0; r < nn; r++) {
            int g = gidx(md, j->body, n0, r);
            if (g >= 0) dv += D[r] * gfac * x[g];
        }
        const double vnew = c->v + dv;
        if (vnew * c->v < 0.0) alpha = fmin(alpha, fabs(c->v) / fabs(dv));
    }
    if (alpha < 1.0)
        for (int i = 0; i < s->n + s->m; i++)
            x[i] *= alpha;
}

/* Corner forces from the multipliers alone (no friction coupling): N = S lambda,
 * F+ = max(N, 0), F- = max(-N, 0). Used at the start. */
static void contact_decompose(fmb_sim_t *s)
{
    for (int ic = 0; ic < s->ncontacts; ic++) {
        fmb_contact_t *c = &s->contacts[ic];
        const fmb_joint_t *j = &s->model->joints[c->joint];
        fmb_bodyview_t v[2];
        joint_views(s, j, s->q, s->qd, v);
        double S[16], N[2] = {0, 0};
        fmb_contact_normal_map(c, j, v, S);
        for (int l = 0; l < 2; l++)
            for (int r = 0; r < j->klass->nrows; r++)
                N[l] += S[l + 2 * r] * s->lam[j->row + r];
        c->F[0] = fmax(N[0], 0), c->F[1] = fmax(N[1], 0);
        c->F[2] = fmax(-N[0], 0), c->F[3] = fmax(-N[1], 0);
        c->mode = fmb_contact_mode(c->F);
    }
}

/* A joint that reports the state invalid (a slider off its guide) ends the run. */
static int invalid_state(fmb_sim_t *s, double t)
{
    const fmb_model_t *md = s->model;
    for (int i = 0; i < md->njoints; i++) {
        const fmb_joint_t *j = &md->joints[i];
        if (!j->klass->valid) continue;
        fmb_bodyview_t v[2];
        joint_views(s, j, s->q, s->qd, v);
        char msg[512];
        int rc = j->klass->valid(j, v, t, msg, sizeof msg);
        if (rc) {
            fmb_sim_error(s, rc, "%s (line %d)", msg, j->line);
            s->errline = j->line;
            return rc;
        }
    }
    return 0;
}

/* One step of size h from the current state; on failure the state is restored. */
static int try_step(fmb_sim_t *s, double h)
{
    const int n = s->n, m = s->m, N = n + m;
    double am, af, beta, gamma;
    coefficients(s, &am, &af, &beta, &gamma);
    /* qdd_{n+1} is the unknown; a_{n+1} = ((1-af) qdd_{n+1} + af qdd_n - am a_n)/(1-am),
     * so dq = beta' h^2 dqdd and dqd = gamma' h dqdd with the primed coefficients. */
    const double r = (1.0 - af) / (1.0 - am), bp = beta * r, gp = gamma * r;
    const double bh2 = bp * h * h, t1 = s->t + h;
    double *R = s->work, *x = s->work + N, *phi = s->work + 2 * N;
    double *Mqdd = phi + m; /* n entries after phi inside the third block */
    save_state(s);
    /* Coulomb: static coefficient after a stick, kinetic while sliding */
    for (int ic = 0; ic < s->ncontacts; ic++) {
        fmb_contact_t *c = &s->contacts[ic];
        const double vst = c->d.v_stick > 0 ? c->d.v_stick : 1e-4;
        c->mu_e = fabs(c->v_n) < vst ? c->d.mu0 : c->d.mu;
    }
    /* Predictor: qdd_{n+1} = qdd_n. */
    for (int i = 0; i < n; i++) {
        const double a0 = s->acc[i], a1 = (s->qdd[i] - am * a0) / (1.0 - am);
        s->q[i] += h * s->qd[i] + h * h * ((0.5 - beta) * a0 + beta * a1);
        s->qd[i] += h * ((1.0 - gamma) * a0 + gamma * a1);
    }
    const coeffs_t c = {1.0, bh2, bh2, gp * h, 1.0, 0.0};
    double dq_norm = INFINITY, dq_prev = INFINITY;
    int it, fresh = 0; /* the factorization belongs to this step's current iterate */
    for (it = 0; it <= s->opts.max_newton; it++) {
        double viol = fmb_sim_eval_phi(s, s->q, t1, phi, NULL);
        if (!isfinite(viol)) break;
        if (dq_norm <= 1.0 && viol <= s->opts.phi_tol) {
            int bad = invalid_state(s, t1);
            if (bad) {
                restore_state(s);
                return bad;
            }
            s->t = t1;
            s->last_iters = it;
            s->stats.newton_iterations += it;
            s->stats.steps++;
            if (viol > s->stats.max_violation) s->stats.max_violation = viol;
            /* a_{n+1} from the saved qdd_n and a_n */
            for (int i = 0; i < n; i++)
                s->acc[i] =
                    ((1.0 - af) * s->qdd[i] + af * s->save[2 * n + i] - am * s->save[3 * n + i]) /
                    (1.0 - am);
            for (int ic = 0; ic < s->ncontacts; ic++) {
                fmb_contact_t *c = &s->contacts[ic];
                c->z_n = c->z;
                c->v_n = c->v;
                c->mode = fmb_contact_mode(c->F);
            }
            double P = power(s);
            s->W += 0.5 * h * (s->P + P);
            s->P = P;
            return 0;
        }
        if (it == s->opts.max_newton) break;
        if (s->ncontacts) contact_update(s, h);
        fmb_sim_eval_forces(s, s->q, s->qd, s->qdd, s->lam, t1, Mqdd, R);
        for (int i = 0; i < n; i++)
            R[i] = -bh2 * (Mqdd[i] + R[i]);
        for (int k = 0; k < m; k++)
            R[n + k] = -phi[k];
        /* Modified Newton: keep the step's first factorization while the increments
         * contract fast (ratio <= 1/4); refactor otherwise. The stopping test is the
         * same, so the accuracy is too. */
        int rc = 0;
        const int refactor = !s->opts.reuse_jacobian || !fresh || dq_norm > 0.25 * dq_prev;
        if (refactor) {
            assemble(s, s->q, s->qd, s->qdd, s->lam, t1, &c);
            rc = fmb_kkt_factor(&s->kkt);
            s->stats.factorizations = s->kkt.nnumeric;
            s->stats.symbolic = s->kkt.nsymbolic;
            fresh = 1;
        }
        if (rc == 0) rc = fmb_kkt_solve(&s->kkt, R, x);
        if (rc == 0 && s->ncontacts) {
            rc = contact_lcp(s, bh2, gp / (bp * h), t1, x);
            if (rc) {
                /* an iterate far from the solution can make the contact LCP unsolvable
                 * (friction-induced normal forces beyond the unit response, as in
                 * jamming): treat it as a failed step, so that step halving retries */
                restore_state(s);
                return rc == FMB_ERR_SINGULAR || rc == FMB_ERR_LINSOLVE ? FMB_ERR_CONVERGENCE : rc;
            }
            contact_damping(s, gp / (bp * h), x);
        }
        if (rc) {
            restore_state(s);
            if (rc == FMB_ERR_SINGULAR) return singular_error(s, s->q, t1, "during the step");
            return fmb_sim_error(s, rc, "linear solver failure at t = %.9g", t1);
        }
        dq_prev = dq_norm;
        dq_norm = 0.0;
        for (int i = 0; i < n; i++) {
            double d = x[i];
            s->q[i] += d;
            s->qd[i] += gp / (bp * h) * d;
            s->qdd[i] += d / bh2;
            double w = fabs(d) / (s->opts.atol + s->opts.rtol * fabs(s->q[i]));
            if (!(w <= dq_norm)) dq_norm = w;
        }
        for (int k = 0; k < m; k++)
            s->lam[k] += x[n + k] / bh2;
    }
    int row = -1, line = 0;
    double viol = fmb_sim_eval_phi(s, s->q, t1, phi, &row);
    const char *nm = row >= 0 ? row_name(s, row, &line) : "-";
    restore_state(s);
    fmb_sim_error(s, FMB_ERR_CONVERGENCE,
                  "Newton iteration did not converge at t = %.9g (h = %.3g) after %d "
                  "iterations: increment norm %.3g (tolerance 1), constraint violation "
                  "%.3g in joint '%s' (line %d) (tolerance %.3g); try a smaller time step",
                  t1, h, it, dq_norm, viol, nm, line, s->opts.phi_tol);
    s->errline = line;
    return FMB_ERR_CONVERGENCE;
}

static int step_recursive(fmb_sim_t *s, double h, int depth)
{
    int rc = try_step(s, h);
    if (rc != FMB_ERR_CONVERGENCE || depth >= s->opts.halving) return rc;
    s->stats.halvings++;
    if ((rc = step_recursive(s, 0.5 * h, depth + 1))) return rc;
    return step_recursive(s, 0.5 * h, depth + 1);
}

int fmb_sim_step(fmb_sim_t *s)
{
    if (!s->initialized)
        return fmb_sim_error(s, FMB_ERR_ARG, "fmb_sim_step called before fmb_sim_initialize");
    return step_recursive(s, s->opts.h, 0);
}

int fmb_sim_run(fmb_sim_t *s, fmb_observer_fn observer, void *user, volatile const int *stop)
{
    int rc;
    if (!s->initialized && (rc = fmb_sim_initialize(s))) return rc;
    if (observer && (rc = observer(s, user))) return rc;
    const double h = s->opts.h;
    const long nsteps = (long)floor(s->opts.t_end / h + 0.5);
    for (long k = 1; k <= nsteps; k++) {
        if (stop && *stop)
            return fmb_sim_error(s, FMB_ERR_INTERRUPTED, "interrupted at t = %g", s->t);
        if ((rc = fmb_sim_step(s))) return rc;
        s->t = k * h; /* avoid drift of t from repeated additions */
        if (observer && (k % s->opts.output_every == 0 || k == nsteps) && (rc = observer(s, user)))
            return rc;
    }
    return 0;
}

/* ------------------------------------------------------------ access */

const char *fmb_sim_last_error(const fmb_sim_t *s)
{
    return s->errmsg;
}
int fmb_sim_last_error_line(const fmb_sim_t *s)
{
    return s->errline;
}
void fmb_sim_get_stats(const fmb_sim_t *s, fmb_sim_stats_t *st)
{
    *st = s->stats;
}
const fmb_sim_options_t *fmb_sim_options(const fmb_sim_t *s)
{
    return &s->opts;
}
double fmb_sim_time(const fmb_sim_t *s)
{
    return s->t;
}
const double *fmb_sim_q(const fmb_sim_t *s)
{
    return s->q;
}
const double *fmb_sim_qd(const fmb_sim_t *s)
{
    return s->qd;
}
const double *fmb_sim_qdd(const fmb_sim_t *s)
{
    return s->qdd;
}
const double *fmb_sim_lambda(const fmb_sim_t *s)
{
    return s->lam;
}
int fmb_sim_last_newton_iterations(const fmb_sim_t *s)
{
    return s->last_iters;
}
fmb_model_t *fmb_sim_model(const fmb_sim_t *s)
{
    return s->model;
}

void fmb_sim_body_pose(const fmb_sim_t *s, int body, double pose[3])
{
    fmb_bodyview_t v = fmb_model_view(s->model, body, s->q, s->qd);
    const double o[2] = {0, 0};
    fmb_point_pos(&v, o, pose);
    pose[2] = fmb_body_angle(&v);
}

void fmb_sim_body_point(const fmb_sim_t *s, int body, const double u[2], double r[2])
{
    fmb_bodyview_t v = fmb_model_view(s->model, body, s->q, s->qd);
    fmb_point_pos(&v, u, r);
}

/* Reaction (docs/theory.md section 6): the generalized constraint force on body b is
 * Qc = -J_b^T lambda_j. A force F and moment M at joint point P give
 * Q = [A^T F; (Itil p)^T A^T F + M], p = A^T r_P (carrier position of P), so F = A Qc_r and
 * M = Qc_t - (Itil p) . Qc_r. The ground is viewed as a body at q = 0. */
void fmb_sim_joint_reaction(const fmb_sim_t *s, int joint, double out[6])
{
    const double *lam = s->lam;
    const fmb_model_t *md = s->model;
    const fmb_joint_t *j = &md->joints[joint];
    static const double zero[3] = {0, 0, 0};
    fmb_bodyview_t v[2];
    joint_views(s, j, s->q, s->qd, v);
    for (int b = 0; b < 2; b++)
        if (!v[b].ndof) v[b].ndof = 3, v[b].q = zero, v[b].qd = zero;
    const int nr = j->klass->nrows;
    double *phi = s->sphi, *J[2] = {zeroed(s->sJ[0], (size_t)(nr * v[0].ndof)),
                                    zeroed(s->sJ[1], (size_t)(nr * v[1].ndof))};
    j->klass->eval(j, v, s->t, phi, J[0], J[1]);
    for (int b = 0; b < 2; b++) {
        double Qc[3] = {0, 0, 0}, A[4];
        for (int k = 0; k < 3; k++)
            for (int r = 0; r < nr; r++)
                Qc[k] -= J[b][r + nr * k] * lam[j->row + r];
        double r[2];
        fmb_rot(v[b].q[2], A);
        double up[2] = {j->point[b][0], j->point[b][1]};
        if (j->klass->reaction_point) j->klass->reaction_point(j, v, b, up);
        fmb_point_pos(&v[b], up, r); /* deformed point: p = A^T r */
        double p[2] = {A[0] * r[0] + A[1] * r[1], A[2] * r[0] + A[3] * r[1]};
        out[3 * b + 0] = A[0] * Qc[0] + A[2] * Qc[1];
        out[3 * b + 1] = A[1] * Qc[0] + A[3] * Qc[1];
        out[3 * b + 2] = Qc[2] - (-p[1] * Qc[0] + p[0] * Qc[1]);
    }
}

void fmb_sim_beam_state(const fmb_sim_t *s, int body, double *x, double *y, double *v)
{
    const fmb_model_t *md = s->model;
    const int nn = fmb_model_beam_num_nodes(md, body);
    const fmb_body_t *bd = &md->bodies[body];
    fmb_bodyview_t view = fmb_model_view(md, body, s->q, s->qd);
    for (int k = 0; k < nn; k++) {
        const double u[2] = {fmb_model_beam_node_x(md, body, k), 0.0};
        double r[2];
        fmb_point_pos(&view, u, r);
        if (x) x[k] = r[0];
        if (y) y[k] = r[1];
        if (v) {
            fmb_shape_t N;
            bd->klass->shape(bd, u, &N);
            double d = 0.0;
            for (int i = 0; i < N.n; i++)
                d += N.Ny[i] * view.q[N.col[i]];
            v[k] = d;
        }
    }
}

int fmb_model_joint_num_outputs(const fmb_model_t *m, int joint)
{
    return m->joints[joint].klass->noutputs;
}

const char *fmb_model_joint_output_group(const fmb_model_t *m, int joint)
{
    return m->joints[joint].klass->output_group;
}

const char *fmb_model_joint_output_name(const fmb_model_t *m, int joint, int k)
{
    return m->joints[joint].klass->output_names[k];
}

void fmb_sim_joint_outputs(const fmb_sim_t *s, int joint, double *values)
{
    const fmb_joint_t *j = &s->model->joints[joint];
    if (!j->klass->outputs) return;
    fmb_bodyview_t v[2];
    joint_views(s, j, s->q, s->qd, v);
    j->klass->outputs(j, v, s->t, values);
}

double fmb_sim_joint_violation(const fmb_sim_t *s, int joint)
{
    const fmb_joint_t *j = &s->model->joints[joint];
    fmb_bodyview_t v[2];
    joint_views(s, j, s->q, NULL, v);
    double *phi = s->sphi, mx = 0.0;
    j->klass->eval(j, v, s->t, phi, NULL, NULL);
    for (int r = 0; r < j->klass->nrows; r++)
        mx = fmax(mx, fabs(phi[r]));
    return mx;
}

void fmb_sim_energy(const fmb_sim_t *s, double e[FMB_ENERGY_COLUMNS])
{
    const fmb_model_t *md = s->model;
    double T = 0.0, V = 0.0;
    for (int b = 1; b < md->nbodies; b++) {
        const fmb_body_t *bd = &md->bodies[b];
        const int o = bd->offset, nd = bd->ndof;
        double *M = s->sM;
        bd->klass->mass(bd, s->q + o, M);
        for (int c = 0; c < nd; c++)
            for (int r = 0; r < nd; r++)
                T += 0.5 * s->qd[o + r] * M[r + nd * c] * s->qd[o + c];
        V += bd->klass->potential(bd, s->q + o, md->g);
    }
    for (int i = 0; i < md->nforces; i++) {
        const fmb_force_t *f = &md->forces[i];
        if (!f->klass->potential) continue;
        fmb_bodyview_t v[2] = {fmb_model_view(md, f->body[0], s->q, s->qd),
                               fmb_model_view(md, f->body[1], s->q, s->qd)};
        V += f->klass->potential(f, v);
    }
    e[0] = T, e[1] = V, e[2] = s->W, e[3] = T + V - s->W;
}

int fmb_sim_contact_state(const fmb_sim_t *s, int joint, double normal[4], double friction[4],
                          int *mode, double *z, double *v)
{
    for (int ic = 0; ic < s->ncontacts; ic++) {
        const fmb_contact_t *c = &s->contacts[ic];
        if (c->joint != joint) continue;
        double per[FMB_CORNERS];
        fmb_contact_friction(c, per);
        for (int k = 0; k < FMB_CORNERS; k++) {
            if (normal) normal[k] = c->F[k];
            if (friction) friction[k] = per[k];
        }
        if (mode) *mode = c->mode;
        if (z) *z = c->z_n;
        if (v) *v = c->v;
        return 0;
    }
    return FMB_ERR_NOTFOUND;
}
