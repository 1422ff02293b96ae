/*
 * Dry friction with stick/slip between two bodies (seed 004, eqs 9-11; docs/switching.md),
 * in rotation (a brake or bearing torque: x = theta0 - theta1) or along an inertial axis
 * (x = e . (r_P0 - r_P1)); forces/relative.c gives x, its rate v and D = dx/dq.
 * Friction force along x (on body 0; the opposite on body 1): F = beta1 - beta2, a
 * set-valued Coulomb law with capacity Fmax,
 *   v > 0: F = -Fmax,  v < 0: F = +Fmax,  v = 0 (stick): |F| <= Fmax,
 * Fmax = F_static after a step that ended sticking (|v_n| < v_stick and not sliding: see
 * the capacity rule below), else F_kinetic
 * (the seed's Fstick / Fslip; its eq 10: while stuck the friction equals the applied
 * force up to the static level). Written as the LCP (v: relative velocity at the end of
 * the step; the same form as the slider faces of contact_step.c)
 *   beta1 >= 0 _|_  v + sigma >= 0,   beta2 >= 0 _|_ -v + sigma >= 0,
 *   sigma >= 0 _|_  Fmax - beta1 - beta2 >= 0
 * (sigma = |v|). Generalized force Q = (beta1 - beta2) D^T: G = [D, -D, 0] per unit z.
 * The element has no smooth part (eval adds nothing; K = C = 0): its force is solved as
 * a total in every Newton iteration (solve/switch_step.c). G and D are on the element's
 * columns (model.h, column-compressed).
 *
 * Stick and reversal events (step_control; docs/switching.md "Switch events"): a sliding
 * element (|v0| > v_stick) whose step ends at or past v = 0 (sg v1 <= v_stick, sg = sgn v0)
 * is located as the ratchet's engagement (forces/relative.c fmb_rel_zero_event; the
 * friction force jumps from -Fk sgn v to the sticking force or to +Fk sgn v there) and the
 * accelerations re-solved after it (return 3). The breakaway (stick -> slip, when static >
 * kinetic: the force drops from Fs to Fk) is located on e = Fs - |F(t)|, F the sticking
 * force recorded by mode() at the accepted states (fmb_rel_breakaway_event). Capacity:
 * Fmax = static when |v_n| < v_stick and the element was not sliding at the last accepted
 * state (FR_SLIDING: it slipped, or broke away at the static level; a located stop ends
 * it), else kinetic: a slow slide below v_stick keeps the kinetic level (Coulomb).
 *
 * LuGre variant (`model: lugre`; a second class chosen by fr_specialize): a smooth force
 * with a bristle state, no LCP. Levels in force units: g(v) = Fk + (Fs - Fk)
 * exp(-(|v|/vs)^gamma), sigma0 in N/m or N m/rad, and F = -f with f the LuGre level of
 * contact/lugre.c (shared with the slider contacts):
 *   zd = (v - a z_n) / (1 + h a),  z = z_n + h zd,  a = sigma0 |v| / g(v),
 *   f = sigma0 z + sigma1 zd + sigma2 v,
 * backward Euler over the step from the accepted z_n at t_n to the iterate at t, h = t - t_n
 * (state: z_n, zd_n, t_n; accept() moves them to the converged end of the step). At t = t_n
 * (outputs, power, the start) f is the level of the accepted z_n, zd_n: the force of the
 * converged step. The start has zd = 0 and z at rest (0), or in its sliding steady state
 * g(v) sgn(v) / sigma0 when the element moves: the continuous law would put the bristle
 * damping sigma1 v of relaxed bristles into the initial accelerations (a spike of width
 * g/(sigma0 |v|), far below h, which the trapezoidal velocity update would spread over a
 * whole step).
 * Inside the step z is a function
 * of v alone, so the Newton tangent is exact: Q = F D^T,
 *   dQ/dqd = -f'(v) D^T D,   dQ/dq = -f'(v) D^T Dv + F d2x/dq2 (forces/relative.c).
 * A rejected step leaves z_n, t_n untouched, so its retry integrates z over the new h.
 */
#include "forces/forces.h"

