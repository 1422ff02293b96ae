/*
 * Revolute joint with clearance (seed 002) against independent references:
 *   static  a journal pressed by a constant load settles at the penetration solving
 *           F_K(delta) = P (seed eqs 7-8, the law re-typed here and solved by bisection),
 *           eccentricity along the load, within 0.1 %;
 *   impact  a journal thrown at the bearing wall (no gravity) rebounds with the
 *           restitution of a hand-integrated (RK4, 1e-9 s) single-DOF Lankarani-Nikravesh
 *           impact, and within 2 % of the set e; the step-size convergence is printed;
 *   energy  no damping, no friction (LN with e = 1): T + V through several impacts is
 *           conserved to the step's accuracy, the drift falling ~h^2 when h is halved;
 *   adaptive the impact and the energy run with adaptive steps started at 1e-4 s (longer
 *           than the whole contact): the joint's events (onset, penetration rate) resolve
 *           it; restitution within 1e-3 of the reference.
 *   impact_seed the seed's law with its step damping, and with Flores damping: rebound
 *           against the 1-DOF integration of the re-typed law.
 *   error_control a journal swinging inside the clearance far from the origin: the global
 *           error of its eccentricity within a few rtol_step c (the joint's own error
 *           measure), falling with the tolerance.
 *   impact_onset a journal pushed into the wall by a constant force: LN and Flores
 *           hysteresis with the impact velocity at the located onset (closed form
 *           sqrt(2 a c)), rebound against the 1-DOF integration, whatever the step.
 * Usage: test_clearance static|impact|impact_seed|impact_linear|impact_onset|error_control|energy|adaptive
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "flexmb/flexmb.h"

static int failures = 0;
static const double PI = 3.14159265358979323846;

/* Steel on steel, E 207 GPa, nu 0.3 both sides. */
static double steel_modulus(void)
{
    const double E = 207e9, nu = 0.3;
    return 1.0 / (2.0 * (1.0 - nu * nu) / E);
}

typedef struct rig {
    fmb_model_t *m;
    fmb_sim_t *s;
    int pin, force;
} rig_t;

/* A journal (rigid pin, origin at its centre) in a bearing on the ground at (0, 0). */
static int adaptive = 0;     /* 1: adaptive steps (error estimate + the joint's events) */
static double rtol_step = 0; /* adaptive: tolerance of the error estimate (0: default) */

static int rig_make(rig_t *r, const fmb_clearance_desc_t *cl, double mass, const double pose[3],
                    const double vel[3], const char *fx, const char *fy, double h, double alpha)
{
    memset(r, 0, sizeof *r);
    r->m = fmb_model_create();
    fmb_body_desc_t b = {.name = "pin", .mass = mass, .inertia = mass * 1e-4, .vel_given = 1};
    memcpy(b.pose, pose, sizeof b.pose);
    memcpy(b.vel, vel, sizeof b.vel);
    r->pin = fmb_model_add_body(r->m, &b);
    fmb_force_desc_t f = {.name = "B", .type = "clearance", .body = {r->pin, 0}};
    f.clearance = *cl;
    r->force = fmb_model_add_force(r->m, &f);
    if (r->force < 0) {
        printf("FAIL add clearance: %s\n", fmb_model_last_error(r->m));
        return -1;
    }
    if (fx) {
        fmb_force_desc_t p = {.name = "P", .type = "point", .body = {r->pin, 0}};
        p.expr[0] = fx, p.expr[1] = fy;
        if (fmb_model_add_force(r->m, &p) < 0) return -1;
    }
    fmb_sim_options_t o;
    fmb_sim_options_default(&o);
    o.h = h;
    o.alpha = alpha;
    o.t_end = 1.0;
    if (adaptive) {
        o.adaptive = 1;
        if (rtol_step > 0) o.rtol_step = rtol_step;
        o.t_end = 0.01;
        o.h_max = h;
    }
    r->s = fmb_sim_create(r->m, &o);
    if (!r->s || fmb_sim_initialize(r->s)) {
        printf("FAIL initialize: %s\n", r->s ? fmb_sim_last_error(r->s) : "no memory");
        return -1;
    }
    return 0;
}

