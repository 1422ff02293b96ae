/*
 * Periodic steady state by shooting, with the integrator's exact monodromy, and its Floquet
 * multipliers (docs/theory.md section 13; public API include/flexmb/periodic.h).
 *
 * The discrete map. One step of the generalized-alpha scheme (docs/theory.md section 4)
 * from x_n = (q_n, qd_n, a_n, qdd_n) depends on x_n only through
 *     c   = (af qdd_n - am a_n) / (1 - am)                    (a_{n+1} = r qdd_{n+1} + c)
 *     qh  = q_n + h qd_n + h^2 (1/2 - beta) a_n + h^2 beta c   (q_{n+1} = qh + bh2 qdd_{n+1})
 *     qdh = qd_n + h (1 - gamma) a_n + h gamma c               (qd_{n+1} = qdh + gp h qdd_{n+1})
 * with r = (1 - af)/(1 - am), bh2 = beta r h^2, gp = gamma r: the step solves
 *     R = M(q) qdd + Phi_q^T lambda - Q(q, qd, t) = 0,   Phi(q, t) = 0     at t_{n+1}
 * for (qdd_{n+1}, lambda_{n+1}). Its exact derivative: perturbing (qh, qdh) by (dqh, dqdh)
 * and writing dq_{n+1} = dqh + y, dqd_{n+1} = dqdh + gp/(beta r h) y, dqdd = y / bh2,
 * dlambda = dl / bh2,
 *     [ M + bh2 K - gp h Cq   Phi_q^T ] [ y  ]   [ -bh2 (K dqh - Cq dqdh) ]
 *     [ Phi_q                 0       ] [ dl ] = [ -Phi_q dqh             ]
 * K = d(M qdd + Phi_q^T lambda - Q)/dq, Cq = dQ/dqd: the step's own KKT matrix, factored at
 * the converged state, with right-hand sides from K and Cq assembled there (separate
 * matrices, the same assembly code with other coefficients), then da = r dqdd + dc.
 *
 * The monodromy J = dx_N/dx_0 is propagated as Y = dx_N/dw_0 (4n x 3n, w = (qh, qdh, c)
 * of the first step) and J = Y W with W = dw/dx (explicit). Newton on G(x) = P(x) - x
 * (carrier angles modulo 2 pi): (J - I) dx = -G. Every pass over the period at an iterate
 * gives both P(x) and J(x), so the multipliers (eigenvalues of W Y, 3n x 3n, the nonzero
 * ones of J) are those of the converged orbit.
 */
#include "flexmb/periodic.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solve/sim_internal.h"

extern void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b,
                   const int *ldb, int *info);
extern void dgeev_(const char *jobvl, const char *jobvr, const int *n, double *a, const int *lda,
                   double *wr, double *wi, double *vl, const int *ldvl, double *vr, const int *ldvr,
                   double *work, const int *lwork, int *info);

#define PER_MAXIT 64
/* largest Newton-Picard subspace */
#define FMB_PERIODIC_PMAX 16
/* halvings of an update whose pass failed (pass_damped) */
#define FMB_PERIODIC_BACKTRACK 4
/* a Ritz pair with |J v - mu v| / |v| above this is not taken as a multiplier */
#define FMB_PERIODIC_RITZ_TOL 1e-6
/* passes of the subspace method's Floquet analysis at most */
#define FMB_PERIODIC_FLOQUET_PASSES 12
/* directions of the subspace method's Floquet analysis */
#define FMB_PERIODIC_FLOQUET_DIM 8

struct fmb_periodic {
    fmb_sim_t *s;
    int n, m;
    double t0, T, h;
    long N;
    double *x;            /* 4n: current iterate */
    double *y;            /* 4n: P(x) */
    double *g;            /* 4n: residual P(x) - x */
    double *scale;        /* 4n: largest |x_i| over the last pass */
    double *lam0;         /* m: multipliers at the start (Newton's first guess) */
    unsigned char *angle; /* n: carrier angle coordinates (periodic modulo 2 pi) */
    double *Y;            /* 4n x 3n: dx_n / dw_0 */
    double *J;            /* 4n x 4n: monodromy at the last tangent pass */
    double *A;            /* (4n)^2 scratch (Newton matrix, eigen problem) */
    double *B;            /* (n + m) x 3n: right-hand sides of the tangent solves */
    double *v1, *v2;      /* n + m each: products */
    fmb_kkt_t kK, kC;
    int have_J;
    int iters, passes, tpasses;
    double res[PER_MAXIT + 1];
    double res_acc; /* the (a, qdd) part of the last residual (not tested) */
    double *sig;    /* 4n: the residual's scale of each state entry (group scales) */
    double *sigV;   /* 4n: the Newton-Picard space's scales (the first pass's sig) */
    /* Newton-Picard: basis V, its images Z = J V, S = V^T Z (scaled state), scratch */
    int pmax, np_dim, ritz, method;
    double ritz_res;    /* |J v - mu v| / |v| of the largest Ritz pair at the orbit */
    int project;        /* 1: the first guess was given (fmb_periodic_set_guess): project it */
    int np_failed;      /* a subspace pass failed: the dense method took over */
    int backtracks;     /* halved updates (pass_damped) */
    double *xlast;      /* 4n: the last iterate whose pass completed */
    int floquet_passes; /* passes of the subspace Floquet analysis */
    int vstride;        /* V's column length for the Ritz vectors (4n) */
    double *V, *Z, *S, *rs, *vr, *dp, *Za;
    int *ipiv;
    int nmult;
    double *mre, *mim; /* 3n: multipliers by decreasing modulus */
    double *mvec;      /* 3n x 3n: eigenvectors of W Y (dgeev layout), sorted like the values */
    int *order;
    double bound;
};

static double *dalloc(size_t n)
{
    return calloc(n ? n : 1, sizeof(double));
}

void fmb_periodic_options_default(fmb_periodic_options_t *o)
{
    memset(o, 0, sizeof *o);
    o->tol = 1e-8;
    o->max_iter = 12;
    o->floquet = 1;
}

/* The model's elements whose discrete map is not smooth (or not a map of x alone). */
static int scope_error(fmb_sim_t *s)
{
    const fmb_model_t *md = s->model;
    if (s->ncontacts) {
        const fmb_joint_t *j = &md->joints[s->contacts[0].joint];
        return fmb_sim_error(s, FMB_ERR_MODEL,
                             "periodic: joint '%s' (line %d) has friction (a contact LCP): its "
                             "modes switch, so the period map has no derivative there; the "
                             "periodic solver takes smooth models only (docs/theory.md "
                             "section 13)",
                             j->name, j->line);
    }
    for (int i = 0; i < md->nforces; i++) {
        const fmb_force_t *f = &md->forces[i];
        const char *why = f->klass->lcp            ? "is a switching element (an LCP)"
                          : f->klass->step_control ? "has events (contact onsets, stops)"
                          : f->klass->nstate       ? "carries a history (e.g. an impact velocity)"
                                                   : NULL;
        if (why)
            return fmb_sim_error(s, FMB_ERR_MODEL,
                                 "periodic: force '%s' (line %d, type %s) %s: the period map is "
                                 "not smooth there; the periodic solver takes smooth models only "
                                 "(docs/theory.md section 13)",
                                 f->name, f->line, f->klass->name, why);
    }
    return 0;
}