#include "contact/lugre.h"

#include <string.h>

static void fr_eval(const fmb_force_t *f, const fmb_bodyview_t v[2], double t, double *Q0,
                    double *Q1, double *K, double *C)
{
    (void)f, (void)v, (void)t, (void)Q0, (void)Q1, (void)K, (void)C;
}

/* v_stick, or the law's default when 0 (flexmb.h FMB_V_STICK_*) */
static double fr_vstick(const fmb_force_t *f)
{
    return f->par[FMB_SW_FR_VSTICK] > 0 ? f->par[FMB_SW_FR_VSTICK] : FMB_V_STICK_COULOMB;
}

static double lg_vstick(const fmb_force_t *f)
{
    return f->par[FMB_SW_FR_VSTICK] > 0 ? f->par[FMB_SW_FR_VSTICK] : FMB_V_STICK_LUGRE;
}

/* f->state: the switch-event history (relative.c), then the sliding flag of the capacity
 * rule: 1 after an accepted state that slips (the LCP's sigma = z[2] > 0) or is at the
 * static level below v_stick (to 1e-9: breaking away, or stuck there at a located
 * breakaway); 0 after one that sticks (sigma = 0) or arrives at zero speed (|v| <= 1e-6
 * v_stick after a state above it: a located stop or reversal, where the static level
 * applies again); a slip at zero speed from zero speed (round-off) leaves it. */
enum { FR_SLIDING = FMB_REL_HIST, FR_NSTATE = FMB_REL_HIST + 1 };

static void fr_lcp(const fmb_force_t *f, const fmb_bodyview_t v[2], double t, double v_n, double *G,
                   double *D, double *av, double *Az, double *b)
{
    (void)t;
    const int n = v[0].nc + v[1].nc;
    double x, xd;
    fmb_rel_coord(f, v, &x, &xd, D, NULL);
    const double cap = fabs(v_n) < fr_vstick(f) && f->state[FR_SLIDING] == 0.0
                           ? f->par[FMB_SW_FR_STATIC]
                           : f->par[FMB_SW_FR_KINETIC];
    fmb_rel_coulomb_rows(n, D, cap, G, av, Az, b, 3);
}

static void fr_reset(const fmb_force_t *f, const fmb_bodyview_t v[2], double t)
{
    fmb_rel_history_reset(f, t, fmb_rel_velocity(f, v));
    f->state[FR_SLIDING] = 0.0;
}

static void fr_accept(const fmb_force_t *f, const fmb_bodyview_t v[2], double t)
{
    fmb_rel_history_accept(f, t, fmb_rel_velocity(f, v));
}

static int fr_step_control(const fmb_force_t *f, const fmb_bodyview_t v0[2],
                           const fmb_bodyview_t v1[2], double t0, double h, double *h_max,
                           char *why, size_t len)
{
    const double w0 = fmb_rel_velocity(f, v0), w1 = fmb_rel_velocity(f, v1);
    const int r = fmb_rel_zero_event(f, w0 < 0 ? -1.0 : 1.0, fr_vstick(f), t0, h, w0, w1, h_max,
                                     why, len, "stick or reversal");
    /* the breakaway drops the force from the static to the kinetic level: located when
     * they differ (else the force is continuous there) */
    if (r || !(f->par[FMB_SW_FR_STATIC] > f->par[FMB_SW_FR_KINETIC])) return r;
    return fmb_rel_breakaway_event(f, f->par[FMB_SW_FR_STATIC], fr_vstick(f), t0, h, w0, w1, h_max,
                                   why, len);
}

