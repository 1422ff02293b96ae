/*
 * Revolute joint with radial clearance (seed 002, Wang, Liu, Ma 2016): a force pair, not a
 * constraint. Journal (radius R_J) centred at P0 on body 0, bearing (radius R_B, clearance
 * c = R_B - R_J > 0) centred at P1 on body 1.
 *   e = r_P0 - r_P1 (eq 2), eps = |e| (eq 3), n = e / eps, t = (-n_y, n_x),
 *   delta = eps - c (eq 4, contact when delta > 0), edot = rdot_P0 - rdot_P1,
 *   ddelta = n . edot (normal rate, eq 5),
 *   v_T = t . edot + R_J w_0 - R_B w_1 (slip of the contact points, eq 5; w_b = the
 *         material rotation rate at the centre: theta_b dot, plus on a beam the rate of the
 *         section's elastic rotation v'(x) there, fmb_point_rotjac).
 * Normal force F_N(delta, ddelta) >= 0 (clamped, no adhesion):
 *   law wang2016 (eqs 8-11): F_K = a delta sqrt(delta / (2 (c + delta))), a = pi E* L / 2
 *     (Liu et al. 2005 times the axial length L), K_N = dF_K/ddelta
 *       = a / sqrt(2) [3/2 y^(1/2) - 1/2 y^(3/2)],   y = delta / (c + delta)   (eq 11),
 *   law lankarani: F_K = K delta^n (Hertz-type), K_N = n K delta^(n-1).
 *   law linear (the linear viscoelastic law of the clearance literature, a Kelvin-Voigt
 *     contact): F_N = K delta + c ddelta, F_K = K delta, K_N = K; its own damping (the
 *     damping key does not apply); clamped at F_N >= 0 unless `clamp: false`, where the
 *     contact pulls while it separates faster than K delta / c (and the friction acts on
 *     |F_N|: F_T = -mu(v_T) |F_N|, dF_T = -mu' |F_N| dv_T - mu sgn(F_N) dF_N).
 *   damping (either law; DEFAULT: step for wang2016, lankarani_nikravesh for lankarani):
 *     step: D = STEP(delta, 0, 0, d_max, D_max), D_max = eta K_N (eqs 9, 10),
 *           F_N = F_K + D ddelta;
 *     lankarani_nikravesh: F_N = F_K (1 + 3 (1 - e^2) / 4 ddelta / v_imp);
 *     flores (Flores et al. 2011, for any e): F_N = F_K (1 + 8 (1 - e) / (5 e) ddelta / v_imp);
 *     v_imp = the normal rate at the contact onset (delta = 0), from the last accepted
 *     states before and after it (history: v^2 interpolated linearly in delta, exact for a
 *     constant relative acceleration over the step; floored at v_min). The hysteresis forms act from the first micrometre on; the step's ramp
 *     over d_max = 0.1 mm leaves steel impacts of a few um nearly elastic (S ~ 3 (d/d_max)^2,
 *     docs/validation.md "zero-clearance limit").
 * Friction (eqs 12, 13): F_T = -mu(v_T) F_N (mu odd, contact/impact_law.c).
 * Step error (adaptive runs): the eccentricity's local error |J_P0 e_q0 - J_P1 e_q1| over c
 * (clearance_step_error; the impacts themselves: the events of clearance_step_control).
 * Forces: f = -F_N n + F_T t on the journal centre, -f on the bearing centre, moments
 * R_J F_T on body 0 and -R_B F_T on body 1 (the tangential force acts at the contact
 * points r_Pb + R_b n). With De = de/dq = [J_P0, -J_P1], Dv = d(edot)/dq = [Jv_P0, -Jv_P1],
 * W = R_J dphi_0/dq - R_B dphi_1/dq with phi_b the material rotation at the centre
 * (constant in q: the shape functions are linear; R_J w_0 - R_B w_1 = W qd), P = I - n n^T,
 * Rt = [[0,-1],[1,0]] (t = Rt n):
 *   Q = De^T f + W^T F_T,
 *   ddelta/dq = n^T De, d(ddelta)/dq = edot^T P De / eps + n^T Dv, d(ddelta)/dqd = n^T De,
 *   dn/dq = P De / eps, dt/dq = Rt P De / eps,
 *   dv_T/dq = edot^T Rt P De / eps + t^T Dv, dv_T/dqd = t^T De + W,
 *   dF_N = F_d ddelta + F_dd d(ddelta), dF_T = -mu'(v_T) F_N dv_T - mu dF_N,
 *   dQ/dq = De^T (-n dF_N/dq - F_N dn/dq + t dF_T/dq + F_T dt/dq) + W^T dF_T/dq
 *           + blockdiag(H_P0(f), H_P1(-f)),
 *   dQ/dqd = De^T (-n dF_N/dqd + t dF_T/dqd) + W^T dF_T/dqd.
 * Potential of the elastic part: V = int_0^delta F_K (closed form below); the damping and
 * friction power -(F_N - F_K) ddelta + F_T v_T is integrated as work.
 * All vectors and blocks on the element's columns (model.h, column-compressed).
 */
