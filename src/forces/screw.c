/*
 * Lead screw (power screw) with thread friction (seed 004, eqs 17-21; Shigley ch. 8;
 * docs/switching.md). Body 0 is the screw, body 1 the nut; theta = theta0 - theta1 (the
 * screw's spin, represented by its planar rotation) and the nut's advance
 * s = e . (r_P1 - r_P0) along the unit inertial axis e. Lead p per turn, L = p / (2 pi),
 * mean thread radius r, lead angle tan(lambda) = L / r, friction coefficient mu
 * (friction angle phi = atan mu; square thread).
 * Thread compliance as in the seed (F_sn = k_sn (m theta - x) + r_sn (m omega - xdot)):
 *   delta = L theta - s - delta0,  F_n = k delta + c deltadot  (axial thread force on the
 *   nut, +e), Q = -F_n (d delta/dq)^T: +F_n on the nut's s, -L F_n on the screw's theta.
 * Thread friction: the nut slides along the helix relative to the screw at
 *   v = sin(lambda) sdot + r cos(lambda) thetadot   (= r omega / cos(lambda) on the helix)
 * with a Coulomb force f (set-valued at v = 0) of capacity mu |N|, N = F_n / cos(lambda)
 * the thread normal force, generalized force Q_f = (beta1 - beta2) D_f^T,
 * D_f = dv/dqd = sin(lambda) ds/dq + r cos(lambda) dtheta/dq, and the LCP of
 * dry_friction.c with Fmax = mu |F_n| / cos(lambda) (taken at the current iterate).
 * Steady raising (torque T on the screw, load W on the nut): T = W r tan(lambda + phi);
 * lowering: T = W r tan(phi - lambda); efficiency tan(lambda) / tan(lambda + phi) forward,
 * tan(lambda - phi) / tan(lambda) backward: self-locking (no back-drive) when phi >= lambda.
 * Jacobian of the elastic part, with D_d = d delta/dq = L D_theta + D_x (D_x = dx/dq of
 * x = e . (r_P0 - r_P1) = -s) and D_v = d(deltadot)/dq = d(xdot)/dq:
 *   dQ/dq = -D_d^T (k D_d + c D_v) - F_n d2x/dq2,   dQ/dqd = -c D_d^T D_d.
 * All rows and blocks on the element's columns (model.h, column-compressed).
 * Stick and reversal of the thread (v reaching 0 from sliding) are located as the dry
 * friction's (step_control, forces/relative.c fmb_rel_zero_event; docs/switching.md
 * "Switch events"), on the helix sliding velocity v.
 * One-way (irreversible) frictionless screw (`one_way: s`, s = +1 or -1, with mu = 0): a
 * fourth unknown, the lock's torque lambda >= 0 on theta, keeps s thetadot >= 0 as a
 * ratchet does (ratchet.c): lambda _|_ s thetadot_new >= 0, Q = s lambda D_theta^T. The
 * thread rows then carry nothing (zero capacity), so the element's LCP row D is D_theta,
 * and the event located is the lock's engagement, s thetadot reaching 0 (the history
 * holds thetadot instead of v). Without one_way the fourth unknown is 0 (w = z).
 */
#include "forces/forces.h"

#include <string.h>

typedef struct screw_geom {
    double L, r, sl, cl; /* L = p / 2 pi, radius, sin and cos of the lead angle */
    double delta, deltad, Fn;
    double xd, thd; /* rates of x and theta (any view) */
} screw_geom_t;