static int fr_mode(const fmb_force_t *f, const fmb_bodyview_t v[2], double t, const double *z,
                   double *force, double *vrel)
{
    double x;
    fmb_rel_coord(f, v, &x, vrel, NULL, NULL);
    *force = z ? z[0] - z[1] : 0.0;
    /* mode() runs once per accepted state (after accept()) with the step's unknowns:
     * record the force and the slip (sigma = z[2] > 0) for the breakaway event, and the
     * sliding flag of the capacity rule */
    /* a zero capacity (kinetic 0) has no sigma in its rows: it slips when it moves */
    const int slipping = z && (z[2] > 0.0 || (f->par[FMB_SW_FR_KINETIC] == 0.0 && z[0] == 0.0 &&
                                              z[1] == 0.0 && fabs(*vrel) > 1e-6 * fr_vstick(f)));
    fmb_rel_history_force(f, t, *force, slipping);
    const double vs = fr_vstick(f), av = fabs(*vrel);
    if (av < vs && fabs(*force) >= (1.0 - 1e-9) * f->par[FMB_SW_FR_STATIC])
        f->state[FR_SLIDING] = 1.0; /* at the static level: breaking away (or located there) */
    else if (!slipping)
        f->state[FR_SLIDING] = 0.0; /* stuck */
    else if (av > 1e-6 * vs)
        f->state[FR_SLIDING] = 1.0; /* slipping */
    else if (fabs(fmb_rel_history_velocity(f, 1)) > 1e-6 * vs)
        f->state[FR_SLIDING] = 0.0; /* arrived at zero speed: a located stop or reversal */
    /* else: at zero speed from zero speed (round-off slip): unchanged */
    return fabs(*vrel) < fr_vstick(f) ? 0 : 1;
}

static int fr_check(const fmb_force_t *f, char *msg, size_t len)
{
    int rc = fmb_rel_check(f, msg, len);
    if (rc) return rc;
    const double fs = f->par[FMB_SW_FR_STATIC], fk = f->par[FMB_SW_FR_KINETIC];
    if (!(fk >= 0) || !(fs >= fk)) {
        snprintf(msg, len,
                 "dry_friction '%s': need static >= kinetic >= 0 (got static %g, kinetic %g)",
                 f->name, fs, fk);
        return FMB_ERR_MODEL;
    }
    if (!(f->par[FMB_SW_FR_VSTICK] >= 0)) {
        snprintf(msg, len, "dry_friction '%s': v_stick must be >= 0", f->name);
        return FMB_ERR_MODEL;
    }
    return 0;
}

static const char *const fr_modes[] = {"stick", "slip"};

/* ---- LuGre (smooth, bristle state z) ---------------------------------------------- */
enum { LG_Z = 0, LG_T = 1, LG_ZD = 2 };

/* The law over the step t_n -> t; at t = t_n (the accepted state, the start) the level
 * of the accepted z and zd, so that the output, the power and the start's accelerations
 * are those of the converged step. */
/* The LuGre parameters with the element's static and kinetic values as the levels. */
static fmb_friction_desc_t lg_desc(const fmb_force_t *f)
{
    fmb_friction_desc_t d = f->fr;
    d.mu = f->par[FMB_SW_FR_KINETIC], d.mu0 = f->par[FMB_SW_FR_STATIC];
    return d;
}

static fmb_lugre_t lg_law(const fmb_force_t *f, double v, double t)
{
    const fmb_friction_desc_t d = lg_desc(f);
    const double h = t - f->state[LG_T];
    if (!(h > 0)) return fmb_lugre_level(&d, f->state[LG_Z], f->state[LG_ZD], v);
    return fmb_lugre_step(&d, f->state[LG_Z], v, h);
}

static void lg_eval(const fmb_force_t *f, const fmb_bodyview_t v[2], double t, double *Q0,
                    double *Q1, double *K, double *C)
{
    const int n = v[0].nc + v[1].nc;
    if (n == 0) return;
    double x, xd, D[FMB_ELEM_COLS];
    fmb_rel_coord(f, v, &x, &xd, D, NULL);
    const fmb_lugre_t o = lg_law(f, xd, t);
    fmb_rel_apply(v, D, -o.f, Q0, Q1);
    if (K || C) fmb_rel_tangent(f, v, -o.f, 0.0, -o.df, K, C);
}

static double lg_power(const fmb_force_t *f, const fmb_bodyview_t v[2], double t)
{
    double x, xd;
    fmb_rel_coord(f, v, &x, &xd, NULL, NULL);
    return -lg_law(f, xd, t).f * xd;
}