static void rig_free(rig_t *r)
{
    fmb_sim_destroy(&r->s);
    fmb_model_destroy(&r->m);
}

static fmb_clearance_desc_t base_desc(void)
{
    fmb_clearance_desc_t c = {.law = FMB_CLEARANCE_WANG2016,
                              .clearance = 0.25e-3,
                              .bearing_radius = 10e-3,
                              .length = 10e-3,
                              .modulus = steel_modulus(),
                              .eta = 1e-3,
                              .d_max = 1e-4,
                              .exponent = 1.5,
                              .restitution = 0.9,
                              .v_min = 1e-3,
                              .v_s = 1e-4,
                              .v_d = 1e-3};
    return c;
}

/* Seed eqs 7-8: F_K = pi E* L / 2 delta sqrt(delta / (2 (c + delta))). */
static double liu_force(const fmb_clearance_desc_t *c, double d)
{
    return PI * c->modulus * c->length / 2.0 * d * sqrt(d / (2.0 * (c->clearance + d)));
}

static void test_static(void)
{
    fmb_clearance_desc_t c = base_desc();
    const double P = 500.0, dir[2] = {0.6, -0.8};
    /* independent: F_K(delta) = P by bisection */
    double lo = 0, hi = c.clearance;
    for (int k = 0; k < 200; k++) {
        double mid = 0.5 * (lo + hi);
        *(liu_force(&c, mid) < P ? &lo : &hi) = mid;
    }
    const double dref = 0.5 * (lo + hi);
    /* start touching the wall along the load, at rest; HHT damping settles the contact */
    const double pose[3] = {c.clearance * dir[0], c.clearance * dir[1], 0}, vel[3] = {0, 0, 0};
    char fx[64], fy[64];
    snprintf(fx, sizeof fx, "%.17g", P * dir[0]);
    snprintf(fy, sizeof fy, "%.17g", P * dir[1]);
    for (int law = 0; law < 2; law++) {
        c.mu_s = law ? 0.3 : 0.0, c.mu_d = law ? 0.25 : 0.0; /* friction: no effect at rest */
        rig_t r;
        if (rig_make(&r, &c, 0.5, pose, vel, fx, fy, 1e-4, -0.3)) {
            failures++;
            rig_free(&r);
            return;
        }
        int rc = 0;
        for (int k = 0; k < 1000 && !rc; k++)
            rc = fmb_sim_step(r.s);
        CHECK(rc == 0, "static: step failed: %s", fmb_sim_last_error(r.s));
        double out[8];
        fmb_sim_force_outputs(r.s, r.force, out);
        const double err = fabs(out[2] - dref) / dref;
        const double ecc = hypot(out[0], out[1]);
        const double ang = fabs(out[0] / ecc - dir[0]) + fabs(out[1] / ecc - dir[1]);
        printf("static (mu_s %.2f): penetration %.9e m, reference %.9e m, rel. error %.2e; "
               "normal force %.6f N (load %.1f N); direction error %.1e; contact %g\n",
               c.mu_s, out[2], dref, err, out[3], P, ang, out[5]);
        CHECK(err < 1e-3, "static penetration off by %.3e (tolerance 1e-3)", err);
        CHECK(fabs(out[3] - P) < 1e-3 * P, "normal force %.6f != load %.1f", out[3], P);
        CHECK(ang < 1e-6, "eccentricity not along the load (%.2e)", ang);
        CHECK(out[5] == 1.0, "contact flag %g", out[5]);
        rig_free(&r);
    }
}

/* Single-DOF LN impact, RK4: m x'' = -K x^n (1 + 3(1-e^2)/4 x'/v0), F >= 0; returns the
 * exit velocity ratio. */
