/*
 * Relative coordinate of a switching element (docs/switching.md), over the two-body block
 * q = [q0; q1] (nn = v[0].nc + v[1].nc element columns; the ground contributes none):
 *   FMB_REL_ROTATION:  x = theta0 - theta1,            D = dx/dq = [e_theta0, -e_theta1]
 *   FMB_REL_DIRECTION: x = e . (r_P0 - r_P1) (e: fixed unit inertial axis),
 *                      D = e^T [J_P0, -J_P1],  xd = D . qd,
 *                      dxd/dq = e^T [Jv_P0, -Jv_P1],  d2x/dq2 = blockdiag(H_P0(e), -H_P1(e)).
 * A force F(x, xd) along x has the generalized force Q = F D^T and the tangents
 *   dQ/dq  = D^T (F_x D + F_xd dxd/dq) + F d2x/dq2,   dQ/dqd = F_xd D^T D.
 * D, Dv and the tangents are column-compressed on the element's columns (model.h):
 * nn = v[0].nc + v[1].nc, never a body's full coordinate count.
 */
#include "forces/forces.h"

#include <string.h>

void fmb_rel_coord(const fmb_force_t *f, const fmb_bodyview_t v[2], double *x, double *xd,
                   double *D, double *Dv)
{
    const int n0 = v[0].nc, n = n0 + v[1].nc;
    if (D) memset(D, 0, (size_t)n * sizeof *D);
    if (Dv) memset(Dv, 0, (size_t)n * sizeof *Dv);
    if (f->coord == FMB_REL_ROTATION) {
        *x = fmb_body_angle(&v[0]) - fmb_body_angle(&v[1]);
        *xd = (n0 ? v[0].qd[2] : 0.0) - (v[1].ndof ? v[1].qd[2] : 0.0);
        if (D && n0) D[2] = 1.0;
        if (D && v[1].ndof) D[n0 + 2] = -1.0;
        return;
    }
    const double *e = f->axis;
    double r0[2], r1[2], u0[2], u1[2];
    fmb_point_pos(&v[0], f->point[0], r0);
    fmb_point_pos(&v[1], f->point[1], r1);
    *x = e[0] * (r0[0] - r1[0]) + e[1] * (r0[1] - r1[1]);
    *xd = 0.0;
    if (v[0].qd) fmb_point_vel(&v[0], f->point[0], u0), *xd += e[0] * u0[0] + e[1] * u0[1];
    if (v[1].qd) fmb_point_vel(&v[1], f->point[1], u1), *xd -= e[0] * u1[0] + e[1] * u1[1];
    double J[2 * FMB_VIEW_COLS];
    for (int b = 0; b < 2; b++) {
        const int nb = v[b].nc, off = b ? n0 : 0;
        const double sg = b ? -1.0 : 1.0;
        if (!nb) continue;
        if (D) {
            fmb_point_jac(&v[b], f->point[b], J);
            for (int k = 0; k < nb; k++)
                D[off + k] = sg * (e[0] * J[2 * k] + e[1] * J[2 * k + 1]);
        }
        if (Dv && v[b].qd) {
            fmb_point_veljac(&v[b], f->point[b], J);
            for (int k = 0; k < nb; k++)
                Dv[off + k] = sg * (e[0] * J[2 * k] + e[1] * J[2 * k + 1]);
        }
    }
}

double fmb_rel_velocity(const fmb_force_t *f, const fmb_bodyview_t v[2])
{
    double x, xd;
    fmb_rel_coord(f, v, &x, &xd, NULL, NULL);
    return xd;
}

