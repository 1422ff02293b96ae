/* Frictional sliding contacts inside a Newton iteration (docs/theory.md section 9):
 * LuGre state update, the corner-force LCP built from the factorized KKT matrix, the
 * friction damping correction and the decomposition of multipliers into corner forces. */
#include "solve/sim_internal.h"

#include "contact/lcp.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fmb_sim_contact_update(fmb_sim_t *s, double h)
{
    for (int ic = 0; ic < s->ncontacts; ic++) {
        fmb_contact_t *c = &s->contacts[ic];
        const fmb_joint_t *j = &s->model->joints[c->joint];
        fmb_bodyview_t v[2];
        fmb_sim_joint_views(s, j, s->q, s->qd, v);
        double e[2], vt, ug[2];
        fmb_contact_kinematics(j, v, e, &vt, ug);
        if (c->fk->update) {
            c->fk->update(c, vt, h); /* the model's mu (and dmu/dv) at this iterate */
        } else {
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
#define FMB_CONTACT_COLS                                                                           \
    8 /* 4 corners + at most 4 friction-model columns (Coulomb: +-e                                \
         at each face) */

/* Column k of contact jc -> its unknown: -1 for F+ (eliminated), else the index in u (the
 * contact's F-, then the friction model's unknowns, model/params.h). */
static int col_unknown(const fmb_sim_t *s, const int *uoff, int jc, int k)
{
    if (k < 2) return -1;
    if (k < 4) return uoff[jc] + k - 2;
    return uoff[jc] + s->contacts[jc].fk->col_unknown[k - 4];
}

static int contact_ncols(const fmb_contact_t *c)
{
    return 4 + c->fk->ncols_extra;
}

int fmb_sim_contact_lcp(fmb_sim_t *s, double bh2, double gfac, double t, double *x)
{
    const fmb_model_t *md = s->model;
    const int n = s->n, N = n + s->m, nc = s->ncontacts, nf = 2 * nc;
    double *col = s->work + 3 * (size_t)N;
    int *uoff = s->cuoff;
    uoff[0] = 0;
    for (int ic = 0; ic < nc; ic++)
        uoff[ic + 1] = uoff[ic] + 2 + s->contacts[ic].fk->nunknowns_extra;
    const int nu = uoff[nc];
    /* responses to the unit generalized forces */
    for (int ic = 0; ic < nc; ic++) {
        const fmb_contact_t *c = &s->contacts[ic];
        const fmb_joint_t *j = &md->joints[c->joint];
        fmb_bodyview_t v[2];
        fmb_sim_contact_views(s, c, s->q, s->qd, v);
        const int nn = v[0].nc + v[1].nc;
        double *cols = fmb_zeroed(s->sK, (size_t)nn * FMB_CONTACT_COLS);
        fmb_contact_columns(c, j, v, cols);
        const int ncol = contact_ncols(c);
        if (c->fk->extra_columns) c->fk->extra_columns(c, j, v, cols + (size_t)nn * 4);
        int g[FMB_ELEM_COLS];
        fmb_elem_gidx_map(v, g);
        for (int k = 0; k < ncol; k++) {
            memset(col, 0, (size_t)N * sizeof *col);
            for (int r = 0; r < nn; r++)
                if (g[r] >= 0) col[g[r]] += bh2 * cols[r + (size_t)nn * k];
            double *X = s->cX + (size_t)N * (FMB_CONTACT_COLS * ic + k);
            int rc = fmb_kkt_solve(&s->kkt, col, X);
            if (rc) return fmb_sim_error(s, rc, "linear solve failed for the contact forces");
        }
    }
    /* workspace */
    double *Dp = s->clcp, *P = Dp + nf * nf, *p0 = P + (size_t)nf * (nu + 1);
    double *M = p0 + nf, *qv = M + (size_t)nu * nu, *zz = qv + nu, *ww = zz + nu;
    double *vrow = ww + nu; /* nu: one velocity row (the workspace holds 8 nc (8 nc + 2)) */
    memset(s->clcp, 0, ((size_t)nf * nf + (size_t)nf * (nu + 1) + nf) * sizeof(double));
    for (int ic = 0; ic < nc; ic++) {
        const fmb_contact_t *c = &s->contacts[ic];
        const fmb_joint_t *j = &md->joints[c->joint];
        fmb_bodyview_t v[2];
        fmb_sim_joint_views(s, j, s->q, s->qd, v);
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
                const int ncol = contact_ncols(&s->contacts[jc]);
                for (int k = 0; k < ncol; k++) {
                    const double *X = s->cX + (size_t)N * (FMB_CONTACT_COLS * jc + k);
                    double d = 0.0;
                    for (int r = 0; r < nr; r++)
                        d += S[l + 2 * r] * X[n + j->row + r] / bh2;
                    if (k < 2)
                        Dp[row + nf * (2 * jc + k)] = d;
                    else
                        P[row + (size_t)nf * col_unknown(s, uoff, jc, k)] += d;
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
        if (!c->fk->lcp_rows) continue; /* the model adds no rows (LuGre) */
        /* v_new = v0 + sum_col a_col value_col; a_col = gfac * Dv . X_col(q) */
        const fmb_joint_t *j = &md->joints[c->joint];
        fmb_bodyview_t v[2];
        fmb_sim_contact_views(s, c, s->q, s->qd, v);
        const int nn = v[0].nc + v[1].nc;
        double Dv[FMB_ELEM_COLS];
        fmb_contact_velocity_row(j, v, Dv);
        int g[FMB_ELEM_COLS];
        fmb_elem_gidx_map(v, g);
        double v0 = 0.0;
        for (int cc = 0; cc < nu; cc++)
            vrow[cc] = 0.0;
        for (int r = 0; r < nn; r++)
            if (g[r] >= 0) v0 += Dv[r] * (s->qd[g[r]] + gfac * x[g[r]]);
        for (int jc = 0; jc < nc; jc++) {
            const int ncol = contact_ncols(&s->contacts[jc]);
            for (int k = 0; k < ncol; k++) {
                const double *X = s->cX + (size_t)N * (FMB_CONTACT_COLS * jc + k);
                double ak = 0.0;
                for (int r = 0; r < nn; r++)
                    if (g[r] >= 0) ak += gfac * Dv[r] * X[g[r]];
                if (k < 2) { /* F+ = P u + p0 */
                    for (int cc = 0; cc < nu; cc++)
                        vrow[cc] += ak * P[(2 * jc + k) + nf * cc];
                    v0 += ak * p0[2 * jc + k];
                } else {
                    vrow[col_unknown(s, uoff, jc, k)] += ak;
                }
            }
        }
        /* the model's rows (Coulomb: stick/slip per face, contact/friction_coulomb.c) */
        const fmb_friction_lcp_t lcp = {ic, u0, nu, nf, P, p0, vrow, v0, M, qv};
        c->fk->lcp_rows(c, &lcp);
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
        for (int k = 0; k < 4; k++)
            c->beta[k] = 0.0;
        if (c->fk->decode) c->fk->decode(c, zz + u0);
        const int ncol = contact_ncols(c);
        double val[FMB_CONTACT_COLS] = {c->F[0], c->F[1], c->F[2], c->F[3]};
        for (int k = 4; k < ncol; k++)
            val[k] = zz[col_unknown(s, uoff, ic, k)];
        for (int k = 0; k < ncol; k++) {
            const double *X = s->cX + (size_t)N * (FMB_CONTACT_COLS * ic + k);
            for (int i = 0; i < N; i++)
                x[i] += X[i] * val[k];
        }
    }
    return 0;
}

/* LuGre friction is a steep sigmoid of the sliding velocity around v = 0 (slope
 * sigma0 h + sigma1, saturating within g / (sigma0 h)); a full Newton step across v = 0
 * overshoots to the other side and the iteration can cycle. When an increment would
 * reverse a LuGre contact's sliding velocity, the whole increment is shortened to land
 * that velocity on zero; the next iteration starts at the kink, where the tangent is
 * exact on both sides. (Coulomb contacts resolve the reversal in the LCP.) Returns the
 * factor (1: the increment is unchanged). A shortened increment is no evidence of
 * convergence: try_step does not stop on it. */
double fmb_sim_contact_damping(fmb_sim_t *s, double gfac, double *x)
{
    const fmb_model_t *md = s->model;
    double alpha = 1.0;
    for (int ic = 0; ic < s->ncontacts; ic++) {
        const fmb_contact_t *c = &s->contacts[ic];
        /* below the velocity the Newton test resolves (gfac atol) a sign change is rounding */
        if (!c->fk->smooth || fabs(c->v) <= gfac * s->opts.atol) continue;
        const fmb_joint_t *j = &md->joints[c->joint];
        fmb_bodyview_t v[2];
        fmb_sim_contact_views(s, c, s->q, s->qd, v);
        const int nn = v[0].nc + v[1].nc;
        double D[FMB_ELEM_COLS], dv = 0.0;
        fmb_contact_velocity_row(j, v, D);
        for (int r = 0; r < nn; r++) {
            int g = fmb_elem_gidx(v, r);
            if (g >= 0) dv += D[r] * gfac * x[g];
        }
        const double vnew = c->v + dv;
        if (vnew * c->v < 0.0) alpha = fmin(alpha, fabs(c->v) / fabs(dv));
    }
    if (alpha < 1.0)
        for (int i = 0; i < s->n + s->m; i++)
            x[i] *= alpha;
    return alpha;
}

/* A joint that reports the state invalid (a slider off its guide) ends the run. */

/* LuGre stick-slip step control (docs/theory.md, "Stick-slip"). An implicit step of the
 * slider's momentum balance m (v1 - v0) / h = F - N g(v1) + ... has a unique velocity when
 * m / h > N |g'| over the velocities it can reach; a longer step can converge to a sliding
 * root while the load is still below the static limit (slip starts early), and it jumps
 * over the breakaway, whose timing sets the velocity of the whole slip that follows. The
 * error estimate sees neither (a state at rest has no error). With h_b(v) = m / (N S(v)),
 * S(v) the steepest |g'| at speeds >= |v| (m: the slider body's mass, N the normal force):
 *   - sticking at both ends (|v| < v_stick), loaded towards the static limit: the
 *     breakaway is an event near the static utilization u = sigma0 |z| / mu0 = 1 (u follows
 *     load / (mu0 N) in a stick). A step longer than 1.5 h_b(0) may cover at most the
 *     fraction FMB_APPROACH of the remaining distance 1 - u0 (else it is rejected and
 *     retried with that fraction of the time to u = 1 at the rate it showed) and the next
 *     step is capped the same way: the steps shrink geometrically towards the breakaway,
 *     ~log(T / h_b) of them, instead of marching at h_b(0) through the whole approach
 *     (seed 000: 0.27 s from u = 0.95, 480 steps of h_b);
 *   - a step longer than 1.5 h_b(0) that ends sliding after a stick is rejected: below
 *     u = 0.95 it picked the sliding root (retry with h_b(0)); near the limit the
 *     breakaway lies inside it (u saturates below 1 in the creep just before it, so the
 *     approach alone cannot place it): retried with a quarter of the step, down to h_b(0);
 *   - sliding: the next step is capped at h_b(v) (h_b(0) inside the Stribeck region,
 *     growing like 1 / |g'(v)| beyond it) for the first steps of a slip.
 * Adaptive runs only (stepctl.c). */
#define FMB_BREAKAWAY_U 0.95
#define FMB_APPROACH 0.25 /* fraction of the remaining distance to the static limit per step */

/* Steepest fall |g'(w)| of the Stribeck curve over |w| >= |v|. */
static double stribeck_slope(const fmb_friction_desc_t *d, double v)
{
    const double gm = d->gamma > 0 ? d->gamma : 2.0;
    /* |g'| = (mu0 - mu) gamma / vs x^(gamma-1) e^(-x^gamma), x = |v| / vs; for gamma > 1
     * largest at x^gamma = 1 - 1/gamma, for gamma <= 1 at x -> 0 (bounded here by its
     * value at x = 1e-3) */
    const double xs = gm > 1 ? pow(1.0 - 1.0 / gm, 1.0 / gm) : 1e-3;
    const double x = fmax(fabs(v) / d->vs, xs);
    return fabs(d->mu0 - d->mu) * gm / d->vs * pow(x, gm - 1.0) * exp(-pow(x, gm));
}

static double breakaway_step(const fmb_sim_t *s, const fmb_contact_t *c, double v)
{
    const double S = stribeck_slope(&c->d, v);
    double N = 0.0;
    for (int k = 0; k < FMB_CORNERS; k++)
        N += c->F[k];
    const fmb_joint_t *j = &s->model->joints[c->joint];
    const fmb_body_t *b = &s->model->bodies[j->body[0] != FMB_GROUND ? j->body[0] : j->body[1]];
    if (!(S > 0) || !(N > 0)) return INFINITY;
    return b->mass / (N * S);
}

int fmb_sim_contact_step_control(fmb_sim_t *s, double h, double *h_max, char *why, size_t len)
{
    int reject = 0;
    for (int ic = 0; ic < s->ncontacts; ic++) {
        const fmb_contact_t *c = &s->contacts[ic];
        if (!c->fk->smooth || !(c->d.mu0 > 0)) continue;
        const fmb_joint_t *j = &s->model->joints[c->joint];
        const double vst = fmb_friction_stick_velocity(&c->d);
        const int stick0 = fabs(c->v_n) < vst, stick1 = fabs(c->v) < vst;
        const double u0 = c->d.sigma0 * fabs(c->z_n) / c->d.mu0;
        const double u1 = c->d.sigma0 * fabs(c->z) / c->d.mu0;
        const double hb = breakaway_step(s, c, 0.0);
        if (!(hb < INFINITY)) continue;
        double lim = INFINITY;
        const char *what = "";
        if (!stick1) { /* sliding at the end */
            if (stick0 && h > 1.5 * hb) {
                /* a long step that broke loose: below the static limit it picked the
                 * sliding root (retry with h_b); near it, the breakaway lies somewhere
                 * inside the step: locate it by quarter steps down to h_b */
                reject = 1;
                lim = u0 < FMB_BREAKAWAY_U ? hb : fmax(hb, 0.25 * h);
                what = "broke loose within a long step";
            } else {
                lim = breakaway_step(s, c, c->v), what = "sliding on the Stribeck curve";
            }
        } else if (stick0 && u1 > u0) { /* sticking, loaded towards the static limit */
            /* time left to the breakaway at the rate of this step, from u -> 1 and from the
             * creep velocity, which grows like 1 / (t_b - t) (|v| ~ z' / (1 - u)), so that
             * 1 / |v| falls linearly to 0 at t_b; u itself saturates just below 1 */
            const double rate = (u1 - u0) / h;
            double tau0 = fmax(1.0 - u0, 0.0) / rate, tau1 = fmax(1.0 - u1, 0.0) / rate;
            const double av0 = fabs(c->v_n), av1 = fabs(c->v);
            if (av0 > 0 && av1 > av0 && c->v * c->v_n > 0) {
                const double irate = (1.0 / av0 - 1.0 / av1) / h;
                tau0 = fmin(tau0, 1.0 / av0 / irate);
                tau1 = fmin(tau1, 1.0 / av1 / irate);
            }
            if (h > 1.5 * hb && h > FMB_APPROACH * tau0) {
                reject = 1;
                lim = fmax(hb, FMB_APPROACH * tau0);
            } else {
                lim = fmax(hb, FMB_APPROACH * tau1);
            }
            what = "approaching the static limit";
        }
        if (lim < *h_max) {
            *h_max = lim;
            snprintf(why, len, "joint '%s' (line %d): %s (%.0f %% of the static limit)", j->name,
                     j->line, what, 100.0 * u1);
        }
    }
    return reject;
}