#include "contact/impact_law.h"
#include "forces/forces.h"

#include <string.h>

#define FMB_PI 3.14159265358979323846

typedef struct geom {
    double e[2], ed[2], eps, n[2], t[2], delta, dd, vt;
    double wJ, wB;
} geom_t;

/* Material rotation rate at the journal/bearing centre u (theta rate plus, on a beam, the
 * rate of the elastic rotation of the section there). */
static double omega(const fmb_bodyview_t *v, const double u[2])
{
    if (v->ndof < 3 || !v->qd) return 0.0;
    return fmb_point_rotrate(v, u);
}

static void geometry(const fmb_force_t *f, const fmb_bodyview_t v[2], geom_t *g)
{
    double r0[2], r1[2], v0[2] = {0, 0}, v1[2] = {0, 0};
    fmb_point_pos(&v[0], f->point[0], r0);
    fmb_point_pos(&v[1], f->point[1], r1);
    fmb_point_vel(&v[0], f->point[0], v0);
    fmb_point_vel(&v[1], f->point[1], v1);
    g->e[0] = r0[0] - r1[0], g->e[1] = r0[1] - r1[1];
    g->ed[0] = v0[0] - v1[0], g->ed[1] = v0[1] - v1[1];
    g->eps = hypot(g->e[0], g->e[1]);
    const double ie = g->eps > 0 ? 1.0 / g->eps : 0.0;
    g->n[0] = g->e[0] * ie, g->n[1] = g->e[1] * ie;
    if (!(g->eps > 0)) g->n[0] = 1.0; /* concentric: any direction (no contact, c > 0) */
    g->t[0] = -g->n[1], g->t[1] = g->n[0];
    g->delta = g->eps - f->clr.clearance;
    g->dd = g->n[0] * g->ed[0] + g->n[1] * g->ed[1];
    const double RB = f->clr.bearing_radius, RJ = RB - f->clr.clearance;
    g->wJ = omega(&v[0], f->point[0]), g->wB = omega(&v[1], f->point[1]);
    g->vt = g->t[0] * g->ed[0] + g->t[1] * g->ed[1] + RJ * g->wJ - RB * g->wB;
}

/* Liu's elastic force times L (seed eqs 7, 8) and its slope K_N (eq 11), d > 0. */
static double wang_elastic(const fmb_clearance_desc_t *p, double d, double *KN, double *dKN)
{
    const double a = FMB_PI * p->modulus * p->length / 2.0, c = p->clearance;
    const double y = d / (c + d), sy = sqrt(y), r2 = 1.0 / sqrt(2.0);
    *KN = a * r2 * (1.5 * sy - 0.5 * y * sy);
    /* dK/dd = a/sqrt2 * 3/4 (y^-1/2 - y^1/2) dy/dd, dy/dd = (1 - y)^2 / c */
    *dKN = a * r2 * 0.75 * (1.0 - y) / sy * (1.0 - y) * (1.0 - y) / c;
    return a * r2 * d * sy;
}

/* V(d) = int_0^d F_K = sqrt2 a int_0^sqrt(d) s^4 / sqrt(c + s^2) ds. */
static double wang_potential(const fmb_clearance_desc_t *p, double d)
{
    if (!(d > 0)) return 0.0;
    const double a = FMB_PI * p->modulus * p->length / 2.0, c = p->clearance, x = sqrt(d);
    double I;
    if (d < 0.1 * c) { /* series of (1 + s^2/c)^(-1/2): no cancellation for small d/c */
        double term = 1.0, xp = x * x * x * x * x;
        I = 0.0;
        for (int k = 0; k < 60; k++) {
            const double add = term * xp / (5.0 + 2.0 * k);
            I += add;
            if (fabs(add) < 1e-17 * fabs(I)) break;
            term *= -(0.5 + k) / (k + 1.0);
            xp *= d / c;
        }
        I /= sqrt(c);
    } else {
        I = (x * x * x / 4.0 - 3.0 * c * x / 8.0) * sqrt(x * x + c) +
            3.0 * c * c / 8.0 * asinh(x / sqrt(c));
    }
    return sqrt(2.0) * a * I;
}

