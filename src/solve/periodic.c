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
 * ones of J) are those of the converged orbit. The default, Newton-Picard, carries only a
 * few directions J V per pass: Newton on span(V), fixed-point iteration on the rest; its
 * multipliers come from subspace iteration at the orbit.
 *
 * Files: this one (set-up, the solve's driver, results), periodic_map.c (the map and its
 * derivative), periodic_newton.c (the Newton variants and the multipliers), periodic.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solve/periodic.h"

double *fmb_periodic_dalloc(size_t n)
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
    if (s->ct.ncontacts) {
        const fmb_joint_t *j = &md->joints[s->ct.contacts[0].joint];
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
    p->s = s, p->n = n, p->m = m, p->t0 = s->st.t;
    const size_t nx = 4 * (size_t)n, nw = 3 * (size_t)n;
    p->x = fmb_periodic_dalloc(nx), p->y = fmb_periodic_dalloc(nx), p->g = fmb_periodic_dalloc(nx),
    p->scale = fmb_periodic_dalloc(nx);
    p->lam0 = fmb_periodic_dalloc((size_t)m);
    p->angle = calloc((size_t)n + 1, 1);
    p->Y = fmb_periodic_dalloc(nx * nw), p->J = fmb_periodic_dalloc(nx * nx),
    p->A = fmb_periodic_dalloc(nx * nx);
    p->B = fmb_periodic_dalloc((size_t)N * nw), p->v1 = fmb_periodic_dalloc((size_t)N),
    p->v2 = fmb_periodic_dalloc((size_t)N);
    p->mre = fmb_periodic_dalloc(nw), p->mim = fmb_periodic_dalloc(nw),
    p->mvec = fmb_periodic_dalloc(nw * nw);
    p->order = calloc(nw + 1, sizeof(int));
    p->pmax = FMB_PERIODIC_PMAX < nw ? FMB_PERIODIC_PMAX : nw;
    p->sig = fmb_periodic_dalloc(nx), p->sigV = fmb_periodic_dalloc(nx),
    p->xlast = fmb_periodic_dalloc(nx);
    p->V = fmb_periodic_dalloc(nx * (size_t)(p->pmax + 1)),
    p->Z = fmb_periodic_dalloc(nx * (size_t)(p->pmax + 1));
    p->S = fmb_periodic_dalloc((size_t)(p->pmax + 1) * (p->pmax + 1)),
    p->rs = fmb_periodic_dalloc(nx);
    p->Za = fmb_periodic_dalloc(nx * (size_t)(p->pmax + 1));
    p->vr = fmb_periodic_dalloc((size_t)p->pmax + 1),
    p->dp = fmb_periodic_dalloc((size_t)p->pmax + 1);
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
    p->kK.solver = p->kC.solver = s->as.kkt.solver;
    memcpy(p->x, s->st.q, (size_t)n * sizeof(double));
    memcpy(p->x + n, s->st.qd, (size_t)n * sizeof(double));
    memcpy(p->x + 2 * n, s->st.acc, (size_t)n * sizeof(double));
    memcpy(p->x + 3 * n, s->st.qdd, (size_t)n * sizeof(double));
    memcpy(p->lam0, s->st.lam, (size_t)m * sizeof(double));
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
    for (int k = 0; k < s->el.njtime; k++) {
        const fmb_joint_t *j = &md->joints[s->el.jtime[k]];
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
    fmb_periodic_set_state(p, p->x);
    int rc = fmb_sim_assemble_positions(s, 0.0);
    double *v = s->ctl.work + N;
    if (!rc) rc = fmb_sim_mass_projection(s, v, "while making the first guess consistent");
    if (rc) return rc;
    memcpy(s->st.qd, v, (size_t)n * sizeof *v);
    fmb_periodic_get_state(p, p->x);
    p->project = 0;
    return 0;
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
    p->bound = pow(fmb_periodic_algorithmic_radius(s, p->h), (double)p->N);
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
        rc = fmb_periodic_newton_picard(p, o, maxit,
                                        o->method == FMB_PERIODIC_AUTO && dense_ok ? &it0 : NULL);
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
        (rc = fmb_periodic_floquet_dominant(p, o, p->np_dim)))
        return rc;
    if (p->method == FMB_PERIODIC_SUBSPACE && it0 == 0 && o->floquet && dense_ok &&
        (o->floquet == 2 || !(p->ritz_res <= FMB_PERIODIC_RITZ_TOL))) {
        /* every multiplier: the dense monodromy at the orbit (one more pass) */
        if ((rc = fmb_periodic_pass(p, p->x, p->y, p->Y, 3 * p->n, 1, o->stop))) return rc;
        fmb_periodic_form_monodromy(p);
        p->ritz = 0;
        if ((rc = fmb_periodic_floquet_dense(p))) return rc;
    }
    if (p->method == FMB_PERIODIC_DENSE && it0 >= 0) {
        p->ritz = 0;
        rc = fmb_periodic_dense_newton(p, o, it0, maxit);
        if (rc < 0) return rc;
        if (rc == 0 && o->floquet && (rc = fmb_periodic_floquet_dense(p))) return rc;
        if (rc == 1) it0 = -1;
    }
    if (it0 >= 0) fmb_periodic_set_state(p, p->x); /* the sim at the orbit's start */
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
    fmb_periodic_set_state(p, p->x);
    s->opts.h = p->h;
    s->opts.adaptive = 0;
    s->opts.t_end = p->t0 + (double)periods * p->T;
    s->ctl.t_span = 0.0;
    memset(&s->diag.stats, 0, sizeof s->diag.stats);
    s->diag.stats.max_error_coord = -1;
    s->diag.stats.jump_coord = -1;
    s->ctl.h_next = 0.0;
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

/* Eigenvector i of the problem of size ld in p->mvec (dgeev's layout: a complex pair is
 * stored as columns j, j + 1 = real, imaginary part for the eigenvalue with positive
 * imaginary part): its columns (*im NULL for a real eigenvalue), *conj for the other one. */
void fmb_periodic_eigvec(const fmb_periodic_t *p, int i, int ld, const double **re,
                         const double **im, int *conj)
{
    const int c0 = p->mim[i] < 0 ? i - 1 : i;
    *re = p->mvec + (size_t)c0 * ld;
    *im = p->mim[i] != 0.0 ? *re + ld : NULL;
    *conj = p->mim[i] < 0;
}

int fmb_periodic_mode(const fmb_periodic_t *p, int k, double *re, double *im)
{
    if (k < 0 || k >= p->nmult) return FMB_ERR_ARG;
    /* the state's eigenvector is B v: B = sig V for the subspace's Ritz vectors, Y for the
     * dense monodromy's (J Y v = Y (W Y) v); its coordinate rows, scaled to a largest
     * modulus of 1 */
    const int n = p->n, ncol = p->ritz ? p->nmult : 3 * n;
    const size_t stride = p->ritz ? (size_t)p->vstride : 4 * (size_t)n;
    const double *B = p->ritz ? p->V : p->Y, *scale = p->ritz ? p->sigV : NULL;
    const double *vre, *vim;
    int conj;
    fmb_periodic_eigvec(p, p->order[k], ncol, &vre, &vim, &conj);
    double big = 0.0;
    for (int r = 0; r < n; r++) {
        double a = 0.0, b = 0.0;
        for (int j = 0; j < ncol; j++) {
            const double y = B[(size_t)j * stride + r] * (scale ? scale[r] : 1.0);
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
    return fmb_periodic_pass(p, x, y, NULL, 0, 0, NULL);
}
