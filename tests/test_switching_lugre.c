/*
 * LuGre dry friction element (docs/switching.md "LuGre", docs/validation.md) against hand
 * solutions. Flywheel J pinned to the ground, brake torque by `dry_friction` with
 * `model: lugre`: Stribeck curve g(w) = Tk + (Ts - Tk) exp(-(w/ws)^2), bristle stiffness
 * sigma0 (N m/rad), damping sigma1 (critical for the presliding oscillation,
 * 2 sqrt(sigma0 J)), viscous sigma2. Usage: test_switching_lugre NAME with NAME one of
 *   stop    from omega0 the wheel stops near the Coulomb time t_C = J omega0 / Tk. Bracket
 *           from the momentum balance J omega0 = int f dt = sigma0 int z dt + sigma1 z(t_s):
 *           while sliding, z rises from 0 to g(w)/sigma0 within g/(sigma0 w) and then lags
 *           below g(w)/sigma0 >= Tk/sigma0, so f >= Tk (up to the start-up transient,
 *           O(Tk / (sigma0 omega0)) s) and t_s <= t_C (+ one step to see the crossing);
 *           f <= g(w) + sigma1 zd gives t_C - t_s <= J (Ts - Tk) ws sqrt(pi) / (2 Tk^2)
 *           + sigma1 Ts / (sigma0 Tk) (the Stribeck excess integrated over w, plus the
 *           impulse sigma1 z(t_s) <= sigma1 Ts / sigma0).
 *   hold    at rest, a torque ramped slowly to T1 (Tk < T1 < Ts: above the kinetic level,
 *           Coulomb-kinetic would slide) is held: quasi-static presliding with w > 0 and
 *           |w| << ws, so g = Ts and dz = dtheta (1 - sigma0 z / Ts), z = T1 / sigma0 at
 *           rest: theta = -(Ts / sigma0) ln(1 - T1 / Ts) (2.15 T1 / sigma0 for T1/Ts =
 *           5/6; the linear estimate T1 / sigma0 is a lower bound), to the discretization
 *           of the bristle map, sigma0 dtheta / (2 Ts) per step (relative); then no creep.
 *   stribeck  a heavy flywheel sliding at nearly constant w: steady friction torque
 *           -(g(w) + sigma2 w) (the LuGre steady state, z = g / sigma0) at w from 0.3 ws
 *           to 100 ws, to twice the lag of z behind the slowly varying g(w),
 *           |g'(w) w'| (g / (sigma0 w) + h).
 * Each fails with the law broken: levels swapped, the exponent on the wrong side, a
 * forward-Euler z (unstable at sigma0 h / J >> 1), z not kept between steps.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flexmb/flexmb.h"

#include "check.h"

static int failures = 0;
static const double PI = 3.14159265358979323846;

/* law parameters */
static const double Tk = 2, Ts = 3, ws = 0.01, sigma0 = 1e5;

typedef struct rig {
    fmb_model_t *m;
    fmb_sim_t *s;
    int body, off, brake;
} rig_t;

static rig_t rig(double J, double w0, const char *load, double sigma1, double sigma2, double h,
                 double t_end)
{
    rig_t r;
    r.m = fmb_model_create();
    fmb_body_desc_t b = {.name = "wheel",
                         .mass = 1,
                         .inertia = J,
                         .pose = {0, 0, 0},
                         .vel = {0, 0, w0},
                         .vel_given = 1};
    r.body = fmb_model_add_body(r.m, &b);
    fmb_joint_desc_t j = {.name = "pin",
                          .type = "revolute",
                          .body = {r.body, FMB_GROUND},
                          .point = {{0, 0}, {0, 0}}};
    fmb_force_desc_t fr = {.name = "brake",
                           .type = "dry_friction",
                           .body = {r.body, FMB_GROUND},
                           .coordinate = FMB_REL_ROTATION,
                           .param = {Ts, Tk, 1e-6},
                           .friction = {.model = "lugre",
                                        .sigma0 = sigma0,
                                        .sigma1 = sigma1,
                                        .sigma2 = sigma2,
                                        .vs = ws,
                                        .gamma = 2}};
    fmb_force_desc_t tq = {
        .name = "load", .type = "torque", .body = {r.body, FMB_GROUND}, .expr = {load}};
    if (r.body < 0 || fmb_model_add_joint(r.m, &j) < 0 ||
        (r.brake = fmb_model_add_force(r.m, &fr)) < 0 || fmb_model_add_force(r.m, &tq) < 0) {
        printf("FAIL model: %s\n", fmb_model_last_error(r.m));
        exit(1);
    }
    r.off = fmb_model_body_offset(r.m, r.body);
    fmb_sim_options_t o;
    fmb_sim_options_default(&o);
    o.h = h, o.t_end = t_end;
    r.s = fmb_sim_create(r.m, &o);
    if (!r.s || fmb_sim_initialize(r.s)) {
        printf("FAIL start: %s\n", r.s ? fmb_sim_last_error(r.s) : "no memory");
        exit(1);
    }
    return r;
}

static void step(rig_t *r)
{
    if (fmb_sim_step(r->s)) {
        printf("FAIL step at t = %g: %s\n", fmb_sim_time(r->s), fmb_sim_last_error(r->s));
        exit(1);
    }
}

static void done(rig_t *r)
{
    fmb_sim_destroy(&r->s);
    fmb_model_destroy(&r->m);
}

static double omega(const rig_t *r)
{
    return fmb_sim_qd(r->s)[r->off + 2];
}

static double angle(const rig_t *r)
{
    return fmb_sim_q(r->s)[r->off + 2];
}

static double stribeck(double w)
{
    return Tk + (Ts - Tk) * exp(-(w / ws) * (w / ws));
}