fmb_periodic_t *fmb_periodic_create(fmb_sim_t *s)
{
    if (!s) return NULL;
    if (!s->initialized) {
        fmb_sim_error(s, FMB_ERR_ARG, "periodic: the simulation is not initialized");
        return NULL;
    }
    if (scope_error(s)) return NULL;
    fmb_periodic_t *p = calloc(1, sizeof *p);
    if (!p) {
        fmb_sim_error(s, FMB_ERR_NOMEM, "out of memory");
        return NULL;
    }
    const int n = s->n, m = s->m, N = n + m;
    p->s = s, p->n = n, p->m = m, p->t0 = s->t;
    const size_t nx = 4 * (size_t)n, nw = 3 * (size_t)n;
    p->x = dalloc(nx), p->y = dalloc(nx), p->g = dalloc(nx), p->scale = dalloc(nx);
    p->lam0 = dalloc((size_t)m);
    p->angle = calloc((size_t)n + 1, 1);
    p->Y = dalloc(nx * nw), p->J = dalloc(nx * nx), p->A = dalloc(nx * nx);
    p->B = dalloc((size_t)N * nw), p->v1 = dalloc((size_t)N), p->v2 = dalloc((size_t)N);
    p->mre = dalloc(nw), p->mim = dalloc(nw), p->mvec = dalloc(nw * nw);
    p->order = calloc(nw + 1, sizeof(int));
    p->pmax = FMB_PERIODIC_PMAX < nw ? FMB_PERIODIC_PMAX : nw;
    p->sig = dalloc(nx), p->sigV = dalloc(nx), p->xlast = dalloc(nx);
    p->V = dalloc(nx * (size_t)(p->pmax + 1)), p->Z = dalloc(nx * (size_t)(p->pmax + 1));
    p->S = dalloc((size_t)(p->pmax + 1) * (p->pmax + 1)), p->rs = dalloc(nx);
    p->Za = dalloc(nx * (size_t)(p->pmax + 1));
    p->vr = dalloc((size_t)p->pmax + 1), p->dp = dalloc((size_t)p->pmax + 1);
    p->ipiv = calloc((size_t)p->pmax + 1, sizeof(int));
    if (!p->x || !p->y || !p->g || !p->scale || !p->lam0 || !p->angle || !p->Y || !p->J || !p->A ||
        !p->B || !p->v1 || !p->v2 || !p->mre || !p->mim || !p->mvec || !p->order || !p->sig ||
        !p->sigV || !p->V || !p->Z || !p->Za || !p->S || !p->rs || !p->vr || !p->dp || !p->ipiv ||
        fmb_kkt_init(&p->kK, N) || fmb_kkt_init(&p->kC, N)) {
        fmb_periodic_destroy(&p);
        fmb_sim_error(s, FMB_ERR_NOMEM,
                      "out of memory for the periodic solver (%d coordinates: the dense "
                      "monodromy takes %.3g MB)",
                      n, (double)(nx * nx + nx * nw) * 8e-6);
        return NULL;
    }
    p->kK.solver = p->kC.solver = s->kkt.solver;
    memcpy(p->x, s->q, (size_t)n * sizeof(double));
    memcpy(p->x + n, s->qd, (size_t)n * sizeof(double));
    memcpy(p->x + 2 * n, s->acc, (size_t)n * sizeof(double));
    memcpy(p->x + 3 * n, s->qdd, (size_t)n * sizeof(double));
    memcpy(p->lam0, s->lam, (size_t)m * sizeof(double));
    const fmb_model_t *md = s->model;
    for (int b = 1; b < md->nbodies; b++)
        if (md->bodies[b].offset >= 0 && md->bodies[b].ndof >= 3)
            p->angle[md->bodies[b].offset + 2] = 1;
    return p;
}

void fmb_periodic_destroy(fmb_periodic_t **pp)
{
    if (!pp || !*pp) return;
    fmb_periodic_t *p = *pp;
    free(p->x), free(p->y), free(p->g), free(p->scale), free(p->lam0), free(p->angle);
    free(p->Y), free(p->J), free(p->A), free(p->B), free(p->v1), free(p->v2);
    free(p->mre), free(p->mim), free(p->mvec), free(p->order);
    free(p->sig), free(p->sigV), free(p->xlast), free(p->Za), free(p->V), free(p->Z), free(p->S),
        free(p->rs), free(p->vr), free(p->dp);
    free(p->ipiv);
    fmb_kkt_free(&p->kK);
    fmb_kkt_free(&p->kC);
    free(p);
    *pp = NULL;
}

int fmb_periodic_detect_period(fmb_periodic_t *p, double *period)
{
    fmb_sim_t *s = p->s;
    const fmb_model_t *md = s->model;
    double T = 0.0;
    const char *first = NULL;
    for (int k = 0; k < s->njtime; k++) {
        const fmb_joint_t *j = &md->joints[s->jtime[k]];
        /* f' and f'' at 7 times spread over a second: a constant-rate driver has f' fixed
         * and f'' = 0 */
        double ft0 = 0.0, ftt0 = 0.0, spread = 0.0;
        for (int i = 0; i < 7; i++) {
            double ft, ftt;
            j->klass->time(j, p->t0 + 0.137 * i, &ft, &ftt);
            if (i == 0) ft0 = ft, ftt0 = ftt;
            spread = fmax(spread, fmax(fabs(ft - ft0), fabs(ftt)));
        }
        (void)ftt0;
        if (!(fabs(ft0) > 0) || spread > 1e-12 * fabs(ft0)) continue;
        const double Tj = 2.0 * M_PI / fabs(ft0);
        if (T == 0.0) {
            T = Tj, first = j->name;
        } else if (fabs(Tj - T) > 1e-12 * T) {
            return fmb_sim_error(s, FMB_ERR_NOTFOUND,
                                 "periodic: drivers '%s' and '%s' turn at different rates "
                                 "(periods %.9g and %.9g s): give the common period with "
                                 "--period",
                                 first, j->name, T, Tj);
        }
    }
    if (T == 0.0)
        return fmb_sim_error(s, FMB_ERR_NOTFOUND,
                             "periodic: no driver turns at a constant rate, so the period is not "
                             "known: give it with --period T (s)");
    *period = T;
    return 0;
}

int fmb_periodic_set_guess(fmb_periodic_t *p, const double *x)
{
    if (!p || !x) return FMB_ERR_ARG;
    memcpy(p->x, x, 4 * (size_t)p->n * sizeof *x);
    p->project = 1;
    return 0;
}

/* The sim at state x, time t0, with a fresh step history (as after a restart). */
static void set_state(fmb_periodic_t *p, const double *x)
{
    fmb_sim_t *s = p->s;
    const int n = p->n;
    memcpy(s->q, x, (size_t)n * sizeof *x);
    memcpy(s->qd, x + n, (size_t)n * sizeof *x);
    memcpy(s->acc, x + 2 * n, (size_t)n * sizeof *x);
    memcpy(s->qdd, x + 3 * n, (size_t)n * sizeof *x);
    memcpy(s->accp, s->acc, (size_t)n * sizeof *x);
    memcpy(s->lam, p->lam0, (size_t)p->m * sizeof *s->lam);
    s->t = p->t0;
    s->nhist = 0;
    s->h_prev = 0.0;
    s->newton_stale = 1;
    s->kkt_iter = 0;
    s->newton_K[0] = s->newton_K[1] = s->newton_K[2] = s->newton_K[3] = 0.0;
    s->W = 0.0;
    fmb_sim_force_history(s, 1);
    s->P = fmb_sim_power(s);
}