static double lankarani_K(const fmb_clearance_desc_t *p)
{
    if (p->stiffness > 0) return p->stiffness;
    const double RB = p->bearing_radius, RJ = RB - p->clearance;
    return 4.0 / 3.0 * p->modulus * sqrt(RB * RJ / p->clearance);
}

static double v_impact(const fmb_force_t *f)
{
    const double v = f->state ? f->state[1] : 0.0;
    return v > f->clr.v_min ? v : f->clr.v_min;
}

/* The damping in use (DEFAULT: the law's own). */
static fmb_clearance_damping damping_of(const fmb_clearance_desc_t *p)
{
    if (p->law == FMB_CLEARANCE_LINEAR) return FMB_CLEARANCE_DAMPING_DEFAULT; /* its own */
    if (p->damping != FMB_CLEARANCE_DAMPING_DEFAULT) return p->damping;
    return p->law == FMB_CLEARANCE_LANKARANI ? FMB_CLEARANCE_DAMPING_LN : FMB_CLEARANCE_DAMPING_STEP;
}

/* Elastic force F_K(d) of the law, its slope K_N and dK_N/dd, d > 0. */
static double elastic(const fmb_clearance_desc_t *p, double d, double *KN, double *dKN)
{
    if (p->law == FMB_CLEARANCE_LINEAR) {
        *KN = p->stiffness, *dKN = 0.0;
        return p->stiffness * d;
    }
    if (p->law == FMB_CLEARANCE_LANKARANI) {
        const double K = lankarani_K(p), n = p->exponent, dn = pow(d, n);
        *KN = n * K * dn / d;
        *dKN = n * (n - 1.0) * K * dn / (d * d);
        return K * dn;
    }
    return wang_elastic(p, d, KN, dKN);
}

/* Normal force and partials, elastic part *FK (0 when out of contact). */
static double normal_force(const fmb_force_t *f, double d, double dd, double *Fd, double *Fdd,
                           double *FK)
{
    const fmb_clearance_desc_t *p = &f->clr;
    *Fd = *Fdd = *FK = 0.0;
    if (!(d > 0)) return 0.0;
    double KN, dKN, F;
    *FK = elastic(p, d, &KN, &dKN);
    const fmb_clearance_damping damp = damping_of(p);
    if (p->law == FMB_CLEARANCE_LINEAR) {
        F = *FK + p->viscous * dd;
        *Fd = KN, *Fdd = p->viscous;
        if (p->unclamped) return F; /* may pull */
    } else if (damp == FMB_CLEARANCE_DAMPING_STEP) { /* seed eqs 9-10 */
        double dS;
        const double S = fmb_step3(d, 0.0, 0.0, p->d_max, 1.0, &dS);
        const double D = p->eta * KN * S, dD = p->eta * (dKN * S + KN * dS);
        F = *FK + D * dd;
        *Fd = KN + dD * dd;
        *Fdd = D;
    } else { /* hysteresis: F_K (1 + chi ddelta) */
        const double e = p->restitution, v = v_impact(f);
        const double chi = damp == FMB_CLEARANCE_DAMPING_LN ? 0.75 * (1.0 - e * e) / v
                                                            : 1.6 * (1.0 - e) / (e * v);
        F = *FK * (1.0 + chi * dd);
        *Fd = KN * (1.0 + chi * dd);
        *Fdd = *FK * chi;
    }
    if (!(F > 0)) {
        *Fd = *Fdd = 0.0;
        return 0.0;
    }
    return F;
}