/* Geometry and, when non-NULL, D_d, D_v (the delta rows) and D_f (the sliding row). */
static void screw_geometry(const fmb_force_t *f, const fmb_bodyview_t v[2], screw_geom_t *g,
                           double *Dd, double *Dv, double *Df)
{
    const int n = v[0].nc + v[1].nc;
    fmb_force_t fr = *f, fd = *f;
    fr.coord = FMB_REL_ROTATION, fd.coord = FMB_REL_DIRECTION;
    double th, thd, x, xd, Dt[FMB_ELEM_COLS], Dx[FMB_ELEM_COLS];
    fmb_rel_coord(&fr, v, &th, &thd, Dt, NULL);
    fmb_rel_coord(&fd, v, &x, &xd, Dx, Dv);
    g->L = f->par[FMB_SW_SCREW_LEAD] / (2.0 * 3.14159265358979323846);
    g->r = f->par[FMB_SW_SCREW_RADIUS];
    const double lam = atan2(g->L, g->r);
    g->sl = sin(lam), g->cl = cos(lam);
    g->delta = g->L * th + x - f->l0;
    g->deltad = g->L * thd + xd;
    g->xd = xd, g->thd = thd;
    g->Fn = f->k * g->delta + f->c * g->deltad;
    for (int k = 0; k < n; k++) {
        if (Dd) Dd[k] = g->L * Dt[k] + Dx[k];
        if (Df) Df[k] = -g->sl * Dx[k] + g->r * g->cl * Dt[k];
    }
}

static void screw_eval(const fmb_force_t *f, const fmb_bodyview_t v[2], double t, double *Q0,
                       double *Q1, double *K, double *C)
{
    (void)t;
    const int n0 = v[0].nc, n = n0 + v[1].nc;
    if (n == 0) return;
    double Dd[FMB_ELEM_COLS], Dv[FMB_ELEM_COLS];
    screw_geom_t g;
    screw_geometry(f, v, &g, Dd, Dv, NULL);
    fmb_rel_apply(v, Dd, -g.Fn, Q0, Q1);
    for (int c = 0; c < n; c++)
        for (int r = 0; r < n; r++) {
            if (K) K[r + (size_t)n * c] -= Dd[r] * (f->k * Dd[c] + f->c * Dv[c]);
            if (C) C[r + (size_t)n * c] -= f->c * Dd[r] * Dd[c];
        }
    if (K) {
        const double w0[2] = {-g.Fn * f->axis[0], -g.Fn * f->axis[1]}, w1[2] = {-w0[0], -w0[1]};
        if (n0) fmb_point_hess(&v[0], f->point[0], w0, K, n);
        if (v[1].nc) fmb_point_hess(&v[1], f->point[1], w1, K + n0 + (size_t)n0 * n, n);
    }
}

static double screw_potential(const fmb_force_t *f, const fmb_bodyview_t v[2])
{
    screw_geom_t g;
    screw_geometry(f, v, &g, NULL, NULL, NULL);
    return 0.5 * f->k * g.delta * g.delta;
}

static double screw_power(const fmb_force_t *f, const fmb_bodyview_t v[2], double t)
{
    (void)t;
    screw_geom_t g;
    screw_geometry(f, v, &g, NULL, NULL, NULL);
    return -f->c * g.deltad * g.deltad;
}

static double screw_vstick(const fmb_force_t *f)
{
    return f->par[FMB_SW_SCREW_VSTICK] > 0 ? f->par[FMB_SW_SCREW_VSTICK] : FMB_V_STICK_COULOMB;
}

static double screw_oneway(const fmb_force_t *f)
{
    return f->par[FMB_SW_SCREW_ONEWAY];
}

/* D_theta = dtheta/dq on the element's columns. */
static void screw_dtheta(const fmb_force_t *f, const fmb_bodyview_t v[2], double *Dt, double *thd)
{
    fmb_force_t fr = *f;
    fr.coord = FMB_REL_ROTATION;
    double th;
    fmb_rel_coord(&fr, v, &th, thd, Dt, NULL);
}

static void screw_lcp(const fmb_force_t *f, const fmb_bodyview_t v[2], double t, double v_n,
                      double *G, double *D, double *av, double *Az, double *b)
{
    (void)t, (void)v_n;
    const int n = v[0].nc + v[1].nc;
    screw_geom_t g;
    screw_geometry(f, v, &g, NULL, NULL, D);
    fmb_rel_coulomb_rows(n, D, f->par[FMB_SW_SCREW_MU] * fabs(g.Fn) / g.cl, G, av, Az, b, 4);
    const double s = screw_oneway(f);
    b[3] = 0.0;
    if (s == 0.0) { /* no lock: z3 = 0 */
        for (int k = 0; k < n; k++)
            G[3 * n + k] = 0.0;
        av[3] = 0.0, Az[3 + 4 * 3] = 1.0;
        return;
    }
    /* mu = 0 (checked): the thread rows are w = z, so the row D may be D_theta */
    double thd;
    screw_dtheta(f, v, D, &thd);
    for (int k = 0; k < n; k++)
        G[3 * n + k] = s * D[k];
    av[3] = s;
}