static double ln_reference(double m, double K, double n, double e, double v0, double dt)
{
    const double chi = 0.75 * (1 - e * e) / v0;
    double x = 0, v = v0;
#define ACC(X, V) ((X) > 0 ? -fmax(K * pow((X), n) * (1 + chi * (V)), 0.0) / m : 0.0)
    for (long k = 0; k < 100000000L; k++) {
        double k1x = v, k1v = ACC(x, v);
        double k2x = v + 0.5 * dt * k1v, k2v = ACC(x + 0.5 * dt * k1x, v + 0.5 * dt * k1v);
        double k3x = v + 0.5 * dt * k2v, k3v = ACC(x + 0.5 * dt * k2x, v + 0.5 * dt * k2v);
        double k4x = v + dt * k3v, k4v = ACC(x + dt * k3x, v + dt * k3v);
        double xn = x + dt / 6 * (k1x + 2 * k2x + 2 * k3x + k4x);
        double vn = v + dt / 6 * (k1v + 2 * k2v + 2 * k3v + k4v);
        if (k > 0 && xn <= 0) return -vn / v0; /* free flight after: v constant */
        x = xn, v = vn;
    }
#undef ACC
    return NAN;
}

/* Single-DOF impact of the seed's law (eqs 7-11 re-typed, independent of flexmb), RK4:
 * m x'' = -max(F_K(x) + D(x) x', 0), D = STEP(x, 0, 0, d_max, eta K_N) (kind 0), or
 * -max(F_K (1 + chi x'), 0) with chi = 8 (1 - e) / (5 e v0) (kind 1, Flores et al. 2011).
 * Returns the exit velocity ratio. */
static double seed_force(const fmb_clearance_desc_t *c, int kind, double v0, double x, double v)
{
    if (!(x > 0)) return 0.0;
    const double a = PI * c->modulus * c->length / 2.0, y = x / (c->clearance + x);
    const double FK = a * x * sqrt(y / 2.0), KN = a / sqrt(2.0) * (1.5 * sqrt(y) - 0.5 * y * sqrt(y));
    double F;
    if (kind == 0) {
        const double s = fmin(x / c->d_max, 1.0);
        F = FK + c->eta * KN * s * s * (3 - 2 * s) * v;
    } else {
        const double e = c->restitution;
        F = FK * (1 + 8.0 * (1 - e) / (5.0 * e * v0) * v);
    }
    return fmax(F, 0.0);
}

static double seed_reference(const fmb_clearance_desc_t *c, int kind, double m, double v0,
                             double dt)
{
    double x = 0, v = v0;
#define SACC(X, V) (-seed_force(c, kind, v0, (X), (V)) / m)
    for (long k = 0; k < 100000000L; k++) {
        double k1x = v, k1v = SACC(x, v);
        double k2x = v + 0.5 * dt * k1v, k2v = SACC(x + 0.5 * dt * k1x, v + 0.5 * dt * k1v);
        double k3x = v + 0.5 * dt * k2v, k3v = SACC(x + 0.5 * dt * k2x, v + 0.5 * dt * k2v);
        double k4x = v + dt * k3v, k4v = SACC(x + dt * k3x, v + dt * k3v);
        double xn = x + dt / 6 * (k1x + 2 * k2x + 2 * k3x + k4x);
        double vn = v + dt / 6 * (k1v + 2 * k2v + 2 * k3v + k4v);
        if (k > 0 && xn <= 0) return -vn / v0;
        x = xn, v = vn;
    }
#undef SACC
    return NAN;
}

/* Rebound ratio of the journal thrown at v0 along -y from the bearing centre. */
static double flexmb_rebound(const fmb_clearance_desc_t *c, double m, double v0, double h,
                             long *steps)
{
    rig_t r;
    const double pose[3] = {0, 0, 0}, vel[3] = {0, -v0, 0};
    if (rig_make(&r, c, m, pose, vel, NULL, NULL, h, 0.0)) {
        failures++;
        rig_free(&r);
        return NAN;
    }
    int was = 0, rc = 0;
    double e = NAN;
    for (long k = 0; k < 10000000L && !rc; k++) {
        rc = fmb_sim_step(r.s);
        double out[8];
        fmb_sim_force_outputs(r.s, r.force, out);
        if (out[5] > 0) was = 1;
        if (was && out[5] == 0) {
            e = fmb_sim_qd(r.s)[1] / v0;
            break;
        }
    }
    CHECK(rc == 0, "impact: step failed: %s", fmb_sim_last_error(r.s));
    fmb_sim_stats_t st;
    fmb_sim_get_stats(r.s, &st);
    *steps = st.steps;
    rig_free(&r);
    return e;
}