static void test_stop(void)
{
    const double J = 0.5, w0 = 10, h = 1e-3, s1 = 2 * sqrt(sigma0 * J);
    rig_t r = rig(J, w0, "0", s1, 0, h, 3);
    const double tC = J * w0 / Tk;
    const double dmax = J * (Ts - Tk) * ws * sqrt(PI) / (2 * Tk * Tk) + s1 * Ts / (sigma0 * Tk);
    double t_stop = -1, fmin_slide = INFINITY;
    while (fmb_sim_time(r.s) < 3 - 1e-9) {
        step(&r);
        const double t = fmb_sim_time(r.s);
        if (t_stop < 0 && omega(&r) <= 0) t_stop = t;
        if (t_stop < 0 && t > 0.01) { /* after the bristle start-up, while sliding */
            double F;
            fmb_sim_switch_state(r.s, r.brake, NULL, &F, NULL);
            fmin_slide = fmin(fmin_slide, -F);
        }
    }
    printf("stop: t_s = %.6f, Coulomb t_C = %.6f, bracket [t_C - %.6f, t_C + h]\n", t_stop, tC,
           dmax);
    CHECK_NEAR("stop: t_s within [t_C - dmax, t_C + h] (centre)", t_stop, tC - 0.5 * (dmax - h),
               0.5 * (dmax + h));
    CHECK_NEAR("stop: friction while sliding >= Tk (min - Tk >= 0)", fmin(fmin_slide - Tk, 0.0),
               0.0, 1e-12 * Tk);
    /* at rest afterwards, no load: the bristles unload, the wheel ends at rest (|w| small) */
    CHECK_NEAR("stop: at rest at 3 s (|omega|)", fabs(omega(&r)), 0.0, 1e-9);
    done(&r);
}

static void test_hold(void)
{
    /* presliding stiffness sigma0 c and damping sigma1 c, c = dz/dtheta = 1 - sigma0 z/Ts:
     * damping ratio sqrt(c) sigma1 / (2 sqrt(sigma0 J)), >= 1 up to T1 with this sigma1
     * (no velocity reversal, which would leave the monotone-loading branch); the load
     * rises with the cubic step (zero rate at both ends) */
    const double J = 0.5, h = 1e-3, T1 = 2.5, s1 = 2 * sqrt(sigma0 * J / (1 - T1 / Ts));
    rig_t r = rig(J, 0, "step(t, 0, 0, 1, 2.5)", s1, 0, h, 3);
    double wmax = 0, wmin = 0;
    while (fmb_sim_time(r.s) < 2 - 1e-9) {
        step(&r);
        wmax = fmax(wmax, omega(&r)), wmin = fmin(wmin, omega(&r));
    }
    const double th = -(Ts / sigma0) * log(1 - T1 / Ts);
    const double dth = 1.1 * wmax * h; /* largest angle step */
    printf("hold: theta = %.9g, hand %.9g, linear T1/sigma0 = %.9g, max omega %.3g (ws %.3g)\n",
           angle(&r), th, T1 / sigma0, wmax, ws);
    CHECK_NEAR("hold: quasi-static loading (omega >= 0 throughout)", wmin, 0.0, 1e-12);
    CHECK_NEAR("hold: presliding angle -(Ts/sigma0) ln(1 - T1/Ts)", angle(&r), th,
               th * (sigma0 * dth / (2 * Ts) + (wmax / ws) * (wmax / ws)) + 1e-12);
    double F;
    fmb_sim_switch_state(r.s, r.brake, NULL, &F, NULL);
    CHECK_NEAR("hold: friction torque = -T1", F, -T1, 1e-9 * T1);
    const double th2 = angle(&r);
    while (fmb_sim_time(r.s) < 3 - 1e-9)
        step(&r);
    CHECK_NEAR("hold: no creep over 1 s (rad)", angle(&r) - th2, 0.0, 1e-13);
    done(&r);
}

static void test_stribeck(void)
{
    const double J = 1e6, h = 1e-3, s2 = 0.5; /* slows by < 3e-6 rad/s over 1 s */
    const double speeds[] = {0.3 * ws, ws, 1.7 * ws, 3 * ws, 100 * ws};
    for (size_t k = 0; k < sizeof speeds / sizeof speeds[0]; k++) {
        rig_t r = rig(J, speeds[k], "0", 0, s2, h, 1);
        while (fmb_sim_time(r.s) < 1 - 1e-9)
            step(&r);
        double F, v;
        fmb_sim_switch_state(r.s, r.brake, NULL, &F, &v);
        const double want = -(stribeck(v) + s2 * v);
        char what[96];
        snprintf(what, sizeof what, "stribeck: torque at w = %.3g ws = -(g(w) + sigma2 w)",
                 speeds[k] / ws);
        /* z lags g(w) / sigma0 while w slows at w' = F / J: by |g'(w) w'| / sigma0 times the
         * bristle time g / (sigma0 w) (+ h for the backward-Euler step); twice that */
        const double x = v / ws, dg = 2 * (Ts - Tk) * x / ws * exp(-x * x);
        const double lag = dg * fabs(F / J) * (stribeck(v) / (sigma0 * v) + h);
        CHECK_NEAR(what, F, want, 2 * lag + 1e-12 * fabs(want));
        CHECK_NEAR("stribeck: velocity reported = omega", v, omega(&r), 1e-15);
        done(&r);
    }
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "all";
    const int all = !strcmp(what, "all");
    if (all || !strcmp(what, "stop")) test_stop();
    if (all || !strcmp(what, "hold")) test_hold();
    if (all || !strcmp(what, "stribeck")) test_stribeck();
    printf("%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