static void clearance_eval(const fmb_force_t *f, const fmb_bodyview_t v[2], double t, double *Q0,
                           double *Q1, double *K, double *C)
{
    (void)t;
    geom_t g;
    geometry(f, v, &g);
    double Fd, Fdd, FK;
    const double FN = normal_force(f, g.delta, g.dd, &Fd, &Fdd, &FK);
    if (FN == 0.0) return;
    const fmb_clearance_desc_t *p = &f->clr;
    double dmu;
    const double mu = fmb_friction_mu(p->mu_s, p->mu_d, p->v_s, p->v_d, g.vt, &dmu);
    const double aFN = fabs(FN), sN = FN < 0 ? -1.0 : 1.0; /* < 0: an unclamped linear law */
    const double FT = -mu * aFN;
    const double fv[2] = {-FN * g.n[0] + FT * g.t[0], -FN * g.n[1] + FT * g.t[1]};
    const int n0 = v[0].nc, n1 = v[1].nc, n = n0 + n1;
    const double RB = p->bearing_radius, RJ = RB - p->clearance;
    double De[2 * FMB_ELEM_COLS], Dv[2 * FMB_ELEM_COLS], W[FMB_ELEM_COLS];
    fmb_point_jac(&v[0], f->point[0], De);
    fmb_point_jac(&v[1], f->point[1], De + 2 * n0);
    fmb_point_veljac(&v[0], f->point[0], Dv);
    fmb_point_veljac(&v[1], f->point[1], Dv + 2 * n0);
    for (int k = 2 * n0; k < 2 * n; k++)
        De[k] = -De[k], Dv[k] = -Dv[k];
    memset(W, 0, sizeof W);
    fmb_point_rotjac(&v[0], f->point[0], W);
    fmb_point_rotjac(&v[1], f->point[1], W + n0);
    for (int k = 0; k < n0; k++)
        W[k] *= RJ;
    for (int k = n0; k < n; k++)
        W[k] *= -RB;
    for (int k = 0; k < n0; k++)
        Q0[k] += De[2 * k] * fv[0] + De[2 * k + 1] * fv[1] + W[k] * FT;
    for (int k = 0; k < n1; k++)
        Q1[k] += De[2 * (n0 + k)] * fv[0] + De[2 * (n0 + k) + 1] * fv[1] + W[n0 + k] * FT;
    if (!K && !C) return;
    const double ie = 1.0 / g.eps;
    const double P[4] = {1 - g.n[0] * g.n[0], -g.n[0] * g.n[1], -g.n[0] * g.n[1],
                         1 - g.n[1] * g.n[1]};
    double dfq[2 * FMB_ELEM_COLS], dfqd[2 * FMB_ELEM_COLS], dFTq[FMB_ELEM_COLS], dFTqd[FMB_ELEM_COLS];
    for (int c = 0; c < n; c++) {
        const double *Dc = De + 2 * c, *Dvc = Dv + 2 * c;
        const double PD[2] = {(P[0] * Dc[0] + P[2] * Dc[1]) * ie,
                              (P[1] * Dc[0] + P[3] * Dc[1]) * ie};
        const double RPD[2] = {-PD[1], PD[0]}; /* dt/dq column */
        const double nD = g.n[0] * Dc[0] + g.n[1] * Dc[1], tD = g.t[0] * Dc[0] + g.t[1] * Dc[1];
        const double dddq = g.ed[0] * PD[0] + g.ed[1] * PD[1] + g.n[0] * Dvc[0] + g.n[1] * Dvc[1];
        const double dvtq = g.ed[0] * RPD[0] + g.ed[1] * RPD[1] + g.t[0] * Dvc[0] + g.t[1] * Dvc[1];
        const double dvtqd = tD + W[c];
        const double dFNq = Fd * nD + Fdd * dddq, dFNqd = Fdd * nD;
        const double dFTq_c = -dmu * aFN * dvtq - mu * sN * dFNq;
        const double dFTqd_c = -dmu * aFN * dvtqd - mu * sN * dFNqd;
        dFTq[c] = dFTq_c, dFTqd[c] = dFTqd_c;
        for (int a = 0; a < 2; a++) {
            dfq[2 * c + a] = -g.n[a] * dFNq - FN * PD[a] + g.t[a] * dFTq_c + FT * RPD[a];
            dfqd[2 * c + a] = -g.n[a] * dFNqd + g.t[a] * dFTqd_c;
        }
    }
    for (int c = 0; c < n; c++)
        for (int r = 0; r < n; r++) {
            const double *Dr = De + 2 * r;
            if (K) K[r + n * c] += Dr[0] * dfq[2 * c] + Dr[1] * dfq[2 * c + 1] + W[r] * dFTq[c];
            if (C) C[r + n * c] += Dr[0] * dfqd[2 * c] + Dr[1] * dfqd[2 * c + 1] + W[r] * dFTqd[c];
        }
    if (K) {
        const double mf[2] = {-fv[0], -fv[1]};
        fmb_point_hess(&v[0], f->point[0], fv, K, n);
        fmb_point_hess(&v[1], f->point[1], mf, K + n0 + (size_t)n0 * n, n);
    }
}

static double clearance_potential(const fmb_force_t *f, const fmb_bodyview_t v[2])
{
    geom_t g;
    geometry(f, v, &g);
    if (!(g.delta > 0)) return 0.0;
    if (f->clr.law == FMB_CLEARANCE_LINEAR) return 0.5 * f->clr.stiffness * g.delta * g.delta;
    if (f->clr.law == FMB_CLEARANCE_LANKARANI)
        return fmb_law_power_potential(lankarani_K(&f->clr), f->clr.exponent, g.delta);
    return wang_potential(&f->clr, g.delta);
}