static void test_impact(void)
{
    fmb_clearance_desc_t c = base_desc();
    c.law = FMB_CLEARANCE_LANKARANI;
    c.clearance = 0.5e-3;
    const double m = 0.1, v0 = 0.5;
    const double RB = c.bearing_radius, RJ = RB - c.clearance;
    const double K = 4.0 / 3.0 * c.modulus * sqrt(RB * RJ / c.clearance);
    const double dmax = pow(5.0 * m * v0 * v0 / (4.0 * K), 0.4); /* Hertz, undamped */
    printf("impact: K = %.4e N/m^1.5, Hertz max penetration %.3e m, contact time ~%.3e s\n", K,
           dmax, 3.21 * dmax / v0);
    const double es[2] = {0.9, 0.7};
    for (int ie = 0; ie < 2; ie++) {
        c.restitution = es[ie];
        const double eref = ln_reference(m, K, 1.5, es[ie], v0, 1e-9);
        double prev = NAN;
        for (int k = 0; k < 3; k++) {
            const double h = 4e-6 / (1 << (2 * k));
            long steps = 0;
            const double e = flexmb_rebound(&c, m, v0, h, &steps);
            printf("impact e_set %.2f: h %.2e s, %ld steps: e %.6f, 1-DOF RK4 reference %.6f "
                   "(diff %.2e), vs set value %+.2f %%\n",
                   es[ie], h, steps, e, eref, fabs(e - eref), 100 * (e - es[ie]) / es[ie]);
            if (k == 2) {
                CHECK(fabs(e - eref) < 2e-3, "rebound %.6f vs reference %.6f", e, eref);
                /* LN's law is derived for e near 1 (Lankarani & Nikravesh 1990): the set
                 * value is recovered within 2 % at e = 0.9; at e = 0.7 the law itself gives
                 * ~0.80 (the reference above says so too) */
                if (es[ie] >= 0.85)
                    CHECK(fabs(e - es[ie]) < 0.02 * es[ie], "rebound %.6f vs set %.2f beyond 2 %%",
                          e, es[ie]);
                CHECK(fabs(e - eref) < fabs(prev - eref) + 1e-5,
                      "no convergence with h: %.2e then %.2e", fabs(prev - eref), fabs(e - eref));
            }
            prev = e;
        }
    }
}

/* Hysteresis impact under a constant push towards the wall: m x'' = m a - F_K (1 + chi x')
 * (x the penetration, LN chi = 3 (1 - e^2) / (4 v_imp), Flores 8 (1 - e) / (5 e v_imp)),
 * v_imp the speed at the onset x = 0; RK4 from x = 0, returns the exit speed / v_imp. */
static double push_reference(double m, double K, double a, double chi, double v0, double dt)
{
    double x = 0, v = v0;
#define PACC(X, V) ((X) > 0 ? a - fmax(K * pow((X), 1.5) * (1 + chi * (V)), 0.0) / m : a)
    for (long k = 0; k < 100000000L; k++) {
        double k1x = v, k1v = PACC(x, v);
        double k2x = v + 0.5 * dt * k1v, k2v = PACC(x + 0.5 * dt * k1x, v + 0.5 * dt * k1v);
        double k3x = v + 0.5 * dt * k2v, k3v = PACC(x + 0.5 * dt * k2x, v + 0.5 * dt * k2v);
        double k4x = v + dt * k3v, k4v = PACC(x + dt * k3x, v + dt * k3v);
        double xn = x + dt / 6 * (k1x + 2 * k2x + 2 * k3x + k4x);
        double vn = v + dt / 6 * (k1v + 2 * k2v + 2 * k3v + k4v);
        if (k > 0 && xn <= 0) { /* the exit speed at x = 0, linear between the two points */
            const double th = x / (x - xn);
            return -(v + th * (vn - v)) / v0;
        }
        x = xn, v = vn;
    }
#undef PACC
    return NAN;
}