static int screw_mode(const fmb_force_t *f, const fmb_bodyview_t v[2], double t, const double *z,
                      double *force, double *vrel)
{
    (void)t, (void)z;
    screw_geom_t g;
    screw_geometry(f, v, &g, NULL, NULL, NULL);
    /* v = D_f . qd = -sin(lambda) xd + r cos(lambda) thetad (x = -s) */
    const double w = -g.sl * g.xd + g.r * g.cl * g.thd;
    *vrel = w;
    *force = g.Fn;
    return fabs(w) < screw_vstick(f) ? 0 : 1;
}

static double screw_velocity(const fmb_force_t *f, const fmb_bodyview_t v[2])
{
    if (screw_oneway(f) != 0.0) { /* the lock's velocity thetadot */
        double Dt[FMB_ELEM_COLS], thd;
        screw_dtheta(f, v, Dt, &thd);
        return thd;
    }
    screw_geom_t g;
    screw_geometry(f, v, &g, NULL, NULL, NULL);
    return -g.sl * g.xd + g.r * g.cl * g.thd;
}

/* History and event location on the helix sliding velocity. These wrappers have the shape
 * of ratchet.c's and dry_friction.c's, but each is already one call into relative.c; what
 * differs (the velocity function, the event's sign rule, tolerance and label) is what the
 * shared code needs, and the class table passes no per-class data that could carry it. */
static void screw_reset(const fmb_force_t *f, const fmb_bodyview_t v[2], double t)
{
    fmb_rel_history_reset(f, t, screw_velocity(f, v));
}

static void screw_accept(const fmb_force_t *f, const fmb_bodyview_t v[2], double t)
{
    fmb_rel_history_accept(f, t, screw_velocity(f, v));
}

static int screw_step_control(const fmb_force_t *f, const fmb_bodyview_t v0[2],
                              const fmb_bodyview_t v1[2], double t0, double h, double *h_max,
                              char *why, size_t len)
{
    const double w0 = screw_velocity(f, v0);
    if (screw_oneway(f) != 0.0) /* e = s thetadot > 0 while turning the allowed way */
        return fmb_rel_zero_event(f, screw_oneway(f), FMB_V_STICK_COULOMB, t0, h, w0,
                                  screw_velocity(f, v1), h_max, why, len,
                                  "one-way lock engagement");
    return fmb_rel_zero_event(f, w0 < 0 ? -1.0 : 1.0, screw_vstick(f), t0, h, w0,
                              screw_velocity(f, v1), h_max, why, len, "thread stick or reversal");
}

static int screw_check(const fmb_force_t *f, char *msg, size_t len)
{
    int rc = fmb_rel_check(f, msg, len);
    if (rc) return rc;
    if (!(f->par[FMB_SW_SCREW_LEAD] > 0) || !(f->par[FMB_SW_SCREW_RADIUS] > 0)) {
        snprintf(msg, len, "screw '%s': lead and radius must be > 0", f->name);
        return FMB_ERR_MODEL;
    }
    const double ow = f->par[FMB_SW_SCREW_ONEWAY];
    if (ow != 0.0 && ow != 1.0 && ow != -1.0) {
        snprintf(msg, len, "screw '%s': one_way must be 0, 1 or -1, got %g", f->name, ow);
        return FMB_ERR_MODEL;
    }
    if (ow != 0.0 && f->par[FMB_SW_SCREW_MU] != 0.0) {
        snprintf(msg, len,
                 "screw '%s': one_way needs mu: 0 (a frictionless irreversible screw; with "
                 "thread friction add a ratchet to the screw)",
                 f->name);
        return FMB_ERR_MODEL;
    }
    if (!(f->par[FMB_SW_SCREW_MU] >= 0) || !(f->k > 0) || !(f->c >= 0)) {
        snprintf(msg, len, "screw '%s': need mu >= 0, stiffness > 0, damping >= 0", f->name);
        return FMB_ERR_MODEL;
    }
    return 0;
}