void fmb_rel_tangent(const fmb_force_t *f, const fmb_bodyview_t v[2], double F, double Fx,
                     double Fxd, double *K, double *C)
{
    const int n0 = v[0].nc, n = n0 + v[1].nc;
    if (n == 0) return;
    double x, xd, D[FMB_ELEM_COLS], Dv[FMB_ELEM_COLS];
    fmb_rel_coord(f, v, &x, &xd, D, Dv);
    for (int c = 0; c < n; c++)
        for (int r = 0; r < n; r++) {
            if (K) K[r + (size_t)n * c] += D[r] * (Fx * D[c] + Fxd * Dv[c]);
            if (C) C[r + (size_t)n * c] += D[r] * Fxd * D[c];
        }
    if (K && f->coord == FMB_REL_DIRECTION) {
        const double w0[2] = {F * f->axis[0], F * f->axis[1]}, w1[2] = {-w0[0], -w0[1]};
        if (n0) fmb_point_hess(&v[0], f->point[0], w0, K, n);
        if (v[1].nc) fmb_point_hess(&v[1], f->point[1], w1, K + n0 + (size_t)n0 * n, n);
    }
}

void fmb_rel_apply(const fmb_bodyview_t v[2], const double *D, double F, double *Q0, double *Q1)
{
    const int n0 = v[0].nc;
    for (int k = 0; k < n0; k++)
        Q0[k] += F * D[k];
    for (int k = 0; k < v[1].nc; k++)
        Q1[k] += F * D[n0 + k];
}

int fmb_rel_check(const fmb_force_t *f, char *msg, size_t len)
{
    if (f->body[0] == f->body[1]) {
        snprintf(msg, len, "%s '%s' connects a body to itself", f->klass->name, f->name);
        return FMB_ERR_MODEL;
    }
    if (f->coord == FMB_REL_DIRECTION && fabs(hypot(f->axis[0], f->axis[1]) - 1.0) > 1e-12) {
        snprintf(msg, len, "%s '%s': the axis must be a unit vector", f->klass->name, f->name);
        return FMB_ERR_MODEL;
    }
    if (f->coord != FMB_REL_ROTATION && f->coord != FMB_REL_DIRECTION) {
        snprintf(msg, len, "%s '%s': unknown relative coordinate %d", f->klass->name, f->name,
                 f->coord);
        return FMB_ERR_MODEL;
    }
    return 0;
}

const char *const fmb_rel_coord_names[] = {"rotation", "direction", NULL};

int fmb_rel_prepare(fmb_item_env_t *env, fmb_force_desc_t *d, double *x0)
{
    if (d->coordinate == FMB_REL_DIRECTION && !fmb_item_given(env, "axis"))
        return fmb_item_fail(env, NULL, -1, "missing required key 'axis'");
    if (d->coordinate == FMB_REL_ROTATION && fmb_item_given(env, "axis"))
        return fmb_item_fail(env, "axis", -1,
                             "'axis' needs coordinate: direction (the rotation has no axis)");
    double r0[2], r1[2];
    fmb_item_point0(env, 0, d->point[0], r0);
    fmb_item_point0(env, 1, d->point[1], r1);
    *x0 = d->coordinate == FMB_REL_ROTATION
              ? env->pose[0][2] - env->pose[1][2]
              : d->axis[0] * (r0[0] - r1[0]) + d->axis[1] * (r0[1] - r1[1]);
    return 0;
}

/* ---- switch events on the relative velocity (docs/switching.md "Switch events") ------
 * History in f->state: state[0] = number of points k (<= FMB_REL_HIST_PTS), then per
 * accepted state, newest first, FMB_REL_PT values from state[1 + FMB_REL_PT i]: t, v, the
 * element's LCP force F (NAN until fmb_rel_history_force records it) and a slip flag. */
enum { P_T = 0, P_V = 1, P_F = 2, P_SLIP = 3 };
#define PT(s, i, w) ((s)[1 + FMB_REL_PT * (i) + (w)])

void fmb_rel_history_reset(const fmb_force_t *f, double t, double v)
{
    double *s = f->state;
    s[0] = 1.0;
    PT(s, 0, P_T) = t, PT(s, 0, P_V) = v, PT(s, 0, P_F) = NAN, PT(s, 0, P_SLIP) = 0.0;
}