/* Impact velocity at the located onset: a 0.1 kg journal at rest at the bearing centre is
 * pushed towards the wall by 100 N (a = 1000 m/s^2), so it meets the wall (c = 0.4 mm) at
 * v_imp = sqrt(2 a c) = 0.894 m/s, and gains a h in a step h of the approach (10 % at
 * h = 1e-4 s). Hertz contact with LN (e = 0.9) and Flores (e = 0.5) hysteresis, adaptive
 * steps with h_max 1e-4 .. 1e-5 s (the approach is exact for any step: constant force).
 * The exit speed at the wall, from a state in free flight after the contact by the constant
 * force's energy, v_out^2 = v^2 + 2 a (-delta), over v_imp against the 1-DOF RK4 integration
 * from the onset at the closed-form v_imp. */
static void test_impact_onset(void)
{
    adaptive = 1;
    fmb_clearance_desc_t c = base_desc();
    c.law = FMB_CLEARANCE_LANKARANI;
    c.clearance = 0.4e-3;
    const double m = 0.1, a = 1000.0, vimp = sqrt(2 * a * c.clearance);
    const double RB = c.bearing_radius, RJ = RB - c.clearance;
    const double K = 4.0 / 3.0 * c.modulus * sqrt(RB * RJ / c.clearance);
    for (int kind = 0; kind < 2; kind++) {
        c.damping = kind ? FMB_CLEARANCE_DAMPING_FLORES : FMB_CLEARANCE_DAMPING_LN;
        const double e_set = kind ? 0.5 : 0.9;
        c.restitution = e_set;
        const double chi = kind ? 1.6 * (1 - e_set) / (e_set * vimp)
                                : 0.75 * (1 - e_set * e_set) / vimp;
        const double eref = push_reference(m, K, a, chi, vimp, 1e-9);
        const double hs[3] = {1e-4, 3e-5, 1e-5};
        for (int k = 0; k < 3; k++) {
            rig_t r;
            const double pose[3] = {0, 0, 0}, vel[3] = {0, 0, 0};
            if (rig_make(&r, &c, m, pose, vel, "0", "-100", hs[k], 0.0)) {
                failures++;
                rig_free(&r);
                return;
            }
            int was = 0, rc = 0, after = 0;
            double e = NAN;
            for (long n = 0; n < 1000000L && !rc; n++) {
                rc = fmb_sim_step(r.s);
                double out[8];
                fmb_sim_force_outputs(r.s, r.force, out);
                if (out[5] > 0) was = 1;
                if (was && out[5] == 0 && ++after == 2) { /* a step into free flight */
                    const double vy = fmb_sim_qd(r.s)[1];
                    e = sqrt(vy * vy + 2 * a * (-out[2])) / vimp;
                    CHECK(vy > 0, "impact_onset: not moving away (%g m/s)", vy);
                    break;
                }
            }
            CHECK(rc == 0, "impact_onset: step failed: %s", fmb_sim_last_error(r.s));
            printf("impact_onset %s e_set %.1f: h_max %.0e s: e %.6f, 1-DOF reference %.6f "
                   "(diff %.2e)\n",
                   kind ? "flores" : "lankarani_nikravesh", e_set, hs[k], e, eref,
                   fabs(e - eref));
            CHECK(fabs(e - eref) < 4e-4, "impact_onset: rebound %.6f vs reference %.6f", e, eref);
            rig_free(&r);
        }
    }
    adaptive = 0;
}

/* Error control on the joint's own coordinates: a 0.1 kg journal swings inside a bearing of
 * c = 0.5 mm on the ground at (0.17, 0) m (where the seed's slider sits), without touching:
 * pushed by m a0 sin(w t) (a0 = 2000 m/s^2, w = 1000 pi rad/s) from the centre at
 * -a0 / w, its eccentricity is e_x = -(a0 / w^2) sin(w t) (amplitude 0.2 mm). Adaptive
 * steps, h_max 1e-4 s, 10 ms (5 periods), trapezoidal rule: the bodies' coordinates alone
 * (tolerance atol_step + rtol_step 0.17 m) accept 1e-4 s steps and miss the swing; with the
 * joint's error measure (eccentricity over c) the global error of e stays within a few
 * rtol_step c, and falls with the tolerance. */