static void get_state(const fmb_periodic_t *p, double *x)
{
    const fmb_sim_t *s = p->s;
    const int n = p->n;
    memcpy(x, s->q, (size_t)n * sizeof *x);
    memcpy(x + n, s->qd, (size_t)n * sizeof *x);
    memcpy(x + 2 * n, s->acc, (size_t)n * sizeof *x);
    memcpy(x + 3 * n, s->qdd, (size_t)n * sizeof *x);
}

/* Assemble the matrix with coefficients c into kkt k (its own pattern) at the candidate. */
static int assemble_into(fmb_periodic_t *p, fmb_kkt_t *k, const fmb_coeffs_t *c, double t1)
{
    fmb_sim_t *s = p->s;
    fmb_kkt_t keep = s->kkt;
    s->kkt = *k;
    fmb_sim_assemble(s, s->q, s->qd, s->qdd, s->lam, t1, c);
    int rc = fmb_kkt_pattern(&s->kkt);
    *k = s->kkt;
    s->kkt = keep;
    return rc;
}

/* Propagate the ncol columns of Y (dx_n, 4n each) through the converged step t_n -> t_n + h
 * (the candidate in s->q ...); unit: this is the first step and Y's columns (3n of them)
 * are the unit vectors of w_0 = (qh, qdh, c) (the dense monodromy). */
static int tangent_step(fmb_periodic_t *p, double h, double *Y, int ncol, int unit)
{
    fmb_sim_t *s = p->s;
    const int n = p->n, m = p->m, N = n + m, nw = ncol;
    const int first = unit;
    const size_t nx = 4 * (size_t)n;
    double am, af, beta, gamma;
    fmb_sim_integrator_coefficients(s, &am, &af, &beta, &gamma);
    const double r = (1.0 - af) / (1.0 - am), bp = beta * r, gp = gamma * r;
    const double bh2 = bp * h * h, t1 = s->t + h;
    const double ca = -am / (1.0 - am), cq = af / (1.0 - am);
    int rc;
    (void)m;
    const fmb_coeffs_t cK = {0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0};
    const fmb_coeffs_t cC = {0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0}; /* top left -Cq */
    const fmb_coeffs_t cA = {1.0, bh2, bh2, gp * h, 1.0, 0.0, 0.0, 0};
    if ((rc = assemble_into(p, &p->kK, &cK, t1)) || (rc = assemble_into(p, &p->kC, &cC, t1)))
        return fmb_sim_error(s, rc, "periodic: cannot assemble the step's tangent at t = %.9g", t1);
    s->jm->handoff = 0;
    fmb_sim_assemble(s, s->q, s->qd, s->qdd, s->lam, t1, &cA);
    rc = fmb_kkt_factor(&s->kkt);
    s->kkt_iter = 0; /* not the integrator's iteration matrix any more */
    s->newton_stale = 1;
    if (rc)
        return rc == FMB_ERR_SINGULAR ? fmb_sim_singular_error(s, s->q, t1, "in the monodromy")
                                      : fmb_sim_error(s, rc, "periodic: factorization failed");
    double *tmp = p->v1; /* n + m */
    double *w = p->A;    /* n x 3n: the columns' dc */
    for (int j = 0; j < nw; j++) {
        double *Yj = Y + (size_t)j * nx, *b = p->B + (size_t)j * N;
        double *dc = w + (size_t)j * n;
        /* (qh, qdh) into Yj's q and qd parts, dc aside */
        if (first) { /* the unit vectors of w_0 = (qh, qdh, c) */
            memset(Yj, 0, nx * sizeof *Yj);
            memset(dc, 0, (size_t)n * sizeof *dc);
            if (j < 2 * n)
                Yj[j] = 1.0;
            else
                dc[j - 2 * n] = 1.0;
        } else {
            double *dq = Yj, *dv = Yj + n;
            const double *da = Yj + 2 * n, *dd = Yj + 3 * n;
            for (int i = 0; i < n; i++) {
                dc[i] = cq * dd[i] + ca * da[i];
                dq[i] += h * dv[i] + h * h * ((0.5 - beta) * da[i] + beta * dc[i]);
                dv[i] += h * ((1.0 - gamma) * da[i] + gamma * dc[i]);
            }
        }
        /* right-hand side: -bh2 (K qh - Cq qdh) and -Phi_q qh (kC's top left is -Cq) */
        fmb_kkt_matvec(&p->kK, n, Yj, b);
        fmb_kkt_matvec(&p->kC, n, Yj + n, tmp);
        for (int i = 0; i < n; i++)
            b[i] = -bh2 * (b[i] + tmp[i]);
        for (int i = n; i < N; i++)
            b[i] = -b[i];
    }
    if ((rc = fmb_kkt_solve_many(&s->kkt, nw, p->B)))
        return fmb_sim_error(s, rc, "periodic: tangent solve failed at t = %.9g", t1);
    const double gv = gp / (bp * h);
    for (int j = 0; j < nw; j++) {
        double *Yj = Y + (size_t)j * nx;
        const double *yv = p->B + (size_t)j * N, *dc = w + (size_t)j * n;
        for (int i = 0; i < n; i++) {
            const double dqdd = yv[i] / bh2;
            Yj[i] += yv[i];
            Yj[n + i] += gv * yv[i];
            Yj[2 * n + i] = r * dqdd + dc[i];
            Yj[3 * n + i] = dqdd;
        }
    }
    return 0;
}

/* One pass over the period from x: y = P(x); with ncol > 0 the columns of Y propagated too
 * (unit: Y = dx_N/dw_0, the dense monodromy; else Y's columns dx_0 -> J dx_0). */
static int pass(fmb_periodic_t *p, const double *x, double *y, double *Y, int ncol, int unit,
                volatile const int *stop)
{
    const int tangent = ncol > 0;
    fmb_sim_t *s = p->s;
    const int n = p->n;
    const size_t nx = 4 * (size_t)n;
    set_state(p, x);
    for (size_t i = 0; i < nx; i++)
        p->scale[i] = fabs(x[i]);
    p->passes++;
    if (tangent) p->tpasses++;
    for (long k = 0; k < p->N; k++) {
        if (stop && *stop)
            return fmb_sim_error(s, FMB_ERR_INTERRUPTED, "periodic: interrupted at t = %g", s->t);
        /* every step by full Newton to its increment test: no Newton constants carried from
         * the step before and no kept matrix (newton_stale), so that P(x) is the same
         * function of x in every pass and its rounding stays at the increment test's */
        s->newton_stale = 1;
        int rc = fmb_sim_try_step(s, p->h);
        if (rc) return rc;
        if (tangent && (rc = tangent_step(p, p->h, Y, ncol, unit && k == 0))) {
            fmb_sim_reject_step(s);
            return rc;
        }
        fmb_sim_commit_step(s, p->h);
        s->t = p->t0 + (double)(k + 1) * p->h;
        for (int i = 0; i < n; i++) {
            p->scale[i] = fmax(p->scale[i], fabs(s->q[i]));
            p->scale[n + i] = fmax(p->scale[n + i], fabs(s->qd[i]));
            p->scale[2 * n + i] = fmax(p->scale[2 * n + i], fabs(s->acc[i]));
            p->scale[3 * n + i] = fmax(p->scale[3 * n + i], fabs(s->qdd[i]));
        }
    }
    get_state(p, y);
    if (tangent && unit) p->have_J = 1;
    return 0;
}