static const char *const screw_modes[] = {"stick", "slip"};

/* Case keys; the nut moves along 'axis' (coordinate: direction always). */
static const fmb_param_t screw_params[] = {
    {.key = "axis",
     .kind = FMB_PARAM_VECTOR,
     .flags = FMB_PARAM_REQUIRED | FMB_PARAM_NONZERO | FMB_PARAM_UNIT,
     .n = 2,
     .offset = offsetof(fmb_force_desc_t, axis),
     .unit = "-",
     .doc = "inertial direction in which the nut moves"},
    FMB_FORCE_NUM("lead", param[FMB_SW_SCREW_LEAD], FMB_PARAM_REQUIRED | FMB_PARAM_MIN_OPEN, 0, 0,
                  "m", "advance per turn"),
    FMB_FORCE_NUM("radius", param[FMB_SW_SCREW_RADIUS], FMB_PARAM_REQUIRED | FMB_PARAM_MIN_OPEN, 0,
                  0, "m", "mean thread radius"),
    FMB_FORCE_NUM("mu", param[FMB_SW_SCREW_MU], FMB_PARAM_REQUIRED | FMB_PARAM_MIN, 0, 0, "-",
                  "thread friction coefficient"),
    FMB_FORCE_NUM("stiffness", stiffness, FMB_PARAM_REQUIRED | FMB_PARAM_MIN_OPEN, 0, 0, "N/m",
                  "thread stiffness"),
    FMB_FORCE_NUM("damping", damping, FMB_PARAM_MIN, 0, 0, "N s/m", "thread damping"),
    FMB_FORCE_NUM("v_stick", param[FMB_SW_SCREW_VSTICK], FMB_PARAM_MIN_OPEN, 0, FMB_V_STICK_COULOMB,
                  "m/s", "relative velocity below which the thread may stick"),
    FMB_FORCE_NUM("preload", param[FMB_SW_SCREW_PRELOAD], 0, 0, 0, "N",
                  "thread force F_n on the nut (+axis) in the initial poses (at rest a stuck "
                  "thread on a free screw carries -W cos^2(lambda) of an axial load W)"),
    FMB_FORCE_NUM("one_way", param[FMB_SW_SCREW_ONEWAY], 0, 0, 0, "-",
                  "0, or the only sense the screw turns in relative to the nut (+1, -1; needs "
                  "mu: 0): a frictionless irreversible screw"),
    {0}};

static int screw_prepare(fmb_item_env_t *env, fmb_force_desc_t *d)
{
    d->coordinate = FMB_REL_DIRECTION;
    double x0;
    int rc = fmb_rel_prepare(env, d, &x0);
    if (rc) return rc;
    /* thread force `preload` in the initial poses (0: at rest): k (L theta0 + x0 - delta0)
     * = preload, i.e. delta0 = L theta0 + x0 - preload / k (x0 = -s0) */
    d->rest_length = d->param[FMB_SW_SCREW_LEAD] / (2.0 * 3.14159265358979323846) *
                         (env->pose[0][2] - env->pose[1][2]) +
                     x0 - d->param[FMB_SW_SCREW_PRELOAD] / d->stiffness;
    return 0;
}

const fmb_force_class_t fmb_screw_class = {
    .name = "screw",
    .nbodies = 2,
    .eval = screw_eval,
    .potential = screw_potential,
    .power = screw_power,
    .check = screw_check,
    .step_control = screw_step_control,
    .nstate = FMB_REL_HIST,
    .reset = screw_reset,
    .accept = screw_accept,
    .nz = 4,
    .lcp = screw_lcp,
    .mode = screw_mode,
    .mode_names = screw_modes,
    .nmodes = 2,
    .case_type = "screw",
    .item_flags = FMB_ITEM_BODIES | FMB_ITEM_POINTS | FMB_ITEM_DISTINCT,
    .params = screw_params,
    .prepare = screw_prepare,
};