void fmb_rel_history_accept(const fmb_force_t *f, double t, double v)
{
    double *s = f->state;
    const int k = (int)s[0];
    if (k > 0 && t == PT(s, 0, P_T)) { /* the same time again (a restart) */
        PT(s, 0, P_V) = v;
        return;
    }
    memmove(s + 1 + FMB_REL_PT, s + 1, FMB_REL_PT * (FMB_REL_HIST_PTS - 1) * sizeof *s);
    PT(s, 0, P_T) = t, PT(s, 0, P_V) = v, PT(s, 0, P_F) = NAN, PT(s, 0, P_SLIP) = 0.0;
    s[0] = k < FMB_REL_HIST_PTS ? k + 1 : FMB_REL_HIST_PTS;
}

void fmb_rel_history_force(const fmb_force_t *f, double t, double F, int slipping)
{
    double *s = f->state;
    if ((int)s[0] > 0 && t == PT(s, 0, P_T)) PT(s, 0, P_F) = F, PT(s, 0, P_SLIP) = slipping;
}

double fmb_rel_history_velocity(const fmb_force_t *f, int i)
{
    return i < (int)f->state[0] ? PT(f->state, i, P_V) : NAN;
}

/* Smallest root tau > 0 of e0 + B tau + c tau^2 (-1: none). */
static double first_root(double e0, double B, double c)
{
    if (c == 0.0) return B < 0 ? -e0 / B : -1.0;
    const double disc = B * B - 4.0 * c * e0;
    if (disc < 0) return -1.0;
    const double q = -0.5 * (B + (B < 0 ? -1.0 : 1.0) * sqrt(disc));
    const double r1 = q / c, r2 = q != 0.0 ? e0 / q : -1.0;
    double r = -1.0;
    if (r1 > 0) r = r1;
    if (r2 > 0 && (r < 0 || r2 < r)) r = r2;
    return r;
}

/* An event function e > 0 before the switch, known at the step's start (0, e0) and at
 * the history points before it (np of them, 1 or 2: times ta > tb, values ea, eb; tau =
 * t - t0). The Newton form through the points,
 *   e(tau) = e0 + b tau + c tau (tau - ta),
 * b the slope to the previous point, c the second divided difference (0 with one point);
 * its first root tau > 0 (the line's when the parabola has none within 2 h). Returns the
 * step_control code: 3 when the step ends at the root (within FMB_REL_EVENT_TOL h: the
 * retry, the same fit on the same history) or switched with no root of the fit inside
 * (accepted unlocated); 1 when it switched before its end: retry with *h_max = tau; 0 no
 * switch. */
static int locate(double t0, double e0, int np, double ta, double ea, double tb, double eb,
                  double h, int switched, double *h_max, double *tau_ev)
{
    const double b = (e0 - ea) / -ta;
    const double c = np >= 2 && tb < ta ? (b - (ea - eb) / (ta - tb)) / -tb : 0.0;
    double tau = first_root(e0, b - c * ta, c);
    if (!(tau > 0 && tau <= 2.0 * h)) tau = first_root(e0, b, 0.0);
    *tau_ev = tau;
    if (tau > 0 && fabs(h - tau) <= FMB_REL_EVENT_TOL * h) return 3;
    if (!switched) return 0;
    if (!(tau > 0 && tau < h)) return 3;
    /* at the step's start (a located switch ended the step before just short of the root,
     * and the accelerations were re-solved there; or a step below 1e-9 of the time, which
     * its round-off cannot resolve): nothing left to locate */
    if (tau <= 1e-6 * fmax(h, -ta) || tau <= 1e-9 * (t0 + h)) return 0;
    *h_max = tau;
    return 1;
}

/* the history ends at this step's start (else: not locatable) */
static int history_at(const double *s, double t0, double h)
{
    return (int)s[0] >= 2 && fabs(PT(s, 0, P_T) - t0) <= 1e-12 * (fabs(t0) + h) &&
           PT(s, 1, P_T) < PT(s, 0, P_T);
}

