/*
 * Switching elements: events inside a step and the energy of switches (docs/switching.md,
 * docs/validation.md "Switching elements"). Usage: test_switching_events NAME, NAME one of
 *   gap     a mass m at v0 on a guide crosses a gap g to a linear spring-damper stop
 *           (k, c; zeta = 0.1): contact from t1 = g / v0 (0.1 h into its step), the
 *           closed-form damped contact d(tau) until the force k d + c d' vanishes at
 *           tau_s (bisection on the closed form), then free flight:
 *           x(T) = g + d(tau_s) + d'(tau_s) (T - t1 - tau_s). Trapezoidal rule (HHT,
 *           alpha = 0). With the onset and the end located (event_tol tol) the error is
 *           at most twice (2 tol (1 + v0/|d'_s|) + (omega h)^2/12 (v0 tau_s + omega tau_s
 *           |d'_s| (T - t1 - tau_s))): the switches' tolerance plus the trapezoidal rule's
 *           phase error over the contact (as a time shift and as a speed error over the
 *           flight). Without location (tol = 0) the force jump c v0 at the onset falls
 *           inside a step, a first-order error: the same run must miss the bound (checked,
 *           so the bound is known to discriminate).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flexmb/flexmb.h"

static int failures = 0;
static const double PI = 3.14159265358979323846;

static void check(const char *what, double got, double want, double tol)
{
    const double err = fabs(got - want);
    const int ok = err <= tol;
    printf("%s %-58s got %.12g want %.12g (|err| %.3g, tol %.3g)\n", ok ? "ok  " : "FAIL", what,
           got, want, err, tol);
    if (!ok) failures++;
}

static void fail_model(fmb_model_t *m)
{
    printf("FAIL model: %s\n", fmb_model_last_error(m));
    exit(1);
}

static void run_to(fmb_sim_t *s, double t)
{
    while (fmb_sim_time(s) < t - 1e-12)
        if (fmb_sim_step(s)) {
            printf("FAIL step at t = %g: %s\n", fmb_sim_time(s), fmb_sim_last_error(s));
            exit(1);
        }
}

/* ------------------------------------------------------------------ gap */
static const double G_M = 1.0, G_K = 1e6, G_C = 200.0, G_V0 = 1.0, G_GAP = 1.2342e-3;

/* Closed-form contact from touch-down (d = 0, d' = v0): m d'' + c d' + k d = 0. */
static void contact_closed(double tau, double *d, double *dd)
{
    const double wn = sqrt(G_K / G_M), z = G_C / (2 * sqrt(G_K * G_M)), wd = wn * sqrt(1 - z * z);
    const double e = exp(-z * wn * tau);
    *d = G_V0 / wd * e * sin(wd * tau);
    *dd = G_V0 * e * (cos(wd * tau) - z * wn / wd * sin(wd * tau));
}

static double gap_run(double tol, double h, double *T, double *v_end)
{
    fmb_model_t *m = fmb_model_create();
    fmb_body_desc_t b = {
        .name = "mass", .mass = G_M, .inertia = 0.1, .vel = {G_V0, 0, 0}, .vel_given = 1};
    const int ib = fmb_model_add_body(m, &b);
    fmb_joint_desc_t j = {
        .name = "guide", .type = FMB_JOINT_PRISMATIC, .body = {ib, FMB_GROUND}, .axis = {1, 0}};
    fmb_force_desc_t gp = {.name = "stop",
                           .type = FMB_FORCE_GAP,
                           .body = {ib, FMB_GROUND},
                           .coordinate = FMB_REL_DIRECTION,
                           .axis = {1, 0},
                           .stiffness = G_K,
                           .damping = G_C,
                           .param = {-1.0, G_GAP, 0, 1, tol}};
    if (ib < 0 || fmb_model_add_joint(m, &j) < 0 || fmb_model_add_force(m, &gp) < 0) fail_model(m);
    fmb_sim_options_t o;
    fmb_sim_options_default(&o);
    o.h = h, o.t_end = *T;
    o.alpha = 0.0; /* HHT with alpha = 0: the trapezoidal rule, no numerical damping */
    fmb_sim_t *s = fmb_sim_create(m, &o);
    if (!s || fmb_sim_initialize(s)) {
        printf("FAIL start: %s\n", s ? fmb_sim_last_error(s) : "no memory");
        exit(1);
    }
    run_to(s, *T);
    *T = fmb_sim_time(s); /* the record time reached */
    const int off = fmb_model_body_offset(m, ib);
    const double x = fmb_sim_q(s)[off];
    *v_end = fmb_sim_qd(s)[off];
    fmb_sim_destroy(&s);
    fmb_model_destroy(&m);
    return x;
}

static void test_gap(void)
{
    const double h = 2e-6, tol = 1e-10;
    const double w = sqrt(G_K / G_M), t1 = G_GAP / G_V0;
    /* separation where k d + c d' = 0 (bisection on the closed form, bracketed by the
     * half period), then free flight: x(T) = g + d_s + d'_s (T - t1 - tau_s) */
    double lo = 0.5 * PI / w, hi = PI / w, ds, dds;
    for (int it = 0; it < 200; it++) {
        const double mid = 0.5 * (lo + hi);
        contact_closed(mid, &ds, &dds);
        if (G_K * ds + G_C * dds > 0) lo = mid;
        else hi = mid;
    }
    const double taus = 0.5 * (lo + hi);
    contact_closed(taus, &ds, &dds);
    double v_loc, v_no, T = 1e-3 * ceil((t1 + taus + 1e-3) / 1e-3), T2 = T;
    const double x_loc = gap_run(tol, h, &T, &v_loc);
    const double x_no = gap_run(0.0, h, &T2, &v_no);
    if (T != T2) printf("FAIL: the runs ended at different times\n"), failures++;
    const double x_ref = G_GAP + ds + dds * (T - t1 - taus);
    /* bound: both switches located to tol (a time error tol / |d'| each, times the speed);
     * the trapezoidal rule's phase error (omega h)^2 / 12 over the contact (a time shift
     * of that times tau_s, and a speed error of that times omega tau_s |d'| over the
     * flight), doubled */
    const double ph = (w * h) * (w * h) / 12;
    const double bound = 2 * tol * (1 + G_V0 / fabs(dds)) +
                         2 * ph * (G_V0 * taus + w * taus * fabs(dds) * (T - t1 - taus));
    printf("gap: t1 = %.9g s (%.3f h into its step), separation after %.9g s at %.9g m/s; "
           "x(T = %g) located %.12g, unlocated %.12g, reference %.12g, bound %.3g\n",
           t1, fmod(t1, h) / h, taus, dds, T, x_loc, x_no, x_ref, bound);
    check("gap: rebound velocity with location (m/s)", v_loc, dds, ph * w * taus * fabs(dds) * 2);
    check("gap: x(T) with the onset and end located", x_loc, x_ref, bound);
    /* the same bound without location: must be missed (the test can fail) */
    printf("gap: without location |x(T) - x_ref| = %.3g (bound %.3g)\n", fabs(x_no - x_ref), bound);
    const double miss = fabs(x_no - x_ref) > bound ? 1.0 : 0.0;
    check("gap: without location the bound is missed (1 = missed)", miss, 1.0, 0.0);
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "all";
    const int all = !strcmp(what, "all");
    if (all || !strcmp(what, "gap")) test_gap();
    printf("%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
