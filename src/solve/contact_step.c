/* Frictional sliding contacts inside a Newton iteration (docs/theory.md section 9):
 * LuGre state update, the corner-force LCP built from the factorized KKT matrix with the
 * LuGre law over the step solved exactly in it (a bracketed root in the sliding velocity),
 * and the decomposition of multipliers into corner forces. The stick-slip step control of
 * adaptive runs is contact_stepctl.c. */
#include "solve/sim_internal.h"

#include "contact/lcp.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fmb_sim_contact_update(fmb_sim_t *s, double h)
{
    for (int ic = 0; ic < s->ct.ncontacts; ic++) {
        fmb_contact_t *c = &s->ct.contacts[ic];
        const fmb_joint_t *j = &s->model->joints[c->joint];
        fmb_bodyview_t v[2];
        fmb_sim_joint_views(s, j, s->st.q, s->st.qd, v);
        double e[2], vt, ug[2];
        fmb_contact_kinematics(j, v, e, &vt, ug);
        c->h = h;
        c->exact = h > 0 && c->fk->smooth && !c->at_start; /* in a step: the law exactly */
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
 *
 * LuGre in a step (c->exact): the law is not linearized. The contact's friction columns
 * are the responses to a unit coefficient, times mu(v^) of the law over the step
 * (contact/lugre.c), and v^ is a root of
 *   rho(v^) = v_new(mu(v^)) - v^,
 * v_new the sliding velocity of the increment with the LCP solved at mu(v^) (exact_root).
 * The linearized law had several roots in a step where N |dmu/dv| > m / h on its falling
 * branch, and Newton cycled across v = 0 (docs/theory.md "Newton at v = 0").
 */
#define FMB_CONTACT_COLS                                                                           \
    8 /* 4 corners + at most 4 friction-model columns (Coulomb: +-e                                \
         at each face) */
#define SLOT(jc, k) (FMB_CONTACT_COLS * (jc) + (k))

/* Column k of contact jc -> its unknown: -1 for F+ (eliminated), else the index in u (the
 * contact's F-, then the friction model's unknowns, model/params.h). */
static int col_unknown(const fmb_sim_t *s, const int *uoff, int jc, int k)
{
    if (k < 2) return -1;
    if (k < 4) return uoff[jc] + k - 2;
    return uoff[jc] + s->ct.contacts[jc].fk->col_unknown[k - 4];
}

static int contact_ncols(const fmb_contact_t *c)
{
    return 4 + c->fk->ncols_extra;
}

/* The contact problem of one iteration on the responses X (in s->ct.clcp, which holds
 * 8 nc (8 nc + 2) + 16 doubles: this takes at most 108 nc^2 + 52 nc). */
typedef struct {
    int nc, nf, nu;
    double *Dp, *P, *p0, *M, *qv, *zz, *ww, *vrow;
    double *G;    /* nf x 8 nc: net corner forces of each column's response, S X / bh2 */
    double *Av;   /* nc x 8 nc: sliding velocity of each column's response, gfac Dv . X */
    double *lam0; /* nf: net corner forces of lambda + x0 / bh2 */
    double *v0;   /* nc: sliding velocity of qd + gfac x0 */
    double *sc;   /* nc: factor of the contact's corner columns (exact: mu(v^), else 1) */
    double *val;  /* 8 nc: each column's value (corner forces, model unknowns) */
} contact_ws_t;

static double col_scale(const contact_ws_t *w, int jc, int k)
{
    return k < 4 ? w->sc[jc] : 1.0;
}

/* The LCP at the factors w->sc: every column's value into w->val. */
static int lcp_once(fmb_sim_t *s, contact_ws_t *w, double t)
{
    const fmb_model_t *md = s->model;
    const int nc = w->nc, nf = w->nf, nu = w->nu;
    const int *uoff = s->ct.cuoff;
    double *Dp = w->Dp, *P = w->P, *p0 = w->p0, *M = w->M, *qv = w->qv, *zz = w->zz;
    double *vrow = w->vrow;
    memset(Dp, 0, (size_t)nf * nf * sizeof *Dp);
    memset(P, 0, (size_t)nf * (nu + 1) * sizeof *P);
    for (int ic = 0; ic < nc; ic++)
        for (int l = 0; l < 2; l++) {
            /* (I - D+) F+ = c + (Du + E) u: right-hand side columns in P, c in p0 */
            const int row = 2 * ic + l;
            p0[row] = w->lam0[row];
            P[row + (size_t)nf * (uoff[ic] + l)] += 1.0; /* E: F-_l of this contact */
            for (int jc = 0; jc < nc; jc++) {
                const int ncol = contact_ncols(&s->ct.contacts[jc]);
                for (int k = 0; k < ncol; k++) {
                    const double d = w->G[row + (size_t)nf * SLOT(jc, k)] * col_scale(w, jc, k);
                    if (k < 2)
                        Dp[row + nf * (2 * jc + k)] = d;
                    else
                        P[row + (size_t)nf * col_unknown(s, uoff, jc, k)] += d;
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
        const fmb_contact_t *c = &s->ct.contacts[ic];
        const int u0 = uoff[ic];
        for (int l = 0; l < 2; l++) { /* w = F+_l */
            for (int cc = 0; cc < nu; cc++)
                M[(u0 + l) + nu * cc] = P[(2 * ic + l) + nf * cc];
            qv[u0 + l] = p0[2 * ic + l];
        }
        if (!c->fk->lcp_rows) continue; /* the model adds no rows (LuGre) */
        /* v_new = v0 + sum_col a_col value_col; a_col = gfac * Dv . X_col(q) */
        double v0 = w->v0[ic];
        for (int cc = 0; cc < nu; cc++)
            vrow[cc] = 0.0;
        for (int jc = 0; jc < nc; jc++) {
            const int ncol = contact_ncols(&s->ct.contacts[jc]);
            for (int k = 0; k < ncol; k++) {
                const double ak = w->Av[ic + (size_t)nc * SLOT(jc, k)] * col_scale(w, jc, k);
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
    int rc = fmb_lcp_solve(nu, M, qv, zz, w->ww, msg, sizeof msg);
    if (rc) {
        const fmb_joint_t *j = &md->joints[s->ct.contacts[0].joint];
        return fmb_sim_error(s, rc, "contact LCP failed at t = %.9g (joint '%s', line %d): %s", t,
                             j->name, j->line, msg);
    }
    for (int ic = 0; ic < nc; ic++) {
        const int u0 = uoff[ic], ncol = contact_ncols(&s->ct.contacts[ic]);
        for (int l = 0; l < 2; l++) {
            double f = p0[2 * ic + l];
            for (int cc = 0; cc < nu; cc++)
                f += P[(2 * ic + l) + nf * cc] * zz[cc];
            w->val[SLOT(ic, l)] = fmax(f, 0.0);
        }
        w->val[SLOT(ic, 2)] = zz[u0], w->val[SLOT(ic, 3)] = zz[u0 + 1];
        for (int k = 4; k < ncol; k++)
            w->val[SLOT(ic, k)] = zz[col_unknown(s, uoff, ic, k)];
    }
    return 0;
}

/* Sliding velocity of contact ic after the increment with the values in w. */
static double new_velocity(const fmb_sim_t *s, const contact_ws_t *w, int ic)
{
    double v = w->v0[ic];
    for (int jc = 0; jc < w->nc; jc++) {
        const int ncol = contact_ncols(&s->ct.contacts[jc]);
        for (int k = 0; k < ncol; k++)
            v +=
                w->Av[ic + (size_t)w->nc * SLOT(jc, k)] * col_scale(w, jc, k) * w->val[SLOT(jc, k)];
    }
    return v;
}

/* The LCP with each set-valued model's level decided on its solution (Coulomb: the
 * static level holds a slider at rest, a sliding one has the kinetic level; the class's
 * `level`): solved at the levels of the step's state, then again, at most twice, while a
 * model changes its level on the solution. */
static int lcp_eval(fmb_sim_t *s, contact_ws_t *w, double t)
{
    int nlev = 0;
    for (int ic = 0; ic < w->nc; ic++) {
        fmb_contact_t *c = &s->ct.contacts[ic];
        if (c->fk->level) c->fk->level(c, 0, NULL, 0.0), nlev++;
    }
    int rc = lcp_once(s, w, t);
    for (int pass = 1; !rc && nlev && pass <= 2; pass++) {
        int again = 0;
        for (int ic = 0; ic < w->nc; ic++) {
            fmb_contact_t *c = &s->ct.contacts[ic];
            if (c->fk->level)
                again |= c->fk->level(c, pass, w->zz + s->ct.cuoff[ic], new_velocity(s, w, ic));
        }
        if (!again) break;
        rc = lcp_once(s, w, t);
    }
    return rc;
}

/* rho(v^) = v_new - v^ with contact ic's law (state z, mu, dmu) at v^ and the LCP at
 * mu(v^) (the other contacts' factors fixed). */
static int rho_eval(fmb_sim_t *s, contact_ws_t *w, int ic, double vh, double t, double *r)
{
    fmb_contact_t *c = &s->ct.contacts[ic];
    c->fk->update(c, vh, c->h);
    w->sc[ic] = c->mu;
    int rc = lcp_eval(s, w, t);
    if (rc) return rc;
    *r = new_velocity(s, w, ic) - vh;
    if (!isfinite(*r))
        return fmb_sim_error(s, FMB_ERR_LINSOLVE,
                             "non-finite sliding velocity in the contact problem at t = %.9g", t);
    return 0;
}

#define FMB_EXACT_TOL 1e-3  /* of the velocity the Newton test resolves, gfac atol */
#define FMB_EXACT_EVALS 200 /* rho evaluations per root (bisection halves 1 m/s to 1e-60) */
#define FMB_EXACT_SWEEPS 50 /* Gauss-Seidel sweeps over several exact contacts */

/* rho at vh as rho_eval, but a contact problem without solution at mu(vh) (the slider
 * jams: the corner forces grow without bound as the coefficient approaches that level) is
 * reported in *jam (1) instead of failing; the first such message is kept in jmsg. */
static int rho_try(fmb_sim_t *s, contact_ws_t *w, int ic, double vh, double t, double *r, int *jam,
                   char *jmsg, size_t jlen)
{
    *jam = 0;
    const int rc = rho_eval(s, w, ic, vh, t, r);
    if (rc != FMB_ERR_LINSOLVE && rc != FMB_ERR_SINGULAR) return rc;
    if (!jmsg[0]) snprintf(jmsg, jlen, "%s", s->errmsg);
    *jam = 1;
    return 0;
}

/* The step's law jams the slider: no root where the contact problem has a solution (mu:
 * the law's coefficient at the jammed velocity vh; jmsg: the contact problem's own message
 * at the last jammed trial). */
static int jam_error(fmb_sim_t *s, int ic, double mu, double vh, double t, const char *jmsg)
{
    const fmb_contact_t *c = &s->ct.contacts[ic];
    const fmb_joint_t *j = &s->model->joints[c->joint];
    s->jammed = 1; /* stepctl.c's failure diagnosis: not the step size */
    return fmb_sim_error(
        s, FMB_ERR_LINSOLVE,
        "slider of joint '%s' (line %d) jams at t = %.9g: the LuGre coefficient over the step "
        "(%.3g at v = %.3g m/s) is beyond what its corner forces can carry (a/b = %.3g) and no "
        "root of the step's law was found where they can (%s); with constant bristle damping "
        "(vd = 0) sigma1 dz/dt spikes at a velocity reversal, up to 2 sigma1 mu0 / (h sigma0) = "
        "%.3g over this step (h = %.3g s): set vd > 0 (sigma1 active in presliding only)",
        j->name, j->line, t, mu, vh, c->d.b > 0 ? c->d.a / c->d.b : INFINITY, jmsg,
        2.0 * c->d.sigma1 * c->d.mu0 / (c->h * c->d.sigma0), c->h);
}

#define FMB_EXACT_BACKTRACK 60 /* halvings of a step into a jam */

/*
 * A root of rho for contact ic, searched from the iterate's velocity c->v (the law's
 * state is left at it, the LCP values in w). rho -> -+inf as v^ -> +-inf (mu is bounded)
 * and is continuous (so is the law over a step and the LCP's solution), so a root lies on
 * the side sgn rho(c->v). Search: Newton steps while the law rises (the slope
 * d rho / d v^ = (d v_new / d mu) dmu/dv - 1 <= -1, d v_new / d mu at fixed corner
 * forces); else (falling branch, where the linearized law pointed to the wrong root)
 * steps of max(|rho|, 2 |last step|) towards the root, until rho changes sign; then
 * Illinois (regula falsi that halves the retained end's value when it is kept twice),
 * superlinear and never leaving the bracket. The root found is the first one from the
 * iterate: several roots exist only where N |dmu/dv| > m / h (theory.md "Stick-slip"), and
 * the iteration then continues along the branch it started on.
 * Jams: where the law over the step gives a coefficient the corner forces cannot carry,
 * the contact problem has no solution (constant sigma1 at a reversal: sigma1 dz/dt up to
 * 2 sigma1 g / (h sigma0)). The search then starts from v^ = 0 instead (dz/dt = 0 there:
 * mu = sigma0 z_n, the bristle's own level, |mu| <= mu0) and a step that lands in a jam
 * is halved back towards the last solvable point; rho -> -+inf at the edge of the jam on
 * the root's side, so the root between is still bracketed (docs/theory.md section 9,
 * "Jams").
 */
static int exact_root(fmb_sim_t *s, contact_ws_t *w, int ic, double tolv, double t)
{
    fmb_contact_t *c = &s->ct.contacts[ic];
    char jmsg[sizeof s->errmsg] = "";
    double a = c->v, fa, b = a, fb, d = 0.0;
    int jam, rc = rho_try(s, w, ic, a, t, &fa, &jam, jmsg, sizeof jmsg), k;
    if (!rc && jam) { /* the iterate's velocity jams: from the bristle's level instead */
        a = 0.0, b = 0.0;
        rc = rho_try(s, w, ic, a, t, &fa, &jam, jmsg, sizeof jmsg);
        if (!rc && jam) return jam_error(s, ic, c->mu, a, t, jmsg);
    }
    if (rc || fabs(fa) <= tolv) return rc;
    double jb = INFINITY; /* the nearest jam found beyond a, on the root's side */
    for (k = 0; k < FMB_EXACT_EVALS; k++) {
        double dvdmu = 0.0; /* d v_new / d mu at the corner forces of this evaluation */
        for (int l = 0; l < 4; l++)
            dvdmu += w->Av[ic + (size_t)w->nc * SLOT(ic, l)] * w->val[SLOT(ic, l)];
        const double sl = dvdmu * c->dmu - 1.0;
        d = sl <= -1.0 ? -fa / sl : copysign(fmax(fabs(fa), 2.0 * fabs(d)), fa);
        if (fabs(d) >= jb) d = copysign(0.5 * jb, d);
        int back = 0;
        for (;;) {
            b = a + d;
            if ((rc = rho_try(s, w, ic, b, t, &fb, &jam, jmsg, sizeof jmsg))) return rc;
            if (!jam) break;
            jb = fabs(d), d *= 0.5;
            if (++back > FMB_EXACT_BACKTRACK || fabs(d) <= tolv) {
                const double mu_jam = c->mu; /* the jammed trial's (at a + 2 d) */
                rc = rho_try(s, w, ic, a, t, &fa, &jam, jmsg, sizeof jmsg); /* state at a */
                return rc ? rc : jam_error(s, ic, mu_jam, a + 2.0 * d, t, jmsg);
            }
        }
        if (fabs(fb) <= tolv) return 0;
        if ((fb > 0) != (fa > 0)) break;
        a = b, fa = fb;
        if (jb < INFINITY) jb -= fabs(d);
    }
    if (k == FMB_EXACT_EVALS)
        return fmb_sim_error(s, FMB_ERR_LINSOLVE, "no root of the LuGre step law at t = %.9g", t);
    /* Illinois on [a, b], b the newest (both ends solvable) */
    for (; k < FMB_EXACT_EVALS; k++) {
        double m = (a * fb - b * fa) / (fb - fa);
        if (!(m > fmin(a, b) && m < fmax(a, b))) m = 0.5 * (a + b);
        double fm;
        if ((rc = rho_try(s, w, ic, m, t, &fm, &jam, jmsg, sizeof jmsg))) return rc;
        if (jam) return jam_error(s, ic, c->mu, m, t, jmsg); /* a jam inside the bracket */
        if (fabs(fm) <= tolv) return 0;
        if ((fm > 0) != (fb > 0))
            a = b, fa = fb;
        else
            fa *= 0.5;
        b = m, fb = fm;
        if (fabs(b - a) <= tolv) return 0; /* the law's state and w are at b */
    }
    return 0; /* the best of FMB_EXACT_EVALS: the outer iteration goes on from it */
}

/* Every exact contact's root (Gauss-Seidel over several), then the LCP is at them. */
static int exact_solve(fmb_sim_t *s, contact_ws_t *w, double gfac, double t)
{
    int nexact = 0;
    for (int ic = 0; ic < w->nc; ic++)
        nexact += s->ct.contacts[ic].exact;
    for (int sweep = 0; sweep < FMB_EXACT_SWEEPS; sweep++) {
        double change = 0.0;
        for (int ic = 0; ic < w->nc; ic++) {
            fmb_contact_t *c = &s->ct.contacts[ic];
            if (!c->exact) continue;
            const double v_in = c->v;
            const double tolv = fmax(FMB_EXACT_TOL * gfac * s->opts.atol, 1e-14 * fabs(w->v0[ic]));
            int rc = exact_root(s, w, ic, tolv, t);
            if (rc) return rc;
            change = fmax(change, fabs(c->v - v_in) / tolv);
        }
        if (nexact == 1 || change <= 1.0) break;
    }
    return 0;
}

/* Delassus value of exact contact ic's sliding direction (fmb_contact_t.minv): its friction
 * columns are unit friction forces (-e on the slider at each corner's face point), so
 * Av of column k is the sliding velocity they add over the step, -gamma' h w_k with w_k =
 * Dv S^-1 Dv^T (S the iteration matrix with the constraints: the inverse effective mass
 * the friction meets); gph = gfac bh2 = gamma' h. Weighted by the corner forces (the
 * friction's own split), or the four alike without contact force. */
static double delassus(const contact_ws_t *w, int ic, double gph)
{
    double a = 0.0, n = 0.0, a0 = 0.0;
    for (int k = 0; k < 4; k++) {
        const double av = w->Av[ic + (size_t)w->nc * SLOT(ic, k)], f = w->val[SLOT(ic, k)];
        a += av * f, n += f, a0 += 0.25 * av;
    }
    const double minv = -(n > 0 ? a / n : a0) / gph;
    return isfinite(minv) && minv > 0 ? minv : 0.0;
}

int fmb_sim_contact_lcp(fmb_sim_t *s, double bh2, double gfac, double t, double *x)
{
    const fmb_model_t *md = s->model;
    const int n = s->n, N = n + s->m, nc = s->ct.ncontacts, nf = 2 * nc;
    double *col = s->ctl.work + 3 * (size_t)N;
    int *uoff = s->ct.cuoff;
    uoff[0] = 0;
    for (int ic = 0; ic < nc; ic++)
        uoff[ic + 1] = uoff[ic] + 2 + s->ct.contacts[ic].fk->nunknowns_extra;
    const int nu = uoff[nc];
    int nexact = 0;
    /* responses to the unit generalized forces */
    for (int ic = 0; ic < nc; ic++) {
        const fmb_contact_t *c = &s->ct.contacts[ic];
        const fmb_joint_t *j = &md->joints[c->joint];
        fmb_bodyview_t v[2];
        fmb_sim_contact_views(s, c, s->st.q, s->st.qd, v);
        const int nn = v[0].nc + v[1].nc;
        double *cols = fmb_zeroed(s->as.sK, (size_t)nn * FMB_CONTACT_COLS);
        fmb_contact_t cu = *c; /* exact: friction columns per unit coefficient */
        if (c->exact) cu.mu = 1.0, nexact++;
        fmb_contact_columns(&cu, j, v, cols);
        const int ncol = contact_ncols(c);
        if (c->fk->extra_columns) c->fk->extra_columns(c, j, v, cols + (size_t)nn * 4);
        int g[FMB_ELEM_COLS];
        fmb_elem_gidx_map(v, g);
        for (int k = 0; k < ncol; k++) {
            memset(col, 0, (size_t)N * sizeof *col);
            for (int r = 0; r < nn; r++)
                if (g[r] >= 0) col[g[r]] += bh2 * cols[r + (size_t)nn * k];
            double *X = s->ct.cX + (size_t)N * SLOT(ic, k);
            int rc = fmb_kkt_solve(&s->as.kkt, col, X);
            if (rc) return fmb_sim_error(s, rc, "linear solve failed for the contact forces");
        }
    }
    /* workspace */
    contact_ws_t w = {.nc = nc, .nf = nf, .nu = nu};
    w.Dp = s->ct.clcp, w.P = w.Dp + nf * nf, w.p0 = w.P + (size_t)nf * (nu + 1);
    w.M = w.p0 + nf, w.qv = w.M + (size_t)nu * nu, w.zz = w.qv + nu, w.ww = w.zz + nu;
    w.vrow = w.ww + nu, w.G = w.vrow + nu, w.Av = w.G + (size_t)nf * SLOT(nc, 0);
    w.lam0 = w.Av + (size_t)nc * SLOT(nc, 0), w.v0 = w.lam0 + nf, w.sc = w.v0 + nc;
    w.val = w.sc + nc;
    for (int ic = 0; ic < nc; ic++) {
        const fmb_contact_t *c = &s->ct.contacts[ic];
        const fmb_joint_t *j = &md->joints[c->joint];
        fmb_bodyview_t v[2];
        fmb_sim_joint_views(s, j, s->st.q, s->st.qd, v);
        const int nr = j->klass->nrows;
        double S[2 * 8];
        fmb_contact_normal_map(c, j, v, S);
        for (int l = 0; l < 2; l++) {
            const int row = 2 * ic + l;
            double acc = 0.0;
            for (int r = 0; r < nr; r++)
                acc += S[l + 2 * r] * (s->st.lam[j->row + r] + x[n + j->row + r] / bh2);
            w.lam0[row] = acc;
            for (int jc = 0; jc < nc; jc++) {
                const int ncol = contact_ncols(&s->ct.contacts[jc]);
                for (int k = 0; k < ncol; k++) {
                    const double *X = s->ct.cX + (size_t)N * SLOT(jc, k);
                    double d = 0.0;
                    for (int r = 0; r < nr; r++)
                        d += S[l + 2 * r] * X[n + j->row + r] / bh2;
                    w.G[row + (size_t)nf * SLOT(jc, k)] = d;
                }
            }
        }
        w.sc[ic] = c->exact ? c->mu : 1.0;
        if (!c->fk->lcp_rows && !c->exact) continue;
        /* sliding velocity: v0 + sum_col Av_col value_col */
        fmb_sim_contact_views(s, c, s->st.q, s->st.qd, v);
        const int nn = v[0].nc + v[1].nc;
        double Dv[FMB_ELEM_COLS];
        fmb_contact_velocity_row(j, v, Dv);
        int g[FMB_ELEM_COLS];
        fmb_elem_gidx_map(v, g);
        double v0 = 0.0;
        for (int r = 0; r < nn; r++)
            if (g[r] >= 0) v0 += Dv[r] * (s->st.qd[g[r]] + gfac * x[g[r]]);
        w.v0[ic] = v0;
        for (int jc = 0; jc < nc; jc++) {
            const int ncol = contact_ncols(&s->ct.contacts[jc]);
            for (int k = 0; k < ncol; k++) {
                const double *X = s->ct.cX + (size_t)N * SLOT(jc, k);
                double ak = 0.0;
                for (int r = 0; r < nn; r++)
                    if (g[r] >= 0) ak += gfac * Dv[r] * X[g[r]];
                w.Av[ic + (size_t)nc * SLOT(jc, k)] = ak;
            }
        }
    }
    int rc = nexact ? exact_solve(s, &w, gfac, t) : lcp_eval(s, &w, t);
    if (rc) return rc;
    for (int ic = 0; ic < nc; ic++) {
        fmb_contact_t *c = &s->ct.contacts[ic];
        if (c->exact) c->minv = delassus(&w, ic, gfac * bh2);
        for (int k = 0; k < 4; k++)
            c->F[k] = w.val[SLOT(ic, k)], c->beta[k] = 0.0;
        if (c->fk->decode) c->fk->decode(c, w.zz + uoff[ic]);
        const int ncol = contact_ncols(c);
        for (int k = 0; k < ncol; k++) {
            const double *X = s->ct.cX + (size_t)N * SLOT(ic, k);
            const double f = w.val[SLOT(ic, k)] * col_scale(&w, ic, k);
            for (int i = 0; i < N; i++)
                x[i] += X[i] * f;
        }
    }
    return 0;
}