static double clearance_power(const fmb_force_t *f, const fmb_bodyview_t v[2], double t)
{
    (void)t;
    geom_t g;
    geometry(f, v, &g);
    double Fd, Fdd, FK, dmu;
    const double FN = normal_force(f, g.delta, g.dd, &Fd, &Fdd, &FK);
    const fmb_clearance_desc_t *p = &f->clr;
    const double FT = -fmb_friction_mu(p->mu_s, p->mu_d, p->v_s, p->v_d, g.vt, &dmu) * fabs(FN);
    return -(FN - FK) * g.dd + FT * g.vt;
}

/* History: state[0] = 1 in contact at the last accepted state; state[1] = the impact
 * velocity: out of contact the normal rate there, and from the first accepted state in
 * contact on the rate at the onset delta = 0 between the two states (delta0 < 0, rate d0;
 * delta1 > 0, rate d1), v^2 = d0^2 + (d1^2 - d0^2) (-delta0) / (delta1 - delta0): exact for
 * a constant relative acceleration over the step (v^2 is then linear in delta), and the
 * part of the step in contact is short (the onset is located to 1e-3 c of penetration,
 * step_control); state[2] = delta at the last accepted state out of contact. */
static void onset_accept(const fmb_force_t *f, const fmb_bodyview_t v[2], int first)
{
    geom_t g;
    geometry(f, v, &g);
    if (g.delta > 0) {
        if (!first && f->state[0] == 0.0 && g.dd > 0) {
            const double d0 = f->state[2], v0 = f->state[1];
            const double v2 = v0 * v0 + (g.dd * g.dd - v0 * v0) * (-d0) / (g.delta - d0);
            f->state[1] = sqrt(fmax(v2, 0.0));
        }
        f->state[0] = 1.0;
    } else {
        f->state[0] = 0.0;
        f->state[1] = g.dd;
        f->state[2] = g.delta;
    }
}

static void clearance_reset(const fmb_force_t *f, const fmb_bodyview_t v[2], double t)
{
    (void)t;
    f->state[1] = 0.0; /* starting in contact: v_min */
    onset_accept(f, v, 1);
}

static void clearance_accept(const fmb_force_t *f, const fmb_bodyview_t v[2], double t)
{
    (void)t;
    onset_accept(f, v, 0);
}

/* Events (the sim's step_control hook): contact onset located to within tol = 1e-3 c of
 * penetration (a step from a gap into delta > tol, or one that grows the penetration d0 to
 * more than 1.5 d0 + tol, is rejected and retried with the step that, by linear
 * interpolation of delta, ends at 1.2 d0 + tol/2), and in contact the next
 * step capped so that the penetration changes by at most 5 % of (delta + tol) per step and
 * by a tenth of the contact's time scale: the impact is resolved whatever the run's step
 * (~100 steps per impact). */
static int clearance_step_control(const fmb_force_t *f, const fmb_bodyview_t v0[2],
                                  const fmb_bodyview_t v1[2], double t0, double h, double *h_max,
                                  char *why, size_t len)
{
    (void)t0;
    geom_t g0, g1;
    geometry(f, v0, &g0);
    geometry(f, v1, &g1);
    const double tol = 1e-3 * f->clr.clearance, d0 = fmax(g0.delta, 0.0);
    if (g1.delta > tol && g1.delta > 1.5 * d0 + tol) {
        /* onset from a gap, or a step that more than grows the penetration by half: retry
         * with the step that (interpolating delta linearly) ends at 1.2 d0 + tol / 2 */
        const double target = 1.2 * d0 + 0.5 * tol;
        *h_max = h * (target - g0.delta) / (g1.delta - g0.delta);
        if (why)
            snprintf(why, len, "%s (penetration %.3g m -> %.3g m in one step)",
                     g0.delta <= 0 ? "contact onset" : "penetration growing fast", g0.delta,
                     g1.delta);
        return 1;
    }
    if (g1.delta > 0) {
        /* rate: h <= 0.05 (delta + tol) / |ddelta|; near the deepest point, where the rate
         * vanishes, the contact's time scale sqrt((delta + tol) / |dddelta|) / 10 */
        const double d = g1.delta + tol, acc = fabs(g1.dd - g0.dd) / h;
        double cap = fabs(g1.dd) > 0 ? 0.05 * d / fabs(g1.dd) : INFINITY;
        if (acc > 0) cap = fmin(cap, 0.1 * sqrt(d / acc));
        if (cap < *h_max) {
            *h_max = cap;
            if (why)
                snprintf(why, len, "in contact (penetration %.3g m, rate %.3g m/s)", g1.delta,
                         g1.dd);
        }
    }
    return 0;
}