/* G = P(x) - x (carrier angles modulo 2 pi) and its size. The convergence test measures
 * the state (q, qd): each entry against the largest value over the period of its group,
 * per body its carrier position (x, y), its carrier angle and its elastic coordinates (a
 * carrier angle against 1 rad). a and qdd follow from q through the Newmark relations
 * (qdd_{n+1} = (q_{n+1} - qh) / bh2): their rounding is that of q amplified by 1/(beta h^2)
 * (measured: 1e-6 of their scale on the quick-return at h = 1e-4), so they are reported
 * (*acc_res) but not tested. */
static double residual(fmb_periodic_t *p, double *acc_res)
{
    const int n = p->n;
    const fmb_model_t *md = p->s->model;
    double worst = 0.0, wacc = 0.0;
    for (int blk = 0; blk < 4; blk++)
        for (int i = 0; i < n; i++) {
            const int k = blk * n + i;
            double d = p->y[k] - p->x[k];
            if (blk == 0 && p->angle[i]) d -= 2.0 * M_PI * nearbyint(d / (2.0 * M_PI));
            p->g[k] = d;
        }
    /* group scales: the largest value over the period in the group, floored at 1e-6 of
     * the largest group of its block (a coordinate pinned at zero, as a crank's centre, is
     * measured against the mechanism's scale, not its own rounding) */
    double big[4] = {0.0, 0.0, 0.0, 0.0};
    for (int blk = 0; blk < 4; blk++)
        for (int i = 0; i < n; i++)
            if (!(blk == 0 && p->angle[i])) big[blk] = fmax(big[blk], p->scale[blk * n + i]);
    for (int b = 1; b < md->nbodies; b++) {
        const int o = md->bodies[b].offset, nd = md->bodies[b].ndof;
        if (o < 0) continue;
        for (int blk = 0; blk < 4; blk++) {
            /* groups: [o, o+2) position, o+2 angle, [o+3, o+nd) elastic */
            const int lo[3] = {o, o + 2, o + 3}, hi[3] = {o + 2, o + 3, o + nd};
            for (int gi = 0; gi < 3; gi++) {
                if (hi[gi] > o + nd || lo[gi] >= hi[gi]) continue;
                double sc = 0.0, r = 0.0;
                for (int i = lo[gi]; i < hi[gi]; i++) {
                    sc = fmax(sc, p->scale[blk * n + i]);
                    r = fmax(r, fabs(p->g[blk * n + i]));
                }
                sc = blk == 0 && gi == 1 ? 1.0 : fmax(sc, 1e-6 * big[blk]); /* angle: 1 rad */
                for (int i = lo[gi]; i < hi[gi]; i++)
                    p->sig[blk * n + i] = sc > 0 ? sc : 1.0;
                if (r == 0.0) continue;
                const double e = r / fmax(sc, 1e-300);
                if (blk < 2)
                    worst = fmax(worst, e);
                else
                    wacc = fmax(wacc, e);
            }
        }
    }
    if (acc_res) *acc_res = wacc;
    return worst;
}

/* J = Y W (4n x 4n) */
static void monodromy(fmb_periodic_t *p)
{
    fmb_sim_t *s = p->s;
    const int n = p->n;
    const size_t nx = 4 * (size_t)n;
    double am, af, beta, gamma;
    fmb_sim_integrator_coefficients(s, &am, &af, &beta, &gamma);
    const double h = p->h, ca = -am / (1.0 - am), cq = af / (1.0 - am);
    for (int i = 0; i < n; i++) {
        /* columns of W: x component -> (qh, qdh, c) entries at coordinate i */
        const double wq[3] = {1.0, 0.0, 0.0};
        const double wv[3] = {h, 1.0, 0.0};
        const double wa[3] = {h * h * ((0.5 - beta) + beta * ca), h * ((1.0 - gamma) + gamma * ca),
                              ca};
        const double wd[3] = {h * h * beta * cq, h * gamma * cq, cq};
        const double *wc[4] = {wq, wv, wa, wd};
        const double *Y0 = p->Y + (size_t)i * nx, *Y1 = p->Y + (size_t)(n + i) * nx,
                     *Y2 = p->Y + (size_t)(2 * n + i) * nx;
        for (int blk = 0; blk < 4; blk++) {
            double *Jc = p->J + (size_t)(blk * n + i) * nx;
            const double *c = wc[blk];
            for (size_t r = 0; r < nx; r++)
                Jc[r] = c[0] * Y0[r] + c[1] * Y1[r] + c[2] * Y2[r];
        }
    }
}

/* Newton step: (J - I) dx = -G; 0 or FMB_ERR_SINGULAR. */
static int newton_step(fmb_periodic_t *p)
{
    const int nx = 4 * p->n;
    double *A = p->A;
    memcpy(A, p->J, (size_t)nx * nx * sizeof *A);
    for (int i = 0; i < nx; i++)
        A[(size_t)i * nx + i] -= 1.0;
    double *b = p->y; /* P(x) is not needed any more */
    for (int i = 0; i < nx; i++)
        b[i] = -p->g[i];
    int *ipiv = malloc((size_t)nx * sizeof *ipiv + 1), one = 1, info = 0;
    if (!ipiv) return FMB_ERR_NOMEM;
    dgesv_(&nx, &one, A, &nx, ipiv, b, &nx, &info);
    free(ipiv);
    if (info != 0) return FMB_ERR_SINGULAR;
    for (int i = 0; i < nx; i++)
        p->x[i] += b[i];
    return 0;
}

/* Spectral radius of the integrator's amplification at infinite frequency and of a
 * prescribed coordinate's (q_{n+1} given: the constrained directions), over one step. */
static double algorithmic_radius(const fmb_sim_t *s, double h)
{
    double am, af, beta, gamma;
    fmb_sim_integrator_coefficients(s, &am, &af, &beta, &gamma);
    const double r = (1.0 - af) / (1.0 - am), bh2 = beta * r * h * h, gp = gamma * r;
    const double ca = -am / (1.0 - am), cq = af / (1.0 - am);
    /* the map of (qd, a, qdd) with q held fixed (q_{n+1} = q_n = 0): qdd_{n+1} = -qh / bh2;
     * its 3 x 3 matrix by columns, eigenvalues by dgeev */
    double Amat[9];
    for (int c = 0; c < 3; c++) {
        double v = c == 0, a = c == 1, d = c == 2;
        const double cc = cq * d + ca * a;
        const double qh = h * v + h * h * ((0.5 - beta) * a + beta * cc);
        const double qdh = v + h * ((1.0 - gamma) * a + gamma * cc);
        const double d1 = -qh / bh2;
        Amat[3 * c + 0] = qdh + gp * h * d1;
        Amat[3 * c + 1] = r * d1 + cc;
        Amat[3 * c + 2] = d1;
    }
    int n3 = 3, one = 1, lw = 64, info = 0;
    double wr[3], wi[3], work[64], dummy[1];
    dgeev_("N", "N", &n3, Amat, &n3, wr, wi, dummy, &one, dummy, &one, work, &lw, &info);
    double rho = 0.0;
    if (info == 0)
        for (int k = 0; k < 3; k++)
            rho = fmax(rho, hypot(wr[k], wi[k]));
    /* infinite frequency, unconstrained: qdd = -w^2 q with w h -> inf is the same map on
     * (qd, a, qdd) once q is pinned by the stiffness, so rho covers both */
    return rho;
}

