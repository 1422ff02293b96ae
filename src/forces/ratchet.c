/*
 * One-way drive: ratchet, freewheel, sprag clutch (seed 004, eq 17; docs/switching.md).
 * Relative coordinate x (forces/relative.c; x = theta0 - theta1 for a freewheel) with
 * rate v = D . qd and drive sense s = +1 or -1 (param[FMB_SW_RATCHET_SENSE]). The drive
 * transmits a force lambda >= 0 that keeps s v <= 0: with s = +1, body 0 (input) cannot
 * turn faster than body 1 (output) in the + sense, so it drives body 1 forward, while
 * body 1 may overrun (v < 0) freely. A unilateral velocity constraint solved by
 * complementarity, not by a penalty:
 *   lambda >= 0  _|_  w = -s v_new >= 0,     force along x: F = -s lambda,
 * generalized force Q = -s lambda D^T (G = -s D per unit lambda). With body 1 the ground
 * and s = -1 it is a backstop (body 0 cannot turn backwards). Engagement from overrun is
 * a perfectly plastic impact (the relative velocity is zero after the step).
 * Modes: "free" (lambda = 0: overrunning or idle), "engaged" (lambda > 0).
 *
 * Engagement event (step_control; docs/switching.md "Switch events"): e = -s v > 0 while
 * the drive overruns, e = 0 engaged; the relative velocity reaches zero with a jump of the
 * relative acceleration (lambda switches on). A step that starts overrunning (e0 > v_tol =
 * FMB_V_STICK_COULOMB) and ends engaged is retried to end at the root of e(t) fitted
 * through the last accepted states (forces/relative.c fmb_rel_zero_event); the step that
 * ends there returns 3: the accelerations are re-solved with the element engaged
 * (stepctl.c), so the next step starts in the new mode. A release
 * (lambda -> 0) is continuous in the accelerations and not located.
 */
#include "forces/forces.h"

static void ra_eval(const fmb_force_t *f, const fmb_bodyview_t v[2], double t, double *Q0,
                    double *Q1, double *K, double *C)
{
    (void)f, (void)v, (void)t, (void)Q0, (void)Q1, (void)K, (void)C;
}

static double ra_sense(const fmb_force_t *f)
{
    return f->par[FMB_SW_RATCHET_SENSE] < 0 ? -1.0 : 1.0;
}

static void ra_lcp(const fmb_force_t *f, const fmb_bodyview_t v[2], double t, double v_n, double *G,
                   double *D, double *av, double *Az, double *b)
{
    (void)t, (void)v_n;
    const int n = v[0].nc + v[1].nc;
    const double s = ra_sense(f);
    double x, xd;
    fmb_rel_coord(f, v, &x, &xd, D, NULL);
    for (int k = 0; k < n; k++)
        G[k] = -s * D[k];
    av[0] = -s, Az[0] = 0.0, b[0] = 0.0;
}

static int ra_mode(const fmb_force_t *f, const fmb_bodyview_t v[2], double t, const double *z,
                   double *force, double *vrel)
{
    (void)t;
    double x;
    fmb_rel_coord(f, v, &x, vrel, NULL, NULL);
    const double lam = z ? z[0] : 0.0;
    *force = -ra_sense(f) * lam;
    return lam > 0.0 ? 1 : 0;
}

static void ra_reset(const fmb_force_t *f, const fmb_bodyview_t v[2], double t)
{
    fmb_rel_history_reset(f, t, fmb_rel_velocity(f, v));
}

static void ra_accept(const fmb_force_t *f, const fmb_bodyview_t v[2], double t)
{
    fmb_rel_history_accept(f, t, fmb_rel_velocity(f, v));
}

static int ra_step_control(const fmb_force_t *f, const fmb_bodyview_t v0[2],
                           const fmb_bodyview_t v1[2], double t0, double h, double *h_max,
                           char *why, size_t len)
{
    return fmb_rel_zero_event(f, -ra_sense(f), FMB_V_STICK_COULOMB, t0, h, fmb_rel_velocity(f, v0),
                              fmb_rel_velocity(f, v1), h_max, why, len, "engagement");
}

static int ra_check(const fmb_force_t *f, char *msg, size_t len)
{
    int rc = fmb_rel_check(f, msg, len);
    if (rc) return rc;
    if (fabs(fabs(f->par[FMB_SW_RATCHET_SENSE]) - 1.0) > 0) {
        snprintf(msg, len, "ratchet '%s': sense must be +1 or -1, got %g", f->name,
                 f->par[FMB_SW_RATCHET_SENSE]);
        return FMB_ERR_MODEL;
    }
    return 0;
}

static const char *const ra_modes[] = {"free", "engaged"};

static const fmb_param_t ra_params[] = {FMB_REL_PARAMS,
                                        FMB_FORCE_NUM("sense", param[FMB_SW_RATCHET_SENSE], 0, 0, 1,
                                                      "-",
                                                      "drive sense: 1 or -1 (docs/switching.md)"),
                                        {0}};

static int ra_prepare(fmb_item_env_t *env, fmb_force_desc_t *d)
{
    double x0;
    int rc = fmb_rel_prepare(env, d, &x0);
    if (rc) return rc;
    const double s = d->param[FMB_SW_RATCHET_SENSE];
    if (s != 1 && s != -1)
        return fmb_item_fail(env, "sense", -1, "sense must be 1 or -1, got %g", s);
    return 0;
}

const fmb_force_class_t fmb_ratchet_class = {
    .name = "ratchet",
    .nbodies = 2,
    .eval = ra_eval,
    .check = ra_check,
    .step_control = ra_step_control,
    .nstate = FMB_REL_HIST,
    .reset = ra_reset,
    .accept = ra_accept,
    .nz = 1,
    .lcp = ra_lcp,
    .mode = ra_mode,
    .mode_names = ra_modes,
    .nmodes = 2,
    .case_type = "ratchet",
    .item_flags = FMB_ITEM_BODIES | FMB_ITEM_POINTS | FMB_ITEM_DISTINCT,
    .params = ra_params,
    .prepare = ra_prepare,
};