static void lg_reset(const fmb_force_t *f, const fmb_bodyview_t v[2], double t)
{
    /* bristles at rest, or in their steady state z = g(v) sgn(v) / sigma0 when the element
     * starts sliding (as the slider contacts, solve/start.c) */
    double x, xd;
    fmb_rel_coord(f, v, &x, &xd, NULL, NULL);
    const fmb_friction_desc_t d = lg_desc(f);
    f->state[LG_Z] = fmb_lugre_steady(&d, xd);
    f->state[LG_ZD] = 0.0;
    f->state[LG_T] = t;
}

static void lg_accept(const fmb_force_t *f, const fmb_bodyview_t v[2], double t)
{
    double x, xd;
    fmb_rel_coord(f, v, &x, &xd, NULL, NULL);
    const fmb_lugre_t o = lg_law(f, xd, t);
    f->state[LG_Z] = o.z, f->state[LG_ZD] = o.zd;
    f->state[LG_T] = t;
}

static int lg_mode(const fmb_force_t *f, const fmb_bodyview_t v[2], double t, const double *z,
                   double *force, double *vrel)
{
    (void)z;
    double x;
    fmb_rel_coord(f, v, &x, vrel, NULL, NULL);
    *force = -lg_law(f, *vrel, t).f;
    return fabs(*vrel) < lg_vstick(f) ? 0 : 1;
}

static int lg_check(const fmb_force_t *f, char *msg, size_t len)
{
    int rc = fr_check(f, msg, len);
    if (rc) return rc;
    const fmb_friction_desc_t *d = &f->fr;
    if (!(d->sigma0 > 0) || !(d->sigma1 >= 0) || !(d->sigma2 >= 0) || !(d->vs > 0) ||
        !(d->gamma > 0) || !(d->vd >= 0)) {
        snprintf(msg, len,
                 "dry_friction '%s': LuGre needs sigma0 > 0, sigma1 >= 0, sigma2 >= 0, vs > 0, "
                 "gamma > 0 and vd >= 0",
                 f->name);
        return FMB_ERR_MODEL;
    }
    return 0;
}

static const fmb_force_class_t lugre_class = {
    .name = "dry_friction",
    .nbodies = 2,
    .eval = lg_eval,
    .power = lg_power,
    .check = lg_check,
    .nstate = 3,
    .reset = lg_reset,
    .accept = lg_accept,
    .mode = lg_mode,
    .mode_names = fr_modes,
    .nmodes = 2,
};

static const fmb_force_class_t *fr_specialize(const fmb_force_desc_t *d);

/* Case keys: the levels and the law (model coulomb, the default, or lugre with its
 * parameters in the element's units, stored in the description's friction block). */
static const char *const fr_models[] = {"coulomb", "lugre", NULL};
#define FR_LUGRE(k, field, fl, d, u, text)                                                         \
    {                                                                                              \
        .key = k, .kind = FMB_PARAM_NUMBER, .flags = fl,                                           \
        .offset = offsetof(fmb_force_desc_t, friction.field), .dflt = {d}, .unit = u, .doc = text  \
    }