int fmb_rel_zero_event(const fmb_force_t *f, double sg, double vtol, double t0, double h, double v0,
                       double v1, double *h_max, char *why, size_t len, const char *what)
{
    /* moving at the start, at zero or past it at the end (zero: below 1e-6 vtol, far
     * below the stick velocity and far above the rounding of a velocity the LCP holds at
     * zero, 1e-16) */
    const double e0 = sg * v0, e1 = sg * v1;
    if (!(e0 > 1e-6 * vtol)) return 0;
    const int switched = e1 <= 1e-6 * vtol;
    const double *s = f->state;
    if (!history_at(s, t0, h)) return switched ? 3 : 0;
    const int np = (int)s[0] >= 3 ? 2 : 1;
    double tau;
    const int r = locate(t0, e0, np, PT(s, 1, P_T) - t0, sg * PT(s, 1, P_V),
                         np > 1 ? PT(s, 2, P_T) - t0 : 0.0, np > 1 ? sg * PT(s, 2, P_V) : 0.0, h,
                         switched, h_max, &tau);
    if (r == 1 && why)
        snprintf(why, len, "%s located at t = %.9g (relative velocity %.3g -> %.3g)", what,
                 t0 + tau, v0, v1);
    return r;
}

int fmb_rel_breakaway_event(const fmb_force_t *f, double Fs, double vtol, double t0, double h,
                            double v0, double v1, double *h_max, char *why, size_t len)
{
    /* stuck at the start (the last accepted state held v = 0: no slip, its force recorded,
     * below the capacity), slipping at the end */
    const double *s = f->state;
    if (!(fabs(v0) < vtol) || !history_at(s, t0, h)) return 0;
    const int switched = fabs(v1) > 1e-6 * vtol;
    const double F0 = PT(s, 0, P_F);
    if (PT(s, 0, P_SLIP) != 0.0 || !isfinite(F0)) return 0;
    /* e = Fs - |F| through the stuck points before (the same sign of F) */
    const double sg = F0 < 0 ? -1.0 : 1.0, e0 = Fs - sg * F0;
    if (!(e0 > 0)) return switched ? 3 : 0;
    int np = 0;
    for (int i = 1; i < (int)s[0] && i <= 2; i++) {
        const double Fi = PT(s, i, P_F);
        if (PT(s, i, P_SLIP) != 0.0 || !isfinite(Fi) || sg * Fi <= 0 ||
            !(PT(s, i, P_T) < PT(s, i - 1, P_T)))
            break;
        np = i;
    }
    if (np == 0) return switched ? 3 : 0;
    double tau;
    const int r = locate(t0, e0, np, PT(s, 1, P_T) - t0, Fs - sg * PT(s, 1, P_F),
                         np > 1 ? PT(s, 2, P_T) - t0 : 0.0, np > 1 ? Fs - sg * PT(s, 2, P_F) : 0.0,
                         h, switched, h_max, &tau);
    if (r == 1 && why)
        snprintf(why, len, "breakaway located at t = %.9g (sticking force %.6g, static level %.6g)",
                 t0 + tau, F0, Fs);
    return r;
}

void fmb_rel_coulomb_rows(int nn, const double *D, double cap, double *G, double *av, double *Az,
                          double *b, int ne)
{
    memset(Az, 0, (size_t)(ne * ne) * sizeof *Az);
    b[0] = b[1] = b[2] = 0.0;
    if (!(cap > 0.0)) {
        /* no friction: sigma _|_ 0 would leave sigma free (Lemke may return 1e11 for it,
         * and its size then hides the other rows' residuals in the LCP's relative check) */
        for (int k = 0; k < 3 * nn; k++)
            G[k] = 0.0;
        av[0] = av[1] = av[2] = 0.0;
        Az[0] = Az[1 + ne] = Az[2 + 2 * ne] = 1.0;
        return;
    }
    for (int k = 0; k < nn; k++)
        G[k] = D[k], G[nn + k] = -D[k], G[2 * nn + k] = 0.0;
    av[0] = 1.0, av[1] = -1.0, av[2] = 0.0;
    Az[0 + ne * 2] = 1.0, Az[1 + ne * 2] = 1.0;
    Az[2 + ne * 0] = -1.0, Az[2 + ne * 1] = -1.0;
    b[2] = cap;
}
