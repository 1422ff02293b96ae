/*
 * Backlash / gap contact (seed 004, eqs 11-16; docs/switching.md). Relative coordinate x
 * (forces/relative.c: x = theta0 - theta1 or e . (r_P0 - r_P1)); free for lo < x < hi
 * (mode "open"); contact on either side with penetration d and its rate dd:
 *   upper (x >= hi): d = x - hi,  dd = xd,   F = -Fn(d, dd)   (pushes x back down)
 *   lower (x <= lo): d = lo - x,  dd = -xd,  F = +Fn(d, dd)
 * with the normal force law (param[FMB_SW_GAP_LAW])
 *   0 linear (seed eq 15):       Fn = k d + c dd
 *   1 Hunt-Crossley (1975):      Fn = k d^n (1 + c dd)      (c in s/m, n = param[EXP])
 * clamped at Fn >= 0: the contact pushes, never pulls (the seed's k(x - b) + c v would
 * pull while the bodies separate; a machine designer expects a contact that only pushes).
 * The force acts along x: Q = F D^T (D = dx/dq).
 * Jacobian, in contact with Fn > 0 (zero otherwise): F_x = -dFn/dd, F_xd = -dFn/ddd,
 *   linear: dFn/dd = k, dFn/ddd = c;
 *   Hunt-Crossley: dFn/dd = n k d^(n-1) (1 + c dd), dFn/ddd = c k d^n;
 *   dQ/dq = D^T (F_x D + F_xd dxd/dq) + F d2x/dq2,  dQ/dqd = F_xd D^T D.
 * No potential (the clamp makes the force path-dependent): the work is integrated.
 *
 * Events (step_control; docs/switching.md "Gap events"): the contact's start and end are
 * located to the tolerance tol = param[FMB_SW_GAP_TOL] on the penetration (0: none), on
 * the event functions e = d (onset, end at d = 0) and e = Fn unclamped (end by the clamp:
 * a damped contact lets go where k d + c dd = 0, before d = 0; tolerance Fn(tol, 0)).
 * A converged step across a switch (e changes sign) is accepted only as a short crossing
 * step, |e| <= its tolerance at both ends; otherwise it is rejected and retried with the
 * step that, interpolating e linearly, ends half a tolerance before the switch (or, from
 * within a tolerance of it, half a tolerance past it): a secant iteration on the event
 * time, each try a converged step. Why the crossing step: the trapezoidal velocity update
 * carries the acceleration at a step's end into the next step, so a force jump (c v at
 * the onset of a damped linear contact) at a step boundary would be spread over one of
 * the two steps; inside a crossing step of length ~ 2 tol / |dd| it costs a velocity error
 * of that length times the jump / 2m. The traversal time of a gap is then that of the
 * motion to within tol / |dd|.
 */
#include "forces/forces.h"

/* History (GAP_OPEN) of the last accepted state: 1 open, 0 touching, -1 a contact whose
 * onset the step has just ended on (GAP_ARM: set by step_control for accept()). The
 * contact starts at d >= band: an open gap stays open to band = 1e-2 of the event
 * tolerance (the Newton iterates of a step that ends on the onset straddle d = 0 by
 * round-off, where the linear law's force jumps by c dd), a contact whose onset was just
 * located starts at d >= -band, a touching one at d >= 0 (0 with the location off). */
enum { GAP_OPEN = 0, GAP_ARM = 1, GAP_NSTATE = 2 };
static double gap_band(const fmb_force_t *f)
{
    if (!f->state || f->state[GAP_OPEN] == 0.0) return 0.0;
    return 1e-2 * f->par[FMB_SW_GAP_TOL] * f->state[GAP_OPEN];
}

/* Contact force along x and its partial derivatives; returns the mode. */
static int gap_law(const fmb_force_t *f, double x, double xd, double *F, double *Fx, double *Fxd)
{
    const double lo = f->par[FMB_SW_GAP_LO], hi = f->par[FMB_SW_GAP_HI], band = gap_band(f);
    *F = *Fx = *Fxd = 0.0;
    double d, dd, s;
    int mode;
    if (x - hi >= band && x - hi >= lo - x)
        d = x - hi, dd = xd, s = -1.0, mode = 2;
    else if (lo - x >= band)
        d = lo - x, dd = -xd, s = 1.0, mode = 1;
    else
        return 0;
    double Fn, Fd, Fdd;
    if ((int)f->par[FMB_SW_GAP_LAW] == 1) {
        const double ne = f->par[FMB_SW_GAP_EXP], dn = pow(fmax(d, 0.0), ne);
        Fn = f->k * dn * (1.0 + f->c * dd);
        Fd = d > 0 ? ne * f->k * pow(d, ne - 1.0) * (1.0 + f->c * dd) : 0.0;
        Fdd = f->c * f->k * dn;
    } else {
        Fn = f->k * d + f->c * dd;
        Fd = f->k, Fdd = f->c;
    }
    if (Fn <= 0.0) return mode; /* separating faster than the spring pushes: no tension */
    /* F = s Fn(d(x), dd(xd)) with d(d)/dx = d(dd)/d(xd) = -s and s^2 = 1 */
    *F = s * Fn;
    *Fx = -Fd;
    *Fxd = -Fdd;
    return mode;
}