static double swing_error(double rtol, long *steps)
{
    const double m = 0.1, a0 = 2000.0, w = 1000.0 * PI, x0 = 0.17;
    fmb_clearance_desc_t c = base_desc();
    c.law = FMB_CLEARANCE_LANKARANI;
    c.damping = FMB_CLEARANCE_DAMPING_LN;
    c.clearance = 0.5e-3;
    fmb_model_t *md = fmb_model_create();
    fmb_body_desc_t b = {.name = "pin", .mass = m, .inertia = m * 1e-4, .vel_given = 1};
    b.pose[0] = x0;
    b.vel[0] = -a0 / w;
    const int pin = fmb_model_add_body(md, &b);
    fmb_force_desc_t f = {.name = "B", .type = "clearance", .body = {pin, 0}};
    f.point[1][0] = x0;
    f.clearance = c;
    const int force = fmb_model_add_force(md, &f);
    fmb_force_desc_t p = {.name = "P", .type = "point", .body = {pin, 0}};
    p.expr[0] = "200*sin(1000*pi*t)", p.expr[1] = "0";
    fmb_model_add_force(md, &p);
    fmb_sim_options_t o;
    fmb_sim_options_default(&o);
    o.h = o.h_max = 1e-4;
    o.alpha = 0.0;
    o.t_end = 0.01;
    o.adaptive = 1;
    o.rtol_step = rtol;
    fmb_sim_t *s = fmb_sim_create(md, &o);
    double err = NAN;
    if (force < 0 || !s || fmb_sim_initialize(s)) {
        printf("FAIL swing rig: %s\n", s ? fmb_sim_last_error(s) : fmb_model_last_error(md));
        failures++;
    } else {
        int rc = 0;
        err = 0.0;
        for (int k = 0; k < 100 && !rc; k++) {
            rc = fmb_sim_step(s);
            double out[8];
            fmb_sim_force_outputs(s, force, out);
            const double t = fmb_sim_time(s), ex = -(a0 / (w * w)) * sin(w * t);
            CHECK(out[5] == 0, "swing: the journal touched the wall at t = %g", t);
            err = fmax(err, fabs(out[0] - ex));
        }
        CHECK(rc == 0, "swing: step failed: %s", fmb_sim_last_error(s));
        fmb_sim_stats_t st;
        fmb_sim_get_stats(s, &st);
        *steps = st.steps;
    }
    fmb_sim_destroy(&s);
    fmb_model_destroy(&md);
    return err;
}

static void test_error_control(void)
{
    const double c = 0.5e-3, tols[2] = {1e-3, 1e-4};
    double err[2];
    for (int k = 0; k < 2; k++) {
        long steps = 0;
        err[k] = swing_error(tols[k], &steps);
        printf("error_control rtol_step %.0e: %ld steps, max |e_x - exact| %.3e m = %.2f "
               "rtol_step c\n",
               tols[k], steps, err[k], err[k] / (tols[k] * c));
        if (k == 0)
            CHECK(err[k] < 5 * tols[k] * c, "swing: eccentricity error %.3e beyond 5 rtol_step c",
                  err[k]);
    }
    CHECK(err[1] < 0.3 * err[0], "swing: error %.3e -> %.3e does not follow the tolerance",
          err[0], err[1]);
}

/* The linear viscoelastic law F_N = K delta + c ddelta: a journal (0.1 kg) thrown at
 * v0 = 0.5 m/s from the bearing centre meets the wall as a damped oscillator,
 * delta = (v0 / wd) e^(-s tau) sin(wd tau), s = c / 2m, wd^2 = K/m - s^2. Unclamped the
 * contact lasts pi / wd and returns e = exp(-s pi / wd); clamped it lets go where
 * K delta + c ddelta = 0, tan(wd tau) = -c wd / (K - c s), at the velocity ddelta there
 * (then free flight out of the wall). flexmb's rebound at three steps against these. */