/* Error measure (step_error, adaptive runs): the eccentricity's local error
 * de = J_P0 e_q0 - J_P1 e_q1 (the point velocities on the error views) over the clearance
 * c: the journal's motion inside the bearing measured on its own scale, not on the
 * bodies' absolute coordinates (a slider at 0.17 m has a tolerance of 1.7e-4 m there). */
static double clearance_step_error(const fmb_force_t *f, const fmb_bodyview_t v[2],
                                   const fmb_bodyview_t dv[2])
{
    (void)v;
    double d0[2], d1[2];
    fmb_point_vel(&dv[0], f->point[0], d0);
    fmb_point_vel(&dv[1], f->point[1], d1);
    return hypot(d0[0] - d1[0], d0[1] - d1[1]) / f->clr.clearance;
}

static const char *const out_names[] = {"eccentricity",   "penetration", "normal_force",
                                        "friction_force", "contact",     "position"};
static const int out_width[] = {2, 1, 1, 1, 1, 2};

static void clearance_outputs(const fmb_force_t *f, const fmb_bodyview_t v[2], double t,
                              double *val)
{
    (void)t;
    geom_t g;
    geometry(f, v, &g);
    double Fd, Fdd, FK, dmu;
    const double FN = normal_force(f, g.delta, g.dd, &Fd, &Fdd, &FK);
    const fmb_clearance_desc_t *p = &f->clr;
    val[0] = g.e[0];
    val[1] = g.e[1];
    val[2] = g.delta;
    val[3] = FN;
    val[4] = -fmb_friction_mu(p->mu_s, p->mu_d, p->v_s, p->v_d, g.vt, &dmu) * fabs(FN);
    val[5] = g.delta > 0 ? 1.0 : 0.0;
    fmb_point_pos(&v[0], f->point[0], val + 6); /* journal centre, inertial */
}

static int clearance_check(const fmb_force_t *f, char *msg, size_t len)
{
    const fmb_clearance_desc_t *p = &f->clr;
    const char *bad = NULL;
    if (f->body[0] == f->body[1])
        bad = "connects a body to itself";
    else if ((int)p->law < 0 || p->law >= FMB_CLEARANCE_LAW_COUNT)
        bad = "unknown contact law";
    else if (!(p->clearance > 0))
        bad = "the radial clearance must be > 0";
    else if (!(p->bearing_radius > p->clearance))
        bad = "the bearing radius must exceed the clearance";
    else if (p->law == FMB_CLEARANCE_LINEAR && (!(p->stiffness > 0) || !(p->viscous >= 0)))
        bad = "the linear law needs stiffness > 0 and viscous >= 0";
    else if (!(p->modulus > 0) && p->law != FMB_CLEARANCE_LINEAR &&
             !(p->law == FMB_CLEARANCE_LANKARANI && p->stiffness > 0))
        bad = "the equivalent modulus must be > 0";
    else if (p->law == FMB_CLEARANCE_WANG2016 && !(p->length > 0))
        bad = "the axial length must be > 0";
    else if ((int)p->damping < 0 || p->damping >= FMB_CLEARANCE_DAMPING_COUNT)
        bad = "unknown damping";
    else if (damping_of(p) == FMB_CLEARANCE_DAMPING_STEP && (!(p->eta >= 0) || !(p->d_max > 0)))
        bad = "eta must be >= 0 and d_max > 0";
    else if (damping_of(p) != FMB_CLEARANCE_DAMPING_STEP && p->law != FMB_CLEARANCE_LINEAR &&
             (!(p->restitution > 0 && p->restitution <= 1) || !(p->v_min > 0)))
        bad = "hysteresis damping needs 0 < restitution <= 1 and v_min > 0";
    else if (p->law == FMB_CLEARANCE_LANKARANI && (!(p->exponent > 0) || p->stiffness < 0))
        bad = "needs exponent > 0 and stiffness >= 0";
    else if (!(p->mu_s >= 0) || !(p->mu_d >= 0) || !(p->v_s > 0) || !(p->v_d > p->v_s))
        bad = "friction needs mu_s, mu_d >= 0 and 0 < v_s < v_d";
    if (!bad) return 0;
    snprintf(msg, len, "clearance joint '%s': %s", f->name, bad);
    return FMB_ERR_MODEL;
}