static void gap_eval(const fmb_force_t *f, const fmb_bodyview_t v[2], double t, double *Q0,
                     double *Q1, double *K, double *C)
{
    (void)t;
    double x, xd, D[FMB_ELEM_COLS], F, Fx, Fxd;
    fmb_rel_coord(f, v, &x, &xd, D, NULL);
    gap_law(f, x, xd, &F, &Fx, &Fxd);
    if (F == 0.0) return;
    fmb_rel_apply(v, D, F, Q0, Q1);
    if (K || C) fmb_rel_tangent(f, v, F, Fx, Fxd, K, C);
}

static double gap_power(const fmb_force_t *f, const fmb_bodyview_t v[2], double t)
{
    (void)t;
    double x, xd, F, Fx, Fxd;
    fmb_rel_coord(f, v, &x, &xd, NULL, NULL);
    gap_law(f, x, xd, &F, &Fx, &Fxd);
    return F * xd;
}

static int gap_mode(const fmb_force_t *f, const fmb_bodyview_t v[2], double t, const double *z,
                    double *force, double *vrel)
{
    (void)t, (void)z;
    double x, xd, Fx, Fxd;
    fmb_rel_coord(f, v, &x, &xd, NULL, NULL);
    *vrel = xd;
    return gap_law(f, x, xd, force, &Fx, &Fxd);
}

/* The history: open (1) or touching (0) at the last accepted state. */
static void gap_accept(const fmb_force_t *f, const fmb_bodyview_t v[2], double t)
{
    (void)t;
    if (f->state[GAP_ARM] != 0.0) { /* the step ended on the onset (step_control) */
        f->state[GAP_OPEN] = -1.0, f->state[GAP_ARM] = 0.0;
        return;
    }
    double x, xd, F, Fx, Fxd;
    fmb_rel_coord(f, v, &x, &xd, NULL, NULL);
    f->state[GAP_OPEN] = gap_law(f, x, xd, &F, &Fx, &Fxd) == 0 ? 1.0 : 0.0;
}

static void gap_reset(const fmb_force_t *f, const fmb_bodyview_t v[2], double t)
{
    f->state[GAP_OPEN] = f->state[GAP_ARM] = 0.0; /* the start: touching at d >= 0 */
    gap_accept(f, v, t);
}

static int gap_check(const fmb_force_t *f, char *msg, size_t len)
{
    int rc = fmb_rel_check(f, msg, len);
    if (rc) return rc;
    const double lo = f->par[FMB_SW_GAP_LO], hi = f->par[FMB_SW_GAP_HI];
    const int law = (int)f->par[FMB_SW_GAP_LAW];
    if (!(lo <= hi)) {
        snprintf(msg, len, "gap '%s': the lower limit %g is above the upper limit %g", f->name, lo,
                 hi);
        return FMB_ERR_MODEL;
    }
    if (!(f->k > 0) || !(f->c >= 0)) {
        snprintf(msg, len, "gap '%s': stiffness must be > 0 and damping >= 0", f->name);
        return FMB_ERR_MODEL;
    }
    if (law != 0 && law != 1) {
        snprintf(msg, len, "gap '%s': unknown contact law %d", f->name, law);
        return FMB_ERR_MODEL;
    }
    if (!(f->par[FMB_SW_GAP_TOL] >= 0)) {
        snprintf(msg, len, "gap '%s': the event tolerance must be >= 0", f->name);
        return FMB_ERR_MODEL;
    }
    if (law == 1 && !(f->par[FMB_SW_GAP_EXP] >= 1.0)) {
        snprintf(msg, len, "gap '%s': Hunt-Crossley exponent must be >= 1", f->name);
        return FMB_ERR_MODEL;
    }
    return 0;
}