static void test_impact_linear(void)
{
    fmb_clearance_desc_t c = base_desc();
    c.law = FMB_CLEARANCE_LINEAR;
    c.clearance = 0.5e-3;
    c.stiffness = 1e7, c.viscous = 200;
    const double m = 0.1, v0 = 0.5, K = c.stiffness, cv = c.viscous;
    const double sg = cv / (2 * m), wd = sqrt(K / m - sg * sg);
    const double e_un = exp(-sg * PI / wd);
    const double tr = (PI - atan(cv * wd / (K - cv * sg))) / wd;
    const double e_cl = -exp(-sg * tr) * (wd * cos(wd * tr) - sg * sin(wd * tr)) / wd;
    for (int un = 0; un < 2; un++) {
        c.unclamped = un;
        const double eref = un ? e_un : e_cl;
        double err[3];
        for (int k = 0; k < 3; k++) {
            const double h = 4e-6 / (1 << (2 * k));
            long steps = 0;
            const double e = flexmb_rebound(&c, m, v0, h, &steps);
            err[k] = fabs(e - eref);
            printf("impact_linear %s: h %.2e s, %ld steps: e %.8f, closed form %.8f (diff %.2e)\n",
                   un ? "unclamped" : "clamped", h, steps, e, eref, err[k]);
        }
        CHECK(err[2] < 1e-3 * eref, "%s: rebound error %.2e beyond 1e-3 of %.6f",
              un ? "unclamped" : "clamped", err[2], eref);
        CHECK(err[2] < err[0], "%s: no convergence with h: %.2e then %.2e",
              un ? "unclamped" : "clamped", err[0], err[2]);
    }
}

/* The seed's own law with its step damping (c = 0.1 mm, 0.07 kg at 0.45 m/s: the
 * slider-crank's start impact, ~6 um deep, where the ramp over d_max = 0.1 mm is at ~1 %)
 * and at 0.05 m/s (a rattle impact: nearly elastic), and the Flores hysteresis damping
 * (e = 0.5) on the same elastic law: flexmb's rebound against the 1-DOF integration of the
 * re-typed law (bench/clearance_impact_1dof.py tabulates more of these). */
static void test_impact_seed(void)
{
    fmb_clearance_desc_t c = base_desc();
    c.clearance = 0.1e-3;
    const double m = 0.07;
    const struct {
        int kind;
        double v0, h, tol;
    } cases[3] = {{0, 0.45, 2.5e-7, 5e-4}, {0, 0.05, 1e-6, 5e-4}, {1, 0.45, 2.5e-7, 5e-4}};
    for (int k = 0; k < 3; k++) {
        c.damping = cases[k].kind ? FMB_CLEARANCE_DAMPING_FLORES : FMB_CLEARANCE_DAMPING_DEFAULT;
        c.restitution = 0.5;
        const double eref = seed_reference(&c, cases[k].kind, m, cases[k].v0, 1e-9);
        long steps = 0;
        const double e = flexmb_rebound(&c, m, cases[k].v0, cases[k].h, &steps);
        printf("seed law, %s damping, v0 %.2f m/s: h %.1e s, %ld steps, e %.6f, 1-DOF RK4 "
               "reference %.6f (diff %.2e)\n",
               cases[k].kind ? "Flores e = 0.5" : "step (eta 1e-3 s, d_max 0.1 mm)", cases[k].v0,
               cases[k].h, steps, e, eref, fabs(e - eref));
        CHECK(fabs(e - eref) < cases[k].tol, "seed-law rebound %.6f vs reference %.6f", e, eref);
    }
}

/* No damping or friction: max |E(t) - E(0)| / T0 over 3 ms in free flight between the
 * impacts (several, at an angle); inside a contact the trapezoidal rule's energy error of
 * the nonlinear spring comes and goes with the phase of the step points. */