static int floquet(fmb_periodic_t *p)
{
    const int n = p->n, nw = 3 * n;
    const size_t nx = 4 * (size_t)n;
    fmb_sim_t *s = p->s;
    double am, af, beta, gamma;
    fmb_sim_integrator_coefficients(s, &am, &af, &beta, &gamma);
    const double h = p->h, ca = -am / (1.0 - am), cq = af / (1.0 - am);
    /* M3 = W Y (3n x 3n): w_N of each column of Y */
    double *M3 = p->A;
    for (int j = 0; j < nw; j++) {
        const double *Yj = p->Y + (size_t)j * nx;
        double *Mj = M3 + (size_t)j * nw;
        for (int i = 0; i < n; i++) {
            const double dq = Yj[i], dv = Yj[n + i], da = Yj[2 * n + i], dd = Yj[3 * n + i];
            const double dc = cq * dd + ca * da;
            Mj[i] = dq + h * dv + h * h * ((0.5 - beta) * da + beta * dc);
            Mj[n + i] = dv + h * ((1.0 - gamma) * da + gamma * dc);
            Mj[2 * n + i] = dc;
        }
    }
    double *wr = p->mre, *wi = p->mim, dummy[1], wq;
    int one = 1, lw = -1, info = 0;
    double *vr = p->mvec;
    dgeev_("N", "V", &nw, M3, &nw, wr, wi, dummy, &one, vr, &nw, &wq, &lw, &info);
    lw = (int)wq;
    double *work = malloc((size_t)(lw > 0 ? lw : 1) * sizeof *work);
    if (!work) return FMB_ERR_NOMEM;
    dgeev_("N", "V", &nw, M3, &nw, wr, wi, dummy, &one, vr, &nw, work, &lw, &info);
    free(work);
    if (info != 0) return fmb_sim_error(s, FMB_ERR_LINSOLVE, "periodic: eigenvalues failed");
    /* by decreasing modulus (insertion sort, stable: a conjugate pair stays in dgeev's
     * order) */
    for (int k = 0; k < nw; k++) {
        const int i = k;
        const double mi = hypot(wr[i], wi[i]);
        int pos = k;
        while (pos > 0 && hypot(wr[p->order[pos - 1]], wi[p->order[pos - 1]]) < mi) {
            p->order[pos] = p->order[pos - 1];
            pos--;
        }
        p->order[pos] = i;
    }
    p->nmult = nw;
    return 0;
}

/* A given first guess made consistent at t0: positions on the constraints, velocities
 * projected onto their manifold in the mass metric (a and qdd as given: accelerations
 * consistent with an elastic state off the orbit excite the unresolved modes, measured:
 * singular steps from the static start with 1 mm on every elastic coordinate). A
 * neighbouring orbit (continuation) carries the old crank speed; integrated as it is, the
 * index-3 scheme turns that velocity mismatch into an impulse in its first steps. The
 * orbit is a fixed point: where the iteration starts does not change it. */
static int consistent_guess(fmb_periodic_t *p)
{
    fmb_sim_t *s = p->s;
    const int n = p->n, N = n + p->m;
    set_state(p, p->x);
    int rc = fmb_sim_assemble_positions(s, 0.0);
    double *v = s->work + N;
    if (!rc) rc = fmb_sim_mass_projection(s, v, "while making the first guess consistent");
    if (rc) return rc;
    memcpy(s->qd, v, (size_t)n * sizeof *v);
    get_state(p, p->x);
    p->project = 0;
    return 0;
}

/* A pass at the present iterate that, when it fails (a step that cannot be completed from
 * an update too long for the nonlinear map: the index-3 steps from a state far from a
 * consistent one), retries at the update's halves towards the last iterate that passed
 * (p->xlast), at most FMB_PERIODIC_BACKTRACK times: damped Newton. it: the iteration (0:
 * nothing to go back to). */
static int pass_damped(fmb_periodic_t *p, int it, double *Y, int ncol, int unit,
                       volatile const int *stop)
{
    const size_t nx = 4 * (size_t)p->n;
    int rc = pass(p, p->x, p->y, Y, ncol, unit, stop);
    for (int b = 0; rc && rc != FMB_ERR_INTERRUPTED && it > 0 && b < FMB_PERIODIC_BACKTRACK; b++) {
        for (size_t i = 0; i < nx; i++)
            p->x[i] = p->xlast[i] + 0.5 * (p->x[i] - p->xlast[i]);
        p->backtracks++;
        rc = pass(p, p->x, p->y, Y, ncol, unit, stop);
    }
    if (rc == 0) memcpy(p->xlast, p->x, nx * sizeof *p->x);
    return rc;
}

/* Orthonormalize the k columns of V (nx each, scaled space) in place by modified
 * Gram-Schmidt twice, dropping a column whose norm falls below 1e-10 of what it had;
 * returns the columns kept (packed at the front). */
static int orthonormalize(double *V, int k, size_t nx)
{
    int kept = 0;
    for (int j = 0; j < k; j++) {
        double *v = V + (size_t)j * nx;
        double n0 = 0.0;
        for (size_t i = 0; i < nx; i++)
            n0 += v[i] * v[i];
        n0 = sqrt(n0);
        for (int pass2 = 0; pass2 < 2; pass2++)
            for (int c = 0; c < kept; c++) {
                const double *u = V + (size_t)c * nx;
                double d = 0.0;
                for (size_t i = 0; i < nx; i++)
                    d += u[i] * v[i];
                for (size_t i = 0; i < nx; i++)
                    v[i] -= d * u[i];
            }
        double nn = 0.0;
        for (size_t i = 0; i < nx; i++)
            nn += v[i] * v[i];
        nn = sqrt(nn);
        if (!(nn > 1e-10 * n0) || !(nn > 0)) continue;
        double *dst = V + (size_t)kept * nx;
        for (size_t i = 0; i < nx; i++)
            dst[i] = v[i] / nn;
        kept++;
    }
    return kept;
}

/* Ritz values and vectors of the subspace: eigenpairs of S = V^T J V (k x k, scaled) as the
 * multipliers (largest moduli only) and their vectors for fmb_periodic_mode. */
static int ritz(fmb_periodic_t *p, const double *S, int k)
{
    double *A = p->A;
    memcpy(A, S, (size_t)k * k * sizeof *A);
    double dummy[1], wq;
    int one = 1, lw = -1, info = 0;
    dgeev_("N", "V", &k, A, &k, p->mre, p->mim, dummy, &one, p->mvec, &k, &wq, &lw, &info);
    lw = (int)wq;
    double *work = malloc((size_t)(lw > 0 ? lw : 1) * sizeof *work);
    if (!work) return FMB_ERR_NOMEM;
    dgeev_("N", "V", &k, A, &k, p->mre, p->mim, dummy, &one, p->mvec, &k, work, &lw, &info);
    free(work);
    if (info != 0) return FMB_ERR_LINSOLVE;
    for (int j = 0; j < k; j++) {
        const double mj = hypot(p->mre[j], p->mim[j]);
        int pos = j;
        while (pos > 0 && hypot(p->mre[p->order[pos - 1]], p->mim[p->order[pos - 1]]) < mj) {
            p->order[pos] = p->order[pos - 1];
            pos--;
        }
        p->order[pos] = j;
    }
    p->nmult = k;
    p->ritz = 1;
    return 0;
}