/* Error measure (step_error, adaptive runs): the relative coordinate's local error (its
 * rate on the error views) over the free range hi - lo: the play measured on its own
 * scale (none for a gap without play). */
static double gap_step_error(const fmb_force_t *f, const fmb_bodyview_t v[2],
                             const fmb_bodyview_t dv[2])
{
    (void)v;
    const double w = f->par[FMB_SW_GAP_HI] - f->par[FMB_SW_GAP_LO];
    if (!(w > 0)) return 0.0;
    return fabs(fmb_rel_velocity(f, dv)) / w;
}

/* Penetration d (> 0: past a limit, on the side where x is nearer), its rate and the
 * unclamped normal force. */
static void gap_state(const fmb_force_t *f, const fmb_bodyview_t v[2], double *d, double *dd,
                      double *Fn)
{
    const double lo = f->par[FMB_SW_GAP_LO], hi = f->par[FMB_SW_GAP_HI];
    double x, xd;
    fmb_rel_coord(f, v, &x, &xd, NULL, NULL);
    const int upper = x - hi > lo - x;
    *d = upper ? x - hi : lo - x;
    *dd = upper ? xd : -xd;
    const double dp = fmax(*d, 0.0);
    *Fn = (int)f->par[FMB_SW_GAP_LAW] == 1
              ? f->k * pow(dp, f->par[FMB_SW_GAP_EXP]) * (1.0 + f->c * *dd)
              : f->k * dp + f->c * *dd;
}

static int gap_step_control(const fmb_force_t *f, const fmb_bodyview_t v0[2],
                            const fmb_bodyview_t v1[2], double t0, double h, double *h_max,
                            char *why, size_t len)
{
    (void)t0;
    const double tol = f->par[FMB_SW_GAP_TOL];
    if (!(tol > 0)) return 0;
    f->state[GAP_ARM] = 0.0;
    double d0, dd0, F0, d1, dd1, F1;
    gap_state(f, v0, &d0, &dd0, &F0);
    gap_state(f, v1, &d1, &dd1, &F1);
    /* the onset of a gap open at t0 is at d = band (gap_law) */
    const double band = gap_band(f);
    const int on0 = d0 > band && F0 > 0;
    if (f->state[GAP_OPEN] > 0 && d0 < -band && fabs(d1) <= band &&
        (int)f->par[FMB_SW_GAP_LAW] == 0 && f->c * dd1 > 0) {
        /* the step ends on the onset of a damped linear contact (a record time, or a
         * located retry): its force jumps to c dd there. Accepted with the contact started
         * at its end (GAP_ARM, accept()) and the accelerations re-solved with that force
         * (return 3, solve/restart.c), so that no step spreads the jump */
        f->state[GAP_ARM] = 1.0;
        return 3;
    }
    const double Ftol =
        (int)f->par[FMB_SW_GAP_LAW] == 1 ? f->k * pow(tol, f->par[FMB_SW_GAP_EXP]) : f->k * tol;
    /* event function e, switching where it changes sign; e0 at t0, e1 at t0 + h, its
     * tolerance et. Accepted only as the short crossing step |e0|, |e1| <= et. */
    double e0, e1, et;
    const char *what;
    if (!on0 && d0 <= band && d1 > band)
        e0 = d0 - band, e1 = d1 - band, et = tol, what = "contact onset";
    else if (on0 && d1 <= 0)
        e0 = d0, e1 = d1, et = tol, what = "contact end";
    else if (on0 && F1 <= 0)
        e0 = F0, e1 = F1, et = Ftol, what = "contact end (force released)";
    else
        return 0;
    if (fabs(e0) <= et && fabs(e1) <= et) return 0; /* the crossing step */
    /* a step that moves e by no more than a crossing step does, or the bodies by less
     * than the tolerance, is as short as a crossing step: the switch acts inside it as
     * well. (At a tolerance near the iteration's own accuracy |e| <= et cannot be hit:
     * the velocities of a step of length h carry the position error / h, and the secant
     * would shrink the step without end.) */
    if (fabs(e1 - e0) <= 2.0 * et || fabs(d1 - d0) <= tol) return 0;
    /* retry ending half a tolerance before the switch, or, from within a tolerance of
     * it, half a tolerance past it (the crossing step) */
    const double target =
        fabs(e0) > et ? 0.5 * et * (e0 > 0 ? 1 : -1) : 0.5 * et * (e1 > 0 ? 1 : -1);
    *h_max = h * (target - e0) / (e1 - e0);
    if (why)
        snprintf(why, len, "%s located (penetration %.3g -> %.3g, tolerance %.3g)", what, d0, d1,
                 tol);
    return 1;
}