static const fmb_param_t fr_params[] = {
    FMB_REL_PARAMS,
    FMB_FORCE_NUM("kinetic", param[FMB_SW_FR_KINETIC], FMB_PARAM_REQUIRED | FMB_PARAM_MIN, 0, 0,
                  "N or N m", "kinetic friction level"),
    FMB_FORCE_NUM("static", param[FMB_SW_FR_STATIC], FMB_PARAM_MIN | FMB_PARAM_DERIVED, 0, 0,
                  "N or N m", "static friction level (>= kinetic; default: kinetic)"),
    FMB_FORCE_NUM("v_stick", param[FMB_SW_FR_VSTICK], FMB_PARAM_MIN_OPEN | FMB_PARAM_DERIVED, 0, 0,
                  "m/s or rad/s",
                  "relative velocity below which the element may stick (default 1e-6, lugre "
                  "1e-4: FMB_V_STICK_COULOMB, FMB_V_STICK_LUGRE)"),
    {.key = "model",
     .kind = FMB_PARAM_ENUM,
     .flags = FMB_PARAM_NAME,
     .offset = offsetof(fmb_force_desc_t, friction.model),
     .dflt_text = "coulomb",
     .choices = fr_models,
     .unit = "-",
     .doc = "friction law: coulomb (set-valued) or lugre (bristle state)"},
    FR_LUGRE("sigma0", sigma0, FMB_PARAM_MIN_OPEN, 0, "1/m",
             "bristle stiffness per unit level (lugre, required)"),
    FR_LUGRE("vs", vs, FMB_PARAM_MIN_OPEN, 0, "m/s or rad/s",
             "Stribeck velocity (lugre, required)"),
    FR_LUGRE("sigma1", sigma1, FMB_PARAM_MIN, 0, "s/m", "bristle damping (lugre)"),
    FR_LUGRE("sigma2", sigma2, FMB_PARAM_MIN, 0, "s/m", "viscous coefficient (lugre)"),
    FR_LUGRE("gamma", gamma, FMB_PARAM_MIN_OPEN, 2, "-", "Stribeck exponent (lugre)"),
    FR_LUGRE("vd", vd, FMB_PARAM_MIN, 0, "m/s", "sigma1 decay velocity (lugre; 0: constant)"),
    {0}};

static int fr_prepare(fmb_item_env_t *env, fmb_force_desc_t *d)
{
    double x0, *p = d->param;
    int rc = fmb_rel_prepare(env, d, &x0);
    if (rc) return rc;
    if (!fmb_item_given(env, "static")) p[FMB_SW_FR_STATIC] = p[FMB_SW_FR_KINETIC];
    if (p[FMB_SW_FR_STATIC] < p[FMB_SW_FR_KINETIC])
        return fmb_item_fail(env, "static", -1, "static level %g is below the kinetic level %g",
                             p[FMB_SW_FR_STATIC], p[FMB_SW_FR_KINETIC]);
    /* the law: LuGre needs sigma0 and vs; Coulomb takes none of the LuGre keys */
    static const char *const lugre_keys[] = {"sigma0", "vs", "sigma1", "sigma2", "gamma", "vd"};
    fmb_friction_desc_t *f = &d->friction;
    const int lugre = f->model && !strcmp(f->model, "lugre"), coulomb = !lugre;
    for (int k = 0; k < 6; k++) {
        const int given = fmb_item_given(env, lugre_keys[k]);
        if (coulomb && given)
            return fmb_item_fail(env, lugre_keys[k], -1, "'%s' applies to model: lugre only",
                                 lugre_keys[k]);
        if (lugre && k < 2 && !given)
            return fmb_item_fail(env, NULL, -1, "missing required key '%s'", lugre_keys[k]);
    }
    if (lugre && !(p[FMB_SW_FR_KINETIC] > 0))
        return fmb_item_fail(env, "kinetic", -1,
                             "model: lugre needs kinetic > 0 (got %g): the LuGre level tends to "
                             "it while sliding and divides the bristle rate",
                             p[FMB_SW_FR_KINETIC]);
    if (coulomb) {
        memset(f, 0, sizeof *f);
        f->model = "coulomb";
    }
    return 0;
}

const fmb_force_class_t fmb_friction_class = {
    .name = "dry_friction",
    .nbodies = 2,
    .eval = fr_eval,
    .check = fr_check,
    .step_control = fr_step_control,
    .nstate = FR_NSTATE,
    .reset = fr_reset,
    .accept = fr_accept,
    .nz = 3,
    .lcp = fr_lcp,
    .mode = fr_mode,
    .mode_names = fr_modes,
    .nmodes = 2,
    .specialize = fr_specialize,
    .case_type = "dry_friction",
    .item_flags = FMB_ITEM_BODIES | FMB_ITEM_POINTS | FMB_ITEM_DISTINCT,
    .params = fr_params,
    .prepare = fr_prepare,
};

static const fmb_force_class_t *fr_specialize(const fmb_force_desc_t *d)
{
    const char *model = d->friction.model;
    if (!model || !strcmp(model, "coulomb")) return &fmb_friction_class; /* NULL: set-valued */
    if (!strcmp(model, "lugre")) return &lugre_class;
    return NULL;
}