/* The relative residual |J v - mu v| / |v| of the largest Ritz pair (v = V y, scaled
 * state; Z packed: J V scaled), k columns of length nx. */
static double ritz_residual(const fmb_periodic_t *p, const double *Z, int k, int nx)
{
    if (p->nmult < 1) return INFINITY;
    const int i = p->order[0];
    int c0 = i;
    if (p->mim[i] != 0.0 && p->mim[i] < 0) c0 = i - 1;
    const double mr = p->mre[i], mi = p->mim[i];
    const double *yr = p->mvec + (size_t)c0 * k, *yi = mi != 0.0 ? yr + k : NULL;
    double num = 0.0, den = 0.0;
    for (int r = 0; r < nx; r++) {
        double vr = 0, vi = 0, zr = 0, zi = 0;
        for (int j = 0; j < k; j++) {
            const double a = p->V[(size_t)j * nx + r], z = Z[(size_t)j * nx + r];
            vr += a * yr[j], zr += z * yr[j];
            if (yi) vi += a * yi[j], zi += z * yi[j];
        }
        const double er = zr - (mr * vr - mi * vi), ei = zi - (mr * vi + mi * vr);
        num += er * er + ei * ei;
        den += vr * vr + vi * vi;
    }
    return den > 0 ? sqrt(num / den) : INFINITY;
}

/* Newton-Picard shooting (Lust, Roose, Spence and Champneys 1998): Newton on a small
 * subspace V (orthonormal in the scaled state, sig), Picard (x <- P(x)) on its complement.
 * Each pass at x gives P(x) and Z = J V (the columns propagated with the same exact step
 * linearization as the dense monodromy). With S = V^T Z and r = P(x) - x (scaled):
 *     x += V dp + (I - V V^T) r,    (S - I) dp = -V^T r
 * (the coupling V^T J (I - V V^T) r is left out: it is at most the complement's multipliers
 * times its part of r). The basis is the span of Z and the residual's complement part
 * (subspace iteration, grown by one direction per iteration, at most pmax), so it turns to
 * the dominant multipliers' invariant subspace; the complement then contracts with the
 * largest multiplier left outside. Returns 0 converged, 1 when it does not contract (the
 * caller switches to the dense monodromy), or a negative status. */
static int newton_picard(fmb_periodic_t *p, const fmb_periodic_options_t *o, int maxit, int *dense)
{
    fmb_sim_t *s = p->s;
    const int n = p->n, nx = 2 * n; /* the subspace: (q, qd) */
    const int pmax = p->pmax;
    double *V = p->V, *Z = p->Z, *S = p->S, *r = p->rs;
    double *sg = p->sigV; /* the scaled space: the first pass's scales, then fixed */
    int k = 0, rc;
    const size_t zs = 4 * (size_t)n; /* Z's columns: whole states (a, qdd parts seeded 0) */
    for (int it = 0;; it++) {
        /* seeds: V's columns in state units (sig from the last residual) */
        for (int j = 0; j < k; j++) {
            for (int i = 0; i < nx; i++)
                Z[(size_t)j * zs + i] = sg[i] * V[(size_t)j * nx + i];
            memset(Z + (size_t)j * zs + nx, 0, (zs - (size_t)nx) * sizeof *Z);
        }
        if ((rc = pass_damped(p, it, Z, k, 0, o->stop))) {
            /* still failing at the halved updates: back to the last iterate that passed,
             * for the dense monodromy when the caller may switch */
            if (it == 0 || !dense || rc == FMB_ERR_INTERRUPTED) return rc;
            memcpy(p->x, p->xlast, 4 * (size_t)n * sizeof *p->x);
            p->iters = it - 1;
            p->np_failed = 1;
            return 1;
        }
        double res_acc;
        const double res = residual(p, &res_acc);
        p->res_acc = res_acc;
        p->res[it] = res;
        p->iters = it;
        if (o->progress) o->progress(it, res, o->user);
        if (it == 0) memcpy(sg, p->sig, 4 * (size_t)n * sizeof *sg);
        if (!isfinite(res))
            return fmb_sim_error(s, FMB_ERR_NONFINITE,
                                 "periodic: the residual is not finite at iteration %d", it);
        /* the a and qdd rows of J V (before Z is packed) */
        for (int j = 0; j < k; j++)
            memcpy(p->Za + (size_t)j * nx, Z + (size_t)j * zs + nx, (size_t)nx * sizeof *Z);
        /* J V in the scaled space */
        for (int j = 0; j < k; j++)
            for (int i = 0; i < nx; i++)
                Z[(size_t)j * nx + i] = Z[(size_t)j * zs + i] / sg[i]; /* packed, stride nx */
        for (int a = 0; a < k; a++)
            for (int b2 = 0; b2 < k; b2++) {
                double d = 0.0;
                for (int i = 0; i < nx; i++)
                    d += V[(size_t)a * nx + i] * Z[(size_t)b2 * nx + i];
                S[(size_t)b2 * k + a] = d;
            }
        if (res <= o->tol) {
            p->np_dim = k;
            return 0;
        }
        if (it >= maxit) return 1;
        /* a Picard-dominated iteration that does not contract: the dense monodromy */
        if (it >= 3 && res > 0.5 * p->res[it - 1] && dense) return 1;
        for (int i = 0; i < nx; i++)
            r[i] = p->g[i] / sg[i];
        /* V^T r and the complement part of r */
        double *vr = p->vr, *dp = p->dp;
        for (int a = 0; a < k; a++) {
            double d = 0.0;
            for (int i = 0; i < nx; i++)
                d += V[(size_t)a * nx + i] * r[i];
            vr[a] = d;
        }
        for (int a = 0; a < k; a++)
            for (int i = 0; i < nx; i++)
                r[i] -= vr[a] * V[(size_t)a * nx + i];
        if (k > 0) {
            double *A = p->A;
            for (int a = 0; a < k; a++)
                for (int b2 = 0; b2 < k; b2++)
                    A[(size_t)b2 * k + a] = S[(size_t)b2 * k + a] - (a == b2);
            for (int a = 0; a < k; a++)
                dp[a] = -vr[a];
            int one = 1, info = 0;
            dgesv_(&k, &one, A, &k, p->ipiv, dp, &k, &info);
            if (info != 0)
                return fmb_sim_error(s, FMB_ERR_SINGULAR,
                                     "periodic: a Floquet multiplier is 1 at iteration %d (an "
                                     "undriven free motion, or a period that is not the "
                                     "forcing's)",
                                     it);
        }
        for (int i = 0; i < nx; i++) {
            double d = r[i];
            for (int a = 0; a < k; a++)
                d += V[(size_t)a * nx + i] * dp[a];
            p->x[i] += sg[i] * d;
        }
        /* a and qdd: their values at the period's end plus the change the Newton part makes
         * there (J V dp); the fixed-point part's (J (I - V V^T) r) is left out with it */
        for (int i = 0; i < nx; i++) {
            double d = p->y[nx + i];
            for (int a = 0; a < k; a++)
                d += p->Za[(size_t)a * nx + i] * dp[a];
            p->x[nx + i] = d;
        }
        /* the next basis: orth(J V, complement of r), at most pmax */
        const int kz = k < pmax ? k : pmax;
        memcpy(V, Z, (size_t)kz * nx * sizeof *V);
        int kn = kz;
        if (kn < pmax) {
            memcpy(V + (size_t)kn * nx, r, (size_t)nx * sizeof *V);
            kn++;
        }
        k = orthonormalize(V, kn, (size_t)nx);
    }
}