static const char *const gap_modes[] = {"open", "contact_lower", "contact_upper"};

/* Case keys: 'limits' are read relative to the initial coordinate x0 into
 * param[LO], param[HI] and made absolute by gap_prepare. */
static const char *const gap_laws[] = {"linear", "hunt_crossley", NULL};
static const fmb_param_t gap_params[] = {
    FMB_REL_PARAMS,
    {.key = "limits",
     .kind = FMB_PARAM_VECTOR,
     .flags = FMB_PARAM_REQUIRED,
     .n = 2,
     .offset = offsetof(fmb_force_desc_t, param[FMB_SW_GAP_LO]),
     .unit = "m or rad",
     .doc = "[lower, upper] of the free range relative to the initial position"},
    {.key = "law",
     .kind = FMB_PARAM_ENUM,
     .flags = FMB_PARAM_IN_DOUBLE,
     .offset = offsetof(fmb_force_desc_t, param[FMB_SW_GAP_LAW]),
     .dflt_text = "linear",
     .choices = gap_laws,
     .unit = "-",
     .doc = "contact law"},
    FMB_FORCE_NUM("stiffness", stiffness, FMB_PARAM_REQUIRED | FMB_PARAM_MIN_OPEN, 0, 0,
                  "N/m or N m/rad", "contact stiffness"),
    FMB_FORCE_NUM("damping", damping, FMB_PARAM_MIN, 0, 0, "N s/m (hunt_crossley: s/m)",
                  "contact damping"),
    FMB_FORCE_NUM("exponent", param[FMB_SW_GAP_EXP], FMB_PARAM_MIN | FMB_PARAM_DERIVED, 1, 0, "-",
                  "hunt_crossley exponent n (default 1.5)"),
    FMB_FORCE_NUM("event_tol", param[FMB_SW_GAP_TOL], FMB_PARAM_MIN | FMB_PARAM_DERIVED, 0, 0,
                  "m or rad",
                  "contact start and end located to this penetration (default 1e-6 of the "
                  "nearer initial distance to a limit; 0: off)"),
    {0}};

static int gap_prepare(fmb_item_env_t *env, fmb_force_desc_t *d)
{
    double x0;
    int rc = fmb_rel_prepare(env, d, &x0);
    if (rc) return rc;
    double *p = d->param;
    if (!(p[FMB_SW_GAP_LO] <= 0 && p[FMB_SW_GAP_HI] >= 0))
        return fmb_item_fail(env, "limits", -1,
                             "limits [%g, %g] must bracket the initial position (lower <= 0 <= "
                             "upper, relative to it)",
                             p[FMB_SW_GAP_LO], p[FMB_SW_GAP_HI]);
    p[FMB_SW_GAP_LO] += x0, p[FMB_SW_GAP_HI] += x0;
    if (fmb_item_given(env, "exponent") && p[FMB_SW_GAP_LAW] != 1)
        return fmb_item_fail(env, "exponent", -1, "'exponent' belongs to law: hunt_crossley");
    if (!fmb_item_given(env, "exponent")) p[FMB_SW_GAP_EXP] = p[FMB_SW_GAP_LAW] == 1 ? 1.5 : 1.0;
    if (!fmb_item_given(env, "event_tol")) {
        /* 1e-6 of the nearer initial distance to a limit (1e-9 when it touches both) */
        const double dl = x0 - p[FMB_SW_GAP_LO], du = p[FMB_SW_GAP_HI] - x0;
        const double near = dl > 0 && du > 0 ? fmin(dl, du) : fmax(dl, du);
        p[FMB_SW_GAP_TOL] = near > 0 ? 1e-6 * near : 1e-9;
    }
    return 0;
}

const fmb_force_class_t fmb_gap_class = {
    .name = "gap",
    .nbodies = 2,
    .eval = gap_eval,
    .power = gap_power,
    .check = gap_check,
    .step_control = gap_step_control,
    .step_error = gap_step_error,
    .nstate = GAP_NSTATE,
    .reset = gap_reset,
    .accept = gap_accept,
    .mode = gap_mode,
    .mode_names = gap_modes,
    .nmodes = 3,
    .case_type = "gap",
    .item_flags = FMB_ITEM_BODIES | FMB_ITEM_POINTS | FMB_ITEM_DISTINCT,
    .params = gap_params,
    .prepare = gap_prepare,
};