static double energy_drift(double h, long *steps)
{
    fmb_clearance_desc_t c = base_desc();
    c.law = FMB_CLEARANCE_LANKARANI;
    c.restitution = 1.0;
    c.clearance = 0.1e-3;
    rig_t r;
    const double pose[3] = {0, 0, 0}, vel[3] = {0.3, -0.4, 5.0};
    if (rig_make(&r, &c, 0.1, pose, vel, NULL, NULL, h, 0.0)) {
        failures++;
        rig_free(&r);
        return NAN;
    }
    double e0[4], e[4], drift = 0.0;
    fmb_sim_energy(r.s, e0);
    int rc = 0, impacts = 0, was = 0;
    const long n = (long)(3e-3 / h + 0.5);
    for (long k = 0; k < n && !rc; k++) {
        rc = fmb_sim_step(r.s);
        fmb_sim_energy(r.s, e);
        double out[8];
        fmb_sim_force_outputs(r.s, r.force, out);
        if (out[5] == 0) /* through impacts: the energy in free flight between them */
            drift = fmax(drift, fabs(e[3] - e0[3]) / e0[0]);
        if (out[5] > 0 && !was) impacts++;
        was = out[5] > 0;
    }
    CHECK(rc == 0, "energy: step failed: %s", fmb_sim_last_error(r.s));
    if (!adaptive) CHECK(impacts >= 3, "energy: only %d impacts", impacts); /* sampled per h */
    fmb_sim_stats_t st;
    fmb_sim_get_stats(r.s, &st);
    *steps = st.steps;
    printf("energy%s: h %.2e s, %ld steps, %d impacts: max |dE| / T0 = %.3e\n",
           adaptive ? " (adaptive)" : "", h, st.steps, impacts, drift);
    rig_free(&r);
    return drift;
}

static void test_energy(void)
{
    long s1, s2, s3;
    const double d1 = energy_drift(2e-6, &s1), d2 = energy_drift(1e-6, &s2),
                 d3 = energy_drift(5e-7, &s3);
    const double o1 = log(d1 / d2) / log(2.0), o2 = log(d2 / d3) / log(2.0);
    printf("energy: observed orders %.2f, %.2f\n", o1, o2);
    /* conserved to the step's accuracy: the drift falls at the trapezoidal rule's order */
    CHECK(o1 > 1.5 && o2 > 1.5, "energy drift orders %.2f, %.2f below 1.5", o1, o2);
    CHECK(d3 < 1e-3, "energy drift %.3e >= 1e-3 at h = 5e-7", d3);
}

/* Adaptive steps with the joint's events: the impact of test_impact and the energy run of
 * test_energy, started with a step larger than the whole contact (1e-4 s vs ~75 us). */
static void test_adaptive(void)
{
    adaptive = 1;
    fmb_clearance_desc_t c = base_desc();
    c.law = FMB_CLEARANCE_LANKARANI;
    c.clearance = 0.5e-3;
    c.restitution = 0.9;
    const double m = 0.1, v0 = 0.5;
    const double RB = c.bearing_radius, RJ = RB - c.clearance;
    const double K = 4.0 / 3.0 * c.modulus * sqrt(RB * RJ / c.clearance);
    const double eref = ln_reference(m, K, 1.5, 0.9, v0, 1e-9);
    const double tols[3] = {1e-3, 1e-4, 1e-5};
    for (int k = 0; k < 3; k++) {
        rtol_step = tols[k];
        long steps = 0;
        const double e = flexmb_rebound(&c, m, v0, 1e-4, &steps);
        printf("adaptive impact rtol_step %.0e: %ld steps, e %.6f, reference %.6f (diff %.2e)\n",
               tols[k], steps, e, eref, fabs(e - eref));
        if (k == 2) CHECK(fabs(e - eref) < 1e-3, "adaptive rebound %.6f vs %.6f", e, eref);
    }
    /* energy through 7 impacts: the event rules' accuracy (restitution ~1.5e-4 off above,
     * i.e. ~3e-4 of the energy per impact) bounds it, not the error tolerance */
    rtol_step = 1e-3;
    long steps;
    const double d = energy_drift(1e-4, &steps);
    CHECK(d < 5e-3, "adaptive energy drift %.3e over 7 impacts >= 5e-3", d);
    adaptive = 0;
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "all";
    const int all = !strcmp(what, "all");
    if (all || !strcmp(what, "static")) test_static();
    if (all || !strcmp(what, "impact")) test_impact();
    if (all || !strcmp(what, "impact_seed")) test_impact_seed();
    if (all || !strcmp(what, "impact_linear")) test_impact_linear();
    if (all || !strcmp(what, "impact_onset")) test_impact_onset();
    if (all || !strcmp(what, "error_control")) test_error_control();
    if (all || !strcmp(what, "energy")) test_energy();
    if (all || !strcmp(what, "adaptive")) test_adaptive();
    printf("%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