/* The largest multipliers at the orbit by subspace iteration with Rayleigh-Ritz (the
 * subspace method's Floquet analysis; no dense matrix): m directions of (q, qd), the
 * Newton-Picard basis completed with pseudo-random ones, each pass Z = J V then
 * V <- orth(Z), until the largest Ritz value moves by less than FMB_PERIODIC_RITZ_TOL
 * between passes and its pair's residual |J v - mu v| is below it (at most
 * FMB_PERIODIC_FLOQUET_PASSES passes). The rate is |mu_{m+1} / mu_1| per pass. */
static int floquet_dominant(fmb_periodic_t *p, const fmb_periodic_options_t *o, int k0)
{
    const int n = p->n, nx = 4 * n; /* whole states: a and qdd follow the eigenvector */
    const size_t zs = 4 * (size_t)n;
    const int m = 2 * n < FMB_PERIODIC_FLOQUET_DIM ? 2 * n : FMB_PERIODIC_FLOQUET_DIM;
    double *V = p->V, *Z = p->Z, *S = p->S, *sg = p->sigV;
    int k = k0 < m ? k0 : m, rc;
    /* the Newton-Picard basis (q, qd; stride 2n) into whole-state columns */
    for (int j = k - 1; j >= 0; j--) {
        memmove(V + (size_t)j * nx, V + (size_t)j * 2 * n, 2 * (size_t)n * sizeof *V);
        memset(V + (size_t)j * nx + 2 * n, 0, 2 * (size_t)n * sizeof *V);
    }
    unsigned long long seed = 0x9E3779B97F4A7C15ull;
    for (int j = k; j < m; j++)
        for (int i = 0; i < nx; i++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            V[(size_t)j * nx + i] = (double)(seed >> 11) / 9007199254740992.0 - 0.5;
        }
    k = orthonormalize(V, m, (size_t)nx);
    double last = -1.0;
    for (int pass_no = 0; pass_no < FMB_PERIODIC_FLOQUET_PASSES; pass_no++) {
        for (int j = 0; j < k; j++)
            for (int i = 0; i < nx; i++)
                Z[(size_t)j * zs + i] = sg[i] * V[(size_t)j * nx + i];
        if ((rc = pass(p, p->x, p->y, Z, k, 0, o->stop))) return rc;
        for (int j = 0; j < k; j++)
            for (int i = 0; i < nx; i++)
                Z[(size_t)j * zs + i] /= sg[i];
        for (int a = 0; a < k; a++)
            for (int b2 = 0; b2 < k; b2++) {
                double d = 0.0;
                for (int i = 0; i < nx; i++)
                    d += V[(size_t)a * nx + i] * Z[(size_t)b2 * nx + i];
                S[(size_t)b2 * k + a] = d;
            }
        if ((rc = ritz(p, S, k))) return rc;
        p->vstride = nx;
        p->ritz_res = ritz_residual(p, Z, k, nx);
        p->floquet_passes = pass_no + 1;
        double re, im;
        fmb_periodic_multiplier(p, 0, &re, &im);
        const double mod = hypot(re, im);
        if (fabs(mod - last) <= FMB_PERIODIC_RITZ_TOL * fmax(mod, 1e-3) &&
            p->ritz_res <= FMB_PERIODIC_RITZ_TOL)
            return 0;
        last = mod;
        memcpy(V, Z, (size_t)k * nx * sizeof *V);
        k = orthonormalize(V, k, (size_t)nx);
    }
    return 0; /* not converged: ritz_res says how far */
}

/* Newton with the dense monodromy from the present iterate (iterations from it0). */
static int dense_newton(fmb_periodic_t *p, const fmb_periodic_options_t *o, int it0, int maxit)
{
    fmb_sim_t *s = p->s;
    int rc;
    for (int it = it0;; it++) {
        if ((rc = pass_damped(p, it > it0, p->Y, 3 * p->n, 1, o->stop))) return rc;
        double res_acc;
        const double res = residual(p, &res_acc);
        p->res_acc = res_acc;
        p->res[it] = res;
        p->iters = it;
        if (o->progress) o->progress(it, res, o->user);
        monodromy(p);
        if (!isfinite(res))
            return fmb_sim_error(s, FMB_ERR_NONFINITE,
                                 "periodic: the residual is not finite at iteration %d", it);
        if (res <= o->tol) return 0;
        if (it >= maxit) return 1;
        if ((rc = newton_step(p)))
            return fmb_sim_error(s, FMB_ERR_SINGULAR,
                                 "periodic: J - I is singular at iteration %d: a Floquet "
                                 "multiplier is 1 (an undriven free motion, or a period that is "
                                 "not the forcing's)",
                                 it);
    }
}

int fmb_periodic_solve(fmb_periodic_t *p, const fmb_periodic_options_t *o)
{
    fmb_periodic_options_t od;
    if (!o) fmb_periodic_options_default(&od), o = &od;
    fmb_sim_t *s = p->s;
    double T = o->period;
    int rc;
    if (!(T > 0) && (rc = fmb_periodic_detect_period(p, &T))) return rc;
    p->T = T;
    p->N = (long)ceil(T / s->opts.h * (1.0 - 1e-12));
    if (p->N < 1) p->N = 1;
    p->h = T / (double)p->N;
    p->bound = pow(algorithmic_radius(s, p->h), (double)p->N);
    const int maxit = o->max_iter < PER_MAXIT ? o->max_iter : PER_MAXIT;
    p->iters = 0;
    p->nmult = 0;
    p->backtracks = 0;
    p->np_failed = 0;
    memcpy(p->xlast, p->x, 4 * (size_t)p->n * sizeof *p->x);
    p->ritz = 0;
    p->np_dim = 0;
    p->have_J = 0;
    p->method = o->method;
    if (p->project && (rc = consistent_guess(p))) return rc;
    const int dense_ok = 3 * p->n <= FMB_PERIODIC_DENSE_MAX;
    if (p->method == FMB_PERIODIC_AUTO) p->method = FMB_PERIODIC_SUBSPACE;
    if (p->method == FMB_PERIODIC_DENSE && !dense_ok)
        return fmb_sim_error(s, FMB_ERR_ARG,
                             "periodic: the dense monodromy of %d coordinates (%d columns per "
                             "step) is above its limit %d; use the subspace method",
                             p->n, 3 * p->n, FMB_PERIODIC_DENSE_MAX);
    int it0 = 0;
    if (p->method == FMB_PERIODIC_SUBSPACE) {
        rc = newton_picard(p, o, maxit, o->method == FMB_PERIODIC_AUTO && dense_ok ? &it0 : NULL);
        if (rc < 0) return rc;
        if (rc == 1 && o->method == FMB_PERIODIC_AUTO && dense_ok && p->iters < maxit) {
            p->method = FMB_PERIODIC_DENSE; /* the complement does not contract */
            it0 = p->iters + 1;
        } else if (rc == 1) {
            it0 = -1;
        }
    }
    /* the largest multipliers by subspace iteration at the orbit; every multiplier (or
     * when that did not converge, in a model small enough) from the dense monodromy */
    p->ritz_res = INFINITY;
    p->floquet_passes = 0;
    if (p->method == FMB_PERIODIC_SUBSPACE && it0 == 0 && o->floquet == 1 &&
        (rc = floquet_dominant(p, o, p->np_dim)))
        return rc;
    if (p->method == FMB_PERIODIC_SUBSPACE && it0 == 0 && o->floquet && dense_ok &&
        (o->floquet == 2 || !(p->ritz_res <= FMB_PERIODIC_RITZ_TOL))) {
        /* every multiplier: the dense monodromy at the orbit (one more pass) */
        if ((rc = pass(p, p->x, p->y, p->Y, 3 * p->n, 1, o->stop))) return rc;
        monodromy(p);
        p->ritz = 0;
        if ((rc = floquet(p))) return rc;
    }
    if (p->method == FMB_PERIODIC_DENSE && it0 >= 0) {
        p->ritz = 0;
        rc = dense_newton(p, o, it0, maxit);
        if (rc < 0) return rc;
        if (rc == 0 && o->floquet && (rc = floquet(p))) return rc;
        if (rc == 1) it0 = -1;
    }
    if (it0 >= 0) set_state(p, p->x); /* the sim at the orbit's start */
    if (it0 < 0) {
        const int it = p->iters;
        return fmb_sim_error(s, FMB_ERR_CONVERGENCE,
                             "periodic: no periodic orbit found in %d Newton iterations: "
                             "residual %.3g of the state scale (tolerance %.3g); residuals %.3g "
                             "(first) .. %.3g (last)",
                             it, p->res[it], o->tol, p->res[0], p->res[it]);
    }
    return 0;
}