/* Case keys (seed 002; damping absent = FMB_CLEARANCE_DAMPING_DEFAULT, the law's own).
 * journal_radius, E and poisson have no field of their own: they are read into param[0],
 * param[1..2], param[3..4] and turned into bearing_radius and the equivalent modulus by clr_prepare
 * (which clears those slots). Defaults: seed 002 (d_max 0.1 mm, eta 1e-3 s), steel on steel (E 207
 * GPa, nu 0.3), Lankarani-Nikravesh n = 1.5, e = 0.9, v_min 1 mm/s, frictionless with ADAMS-like
 * thresholds v_s = 0.1 mm/s, v_d = 1 mm/s. */
#define CLR(k, field, fl, lo_, d, u, text)                                                         \
    {                                                                                              \
        .key = k, .kind = FMB_PARAM_NUMBER, .flags = fl,                                           \
        .offset = offsetof(fmb_force_desc_t, clearance.field), .lo = lo_, .dflt = {d}, .unit = u,  \
        .doc = text                                                                                \
    }
#define POS FMB_PARAM_MIN_OPEN
#define NONNEG FMB_PARAM_MIN
_Static_assert(sizeof(fmb_clearance_law) == sizeof(int), "ENUM keys store an int");
static const char *const clr_laws[] = {"wang2016", "lankarani_nikravesh", "linear", NULL};
static const char *const clr_clamps[] = {"true", "false", NULL};
static const int clr_clamp_values[] = {0, 1}; /* stored as 'unclamped' */
static const char *const clr_dampings[] = {"step", "lankarani_nikravesh", "flores", NULL};
static const int clr_damping_values[] = {FMB_CLEARANCE_DAMPING_STEP, FMB_CLEARANCE_DAMPING_LN,
                                         FMB_CLEARANCE_DAMPING_FLORES};
_Static_assert(sizeof(fmb_clearance_damping) == sizeof(int), "ENUM keys store an int");
static const fmb_param_t clr_params[] = {
    {.key = "law",
     .kind = FMB_PARAM_ENUM,
     .offset = offsetof(fmb_force_desc_t, clearance.law),
     .dflt_text = "wang2016",
     .choices = clr_laws,
     .unit = "-",
     .doc = "contact law"},
    {.key = "damping",
     .kind = FMB_PARAM_ENUM,
     .offset = offsetof(fmb_force_desc_t, clearance.damping),
     .choices = clr_dampings,
     .values = clr_damping_values,
     .unit = "-",
     .doc = "normal damping (default: the law's own, step for wang2016)"},
    CLR("clearance", clearance, FMB_PARAM_REQUIRED | POS, 0, 0, "m", "radial clearance R_B - R_J"),
    CLR("bearing_radius", bearing_radius, POS, 0, 0, "m", "R_B (or journal_radius)"),
    FMB_FORCE_NUM("journal_radius", param[0], POS, 0, 0, "m", "R_J (or bearing_radius)"),
    CLR("length", length, POS, 0, 0, "m", "axial length of the bearing (wang2016)"),
    CLR("modulus", modulus, POS, 0, 0, "Pa", "equivalent modulus E* (or E and poisson)"),
    {.key = "E",
     .kind = FMB_PARAM_VECTOR,
     .flags = POS,
     .n = 2,
     .offset = offsetof(fmb_force_desc_t, param[1]),
     .dflt = {207e9, 207e9},
     .unit = "Pa",
     .doc = "[E_journal, E_bearing]"},
    {.key = "poisson",
     .kind = FMB_PARAM_VECTOR,
     .flags = NONNEG | FMB_PARAM_MAX_OPEN,
     .n = 2,
     .offset = offsetof(fmb_force_desc_t, param[3]),
     .hi = 0.5,
     .dflt = {0.3, 0.3},
     .unit = "-",
     .doc = "[nu_journal, nu_bearing]"},
    CLR("eta", eta, NONNEG, 0, 1e-3, "s", "D_max = eta K_N (seed eq 10)"),
    CLR("d_max", d_max, POS, 0, 1e-4, "m", "penetration of full damping (seed eq 9)"),
    CLR("stiffness", stiffness, NONNEG, 0, 0, "N/m^n",
        "lankarani_nikravesh K (0: Hertz); linear: K in N/m (required)"),
    CLR("viscous", viscous, NONNEG, 0, 0, "N s/m", "linear: damping coefficient c"),
    {.key = "clamp",
     .kind = FMB_PARAM_ENUM,
     .offset = offsetof(fmb_force_desc_t, clearance.unclamped),
     .dflt_text = "true",
     .choices = clr_clamps,
     .values = clr_clamp_values,
     .unit = "-",
     .doc = "linear: true keeps F_N >= 0; false lets K delta + c ddelta pull"},
    CLR("exponent", exponent, POS, 0, 1.5, "-", "lankarani_nikravesh n"),
    {.key = "restitution",
     .kind = FMB_PARAM_NUMBER,
     .flags = POS | FMB_PARAM_MAX,
     .offset = offsetof(fmb_force_desc_t, clearance.restitution),
     .hi = 1,
     .dflt = {0.9},
     .unit = "-",
     .doc = "lankarani_nikravesh e in (0, 1]"},
    CLR("v_min", v_min, POS, 0, 1e-3, "m/s", "floor of the impact velocity"),
    CLR("mu_s", mu_s, NONNEG, 0, 0, "-", "static friction coefficient (seed eq 13)"),
    CLR("mu_d", mu_d, NONNEG, 0, 0, "-", "dynamic friction coefficient"),
    CLR("v_s", v_s, POS, 0, 1e-4, "m/s", "static threshold velocity (< v_d)"),
    CLR("v_d", v_d, POS, 0, 1e-3, "m/s", "dynamic threshold velocity"),
    {0}};