int fmb_periodic_prepare_run(fmb_periodic_t *p, int periods)
{
    fmb_sim_t *s = p->s;
    if (!(p->T > 0) || periods < 1) return FMB_ERR_ARG;
    set_state(p, p->x);
    s->opts.h = p->h;
    s->opts.adaptive = 0;
    s->opts.t_end = p->t0 + (double)periods * p->T;
    s->t_span = 0.0;
    memset(&s->stats, 0, sizeof s->stats);
    s->stats.max_error_coord = -1;
    s->stats.jump_coord = -1;
    s->h_next = 0.0;
    return 0;
}

double fmb_periodic_period(const fmb_periodic_t *p)
{
    return p->T;
}
long fmb_periodic_steps(const fmb_periodic_t *p)
{
    return p->N;
}
int fmb_periodic_iterations(const fmb_periodic_t *p)
{
    return p->iters;
}
double fmb_periodic_residual(const fmb_periodic_t *p, int k)
{
    return k >= 0 && k <= p->iters ? p->res[k] : NAN;
}
const double *fmb_periodic_state(const fmb_periodic_t *p)
{
    return p->x;
}
int fmb_periodic_num_multipliers(const fmb_periodic_t *p)
{
    return p->nmult;
}
void fmb_periodic_multiplier(const fmb_periodic_t *p, int k, double *re, double *im)
{
    const int i = k >= 0 && k < p->nmult ? p->order[k] : -1;
    *re = i >= 0 ? p->mre[i] : NAN;
    *im = i >= 0 ? p->mim[i] : NAN;
}
double fmb_periodic_algorithmic_bound(const fmb_periodic_t *p)
{
    return p->bound;
}

fmb_periodic_method fmb_periodic_method_used(const fmb_periodic_t *p, int *subspace_dim)
{
    if (subspace_dim) *subspace_dim = p->method == FMB_PERIODIC_SUBSPACE ? p->np_dim : 0;
    return p->method;
}

int fmb_periodic_multipliers_are_ritz(const fmb_periodic_t *p)
{
    return p->ritz;
}

/* A Ritz vector of the subspace method: sig (V y), its coordinate part */
static int ritz_mode(const fmb_periodic_t *p, int k, double *re, double *im)
{
    const int n = p->n, kk = p->nmult, i = p->order[k];
    const size_t nx = (size_t)p->vstride;
    int c0 = i, conj = 0;
    if (p->mim[i] != 0.0) {
        if (p->mim[i] > 0)
            c0 = i;
        else
            c0 = i - 1, conj = 1;
    }
    const double *yre = p->mvec + (size_t)c0 * kk;
    const double *yim = p->mim[i] != 0.0 ? p->mvec + (size_t)(c0 + 1) * kk : NULL;
    double big = 0.0;
    for (int r = 0; r < n; r++) {
        double a = 0.0, b = 0.0;
        for (int j = 0; j < kk; j++) {
            const double v = p->V[(size_t)j * nx + r] * p->sigV[r];
            a += v * yre[j];
            if (yim) b += v * yim[j];
        }
        re[r] = a, im[r] = conj ? -b : b;
        big = fmax(big, hypot(a, b));
    }
    if (big > 0)
        for (int r = 0; r < n; r++)
            re[r] /= big, im[r] /= big;
    return 0;
}

int fmb_periodic_mode(const fmb_periodic_t *p, int k, double *re, double *im)
{
    if (k < 0 || k >= p->nmult) return FMB_ERR_ARG;
    if (p->ritz) return ritz_mode(p, k, re, im);
    const int n = p->n, nw = 3 * n, i = p->order[k];
    const size_t nx = 4 * (size_t)n;
    /* eigenvector of W Y: v (dgeev: a complex pair is stored as columns i, i + 1 = re, im
     * for the eigenvalue with positive imaginary part); J's eigenvector is Y v */
    int c0 = i, conj = 0;
    if (p->mim[i] != 0.0) {
        if (i + 1 < nw && p->mim[i] > 0)
            c0 = i;
        else
            c0 = i - 1, conj = 1;
    }
    const double *vre = p->mvec + (size_t)c0 * nw;
    const double *vim = p->mim[i] != 0.0 ? p->mvec + (size_t)(c0 + 1) * nw : NULL;
    double big = 0.0;
    for (int r = 0; r < n; r++) {
        double a = 0.0, b = 0.0;
        for (int j = 0; j < nw; j++) {
            const double y = p->Y[(size_t)j * nx + r];
            a += y * vre[j];
            if (vim) b += y * vim[j];
        }
        re[r] = a, im[r] = conj ? -b : b;
        big = fmax(big, hypot(a, b));
    }
    if (big > 0)
        for (int r = 0; r < n; r++)
            re[r] /= big, im[r] /= big;
    return 0;
}

void fmb_periodic_passes(const fmb_periodic_t *p, int *passes, int *tangent_passes)
{
    if (passes) *passes = p->passes;
    if (tangent_passes) *tangent_passes = p->tpasses;
}

const double *fmb_periodic_monodromy(const fmb_periodic_t *p)
{
    return p->have_J ? p->J : NULL;
}

int fmb_periodic_map(fmb_periodic_t *p, const double *x, double *y)
{
    if (!(p->T > 0)) return FMB_ERR_ARG;
    return pass(p, x, y, NULL, 0, 0, NULL);
}