static int clr_prepare(fmb_item_env_t *env, fmb_force_desc_t *d)
{
    fmb_clearance_desc_t *p = &d->clearance;
    const int has_rb = fmb_item_given(env, "bearing_radius"),
              has_rj = fmb_item_given(env, "journal_radius");
    if (has_rb == has_rj)
        return fmb_item_fail(env, NULL, -1,
                             "give exactly one of 'bearing_radius' and 'journal_radius'");
    if (has_rj) p->bearing_radius = d->param[0] + p->clearance;
    const int has_e = fmb_item_given(env, "E"), has_nu = fmb_item_given(env, "poisson");
    if (fmb_item_given(env, "modulus") && (has_e || has_nu))
        return fmb_item_fail(env, has_e ? "E" : "poisson", -1,
                             "give either 'modulus' (equivalent E*) or 'E' and 'poisson'");
    if (!fmb_item_given(env, "modulus")) {
        const double *E = d->param + 1, *nu = d->param + 3;
        p->modulus = 1.0 / ((1 - nu[0] * nu[0]) / E[0] + (1 - nu[1] * nu[1]) / E[1]);
    }
    for (int k = 0; k < 5; k++)
        d->param[k] = 0;
    if (p->law == FMB_CLEARANCE_LINEAR) {
        static const char *const other[] = {"damping", "eta", "d_max", "exponent", "restitution",
                                            "v_min", "length"};
        for (int k = 0; k < 7; k++)
            if (fmb_item_given(env, other[k]))
                return fmb_item_fail(env, other[k], -1,
                                     "'%s' does not apply to law: linear (F_N = stiffness "
                                     "delta + viscous ddelta)",
                                     other[k]);
        if (!fmb_item_given(env, "stiffness"))
            return fmb_item_fail(env, NULL, -1,
                                 "missing required key 'stiffness' (law: linear, N/m)");
    } else {
        static const char *const lin[] = {"viscous", "clamp"};
        for (int k = 0; k < 2; k++)
            if (fmb_item_given(env, lin[k]))
                return fmb_item_fail(env, lin[k], -1, "'%s' belongs to law: linear", lin[k]);
    }
    if (p->law == FMB_CLEARANCE_WANG2016 && !fmb_item_given(env, "length"))
        return fmb_item_fail(env, NULL, -1,
                             "missing required key 'length' (axial length of the bearing, m)");
    if (!(p->v_d > p->v_s))
        return fmb_item_fail(env, fmb_item_given(env, "v_d") ? "v_d" : "v_s", -1,
                             "the threshold velocities need v_s (%g) < v_d (%g)", p->v_s, p->v_d);
    return 0;
}
#undef CLR
#undef POS
#undef NONNEG

const fmb_force_class_t fmb_clearance_class = {
    .name = "clearance",
    .nbodies = 2,
    .eval = clearance_eval,
    .potential = clearance_potential,
    .power = clearance_power,
    .check = clearance_check,
    .step_control = clearance_step_control,
    .step_error = clearance_step_error,
    .nstate = 3,
    .reset = clearance_reset,
    .accept = clearance_accept,
    .noutputs = 6,
    .output_group = "joints/%s/clearance",
    .output_names = out_names,
    .output_width = out_width,
    .outputs = clearance_outputs,
    .case_type = "clearance",
    .item_flags = FMB_ITEM_BODIES | FMB_ITEM_POINTS | FMB_ITEM_DISTINCT | FMB_ITEM_IN_JOINTS,
    .params = clr_params,
    .prepare = clr_prepare,
};
